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
    """

    touch_move: str = "warn"
    takeback: bool = True
    hints: bool = False

    def __post_init__(self) -> None:
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
