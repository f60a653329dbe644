"""Time controls as players name them, and as PGN's ``TimeControl`` tag writes them.

A :class:`TimeControl` is one or more :class:`Stage` s, each a time given to each player
for a number of moves (the last stage: for the rest of the game), with a bonus per move
that the ``mode`` makes an increment or a delay:

- ``fischer``: the bonus is added after each move (an increment; ``3+2``);
- ``bronstein``: after each move the time it took is given back, up to the bonus (the
  clock never shows more than it did when the move began);
- ``delay`` (simple, or US, delay): each move's clock waits the bonus before it counts.

Texts, as a config file, a board script or the page give them (:func:`parse_time_control`):

======================== =====================================================
``5+0``, ``3+2``         minutes + seconds a move (the names players use)
``90+30``                90 minutes, 30 s added after every move
``0.5+0``                30 seconds (a fraction of a minute)
``45s+1``                45 seconds (``s``: seconds), 1 s a move
``5+3 delay``            5 minutes, a simple (US) delay of 3 s a move
``5+2 bronstein``        5 minutes, a Bronstein delay of 2 s a move
``40/5400+30:1800+30``   PGN's notation, in seconds (FIDE classical: 90 minutes
                         for 40 moves, then 30 minutes, 30 s a move from move 1)
``none``                 no clock
======================== =====================================================

>>> control = parse_time_control("40/5400+30:1800+30")
>>> control.stages[0], control.initial_ms
(Stage(moves=40, time_ms=5400000, bonus_ms=30000), 5400000)
>>> control.pgn(), control.name()
('40/5400+30:1800+30', '40/5400+30:1800+30')
>>> parse_time_control("3+2").pgn(), parse_time_control("0.5+0").name()
('180+2', '0.5+0')
>>> print(parse_time_control("none"))
None
>>> parse_time_control("3 + two")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: time control '3 + two': expected minutes+seconds (3+2), seconds with s (45s+1), ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: How a stage's bonus counts: an increment, a Bronstein delay, a simple (US) delay.
MODES = ("fischer", "bronstein", "delay")
#: The words a text may end with to say the mode.
MODE_WORDS = {
    "fischer": "fischer",
    "increment": "fischer",
    "bronstein": "bronstein",
    "delay": "delay",
    "simple": "delay",
    "us": "delay",
}
#: Texts that say "no clock".
NO_CLOCK = ("", "none", "off", "no", "-")
#: The longest stage (the DGT clock shows at most 9:59:59) and bonus, and the most
#: moves in a stage and stages in a control.
MAX_STAGE_MS = 10 * 3600 * 1000 - 1000
MAX_BONUS_MS = 600 * 1000
MAX_STAGE_MOVES = 200
MAX_STAGES = 5

_EXPECTED = (
    "expected minutes+seconds (3+2), seconds with s (45s+1), PGN's notation "
    "(40/5400+30:1800+30) or none; and after it, optionally, fischer, bronstein or delay"
)
_SIMPLE = re.compile(r"(\d+(?:\.\d+)?)(s?)(?:\+(\d+))?")
#: The most digits a number of a time control has: ten hours is 36000 seconds, and a
#: number far past any bound is refused before any arithmetic (a float of 309 digits is
#: infinite).
MAX_DIGITS = 9
_NUMBER = re.compile(r"\d+")
_PGN_STAGE = re.compile(r"(?:(\d+)/)?(\d+)(?:\+(\d+))?")


@dataclass(frozen=True, slots=True)
class Stage:
    """``time_ms`` for ``moves`` moves (None: the rest of the game), ``bonus_ms`` a move."""

    moves: int | None
    time_ms: int
    bonus_ms: int = 0


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A time control: its stages and how the bonus counts (see the module docstring).

    After a player's move that ends a stage (its 40th, in ``40/5400+30:1800+30``), the
    next stage's time is added to that player's clock. A last stage with a number of
    moves is repeated (PGN: ``40/7200`` is 40 moves every two hours).
    """

    stages: tuple[Stage, ...]
    mode: str = "fischer"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"time control mode {self.mode!r} is not one of {', '.join(MODES)}")
        if not self.stages or len(self.stages) > MAX_STAGES:
            raise ValueError(f"a time control has 1 to {MAX_STAGES} stages")
        for i, stage in enumerate(self.stages):
            where = f"stage {i + 1}"
            if not 1000 <= stage.time_ms <= MAX_STAGE_MS or stage.time_ms % 1000:
                raise ValueError(
                    f"{where}: {_seconds(stage.time_ms)} s is not a whole number of seconds "
                    f"from 1 s to {MAX_STAGE_MS // 1000} s"
                )
            if not 0 <= stage.bonus_ms <= MAX_BONUS_MS or stage.bonus_ms % 1000:
                raise ValueError(
                    f"{where}: a bonus of {_seconds(stage.bonus_ms)} s is not a whole number of "
                    f"seconds up to {MAX_BONUS_MS // 1000} s"
                )
            if stage.moves is not None and not 1 <= stage.moves <= MAX_STAGE_MOVES:
                raise ValueError(f"{where}: {stage.moves} moves is not 1 to {MAX_STAGE_MOVES}")
            if stage.moves is None and i != len(self.stages) - 1:
                raise ValueError(f"{where}: only the last stage can be for the rest of the game")

    # ------------------------------------------------------------------ the arithmetic

    @property
    def initial_ms(self) -> int:
        """What each clock shows at the start."""
        return self.stages[0].time_ms

    def stage_of(self, move_number: int) -> Stage:
        """The stage a player's ``move_number``-th move (1 = its first) is played in.

        >>> control = parse_time_control("40/5400+30:1800+30")
        >>> control.stage_of(40).time_ms, control.stage_of(41).time_ms
        (5400000, 1800000)
        """
        end = 0
        for stage in self.stages:
            if stage.moves is None:
                return stage
            end += stage.moves
            if move_number <= end:
                return stage
        return self.stages[-1]  # a repeated last stage

    def added_after(self, move_number: int) -> int:
        """The time a new stage adds once a player has made ``move_number`` moves (0 when
        that move does not end a stage).

        >>> control = parse_time_control("40/5400+30:1800+30")
        >>> control.added_after(39), control.added_after(40), control.added_after(80)
        (0, 1800000, 0)
        >>> repeated = parse_time_control("40/7200")
        >>> repeated.added_after(40), repeated.added_after(80)
        (7200000, 7200000)
        """
        end = 0
        for i, stage in enumerate(self.stages):
            if stage.moves is None:
                return 0
            end += stage.moves
            if move_number < end:
                return 0
            if move_number == end:  # the next stage, or this last one again
                return self.stages[i + 1].time_ms if i + 1 < len(self.stages) else stage.time_ms
        last = self.stages[-1]
        assert last.moves is not None
        return last.time_ms if (move_number - end) % last.moves == 0 else 0

    # ------------------------------------------------------------------ texts

    def pgn(self) -> str:
        """PGN's ``TimeControl`` (seconds; PGN has no notation for a delay, so a delay's
        bonus is left out: see :meth:`name`)."""
        parts = []
        for stage in self.stages:
            text = f"{stage.time_ms // 1000}"
            if stage.moves is not None:
                text = f"{stage.moves}/{text}"
            if stage.bonus_ms and self.mode == "fischer":
                text += f"+{stage.bonus_ms // 1000}"
            parts.append(text)
        return ":".join(parts)

    def name(self) -> str:
        """The text that names it, as players say it (read back by :func:`parse_time_control`).

        >>> parse_time_control("5 + 3 DELAY").name(), parse_time_control("100s").name()
        ('5+3 delay', '100s+0')
        """
        mode = "" if self.mode == "fischer" else f" {self.mode}"
        if len(self.stages) == 1 and self.stages[0].moves is None:
            stage = self.stages[0]
            bonus = stage.bonus_ms // 1000
            minutes = stage.time_ms / 60_000
            if stage.time_ms % 15_000 == 0:
                return f"{minutes:g}+{bonus}{mode}"
            return f"{stage.time_ms // 1000}s+{bonus}{mode}"
        text = ":".join(
            (f"{s.moves}/" if s.moves is not None else "")
            + f"{s.time_ms // 1000}"
            + (f"+{s.bonus_ms // 1000}" if s.bonus_ms else "")
            for s in self.stages
        )
        return text + mode

    def describe(self) -> str:
        """The control in words.

        >>> parse_time_control("40/5400+30:1800+30").describe()
        '90 min for 40 moves, then 30 min for the rest of the game; 30 s added after every move'
        >>> parse_time_control("5+2 bronstein").describe()
        '5 min for the game; a Bronstein delay of 2 s a move'
        """
        parts = []
        for i, stage in enumerate(self.stages):
            span = "the game" if len(self.stages) == 1 else "the rest of the game"
            if stage.moves is not None:
                span = f"{stage.moves} moves" + (" (repeated)" if i == len(self.stages) - 1 else "")
            parts.append(f"{_duration(stage.time_ms)} for {span}")
        text = ", then ".join(parts)
        bonuses = {s.bonus_ms for s in self.stages}
        if bonuses != {0}:
            bonus = "/".join(_duration(b) for b in sorted(bonuses))
            text += {
                "fischer": f"; {bonus} added after every move",
                "bronstein": f"; a Bronstein delay of {bonus} a move",
                "delay": f"; a simple delay of {bonus} a move",
            }[self.mode]
        return text


