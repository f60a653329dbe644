"""How strictly the board plays, and how long it waits: the tracker's settings.

:class:`GameOptions` are the rules a pair of players chose (config ``[game]``, board-script
``option`` lines, the web page); :class:`Timing` is how the board reads hands in time.
Both check their values and name the one at fault:

>>> GameOptions(touch_move="enforce").takeback
True
>>> Timing(settle_ms=0)
Traceback (most recent call last):
...
ValueError: settle_ms: must be at least 1
"""

from __future__ import annotations

from dataclasses import dataclass

from board_driver.clock.control import parse_time_control
from board_driver.clock.keeper import ILLEGAL_MOVE_RULES, SWITCHES
from rules import BISHOP, KNIGHT, QUEEN, ROOK

#: The touch-move modes: ``off``, ``warn`` (announce, accept) and ``enforce`` (refuse).
TOUCH_MOVE_MODES = ("off", "warn", "enforce")
#: The pieces a pawn may become, by the letter a ``choose`` names.
PROMOTION_PIECES = {"q": QUEEN, "r": ROOK, "b": BISHOP, "n": KNIGHT}
#: The shortest settle time the tracker works with: a move is judged once the board is still.
MIN_SETTLE_MS = 1


@dataclass(frozen=True, slots=True)
class GameOptions:
    """How strictly the board plays (config ``[game]``, board-script ``option`` lines).

    ``touch_move``: ``"off"``, ``"warn"`` (announce and light the touched piece, accept
    the other move) or ``"enforce"`` (the other move is illegal); ``takeback``: the board
    set back to the position before the last move undoes it; ``hints``: a lifted
    piece's legal destinations light up.

    The clock (config ``[clock]``; the tracker itself never reads these): ``clock``, the
    time control (``"none"``, ``"3+2"``, ``"40/5400+30:1800+30"``: see
    :mod:`board_driver.clock.control`; kept in its own words, :meth:`TimeControl.name`);
    ``clock_switch``: ``"board"`` (the hand letting go of a move stops the mover's clock)
    or ``"buttons"`` (the players press their clocks); ``illegal_move``: ``"guide"`` (the
    board guides it back) or ``"fide"`` (FIDE 7.5.5: two minutes to the opponent, the
    second one loses).

    >>> GameOptions(clock="5 + 3 Bronstein").clock
    '5+3 bronstein'
    """

    touch_move: str = "warn"
    takeback: bool = True
    hints: bool = False
    clock: str = "none"
    clock_switch: str = "board"
    illegal_move: str = "guide"

    def __post_init__(self) -> None:
        control = parse_time_control(self.clock)  # ValueError names what is wrong
        object.__setattr__(self, "clock", "none" if control is None else control.name())
        if self.clock_switch not in SWITCHES:
            raise ValueError(
                f"clock_switch: {self.clock_switch!r} is not one of {', '.join(SWITCHES)}"
            )
        if self.illegal_move not in ILLEGAL_MOVE_RULES:
            raise ValueError(
                f"illegal_move: {self.illegal_move!r} is not one of "
                f"{', '.join(ILLEGAL_MOVE_RULES)}"
            )
        if self.touch_move not in TOUCH_MOVE_MODES:
            raise ValueError(
                f"touch_move: {self.touch_move!r} is not one of {', '.join(TOUCH_MOVE_MODES)}"
            )
        for name in ("takeback", "hints"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}: expected true or false, got {getattr(self, name)!r}")


@dataclass(frozen=True, slots=True)
class Timing:
    """``settle_ms``: how long the board must be still before a move is judged;
    ``pass_ms``: a piece resting less than this on a square only passed over it (and a
    square that empties and fills again within it only flickered)."""

    settle_ms: int = 250
    pass_ms: int = 100

    def __post_init__(self) -> None:
        for name in ("settle_ms", "pass_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name}: expected a whole number of milliseconds, got {value!r}")
        if self.settle_ms < MIN_SETTLE_MS:
            raise ValueError(f"settle_ms: must be at least {MIN_SETTLE_MS}")


#: The defaults: the daemon's ``[game]`` section with nothing set.
DEFAULT_OPTIONS = GameOptions()
DEFAULT_TIMING = Timing()
