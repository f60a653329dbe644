"""Which pixel of the strip lights which square.

Two builds are supported:

* ``count=64``: one LED under the middle of each square. The strip starts at the
  ``first`` corner square and runs along that rank (``along="rank"``, the usual build)
  or up that file (``along="file"``) to the far edge, then on to the next rank (file):
  back to the same edge for ``order="rows"``, turning round for ``order="serpentine"``
  (the strip folds back under the next rank, so no long return wire is needed).
* ``count=81``: one LED at every corner of the squares (a 9x9 grid, as some commercial
  boards have), laid out the same way over the 9x9 points. A square is lit by its four
  corner LEDs; a corner shared by two lit squares takes the brighter of their colours
  channel by channel, so neighbouring lit squares read as one patch of light.

>>> layout = StripLayout(order="serpentine", first="a1")
>>> [square_name(layout.square_of_pixel[i]) for i in (0, 7, 8, 15, 16)]
['a1', 'h1', 'h2', 'a2', 'a3']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from board_driver.physical.ports import RGB
from board_driver.physical.squares import square_name

ORDERS = ("rows", "serpentine")
CORNERS = ("a1", "h1", "a8", "h8")
ALONG = ("rank", "file")
COUNTS = (64, 81)


class LayoutConfigError(ValueError):
    """A strip layout option in the config is wrong."""


def _grid_order(size: int, order: str, first: str, along: str) -> list[tuple[int, int]]:
    """(file, rank) of each pixel in strip order over a size x size grid."""
    right = first[0] == "a"  # the first pixel is on the a side: files run a -> h
    up = first[1] == "1"
    points = []
    for line in range(size):
        forward = order == "rows" or line % 2 == 0
        for step in range(size):
            across = step if forward else size - 1 - step
            if along == "rank":
                file = across if right else size - 1 - across
                rank = line if up else size - 1 - line
            else:
                rank = across if up else size - 1 - across
                file = line if right else size - 1 - line
            points.append((file, rank))
    return points


@dataclass(frozen=True)
class StripLayout:
    """The square-to-pixel mapping of the strip; see the module docstring."""

    count: int = 64
    order: str = "serpentine"
    first: str = "a1"
    along: str = "rank"
    #: Square lit by pixel *i* (64 LEDs only; empty for 81).
    square_of_pixel: tuple[int, ...] = field(init=False, repr=False, compare=False)
    #: Squares around pixel *i* (81 LEDs: up to 4; 64 LEDs: exactly one).
    squares_of_pixel: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.count not in COUNTS:
            raise LayoutConfigError(
                f"[leds] count must be 64 (one LED per square) or 81 (LEDs at the corners), "
                f"got {self.count!r}"
            )
        if self.order not in ORDERS:
            raise LayoutConfigError(
                f"[leds] order must be 'rows' or 'serpentine', got {self.order!r}"
            )
        if self.first not in CORNERS:
            raise LayoutConfigError(
                f"[leds] first must be a corner square: a1, h1, a8 or h8, got {self.first!r}"
            )
        if self.along not in ALONG:
            raise LayoutConfigError(f"[leds] along must be 'rank' or 'file', got {self.along!r}")
        if self.count == 64:
            points = _grid_order(8, self.order, self.first, self.along)
            squares: tuple[int, ...] = tuple(rank * 8 + file for file, rank in points)
            around: tuple[tuple[int, ...], ...] = tuple((sq,) for sq in squares)
        else:
            squares = ()
            around = tuple(
                tuple(
                    r * 8 + f
                    for r in (rank - 1, rank)
                    for f in (file - 1, file)
                    if 0 <= r < 8 and 0 <= f < 8
                )
                for file, rank in _grid_order(9, self.order, self.first, self.along)
            )
        object.__setattr__(self, "square_of_pixel", squares)
        object.__setattr__(self, "squares_of_pixel", around)

    def pixels(self, colours: Sequence[RGB]) -> list[RGB]:
        """The colour of every pixel in strip order, from 64 colours indexed by square."""
        if len(colours) != 64:
            raise ValueError(f"expected 64 colours, one per square, got {len(colours)}")
        if self.count == 64:
            return [colours[sq] for sq in self.square_of_pixel]
        out = []
        for squares in self.squares_of_pixel:
            lit = [colours[sq] for sq in squares]
            out.append(tuple(max(channel) for channel in zip(*lit, strict=True)))  # type: ignore[misc]
        return out

    def describe_pixel(self, pixel: int) -> str:
        """The square(s) a pixel lights, for diagnose: ``'e4'``, or ``'d4 e4 d5 e5'`` (81)."""
        return " ".join(square_name(sq) for sq in self.squares_of_pixel[pixel])
