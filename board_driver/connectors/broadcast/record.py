r"""A game as the hall knows it: the record a board publishes, and its PGN.

A :class:`GameRecord` is pure data (no I/O): the board and game numbers, the revision, the
PGN headers, the moves in SAN and UCI, the position and the result. The board builds one
from its snapshot; the hall reads it back from JSON and writes the round's PGN from it, so
both sides write the same PGN:

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

**Order.** A record carries its game's number on the board (the store's id: a new game has
a higher one) and a ``revision`` that the board makes larger with every change of the
record (a move, a take-back, a result, a header), across restarts of the board
(:mod:`.revision`). Of two records of one game, the one with the higher revision is the
newer, whatever order they arrive in.

**Untrusted.** :meth:`GameRecord.from_json` is the hall's reader of what a board's account
published: it refuses a record longer than :data:`MAX_RECORD_BYTES`, nested deeper than a
record is (before the JSON parser sees it), or with any field out of shape (numbers out of
range, header names that are not PGN tag names, values holding line breaks, moves that are
not SAN or UCI), each with a message that says which field. Whether the moves are legal is
the hall's to check (:mod:`board_driver.hall.legal`): it replays them with ``rules``.

>>> GameRecord.from_json('[' * 990 + ']' * 990)
Traceback (most recent call last):
...
ValueError: nested deeper than a record is (more than 3 levels)
>>> GameRecord.from_json('{"board": 3, "game": 1, "headers": {"White\\n[Board": "x"}}')
Traceback (most recent call last):
...
ValueError: headers: "White\x0a[Board" is not a PGN tag name (a letter, then letters, digits or _)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from board_driver.connectors.broadcast.topics import MAX_BOARD, MAX_GAME
from board_driver.door.config_values import quote
from rules import STARTING_FEN, TERMINATIONS, VARIANTS
from rules.pgn import RESULTS, SEVEN_TAG_ROSTER, TAG_NAME, tag_pair

#: The longest record the hall reads (a game of 17,000 plies fits; a flood does not).
MAX_RECORD_BYTES = 256 * 1024
#: The most plies a record may hold: a game stops at the 75-move rule long before.
MAX_PLIES = 17_698
#: The most headers a record may carry, and the longest value (as the board's store).
MAX_HEADERS = 40
MAX_HEADER_CHARS = 255
#: How deep a record's JSON nests: the record, then its headers, moves or clocks.
MAX_NESTING = 3
#: Brackets a text may open in all and be parsed at once (the parser goes no deeper).
_FEW_BRACKETS = 8
#: Headers the record's own fields write (``result``, ``board``, ``variant``, ``start_fen``).
DERIVED_HEADERS = frozenset({"Result", "Board", "Variant", "SetUp", "FEN"})
_UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")
_SAN = re.compile(r"[a-hKQRBNOx1-8=+#-]{2,10}")
_FEN = re.compile(r"[0-9a-zA-Z/ -]{1,100}")
_STAMP = re.compile(r"\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\d[0-9TZ:.+-]{0,13}")
_LINE_BREAKING = re.compile("[\\x00-\\x1f\\x7f\\x85\\u2028\\u2029]")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")
#: The most a clock may read, in ms (a week).
MAX_CLOCK_MS = 7 * 24 * 3600 * 1000

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
    (from ``board``) and ``Variant``/``SetUp``/``FEN`` (from ``variant`` and
    ``start_fen``). ``started`` is when the game began (UTC, ISO 8601), ``""`` when not
    known. ``variant``: ``"standard"`` or ``"chess960"`` (written only when not standard,
    so that an older hall reads a standard game's record as it always did).
    """

    board: int
    game: int
    #: Grows with every change of the game's record (see the module's docstring); 0 for a
    #: record of a board that gives none (an older magboard).
    revision: int = 0
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
    variant: str = "standard"

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
        tags.update(self._start_tags())
        for name, value in self.headers.items():
            if name not in tags and name not in DERIVED_HEADERS:
                tags[name] = value
        return tags

    def _start_tags(self) -> dict[str, str]:
        """``Variant``, ``SetUp`` and ``FEN`` as the rules write them (a start position the
        rules refuse, which the hall does not publish, is written as it came)."""
        from rules import Position
        from rules.pgn import start_tags

        try:
            return start_tags(Position.from_fen(self.start_fen, variant=self.variant))
        except ValueError:
            return {} if self.start_fen == STARTING_FEN else {"SetUp": "1", "FEN": self.start_fen}

    def pgn(self, extra: Mapping[str, str] | None = None) -> str:
        """The game as PGN text (``extra`` tags override the record's), ending in a
        blank line so that games concatenate into one file."""
        tags = self.tags()
        tags.update(extra or {})
        lines = [tag_pair(name, value) for name, value in tags.items()]
        moves = movetext(self.start_fen, self.moves, self.result, self.clks)
        return "\n".join([*lines, "", *moves, ""])

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "board": self.board,
            "game": self.game,
            "revision": self.revision,
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
        if self.variant != "standard":
            data["variant"] = self.variant
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """A record read back from what a board published, every field checked (see the
        module's docstring); ValueError names the first thing wrong with it."""
        if len(text) > MAX_RECORD_BYTES:
            raise ValueError(f"{len(text)} bytes, more than a record's {MAX_RECORD_BYTES}")
        if isinstance(text, bytes | bytearray):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
        # A record opens a handful of arrays and objects: with as few brackets in all, the
        # parser cannot go deep; with more, they are counted outside the strings first.
        if text.count("[") + text.count("{") > _FEW_BRACKETS and nesting(text) > MAX_NESTING:
            raise ValueError(f"nested deeper than a record is (more than {MAX_NESTING} levels)")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        moves = _strings(data, "moves", _SAN, "a move in SAN")
        ucis = _strings(data, "ucis", _UCI, "a move in UCI")
        if len(moves) != len(ucis):
            raise ValueError(f"{len(moves)} moves but {len(ucis)} ucis")
        result = data.get("result", "*")
        if result not in RESULTS:
            raise ValueError(f"result: {quote(result)} is not one of {', '.join(RESULTS)}")
        termination = data.get("termination")
        if termination is not None and termination not in TERMINATIONS:
            raise ValueError(f"termination: {quote(termination)} is not a way a game ends")
        variant = data.get("variant", "standard")
        if variant not in VARIANTS:
            raise ValueError(f"variant: {quote(variant)} is not one of {', '.join(VARIANTS)}")
        started = _text(data, "started", "")
        if started and not _STAMP.fullmatch(started):
            raise ValueError(f"started: {quote(started)} is not a time (UTC, ISO 8601)")
        return cls(
            board=_whole(data, "board", 1, MAX_BOARD),
            game=_whole(data, "game", 1, MAX_GAME),
            revision=_whole(data, "revision", 0, MAX_GAME, default=0),
            headers=_headers(data.get("headers", {})),
            moves=moves,
            ucis=ucis,
            start_fen=_fen(data, "start_fen"),
            fen=_fen(data, "fen"),
            result=result,
            termination=termination,
            started=started,
            clocks=_clocks(data.get("clocks")),
            clks=_clks(data.get("clks", []), len(moves)),
            variant=variant,
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
    from board_driver.clock.texts import pgn_clock
    fields = start_fen.split()
    white = len(fields) < 2 or fields[1] != "b"
    counter = fields[5] if len(fields) > 5 else ""
    # Digits 0-9 only, and few of them: "²".isdigit() is true, and int() of 5,000 digits
    # is refused (the hall checks the FEN with rules first; this stays safe without it).
    number = int(counter) if counter.isascii() and counter.isdigit() and len(counter) <= 5 else 1
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


def nesting(text: str) -> int:
    """How deep a JSON text's arrays and objects nest (brackets inside strings do not
    count), read without recursion, and stopping once past :data:`MAX_NESTING`.

    >>> nesting('{"a": [1, "]]]"], "b": {}}'), nesting("[" * 5000)
    (2, 4)
    """
    depth = deepest = 0
    for bracket in _BRACKET.findall(_JSON_STRING.sub('""', text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            break
    return deepest


def _whole(data: dict[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key}: {quote(value)} is not a whole number from {low} to {high}")
    return value


def _strings(data: dict[str, Any], key: str, shape: re.Pattern[str], what: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f"{key}: not a list")
    if len(value) > MAX_PLIES:
        raise ValueError(f"{key}: {len(value)} plies, more than a game can have ({MAX_PLIES})")
    # Every ply at once (a record comes with each move: its whole game each time): the
    # moves joined by line breaks, which no move may hold, match the shape line by line.
    try:
        joined = "\n".join(value)
    except TypeError:  # not all strings
        joined = None
    if joined is not None and joined.count("\n") == len(value) - 1 and _lines_of(
        shape
    ).fullmatch(joined):
        return tuple(value)
    for ply, item in enumerate(value, start=1):  # which one is wrong, for the message
        if not isinstance(item, str) or not shape.fullmatch(item):
            raise ValueError(f"{key}: ply {ply}: {quote(item)} is not {what}")
    return tuple(value)


_LINES: dict[str, re.Pattern[str]] = {}


def _lines_of(shape: re.Pattern[str]) -> re.Pattern[str]:
    """``shape`` on every line of a text (or an empty text)."""
    lines = _LINES.get(shape.pattern)
    if lines is None:
        lines = _LINES[shape.pattern] = re.compile(f"(?:{shape.pattern}(?:\n{shape.pattern})*)?")
    return lines


def _headers(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ValueError("headers: not an object")
    if len(value) > MAX_HEADERS:
        raise ValueError(f"headers: {len(value)} of them, more than {MAX_HEADERS}")
    for name, text in value.items():
        if not TAG_NAME.fullmatch(name):
            raise ValueError(f"headers: {quote(name)} is not a PGN tag name (a letter, then "
                             "letters, digits or _)")
        if name in DERIVED_HEADERS:
            raise ValueError(f"headers: {name} is the record's own (it has a field for it)")
        if not isinstance(text, str) or len(text) > MAX_HEADER_CHARS or _LINE_BREAKING.search(
            text
        ):
            raise ValueError(f"headers: {name}: {quote(text)} is not a header value (at most "
                             f"{MAX_HEADER_CHARS} characters, no line breaks)")
    return value


def _fen(data: dict[str, Any], key: str) -> str:
    value = _text(data, key, STARTING_FEN)
    if not _FEN.fullmatch(value):
        raise ValueError(f"{key}: {quote(value)} is not a FEN")
    return value


def _clocks(value: Any) -> dict[str, int] | None:
    if value is None:
        return None
    if not (
        isinstance(value, dict)
        and sorted(value) == ["black", "white"]
        and all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_CLOCK_MS
            for v in value.values()
        )
    ):
        raise ValueError("clocks: not {\"white\": ms, \"black\": ms}")
    return value


def _clks(value: Any, plies: int) -> tuple[int | None, ...]:
    """Each move's clock: a whole number of ms (at most :data:`MAX_CLOCK_MS`) or null, one
    per move (or none at all: a game without a clock)."""
    if not isinstance(value, list) or not all(
        v is None or (isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_CLOCK_MS)
        for v in value
    ):
        raise ValueError("clks: not a list of whole numbers of ms (or nulls), one per move")
    if value and len(value) != plies:
        raise ValueError(f"clks: {len(value)} for {plies} moves")
    return tuple(value)


def _text(data: dict[str, Any], key: str, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{key}: {quote(value)} is not a string")
    return value
