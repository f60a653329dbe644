"""The lines of the hands journal: each event, and each decision from beside the board, as
one line of text, and read back from one, checked whole.

A journal line is what the daemon wrote itself, but a journal is still a file: a person may
edit it, a newer magboard may have written it (and an older one be running now), a bit may
flip under a line's CRC by chance. So a line is read back only when every part of it is
what this magboard writes: a time of at most :data:`MAX_T_MS`, a square, a move's shape, a
known button, a side. Anything else is :class:`ValueError` naming the line, and the reader
skips that line (:func:`board_driver.service.hands_journal.parse`), never the rest.

The lines read like a board script's, for a person reading one:

>>> event_line(Lift(1200, 12)), event_line(Decided(1500, "takeback 1"))
('@1200 lift e2', '@1500 takeback 1')
>>> parse_event("@1200 lift e2")
Lift(t_ms=1200, square=12)
>>> parse_event("@1500 options foo=bar,touch_move=enforce")
Decided(t_ms=1500, what='options foo=bar,touch_move=enforce')
>>> parse_event("@1600 setup 8/8/8/8/8/8/8/R71")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: not a decision: '@1600 setup 8/8/8/8/8/8/8/R71' (expected the pieces ...)
>>> parse_event("@" + "9" * 400 + " lift e2")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: not an event: '@99999999999999999999999999999...' (a time of 400 digits)
"""

from __future__ import annotations

import json
import re
import urllib.parse
from dataclasses import dataclass

from board_driver.physical.events import (
    BUTTON_NAMES,
    PROMOTION_LETTERS,
    BoardEvent,
    Button,
    Choose,
    Lift,
    Place,
)
from board_driver.physical.squares import square, square_name
from rules import VARIANTS, Piece, Position
from rules.fen import piece_letters

#: The latest time a line may carry: the daemon's milliseconds since its start (a century).
MAX_T_MS = 100 * 365 * 24 * 3600 * 1000
#: The most plies a take-back undoes, or a line of moves holds (no game is longer).
MAX_PLIES = 10_000
#: A move in UCI, and a 64-square bitmap in hex, as every journal line writes them.
UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")
HEX64 = re.compile(r"[0-9a-f]{16}")
_WORD = re.compile(r"[a-z_]{1,40}")
_FEN_FIELD = re.compile(r"[0-9A-Za-z/-]{1,90}")
SIDES = ("white", "black")


@dataclass(frozen=True, slots=True)
class Expect:
    """A player not at the board chose its move (``uci``): the only one the board accepts."""

    t_ms: int
    uci: str


@dataclass(frozen=True, slots=True)
class Asked:
    """After a restart the board asked what the pieces ``standing`` then cannot tell: the
    lifts and places after this line were held back from the tracker, until a ``read``
    line says what was decided."""

    t_ms: int
    standing: int


@dataclass(frozen=True, slots=True)
class Decided:
    """The game changed by a decision from beside the board (its ``what``):

    - ``takeback N``: N plies taken back (an online opponent's take-back accepted);
    - ``end TERMINATION WINNER``: ended from outside (``white``, ``black`` or ``-``);
    - ``forfeit SIDE TERMINATION``: SIDE lost on its clock (``timeout``, ``rules_infraction``),
      a draw if the other side cannot mate; ``judge``: the board judged as it stands (the
      clock's flag, before it falls);
    - ``options touch_move=warn,takeback=true,...`` (a value may hold a space: ``5+3 delay``);
    - ``headers White=Ann&Round=3`` (URL-encoded: any text of a PGN header);
    - ``data ["EXTENSION", {"key": "text", "gone": null}]``: an extension's texts kept with
      the game (JSON, ASCII; ``null`` removes one);
    - ``newgame ONLINE MOVES FEN [OPTIONS]``: a new game set from beside the board (the
      page's FEN, an online game): ``1`` or ``0``, the moves played before (UCI, commas;
      ``-``), its FEN, its options as above;
    - ``start VARIANT FEN``: the start position the tracker drew for a new game set up on
      the board (``button new_game``, the pieces put home after a game; a Chess960 array at
      random): a restart sets up the same one, never another drawn;
    - ``setup PIECES``: the game on the board waits for its pieces (its set-up under way
      when the journal started again), with what the board knew stood where (a FEN's
      board);
    - ``read MOVES BOARD``: after a restart, the moves read from the pieces (UCI, commas;
      ``-``: none) and the pieces standing then (16 hex digits): the game goes on from them
      (the answer to a question, when one was asked).
    """

    t_ms: int
    what: str


