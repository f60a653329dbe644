"""Checking what a browser sends, before any of it reaches the tracker, the store or a file.

Every check raises :class:`InputError` (a ValueError) whose message names the field and
says what was expected; the page shows it as it is.

>>> parse_square("e4", "square")
28
>>> parse_square("e9", "square")
Traceback (most recent call last):
...
board_driver.connectors.web.inputs.InputError: square: 'e9' is not a square (expected a1..h8)
>>> parse_fen("4k3/8/8/8/8/8/8/8 w - - 0 1", "fen")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
board_driver.connectors.web.inputs.InputError: fen: FEN placement: White has no king, ...
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from board_driver.arbiter.tracker import TOUCH_MOVE_MODES
from board_driver.clock.control import parse_time_control
from board_driver.clock.keeper import ILLEGAL_MOVE_RULES, SWITCHES
from board_driver.physical.events import ASK_BUTTONS, PROMOTION_LETTERS
from board_driver.physical.squares import square

_SQUARE = re.compile(r"[a-h][1-8]")
_GAME_ID = re.compile(r"[1-9][0-9]{0,8}")
_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")
#: The PGN headers the page may set in one request.
MAX_HEADERS = 16
#: The longest FEN a real position needs is under 90 characters.
MAX_FEN = 100
#: The controls the page offers (board-script ``button`` names).
WEB_BUTTONS = (
    "resign",
    "resign_white",
    "resign_black",
    "draw_offer",
    "draw_accept",
    "claim_draw",
    "new_game",
    "adjust",
    "hint",
    # The clock's: a phone used as the clock presses them.
    "clock",
    "clock_white",
    "clock_black",
    "pause",
    # The questions a player asks the board, answered aloud ([speech]).
    *ASK_BUTTONS,
)
#: The engine's sides (``set_engine``) and the bounds of a level the page may set (the
#: config's own bounds, ``[engine]``).
ENGINE_SIDES = ("none", "white", "black")
MAX_DEPTH = 100
MIN_ELO, MAX_ELO = 500, 4000  # as [engine] elo
MAX_MOVETIME_MS = 600_000
#: The simulator steps the page may send in one request.
MAX_STEPS = 8


class InputError(ValueError):
    """A request field is not what the page may send; the message names the field."""


def field(body: Any, name: str) -> Any:
    if not isinstance(body, dict) or name not in body:
        raise InputError(f"{name}: missing")
    return body[name]


def parse_square(value: Any, name: str) -> int:
    if not isinstance(value, str) or not _SQUARE.fullmatch(value):
        raise InputError(f"{name}: {_show(value)} is not a square (expected a1..h8)")
    return square(value)


def parse_side(value: Any, name: str = "side") -> str:
    """A side of the board.

    >>> parse_side("black")
    'black'
    >>> parse_side("none")
    Traceback (most recent call last):
    ...
    board_driver.connectors.web.inputs.InputError: side: 'none' is not white or black
    """
    if value not in ("white", "black"):
        raise InputError(f"{name}: {_show(value)} is not white or black")
    return value


def parse_piece(value: Any, name: str = "piece") -> str:
    if not isinstance(value, str) or value not in PROMOTION_LETTERS:
        raise InputError(f"{name}: {_show(value)} is not a promotion piece (expected q, r, b or n)")
    return value


def parse_button(value: Any, name: str = "button") -> str:
    if not isinstance(value, str) or value not in WEB_BUTTONS:
        known = ", ".join(WEB_BUTTONS)
        raise InputError(f"{name}: {_show(value)} is not a control (one of {known})")
    return value


def parse_fen(value: Any, name: str = "fen", variant: str = "standard") -> str:
    """A legal set-up's FEN (of ``variant``: a Chess960 one in X-FEN or Shredder-FEN),
    normalised; the rules core's FenError message says what is wrong."""
    import rules

    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name}: missing (a FEN like {rules.Position().fen()!r})")
    text = " ".join(value.split())
    if len(text) > MAX_FEN:
        raise InputError(f"{name}: {len(text)} characters is too long for a FEN")
    try:
        return rules.Position.from_fen(text, variant=variant).fen()
    except rules.FenError as exc:
        raise InputError(f"{name}: {exc}") from None