def _seconds(ms: int) -> str:
    """Milliseconds as seconds, in whole-number arithmetic (``ms`` may be any size).

    >>> _seconds(1500), _seconds(3000), _seconds(-250), _seconds(10**40)
    ('1.5', '3', '-0.25', 'over 10^12')
    """
    if abs(ms) >= 10**15:
        return "over 10^12"
    whole, rest = divmod(abs(ms), 1000)
    text = f"{whole}.{rest:03d}".rstrip("0").rstrip(".")
    return f"-{text}" if ms < 0 else text


def _duration(ms: int) -> str:
    if ms % 60_000 == 0:
        return f"{ms // 60_000} min"
    return f"{ms / 1000:g} s"


def parse_time_control(text: str) -> TimeControl | None:
    """The control ``text`` names (see the module docstring); None for no clock.
    ValueError says what is wrong."""
    if not isinstance(text, str):
        raise ValueError(f"time control: expected text, got {text!r}")
    words = text.strip().lower().split()
    mode = "fischer"
    if words and words[-1] in MODE_WORDS:
        mode = MODE_WORDS[words.pop()]
    spec = "".join(words)
    if spec in NO_CLOCK and (words or mode == "fischer"):
        return None
    longest = max((len(n) for n in _NUMBER.findall(spec)), default=0)
    if longest > MAX_DIGITS:
        shown = text if len(text) <= 40 else f"{text[:37]}..."
        raise ValueError(
            f"time control {shown!r}: a number of {longest} digits is no time a clock can hold "
            f"(at most {MAX_STAGE_MS // 1000} s a stage, {MAX_BONUS_MS // 1000} s a move)"
        )
    try:
        if "/" in spec or ":" in spec:
            return _control(_pgn_stages(spec), mode)
        found = _SIMPLE.fullmatch(spec)
        if found is None:
            raise _Unreadable
        number, seconds, bonus = found.groups()
        unit = 1000 if seconds else 60_000
        time_ms = float(number) * unit
        if time_ms != int(time_ms):
            raise ValueError(f"{number}{seconds}: not a whole number of seconds")
        return _control((Stage(None, int(time_ms), int(bonus or 0) * 1000),), mode)
    except _Unreadable:
        raise ValueError(f"time control {text!r}: {_EXPECTED}") from None
    except ValueError as exc:
        raise ValueError(f"time control {text!r}: {exc}") from None


