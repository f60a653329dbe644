"""A game as the hall knows it: the record a board publishes, and its PGN.

A :class:`GameRecord` is pure data (no rules, no I/O): the board and game numbers, the PGN
headers, the moves in SAN and UCI, the position and the result. The board builds one from
its snapshot; the hall reads it back from JSON and writes the round's PGN from it, so both
sides write the same PGN:

>>> r = GameRecord(board=3, game=12, headers={"Event": "Club night", "White": "Ann"},
...                moves=("e4", "e5", "Nf3"), ucis=("e2e4", "e7e5", "g1f3"))
>>> print(r.pgn())
[Event "Club night"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "Ann"]
[Black "?"]
[Result "*"]
[Board "3"]
<BLANKLINE>
1. e4 e5 2. Nf3 *
<BLANKLINE>
>>> GameRecord.from_json(r.to_json()) == r
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules import STARTING_FEN
from rules.pgn import RESULTS, SEVEN_TAG_ROSTER

_UNSET = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?", "Black": "?"}
#: Header values that say "not known" rather than a name.
PLACEHOLDERS = frozenset({"", "?", "-", "????.??.??"})
LINE_WIDTH = 80


def is_set(value: str | None) -> bool:
    """Whether a header value says something (not empty, not a PGN placeholder).

    >>> is_set("Ann"), is_set("?"), is_set("")
    (True, False, False)
    """
    return value is not None and value.strip() not in PLACEHOLDERS


@dataclass(frozen=True)
class GameRecord:
    """One game of one board, as published under ``<prefix>/board/<board>/game/<game>``.

    ``headers`` are the game's PGN tags except ``Result`` (from ``result``), ``Board``
    (from ``board``) and ``SetUp``/``FEN`` (from ``start_fen``). ``started`` is when the
    game began (UTC, ISO 8601), ``""`` when not known.
    """

    board: int
    game: int
    headers: Mapping[str, str] = field(default_factory=dict)
    moves: tuple[str, ...] = ()
    ucis: tuple[str, ...] = ()
    start_fen: str = STARTING_FEN
    fen: str = STARTING_FEN
    result: str = "*"
    termination: str | None = None
    started: str = ""
    #: The players' clocks in ms after the last move (``{"white": .., "black": ..}``),
    #: when the game has clocks.
    clocks: Mapping[str, int] | None = None
    #: Each move's clock (``%clk``: the mover's time left after it, in ms; None where the
    #: move has none), one per move, or empty when the game has no clock.
    clks: tuple[int | None, ...] = ()

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def round(self) -> str:
        """The game's ``Round`` tag, ``""`` when not set."""
        value = self.headers.get("Round", "")
        return value if is_set(value) else ""

    def tags(self) -> dict[str, str]:
        """Every PGN tag of the game, in the order the PGN writes them."""
        tags = {name: self.headers.get(name) or _UNSET.get(name, "?") for name in SEVEN_TAG_ROSTER}
        tags["Result"] = self.result
        tags["Board"] = str(self.board)
        if self.start_fen != STARTING_FEN:
            tags["SetUp"] = "1"
            tags["FEN"] = self.start_fen
        for name, value in self.headers.items():
            if name not in tags and name not in ("SetUp", "FEN"):
                tags[name] = value
        return tags

    def pgn(self, extra: Mapping[str, str] | None = None) -> str:
        """The game as PGN text (``extra`` tags override the record's), ending in a
        blank line so that games concatenate into one file."""
        tags = self.tags()
        tags.update(extra or {})
        lines = [f'[{name} "{_quote(value)}"]' for name, value in tags.items()]
        moves = movetext(self.start_fen, self.moves, self.result, self.clks)
        return "\n".join([*lines, "", *moves, ""])

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "board": self.board,
            "game": self.game,
            "started": self.started,
            "headers": dict(self.headers),
            "start_fen": self.start_fen,
            "moves": list(self.moves),
            "ucis": list(self.ucis),
            "fen": self.fen,
            "result": self.result,
            "termination": self.termination,
        }
        if self.clocks is not None:
            data["clocks"] = dict(self.clocks)
        if self.clks:
            data["clks"] = list(self.clks)
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """A record read back; ValueError names what is wrong with it."""
        try:
            data = json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        board = _whole(data, "board")
        game = _whole(data, "game")
        headers = data.get("headers", {})
        if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            raise ValueError("'headers' is not an object of strings")
        moves = _strings(data, "moves")
        ucis = _strings(data, "ucis")
        if len(moves) != len(ucis):
            raise ValueError(f"{len(moves)} moves but {len(ucis)} ucis")
        result = data.get("result", "*")
        if result not in RESULTS:
            raise ValueError(f"'result' {result!r} is not one of {', '.join(RESULTS)}")
        termination = data.get("termination")
        if termination is not None and not isinstance(termination, str):
            raise ValueError("'termination' is not a string or null")
        clocks = data.get("clocks")
        if clocks is not None and not (
            isinstance(clocks, dict) and all(isinstance(v, int) for v in clocks.values())
        ):
            raise ValueError("'clocks' is not an object of whole numbers")
        clks = data.get("clks", [])
        if not isinstance(clks, list) or not all(
            v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 0) for v in clks
        ):
            raise ValueError("'clks' is not a list of whole numbers (ms) or nulls")
        if clks and len(clks) != len(moves):
            raise ValueError(f"{len(moves)} moves but {len(clks)} clks")
        return cls(
            board=board,
            game=game,
            headers=headers,
            moves=moves,
            ucis=ucis,
            start_fen=_text(data, "start_fen", STARTING_FEN),
            fen=_text(data, "fen", STARTING_FEN),
            result=result,
            termination=termination,
            started=_text(data, "started", ""),
            clocks=clocks,
            clks=tuple(clks),
        )

    def with_headers(self, **headers: str) -> GameRecord:
        return replace(self, headers={**self.headers, **headers})


def movetext(
    start_fen: str,
    sans: tuple[str, ...] | list[str],
    result: str,
    clks: tuple[int | None, ...] | list[int | None] = (),
) -> list[str]:
    """The numbered moves and the result, wrapped at 80 columns; with ``clks``, each move's
    clock as a ``[%clk h:mm:ss]`` comment after it.

    >>> movetext("8/8/8/8/8/8/4k3/4K2R b K - 3 40", ["Kd2", "O-O"], "*")
    ['40... Kd2 41. O-O *']
    >>> movetext("8/8/8/8/8/8/4k3/4K2R b K - 3 40", ["Kd2", "O-O"], "*", [59000, 7250])
    ['40... Kd2 { [%clk 0:00:59] } 41. O-O { [%clk 0:00:07.2] } *']
    """
    from board_driver.clock.keeper import pgn_clock
    fields = start_fen.split()
    white = len(fields) < 2 or fields[1] != "b"
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    tokens: list[str] = []
    for i, san in enumerate(sans):
        if white:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        tokens.append(san)
        clk = clks[i] if i < len(clks) else None
        if clk is not None:
            tokens.extend(["{", *pgn_clock(clk).split(), "}"])
        if not white:
            number += 1
        white = not white
    tokens.append(result)
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return lines


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _whole(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key!r} is not a whole number")
    return value


def _strings(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key!r} is not a list of strings")
    return tuple(value)


def _text(data: dict[str, Any], key: str, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} is not a string")
    return value