def parse_pgn(value: Any, name: str = "pgn") -> tuple[str, str]:
    """The position a PGN's game reaches, and its variant: ``(fen, variant)``.

    The game starts from its ``FEN`` header if it has one (``Variant "Chess960"``: under
    Chess960's rules) and its main line is played to the end; the rules core's PgnError
    names the move at fault and its number. A position where the game is over (mate,
    stalemate, too little material) is refused: there is nothing left to play.

    >>> parse_pgn('[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"] 1. e4 Kd7 *')
    ('8/3k4/8/8/4P3/8/8/4K3 w - - 1 2', 'standard')
    >>> parse_pgn("1. e4 e5 2. Ke3 *")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    board_driver.connectors.web.inputs.InputError: pgn: PGN game 1, line 1, move 2. Ke3: ...
    """
    import rules

    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name}: missing (a game's PGN: headers, then its moves)")
    try:
        games = rules.read_pgn(value)
    except rules.PgnError as exc:
        raise InputError(f"{name}: {exc}") from None
    if not games or games[0].game is None:
        raise InputError(f"{name}: no game in it (headers, then moves like '1. e4 e5')")
    if len(games) > 1:
        raise InputError(f"{name}: it holds {len(games)} games; give one")
    game = games[0].game
    position = game.position
    ended = rules.Game(position).outcome()
    if ended is not None:
        raise InputError(
            f"{name}: the game is over after its last move "
            f"({ended.termination.replace('_', ' ')}): nothing is left to play"
        )
    return position.fen(), position.variant


def parse_variant(value: Any, name: str = "variant") -> str | None:
    """A new game's rules: ``"standard"`` or ``"chess960"`` (None: not given)."""
    import rules

    if value in (None, ""):
        return None
    if not isinstance(value, str) or value not in rules.VARIANTS:
        known = ", ".join(rules.VARIANTS)
        raise InputError(f"{name}: {_show(value)} is not a variant (one of {known})")
    return value


def parse_chess960(value: Any, name: str = "chess960") -> int | str | None:
    """A Chess960 start position: a number from 0 to 959 (Scharnagl's; 518 is the
    standard array) or ``"random"`` (None: not given)."""
    if value in (None, ""):
        return None
    if value == "random":
        return value
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 959:
        raise InputError(
            f'{name}: {_show(value)} is not a start position (a number from 0 to 959, or "random")'
        )
    return value


def parse_options(body: Any) -> dict[str, Any]:
    """``touch_move`` (off/warn/enforce), ``takeback`` and ``hints`` (true/false), ``clock``
    (a time control: ``3+2``, ``none``), ``clock_switch`` (board/buttons), ``illegal_move``
    (guide/fide): any of them.

    >>> parse_options({"clock": "5 + 3 delay", "illegal_move": "fide"})
    {'clock': '5+3 delay', 'illegal_move': 'fide'}
    """
    if not isinstance(body, dict):
        raise InputError("options: expected an object")
    known = ("touch_move", "takeback", "hints", *CLOCK_OPTIONS)
    unknown = [k for k in body if k not in known]
    if unknown:
        names = ", ".join(map(str, unknown))
        raise InputError(f"options: unknown {names} (known: {', '.join(known)})")
    out: dict[str, Any] = {}
    if "touch_move" in body:
        mode = body["touch_move"]
        if mode not in TOUCH_MOVE_MODES:
            raise InputError(
                f"touch_move: {_show(mode)} is not one of {', '.join(TOUCH_MOVE_MODES)}"
            )
        out["touch_move"] = mode
    for name in ("takeback", "hints"):
        if name in body:
            if not isinstance(body[name], bool):
                raise InputError(f"{name}: {_show(body[name])} is not true or false")
            out[name] = body[name]
    out.update(parse_clock_options(body))
    return out


#: The clock's options and what each takes (None: a time control's text).
CLOCK_OPTIONS: dict[str, tuple[str, ...] | None] = {
    "clock": None,
    "clock_switch": SWITCHES,
    "illegal_move": ILLEGAL_MOVE_RULES,
}
#: The longest time control text a page sends.
MAX_CONTROL = 64


def parse_clock_options(body: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, choices in CLOCK_OPTIONS.items():
        if name not in body:
            continue
        value = body[name]
        if not isinstance(value, str) or len(value) > MAX_CONTROL:
            raise InputError(f"{name}: {_show(value)} is not a text of up to {MAX_CONTROL}")
        if choices is not None:
            if value not in choices:
                raise InputError(f"{name}: {_show(value)} is not one of {', '.join(choices)}")
            out[name] = value
            continue
        try:
            control = parse_time_control(value)
        except ValueError as exc:
            raise InputError(f"{name}: {exc}") from None
        out[name] = "none" if control is None else control.name()
    return out


def parse_clock(body: Any) -> tuple[str, dict[str, int]]:
    """The clock's action: ``pause``, ``resume``, or ``adjust`` with ``white_ms`` and
    ``black_ms`` (whole ms, at most ten hours).

    >>> parse_clock({"action": "adjust", "white_ms": 60000, "black_ms": 45000})
    ('adjust', {'white_ms': 60000, 'black_ms': 45000})
    """
    action = field(body, "action")
    if action not in ("pause", "resume", "adjust"):
        raise InputError(f"action: {_show(action)} is not one of pause, resume, adjust")
    unknown = [k for k in body if k not in ("action", "white_ms", "black_ms")]
    if unknown:
        raise InputError(f"clock: unknown {', '.join(map(str, unknown))}")
    if action != "adjust":
        return action, {}
    times = {}
    for name in ("white_ms", "black_ms"):
        value = field(body, name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 36_000_000:
            raise InputError(f"{name}: {_show(value)} is not a whole number of ms up to 10 hours")
        times[name] = value
    return action, times


def parse_engine(body: Any) -> tuple[str, dict[str, int | None]]:
    """The opponent: ``side`` (none, white, black) and any of the level's ``skill``
    (0..20), ``elo`` (a strength limited to this rating, 500..4000, or null: by ``skill``),
    ``depth`` (plies, 1..100, or null: no limit) and ``movetime_ms`` (1..600000, or null:
    no limit). Returns the side and the level's fields to change.

    >>> parse_engine({"side": "black", "skill": 3, "depth": 1, "movetime_ms": None})
    ('black', {'skill': 3, 'depth': 1, 'movetime_ms': None})
    >>> parse_engine({"side": "white", "elo": 1650})
    ('white', {'elo': 1650})
    >>> parse_engine({"side": "black", "skill": 25})
    Traceback (most recent call last):
    ...
    board_driver.connectors.web.inputs.InputError: skill: 25 is not between 0 and 20
    """
    if not isinstance(body, dict):
        raise InputError("engine: expected an object")
    known = ("side", "skill", "elo", "depth", "movetime_ms")
    unknown = [k for k in body if k not in known]
    if unknown:
        names = ", ".join(map(str, unknown))
        raise InputError(f"engine: unknown {names} (known: {', '.join(known)})")
    side = field(body, "side")
    if side not in ENGINE_SIDES:
        raise InputError(f"side: {_show(side)} is not one of {', '.join(ENGINE_SIDES)}")
    level: dict[str, int | None] = {}
    for name, low, high, optional in (
        ("skill", 0, 20, False),
        ("elo", MIN_ELO, MAX_ELO, True),
        ("depth", 1, MAX_DEPTH, True),
        ("movetime_ms", 1, MAX_MOVETIME_MS, True),
    ):
        if name not in body:
            continue
        value = body[name]
        if value is None and optional:
            level[name] = None
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            what = "a whole number" + (" or null (no limit)" if optional else "")
            raise InputError(f"{name}: {_show(value)} is not {what}")
        if not low <= value <= high:
            raise InputError(f"{name}: {value} is not between {low} and {high}")
        level[name] = value
    if level.get("depth", 0) is None and level.get("movetime_ms", 0) is None:
        raise InputError("depth, movetime_ms: both without limit; the engine needs one of them")
    return side, level


def _pgn_date(value: str) -> str | None:
    """Why ``value`` is not a PGN date (``2026.11.26``, ``??`` for a part not known)."""
    found = re.fullmatch(r"(\d{4}|\?{4})\.(\d{2}|\?\?)\.(\d{2}|\?\?)", value)
    if found is None:
        return "is not a PGN date like 2026.11.26 (?? for a part not known: 2026.11.??)"
    year, month, day = (None if "?" in part else int(part) for part in found.groups())
    if month is not None and not 1 <= month <= 12:
        return f"has no month {month:02d}"
    if day is not None:
        try:  # a part not known is judged at its most: a leap year, a month of 31 days
            _dt.date(year or 2000, month or 1, day)
        except ValueError:
            return "is not a day of the calendar"
    if year == 0:
        return "has no year 0000"
    return None


def _pgn_round(value: str) -> str | None:
    if re.fullmatch(r"\?|-|\d{1,4}(\.\d{1,4}){0,3}", value):
        return None
    return 'is not a round like "3" or "3.1" ("?": not known, "-": none)'


def _rating(value: str) -> str | None:
    if re.fullmatch(r"\d{1,4}", value) and int(value) <= 4000:
        return None
    return "is not a rating (a whole number up to 4000)"


def _title(value: str) -> str | None:
    if value in TITLES:
        return None
    return f"is not a title ({', '.join(TITLES)})"


def _number(value: str) -> str | None:
    return None if re.fullmatch(r"\d{1,12}", value) else "is not a number"


def _any(_value: str) -> str | None:
    return None


#: Titles a PGN names (FIDE's, national master, Lichess's ``LM`` and ``BOT``).
TITLES = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM", "NM", "LM", "BOT")
#: The PGN headers the page sets: those that say who played, where and when, each with
#: its check. The others are the board's own: it writes them from the game itself
#: (``Result``, ``Termination``, ``FEN``, ``SetUp``, ``Variant``, ``TimeControl``, ...) or
#: a player does (an engine's name and level, an online game's site).
PAGE_HEADERS = {
    "Event": _any,
    "Site": _any,
    "Date": _pgn_date,
    "Round": _pgn_round,
    "White": _any,
    "Black": _any,
    "WhiteElo": _rating,
    "BlackElo": _rating,
    "WhiteTitle": _title,
    "BlackTitle": _title,
    "WhiteTeam": _any,
    "BlackTeam": _any,
    "WhiteFideId": _number,
    "BlackFideId": _number,
    "EventDate": _pgn_date,
    "Board": _number,
    "Section": _any,
    "Stage": _any,
    "Annotator": _any,
}
#: Headers the game itself sets, named so when a page tries one.
GAME_HEADERS = ("Result", "Termination", "FEN", "SetUp", "Variant", "PlyCount", "TimeControl")


def parse_headers(body: Any) -> dict[str, str]:
    """PGN headers the page may set (:data:`PAGE_HEADERS`: who played, where, when), each
    one line of text of at most 255 characters that its check takes (a real date, a
    rating, a round); ``""`` removes one; at most :data:`MAX_HEADERS` of them.

    >>> parse_headers({"White": "Ann", "Round": "3", "Date": "2026.11.??"})
    {'White': 'Ann', 'Round': '3', 'Date': '2026.11.??'}
    >>> parse_headers({"White": 3})
    Traceback (most recent call last):
    ...
    board_driver.connectors.web.inputs.InputError: White: 3 is not one line of text
    >>> parse_headers({"Date": "2099.99.99"})
    Traceback (most recent call last):
    ...
    board_driver.connectors.web.inputs.InputError: Date: '2099.99.99' has no month 99
    >>> parse_headers({"Variant": "Atomic"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    board_driver.connectors.web.inputs.InputError: Variant: set by the game itself, ...
    """
    if not isinstance(body, dict) or not body:
        raise InputError('headers: expected an object like {"White": "Ann", "Round": "3"}')
    if len(body) > MAX_HEADERS:
        raise InputError(f"headers: {len(body)} given, at most {MAX_HEADERS} at once")
    headers = {}
    for name, value in body.items():
        if not _TAG.fullmatch(name):
            raise InputError(f"{_show(name)} is not a PGN tag name")
        if name not in PAGE_HEADERS:
            why = "set by the game itself" if name in GAME_HEADERS else "not a header the page sets"
            raise InputError(
                f"{name}: {why}, not from the page (the page sets {', '.join(PAGE_HEADERS)})"
            )
        if not isinstance(value, str) or len(value) > 255 or not value.isprintable():
            raise InputError(f"{name}: {_show(value)} is not one line of text")
        problem = PAGE_HEADERS[name](value) if value else None
        if problem:
            raise InputError(f"{name}: {_show(value)} {problem}")
        headers[name] = value
    return headers


def parse_game_id(value: Any, name: str = "game") -> int:
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(text, str) or not _GAME_ID.fullmatch(text):
        raise InputError(f"{name}: {_show(value)} is not a game number")
    return int(text)


def parse_steps(value: Any) -> list[tuple[str, int]]:
    """Simulator steps: ``[["lift", "e2"], ["place", "e4"]]``, at most :data:`MAX_STEPS`."""
    if not isinstance(value, list) or not value:
        raise InputError('steps: expected a list like [["lift", "e2"], ["place", "e4"]]')
    if len(value) > MAX_STEPS:
        raise InputError(f"steps: {len(value)} steps, at most {MAX_STEPS} in one request")
    steps = []
    for i, step in enumerate(value):
        if not isinstance(step, list) or len(step) != 2 or step[0] not in ("lift", "place"):
            raise InputError(f'steps[{i}]: {_show(step)} is not ["lift"|"place", square]')
        steps.append((step[0], parse_square(step[1], f"steps[{i}]")))
    return steps


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
