"""What hands do to the board, as the layers right of debounce see it.

Each event has ``t_ms``, the time in milliseconds (a monotonic clock in the daemon,
script time in a replay). These are the board-script events (see
``docs/board-script.md``): debounce turns raw scans into ``Lift``/``Place``;
buttons and the web page make ``Choose``/``Button``.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The buttons that ask the board something, and what they ask (the speech extension says
#: the answer: the last move, the last few moves, both clocks, the material; ``square``,
#: ``rank`` and ``file``: the next piece lifted and put back is named, or its rank or file
#: read, and that lift touches nothing, as after *j'adoube*).
ASK_BUTTONS = {
    "say_move": "move",
    "say_moves": "moves",
    "say_clocks": "clocks",
    "say_material": "material",
    "say_square": "square",
    "say_rank": "rank",
    "say_file": "file",
}
#: The controls a player can press (board-script ``button <name>``).
BUTTON_NAMES = frozenset(
    {"adjust", "resign", "draw_offer", "draw_accept", "claim_draw", "new_game", "hint"}
    # A resignation for a named side (FIDE 5.1.2: either player may resign at any moment;
    # ``resign`` is the side to move's, or the people's against a player away).
    | {"resign_white", "resign_black"}
    # The clock's: the running side's clock, either player's, pause and resume.
    | {"clock", "clock_white", "clock_black", "pause"}
    | set(ASK_BUTTONS)
)
#: Pieces a pawn may become (board-script ``choose <piece>``).
PROMOTION_LETTERS = frozenset("qrbn")


@dataclass(frozen=True, slots=True)
class Lift:
    """A piece left ``square`` (its reed switch opened)."""

    t_ms: int
    square: int


@dataclass(frozen=True, slots=True)
class Place:
    """A piece arrived on ``square`` (its reed switch closed)."""

    t_ms: int
    square: int


@dataclass(frozen=True, slots=True)
class Choose:
    """The player names the piece a pawn becomes: ``"q"``, ``"r"``, ``"b"`` or ``"n"``."""

    t_ms: int
    piece: str


@dataclass(frozen=True, slots=True)
class Button:
    """A control was pressed; ``name`` is one of :data:`BUTTON_NAMES`."""

    t_ms: int
    name: str


BoardEvent = Lift | Place | Choose | Button