JournalEvent = BoardEvent | Expect | Asked | Decided


def event_line(event: JournalEvent) -> str:
    """An event as its journal line (without the CRC).

    >>> event_line(Choose(300, "n")), event_line(Expect(900, "e7e5"))
    ('@300 choose n', '@900 expect e7e5')
    >>> event_line(Asked(950, 0xFFFF00000000FFF7))
    '@950 question ffff00000000fff7'
    """
    if isinstance(event, Lift | Place):
        what = f"{type(event).__name__.lower()} {square_name(event.square)}"
    elif isinstance(event, Choose):
        what = f"choose {event.piece}"
    elif isinstance(event, Button):
        what = f"button {event.name}"
    elif isinstance(event, Expect):
        what = f"expect {event.uci}"
    elif isinstance(event, Asked):
        what = f"question {event.standing:016x}"
    elif isinstance(event, Decided):
        what = event.what
    else:
        raise TypeError(f"not a journal event: {event!r}")
    return f"@{int(event.t_ms)} {what}"


def parse_event(line: str) -> JournalEvent:
    """The event of a journal line (without its CRC); ValueError if it is none, or if any
    part of it is not what this magboard writes (see the module docstring)."""
    stamp, _, rest = line.partition(" ")
    kind, _, text = rest.partition(" ")
    t = _time(stamp, line)
    args = text.split(" ") if text else []
    if kind in ("lift", "place") and len(args) == 1 and len(args[0]) == 2:
        try:
            sq = square(args[0])
        except ValueError:
            raise ValueError(f"not an event: {_show(line)} (no square {args[0]!r})") from None
        return Lift(t, sq) if kind == "lift" else Place(t, sq)
    if kind == "choose" and args and args[0] in PROMOTION_LETTERS and len(args) == 1:
        return Choose(t, args[0])
    if kind == "button" and len(args) == 1 and args[0] in BUTTON_NAMES:
        return Button(t, args[0])
    if kind == "expect" and len(args) == 1 and UCI.fullmatch(args[0]):
        return Expect(t, args[0])
    if kind == "question" and len(args) == 1 and HEX64.fullmatch(args[0]):
        return Asked(t, int(args[0], 16))
    if kind in DECISIONS:
        problem = DECISIONS[kind](args, text)
        if problem:
            raise ValueError(f"not a decision: {_show(line)} ({problem})")
        return Decided(t, f"{kind} {text}".rstrip())
    raise ValueError(f"not an event: {_show(line)}")


def _time(stamp: str, line: str) -> int:
    digits = stamp[1:]
    if not stamp.startswith("@") or not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"not an event: {_show(line)} (no time)")
    if len(digits) > len(str(MAX_T_MS)) or int(digits) > MAX_T_MS:
        raise ValueError(f"not an event: {_show(line)} (a time of {len(digits)} digits)")
    return int(digits)


def _show(line: str) -> str:
    return repr(line if len(line) <= 30 else f"{line[:30]}...")


# ---------------------------------------------------------------------- decisions


def _takeback(args: list[str], _text: str) -> str | None:
    if len(args) == 1 and args[0].isascii() and args[0].isdigit() and len(args[0]) <= 5:
        return None if 1 <= int(args[0]) <= MAX_PLIES else "not a number of plies"
    return "not a number of plies"


def _end(args: list[str], _text: str) -> str | None:
    if len(args) == 2 and _WORD.fullmatch(args[0]) and args[1] in (*SIDES, "-"):
        return None
    return "expected a termination and white, black or -"


def _forfeit(args: list[str], _text: str) -> str | None:
    if len(args) == 2 and args[0] in SIDES and _WORD.fullmatch(args[1]):
        return None
    return "expected white or black and a termination"


