"""The tracker's state, as light: one steady LED frame (a colour and a blink flag per square).

The tracker describes what the lights must say in a :class:`BoardView`; :func:`render`
paints it with the design's default colours (:class:`Colours`, all configurable). Where
two states want one square the more urgent wins: out of sync, then check, then a move
half done (or a touched piece owed a move), then hints.

>>> from board_driver.physical.squares import square
>>> view = BoardView(check_king=square("e8"), checkers=1 << square("h5"),
...                  fill=1 << square("e8"))
>>> frame = render(view)
>>> frame.rows()[0], frame.rows()[3]
('....B...', '.......o')

A move committed flashes its squares white (:func:`flash`); the flash is transient, so it
is not part of the steady frame.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from board_driver.physical.frame import COLOUR_LETTERS, Frame
from board_driver.physical.squares import squares_of


@dataclass(frozen=True, slots=True)
class Colours:
    """Which letter (palette colour) each state lights; defaults from the design."""

    hint: str = "g"  # a lifted piece's legal destinations (dim green: the palette's green)
    committed: str = "w"  # move committed: from and to, a short flash
    check_king: str = "r"
    checker: str = "o"
    empty: str = "r"  # out of sync: a piece stands where none should (blinking)
    fill: str = "b"  # out of sync: a piece is missing (blinking)
    half_done: str = "y"  # castling's rook squares, en passant's victim (blinking)
    touched: str = "y"  # a touched piece owed a move (blinking)
    to_execute: str = "c"  # a move for the other side to play on the board (blinking)
    winner_king: str = "g"
    loser_king: str = "r"
    draw_king: str = "y"
    setup_missing: str = "b"  # set-up: a square of the group due still empty
    setup_extra: str = "r"  # set-up: a piece where the position has none
    setup_wrong: str = "r"  # set-up: a piece the board knows is not the position's (blinking)
    setup_early: str = "y"  # set-up: filled before its kind was due (blinking)
    setup_check: str = "y"  # set-up: a square of the group due whose piece it cannot tell

    def __post_init__(self) -> None:
        for item in fields(self):
            letter = getattr(self, item.name)
            if letter not in COLOUR_LETTERS or letter == ".":
                raise ValueError(
                    f"colour for {item.name!r}: {letter!r} is not one of {COLOUR_LETTERS[1:]!r}"
                )


DEFAULT_COLOURS = Colours()


@dataclass(frozen=True, slots=True)
class BoardView:
    """What the lights must say; square sets are 64-bit masks, like scans."""

    empty: int = 0
    fill: int = 0
    check_king: int | None = None
    checkers: int = 0
    half_done: int = 0
    touched: int = 0
    hints: int = 0
    to_execute: int = 0
    winner_king: int | None = None
    loser_king: int | None = None
    draw_kings: int = 0
    setup_missing: int = 0
    setup_extra: int = 0
    setup_wrong: int = 0
    setup_early: int = 0
    setup_check: int = 0


def render(view: BoardView, colours: Colours = DEFAULT_COLOURS) -> Frame:
    """The steady frame for ``view``: least urgent painted first, most urgent last."""
    letters = ["."] * 64
    blink = 0

    def paint(mask: int, letter: str, blinking: bool = False) -> None:
        nonlocal blink
        for sq in squares_of(mask):
            letters[sq] = letter
            if blinking:
                blink |= 1 << sq
            else:
                blink &= ~(1 << sq)

    paint(view.hints, colours.hint)
    paint(view.to_execute, colours.to_execute, True)
    paint(view.half_done, colours.half_done, True)
    paint(view.touched, colours.touched, True)
    paint(view.draw_kings, colours.draw_king)
    if view.winner_king is not None:
        paint(1 << view.winner_king, colours.winner_king)
    if view.loser_king is not None:
        paint(1 << view.loser_king, colours.loser_king)
    paint(view.checkers, colours.checker)
    if view.check_king is not None:
        paint(1 << view.check_king, colours.check_king)
    paint(view.setup_check, colours.setup_check)
    paint(view.setup_missing, colours.setup_missing)
    paint(view.setup_extra, colours.setup_extra)
    paint(view.setup_early, colours.setup_early, True)
    paint(view.setup_wrong, colours.setup_wrong, True)
    paint(view.empty, colours.empty, True)
    paint(view.fill, colours.fill, True)
    return Frame(tuple(letters), blink)


def flash(from_square: int, to_square: int, colours: Colours = DEFAULT_COLOURS) -> Frame:
    """The transient flash of a committed move: its from and to squares."""
    return (
        Frame.off()
        .with_square(from_square, colours.committed)
        .with_square(to_square, colours.committed)
    )
