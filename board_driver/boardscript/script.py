"""Board scripts: the plain-text record of what happens on the board, read and written.

The format is documented for users in ``docs/board-script.md``. The parser is strict:
a line it does not understand is a :class:`ScriptError` naming the script and line,
never a silent skip.

>>> script = parse_script('''
... option touch_move enforce
... lift e2
... @700 place e4   # a slow hand
... ''', "example")
>>> script.options, script.gap_ms
({'touch_move': 'enforce'}, 300)
>>> script.items
[Lift(t_ms=300, square=12), Place(t_ms=700, square=28)]
>>> print(format_script(script), end="")
option touch_move enforce
lift e2
@700 place e4

A Chess960 game names its variant; its ``fen`` line may be X-FEN or Shredder-FEN:

>>> chess960 = parse_script('''
... option variant chess960
... fen bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1
... ''')
>>> chess960.variant, chess960.fen
('chess960', 'bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1')
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from board_driver.physical.events import (
    BUTTON_NAMES,
    PROMOTION_LETTERS,
    Button,
    Choose,
    Lift,
    Place,
)
from board_driver.physical.squares import square, square_name
from board_driver.user_files import UnusableFile, read_text
from rules import STARTING_FEN

if TYPE_CHECKING:
    from rules import Position

#: The standard start position, the default ``fen``.
#: The default time between two events that carry no time of their own.
DEFAULT_GAP_MS = 300

#: Option name -> the values a script may give it, and what each means.
OPTION_VALUES: dict[str, dict[str, str | bool]] = {
    "touch_move": {"off": "off", "warn": "warn", "enforce": "enforce"},
    "takeback": {"on": True, "off": False},
    "hints": {"on": True, "off": False},
    "clock_switch": {"board": "board", "buttons": "buttons"},
    "illegal_move": {"guide": "guide", "fide": "fide"},
}
#: The rules a script's game is played by (``option variant``): its own header, not a game
#: option (the rules of the position, set once when the game starts).
VARIANTS = ("standard", "chess960")
#: Options whose value is the rest of the line, read by a function (ValueError says why
#: not): ``option clock 3+2``, ``option clock 40/5400+30:1800+30``, ``option clock 5+3 delay``.
OPTION_TEXTS = {"clock": "a time control: 3+2, 5+3 delay, 40/5400+30:1800+30 or none"}

_EVENT_KEYWORDS = ("lift", "place", "choose", "button", "scan", "wait")
_HEADER_KEYWORDS = ("fen", "option", "gap")
_MS = re.compile(r"[0-9]+")
#: The longest time a script names (a wait, a gap, an event's ``@`` time), in ms: bounded,
#: so that no arithmetic on it overflows (a float of 309 digits is infinite).
MAX_MS = 10**12
_HEX = re.compile(r"[0-9a-fA-F]{16}")


class ScriptError(ValueError):
    """A board script that cannot be read; the message is ``<name>:<line>: what is wrong``."""

    def __init__(self, name: str, line: int, problem: str) -> None:
        super().__init__(f"{name}:{line}: {problem}")
        self.name = name
        self.line = line
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Scan:
    """One raw scan of the switch matrix at ``t_ms``: bit *i* set = a piece on square *i*."""

    t_ms: int
    bitmap: int


@dataclass(frozen=True, slots=True)
class Wait:
    """Nothing happens for ``ms`` milliseconds, up to ``t_ms`` (the clock after the wait)."""

    t_ms: int
    ms: int


ScriptItem = Lift | Place | Choose | Button | Scan | Wait


@dataclass(slots=True)
class Script:
    """A parsed board script.

    ``fen`` is the starting position (and the pieces standing at the start), ``variant``
    the rules it is played by (``'standard'`` or ``'chess960'``: ``option variant``), ``options``
    the game options the script sets (``touch_move``: ``'off'|'warn'|'enforce'``,
    ``takeback``/``hints``: bool), ``gap_ms`` the default time between events, and
    ``items`` the timed events in order, each with its absolute ``t_ms``.
    ``lines`` gives the line number of each item (0 for items not read from text).
    """

    fen: str = STARTING_FEN
    options: dict[str, str | bool] = field(default_factory=dict)
    variant: str = "standard"
    gap_ms: int = DEFAULT_GAP_MS
    items: list[ScriptItem] = field(default_factory=list)
    name: str = field(default="<script>", compare=False)
    lines: list[int] = field(default_factory=list, compare=False, repr=False)

    @property
    def uses_scans(self) -> bool:
        """True when the board is given as raw scans rather than lift/place events."""
        return any(isinstance(item, Scan) for item in self.items)

    def position(self) -> Position:
        """The game's starting position, by the script's variant (the rules core's)."""
        from rules import Position

        if self.fen == STARTING_FEN and self.variant == "standard":
            return Position()
        return Position.from_fen(self.fen, variant=self.variant)

    @property
    def end_ms(self) -> int:
        """The script's clock after its last item (0 for an empty script)."""
        return self.items[-1].t_ms if self.items else 0

    def to_text(self, *, comment: str | None = None) -> str:
        """The script as text; see :func:`format_script`."""
        return format_script(self, comment=comment)


#: The pieces standing in the start position (ranks 1, 2, 7 and 8).
START_OCCUPANCY = 0xFFFF00000000FFFF


def _occupancy_of(fen: str, variant: str = "standard") -> int:
    if fen == STARTING_FEN:
        return START_OCCUPANCY
    # Imported here so that reading a script without a fen never needs the rules core.
    from rules import Position

    return Position.from_fen(fen, variant=variant).occupancy()


def _check_fen(fen: str, variant: str = "standard") -> str | None:
    """None if ``fen`` is a legal starting position of ``variant``, else the rules core's
    complaint."""
    from rules import FenError, Position

    try:
        Position.from_fen(fen, variant=variant)
    except FenError as error:
        return str(error)
    return None


def _option_from_text(name: str, text: str) -> str:
    """An :data:`OPTION_TEXTS` option's value in its own words; ValueError says why not."""
    from board_driver.clock.control import parse_time_control

    control = parse_time_control(text)
    return "none" if control is None else control.name()


def _parse_square(text: str) -> int:
    try:
        return square(text)
    except ValueError:
        raise ValueError(f"bad square {text!r} (expected a1..h8)") from None


def _parse_ms(text: str, what: str) -> int:
    if not _MS.fullmatch(text):
        shown = text if len(text) <= 20 else f"{text[:20]}..."
        raise ValueError(f"bad {what} {shown!r} (expected a whole number of milliseconds)")
    if len(text) > len(str(MAX_MS)) or int(text) > MAX_MS:
        shown = text if len(text) <= 20 else f"{text[:20]}... ({len(text)} digits)"
        raise ValueError(f"bad {what} {shown} (at most {MAX_MS} ms: some thirty years)")
    return int(text)


class _Parser:
    """The state of one parse: the clock, the pieces standing, the headers seen."""

    def __init__(self, name: str) -> None:
        self.script = Script(name=name)
        self.name = name
        self.clock = 0
        self.seen_event_line = 0  # the first event's line, 0 before it
        self.seen_headers: dict[str, int] = {}  # 'fen' / 'gap' / 'option touch_move' -> line
        self.board: int | None = None  # pieces standing, read lazily from the fen
        self.level: tuple[str, int] | None = None  # ('scan' | 'lift/place', first line)
        #: A fen that reads only as Chess960 while no ``option variant chess960`` came
        #: yet (it may follow): its line, checked again when the header ends.
        self.fen_line = 0

    def fail(self, line: int, problem: str) -> ScriptError:
        return ScriptError(self.name, line, problem)

    def header(self, line: int, keyword: str, args: list[str], rest: str) -> None:
        if self.seen_event_line:
            raise self.fail(
                line,
                f"header '{keyword}' after the first event (line {self.seen_event_line}): "
                "fen, option and gap lines come first",
            )
        key = keyword if keyword != "option" else f"option {args[0] if args else ''}"
        if key in self.seen_headers:
            raise self.fail(line, f"'{key}' given twice (first on line {self.seen_headers[key]})")
        if keyword == "fen":
            if not rest:
                raise self.fail(line, "fen needs a position: fen <FEN>")
            problem = _check_fen(rest, self.script.variant)
            if problem is not None and (
                "option variant" in self.seen_headers or _check_fen(rest, "chess960") is not None
            ):
                raise self.fail(line, f"bad FEN: {problem}")
            self.fen_line = line if problem is not None else 0
            self.script.fen = rest
        elif args[:1] == ["variant"]:
            if len(args) != 2 or args[1] not in VARIANTS:
                raise self.fail(line, f"option variant takes {'|'.join(VARIANTS)}")
            self.script.variant = args[1]
            if "fen" in self.seen_headers:  # the fen read again by these rules
                problem = _check_fen(self.script.fen, args[1])
                if problem is not None:
                    raise self.fail(
                        self.seen_headers["fen"], f"bad FEN for variant {args[1]}: {problem}"
                    )
                self.fen_line = 0
        elif keyword == "gap":
            if len(args) != 1:
                raise self.fail(line, "gap takes one value: gap <ms>")
            try:
                self.script.gap_ms = _parse_ms(args[0], "gap")
            except ValueError as error:
                raise self.fail(line, str(error)) from None
        elif args and args[0] in OPTION_TEXTS:
            if len(args) < 2:
                raise self.fail(line, f"option {args[0]} takes {OPTION_TEXTS[args[0]]}")
            try:
                self.script.options[args[0]] = _option_from_text(args[0], " ".join(args[1:]))
            except ValueError as error:
                raise self.fail(line, f"option {args[0]}: {error}") from None
        else:
            if len(args) != 2:
                raise self.fail(line, "option takes a name and a value: option <name> <value>")
            name, value = args
            if name not in OPTION_VALUES:
                known = [*OPTION_VALUES, *OPTION_TEXTS, "variant"]
                raise self.fail(
                    line,
                    f"unknown option {name!r} (expected one of: {', '.join(known)})",
                )
            values = OPTION_VALUES[name]
            if value not in values:
                raise self.fail(
                    line,
                    f"bad value {value!r} for option {name} (expected {'|'.join(values)})",
                )
            self.script.options[name] = values[value]
        self.seen_headers[key] = line

    def standing(self) -> int:
        if self.board is None:
            self.board = _occupancy_of(self.script.fen, self.script.variant)
        return self.board

    def header_done(self) -> None:
        """The header is over (an event comes, or the script ends): a fen that reads only
        as Chess960 needs ``option variant chess960``."""
        if self.fen_line:
            problem = _check_fen(self.script.fen, self.script.variant)
            raise self.fail(
                self.fen_line,
                f"bad FEN: {problem} (a Chess960 position: add 'option variant chess960')",
            )

    def set_level(self, line: int, level: str) -> None:
        if self.level is None:
            self.level = (level, line)
        elif self.level[0] != level:
            raise self.fail(
                line,
                f"{level} line in a script of {self.level[0]} lines (line {self.level[1]}): "
                "a script gives raw scans or lift/place events, not both",
            )

    def event(self, line: int, keyword: str, args: list[str], at: int | None) -> None:
        if not self.seen_event_line:
            self.header_done()
            self.seen_event_line = line
        if at is not None and at < self.clock:
            raise self.fail(line, f"time goes backwards: @{at} is before {self.clock} ms")
        if keyword == "wait":
            if len(args) != 1:
                raise self.fail(line, "wait takes one value: wait <ms>")
            try:
                ms = _parse_ms(args[0], "wait")
            except ValueError as error:
                raise self.fail(line, str(error)) from None
            self.clock = (self.clock if at is None else at) + ms
            self.add(line, Wait(self.clock, ms))
            return
        t = self.clock + self.script.gap_ms if at is None else at
        if len(args) != 1:
            what = {
                "lift": "one square: lift <sq>",
                "place": "one square: place <sq>",
                "choose": "one letter: choose q|r|b|n",
                "button": f"one name: button {'|'.join(sorted(BUTTON_NAMES))}",
                "scan": "one 16-digit hex number: scan <hex>",
            }[keyword]
            raise self.fail(line, f"{keyword} takes {what}")
        (arg,) = args
        item: ScriptItem
        if keyword in ("lift", "place"):
            self.set_level(line, "lift/place")
            try:
                sq = _parse_square(arg)
            except ValueError as error:
                raise self.fail(line, str(error)) from None
            board = self.standing()
            held = board >> sq & 1
            if keyword == "lift":
                if not held:
                    raise self.fail(line, f"lift {arg}: no piece stands on {arg}")
                item = Lift(t, sq)
            else:
                if held:
                    raise self.fail(line, f"place {arg}: a piece already stands on {arg}")
                item = Place(t, sq)
            self.board = board ^ (1 << sq)
        elif keyword == "scan":
            self.set_level(line, "scan")
            if not _HEX.fullmatch(arg):
                raise self.fail(
                    line, f"bad hex {arg!r}: a scan is 16 hex digits, most significant first"
                )
            item = Scan(t, int(arg, 16))
        elif keyword == "choose":
            if arg not in PROMOTION_LETTERS:
                raise self.fail(line, f"bad choose letter {arg!r} (expected q, r, b or n)")
            item = Choose(t, arg)
        else:
            if arg not in BUTTON_NAMES:
                raise self.fail(
                    line,
                    f"unknown button {arg!r} (expected one of: {', '.join(sorted(BUTTON_NAMES))})",
                )
            item = Button(t, arg)
        self.clock = t
        self.add(line, item)

    def add(self, line: int, item: ScriptItem) -> None:
        self.script.items.append(item)
        self.script.lines.append(line)

    def line(self, number: int, raw_line: str) -> None:
        """Read line ``number`` of the script."""
        content = " ".join(raw_line.split("#", 1)[0].split())
        if not content:
            return
        at: int | None = None
        if content.startswith("@"):
            stamp, _, content = content.partition(" ")
            try:
                at = _parse_ms(stamp[1:], "time")
            except ValueError as error:
                raise self.fail(number, f"{error}, as in '@1200 lift e2'") from None
            if not content:
                raise self.fail(number, f"{stamp} is not followed by an event")
        keyword, _, rest = content.partition(" ")
        args = rest.split()
        if keyword in _HEADER_KEYWORDS:
            if at is not None:
                raise self.fail(number, f"'{keyword}' is a header: it takes no @time")
            self.header(number, keyword, args, rest)
        elif keyword in _EVENT_KEYWORDS:
            self.event(number, keyword, args, at)
        else:
            known = ", ".join(_HEADER_KEYWORDS + _EVENT_KEYWORDS)
            raise self.fail(number, f"unknown keyword {keyword!r} (expected one of: {known})")


class ScriptReader:
    """Reads a script a line at a time, as it comes (a pipe, a person typing).

    :meth:`feed` takes the next line and returns the items it adds; a line it cannot
    read raises :class:`ScriptError` and changes nothing, so the lines after it can still
    be read (their numbers are kept). Each line costs the same, however long the script.

    >>> reader = ScriptReader("typed")
    >>> reader.feed("lift e2"), reader.feed("place e4")
    ([Lift(t_ms=300, square=12)], [Place(t_ms=600, square=28)])
    >>> reader.feed("place e4")
    Traceback (most recent call last):
    ...
    board_driver.boardscript.script.ScriptError: typed:3: place e4: a piece already stands on e4
    >>> reader.feed("lift e4")
    [Lift(t_ms=900, square=28)]
    """

    def __init__(self, name: str = "<script>") -> None:
        self._parser = _Parser(name)
        self.number = 0

    @property
    def script(self) -> Script:
        """What was read so far."""
        return self._parser.script

    def set_standing(self, occupancy: int) -> None:
        """The pieces standing now, when they are not the ones the script's own lines left
        (a script that goes on with the game on the board, or a board other hands move
        too): the next lines' lifts and places are checked against them."""
        self._parser.board = occupancy

    def feed(self, line: str) -> list[ScriptItem]:
        """Read the next line; returns the items it adds (none for a header or a comment)."""
        self.number += 1
        parser = self._parser
        saved = (parser.clock, parser.seen_event_line, parser.board, parser.level)
        before = len(parser.script.items)
        try:
            parser.line(self.number, line)
        except ScriptError:
            parser.clock, parser.seen_event_line, parser.board, parser.level = saved
            del parser.script.items[before:]
            del parser.script.lines[before:]
            raise
        return parser.script.items[before:]

    def end(self) -> None:
        """The script is over: a header left unfinished is checked as a whole
        (:class:`ScriptError` naming the line)."""
        if not self._parser.seen_event_line:
            self._parser.header_done()


#: The largest script file read (a whole corpus of games fits in a few MB).
MAX_SCRIPT_BYTES = 64 << 20


def read_script_file(path: str | os.PathLike[str]) -> str:
    """A script file's text; :class:`~board_driver.user_files.UnusableFile` says why it
    cannot be read (not a regular file: a pipe goes to ``-``, standard input; too large;
    not UTF-8)."""
    return read_text(path, limit=MAX_SCRIPT_BYTES)


def script_file_problem(error: UnusableFile) -> str:
    """Why a script file cannot be read, and the way to pipe one in."""
    return error.why if error.missing else f"{error.why}; '-' reads standard input"


def parse_script(text: str, name: str = "<script>") -> Script:
    """Read a board script; :class:`ScriptError` names the line of the first problem."""
    reader = ScriptReader(name)
    for raw_line in text.splitlines():
        reader.feed(raw_line)
    reader.end()
    return reader.script


def _option_text(name: str, value: str | bool) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return value


def _item_text(item: ScriptItem) -> str:
    match item:
        case Lift(square=sq):
            return f"lift {square_name(sq)}"
        case Place(square=sq):
            return f"place {square_name(sq)}"
        case Choose(piece=piece):
            return f"choose {piece}"
        case Button(name=name):
            return f"button {name}"
        case Scan(bitmap=bitmap):
            return f"scan {bitmap:016x}"
        case Wait(ms=ms):
            return f"wait {ms}"
    raise TypeError(f"not a script item: {item!r}")


def format_script(script: Script, *, comment: str | None = None) -> str:
    """Write ``script`` as board-script text that :func:`parse_script` reads back equal.

    Events that follow the one before by exactly ``gap_ms`` are written without a time,
    the others with ``@<ms>``. ``comment`` (any number of lines) goes first, as ``#`` lines.
    """
    out = []
    if comment:
        out += [f"# {line}".rstrip() for line in comment.splitlines()]
    if script.variant != "standard":
        out.append(f"option variant {script.variant}")
    if script.fen != STARTING_FEN:
        out.append(f"fen {script.fen}")
    for name, value in script.options.items():
        out.append(f"option {name} {_option_text(name, value)}")
    if script.gap_ms != DEFAULT_GAP_MS:
        out.append(f"gap {script.gap_ms}")
    clock = 0
    for item in script.items:
        text = _item_text(item)
        if isinstance(item, Wait):
            start = item.t_ms - item.ms
            if start < clock:
                raise ValueError(f"{item!r} starts before {clock} ms: times go backwards")
            out.append(text if start == clock else f"@{start} {text}")
        elif item.t_ms < clock:
            raise ValueError(f"{item!r} is before {clock} ms: times go backwards")
        else:
            out.append(text if item.t_ms == clock + script.gap_ms else f"@{item.t_ms} {text}")
        clock = item.t_ms
    return "\n".join(out) + "\n"