def _judge(args: list[str], _text: str) -> str | None:
    return "expected nothing after it" if args else None


def _setup(args: list[str], _text: str) -> str | None:
    if len(args) == 1:
        try:
            piece_letters(args[0])
        except ValueError:
            pass
        else:
            return None
    return "expected the pieces known as a FEN's board"


def setup_line(known: dict[int, Piece]) -> str:
    """The ``what`` of a ``setup`` decision: the pieces the board knows stand where (a
    FEN's board; a square it cannot vouch for is left empty there), so that a restart
    asks for the same squares: a Chess960 array stands on the squares of the standard
    one, and only the pieces known tell them apart.

    >>> from rules import Piece
    >>> setup_line({0: Piece.from_symbol("R"), 63: Piece.from_symbol("k")})
    'setup 7k/8/8/8/8/8/8/R7'
    """
    ranks = []
    for rank in range(7, -1, -1):
        text, gap = "", 0
        for file in range(8):
            piece = known.get(rank * 8 + file)
            if piece is None:
                gap += 1
                continue
            text += (str(gap) if gap else "") + piece.symbol()
            gap = 0
        ranks.append(text + (str(gap) if gap else ""))
    return "setup " + "/".join(ranks)


def setup_of(what: str) -> dict[int, Piece]:
    """The pieces known of a ``setup`` decision's ``what``.

    >>> setup_of("setup 7k/8/8/8/8/8/8/R7") == {0: Piece.from_symbol("R"),
    ...                                         63: Piece.from_symbol("k")}
    True
    """
    letters = piece_letters(what.split(" ")[1])
    return {sq: Piece.from_symbol(letter) for sq, letter in letters.items()}


def _options(_args: list[str], text: str) -> str | None:
    if len(text) > 4096:
        return f"{len(text)} characters, far more than any options"
    if not text or any("=" not in pair for pair in text.split(",")):
        return "expected name=value pairs"
    return None


def _headers(_args: list[str], text: str) -> str | None:
    try:
        headers_of(text)
    except ValueError as exc:
        return str(exc)
    return None


def _data(args: list[str], text: str) -> str | None:
    try:
        data_of(text)
    except ValueError as exc:
        return str(exc)
    return None


def _moves(text: str) -> list[str] | None:
    """The moves of a ``newgame``/``read`` line (``-``: none), None if not moves."""
    if text == "-":
        return []
    moves = text.split(",")
    if len(moves) > MAX_PLIES or not all(UCI.fullmatch(m) for m in moves):
        return None
    return moves


def _newgame(args: list[str], _text: str) -> str | None:
    if len(args) < 8 or args[0] not in ("0", "1") or _moves(args[1]) is None:
        return "expected 0 or 1, moves and a FEN"
    if not all(_FEN_FIELD.fullmatch(field) for field in args[2:8]):
        return "expected 0 or 1, moves and a FEN"
    options = " ".join(args[8:])
    return _options([], options) if options else None


def _start(args: list[str], _text: str) -> str | None:
    if len(args) != 7 or args[0] not in VARIANTS or not all(map(_FEN_FIELD.fullmatch, args[1:])):
        return "expected a variant and a FEN"
    try:  # a position the rules refuse is this line's damage, not the whole journal's
        Position.from_fen(" ".join(args[1:]), variant=args[0])
    except ValueError as exc:
        return f"a start position the rules refuse ({exc})"
    return None


def _read(args: list[str], _text: str) -> str | None:
    if len(args) == 2 and _moves(args[0]) is not None and HEX64.fullmatch(args[1]):
        return None
    return "expected moves and 16 hex digits"


#: Each decision's kind and the check of what follows it (None: it is one).
DECISIONS = {
    "takeback": _takeback,
    "end": _end,
    "forfeit": _forfeit,
    "judge": _judge,
    # The game on the board waits for its pieces: a set-up under way when the journal
    # started again (the store took the new game), set up again after a restart.
    "setup": _setup,
    "options": _options,
    "headers": _headers,
    "data": _data,
    "newgame": _newgame,
    "read": _read,
    "start": _start,
}