def from_pgn(text: str) -> TimeControl | None:
    """The control of a PGN ``TimeControl`` tag (seconds), None for ``-`` (no clock) or
    ``?`` (not known). ValueError for anything else it cannot read (a sandclock ``*60``).

    >>> from_pgn("180+2") == parse_time_control("3+2"), from_pgn("-")
    (True, None)
    """
    spec = text.strip()
    if spec in ("-", "?", ""):
        return None
    if max((len(n) for n in _NUMBER.findall(spec)), default=0) > MAX_DIGITS:
        raise ValueError(f"TimeControl {spec[:40]!r}: a number far past any clock")
    try:
        return _control(_pgn_stages(spec), "fischer")
    except _Unreadable:
        raise ValueError(f"TimeControl {text!r}: not PGN's notation (40/5400+30:1800+30)") from None


class _Unreadable(ValueError):
    pass


def _pgn_stages(spec: str) -> tuple[Stage, ...]:
    stages = []
    for part in spec.split(":"):
        found = _PGN_STAGE.fullmatch(part)
        if found is None:
            raise _Unreadable
        moves, seconds, bonus = found.groups()
        stages.append(
            Stage(int(moves) if moves else None, int(seconds) * 1000, int(bonus or 0) * 1000)
        )
    return tuple(stages)


def _control(stages: tuple[Stage, ...], mode: str) -> TimeControl:
    return TimeControl(stages, mode)