def newgame_line(
    fen: str, moves: list[str], online: bool, options: dict[str, str] | None = None
) -> str:
    """The ``what`` of a ``newgame`` decision.

    >>> newgame_line("8/8/8/8/8/8/8/K6k w - - 0 1", ["a1a2"], False, {"hints": "true"})
    'newgame 0 a1a2 8/8/8/8/8/8/8/K6k w - - 0 1 hints=true'
    """
    record = ",".join(f"{k}={v}" for k, v in (options or {}).items())
    text = f"newgame {int(online)} {','.join(moves) or '-'} {fen}"
    return f"{text} {record}" if record else text


def start_line(variant: str, fen: str) -> str:
    """The ``what`` of a ``start`` decision.

    >>> start_line("chess960", "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1")
    'start chess960 bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1'
    """
    return f"start {variant} {fen}"


def start_of(what: str) -> tuple[str, str]:
    """``(variant, fen)`` of a ``start`` decision's ``what``."""
    args = what.split(" ")[1:]
    return args[0], " ".join(args[1:])


def newgame_of(what: str) -> tuple[str, list[str], bool, str]:
    """``(fen, moves, online, options record)`` of a ``newgame`` decision's ``what``."""
    args = what.split(" ")[1:]
    return " ".join(args[2:8]), _moves(args[1]) or [], args[0] == "1", " ".join(args[8:])


def read_line(moves: list[str], standing: int) -> str:
    """The ``what`` of a ``read`` decision.

    >>> read_line(["g8g7"], 0xFF)
    'read g8g7 00000000000000ff'
    """
    return f"read {','.join(moves) or '-'} {standing:016x}"


def read_of(what: str) -> tuple[list[str], int]:
    """``(moves, standing)`` of a ``read`` decision's ``what``."""
    _kind, moves, board = what.split(" ")
    return _moves(moves) or [], int(board, 16)


def headers_line(headers: dict[str, str]) -> str:
    """The ``what`` of a ``headers`` decision (``""`` removes a header).

    >>> headers_line({"White": "Ann Lee", "Round": ""})
    'headers White=Ann+Lee&Round='
    """
    return "headers " + urllib.parse.urlencode(headers)


def headers_of(text: str) -> dict[str, str]:
    """The headers of a ``headers`` decision (after its kind); ValueError if it is none.

    >>> headers_of("White=Ann+Lee&Round=")
    {'White': 'Ann Lee', 'Round': ''}
    """
    if not text or len(text) > 16 * 1024 or " " in text:
        raise ValueError("expected URL-encoded name=value pairs")
    try:
        pairs = urllib.parse.parse_qsl(
            text, keep_blank_values=True, strict_parsing=True, errors="strict"
        )
    except (ValueError, UnicodeDecodeError):
        raise ValueError("expected URL-encoded name=value pairs") from None
    return dict(pairs)


def data_line(extension: str, data: dict[str, str | None]) -> str:
    """The ``what`` of a ``data`` decision.

    >>> data_line("seats", {"white": "human", "black": None})
    'data ["seats",{"white":"human","black":null}]'
    """
    return "data " + json.dumps([extension, data], separators=(",", ":"), ensure_ascii=True)


def data_of(text: str) -> tuple[str, dict[str, str | None]]:
    """``(extension, texts)`` of a ``data`` decision (after its kind); ValueError if none.

    >>> data_of('["lichess",{"game":"q7ZvsdUF"}]')
    ('lichess', {'game': 'q7ZvsdUF'})
    """
    if len(text) > 300_000:
        raise ValueError("expected an extension's name and its texts")
    try:
        extension, data = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        raise ValueError("expected an extension's name and its texts (JSON)") from None
    if not isinstance(extension, str) or not 0 < len(extension) <= 64:
        raise ValueError("expected an extension's name and its texts")
    if not isinstance(data, dict) or len(data) > 64 or not all(
        isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in data.items()
    ):
        raise ValueError("expected an extension's texts: names and texts, or null")
    return extension, data
