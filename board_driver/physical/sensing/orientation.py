"""Which square each switch of the matrix sits under.

The matrix is wired as rows (``rows`` in the config, listed rank 1 first) and columns
(``columns``, file a first). On a board wired that way, row *r* column *c* is square
``8 * r + c``: row 0 column 0 is a1. A board turned on its base, or wired with the
columns in the other order, is corrected here rather than by re-soldering:

* ``mirror`` reverses the columns first (row 0, column 0 becomes h1);
* ``rotation`` then turns the board clockwise, seen from above with White at the
  bottom: row 0, column 0 is a1 at 0, a8 at 90, h8 at 180 and h1 at 270.

>>> Orientation().square_at(0, 0), Orientation(rotation=90).square_at(0, 0)
(0, 56)
>>> Orientation(mirror=True).square_at(0, 0)
7
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

ROTATIONS = (0, 90, 180, 270)


@dataclass(frozen=True)
class Orientation:
    """Maps matrix positions (row, column) to squares; see the module docstring."""

    rotation: int = 0
    mirror: bool = False
    _row_tables: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rotation not in ROTATIONS:
            raise ValueError(f"rotation must be one of 0, 90, 180, 270, got {self.rotation!r}")
        if not isinstance(self.mirror, bool):
            raise ValueError(f"mirror must be true or false, got {self.mirror!r}")
        # One 256-entry table per row: the byte of columns read -> bitmap of squares, so a
        # whole scan is assembled with 8 lookups.
        tables = []
        for row in range(8):
            singles = [1 << self.square_at(row, column) for column in range(8)]
            table = [0] * 256
            for byte in range(1, 256):
                low = byte & -byte
                table[byte] = table[byte ^ low] | singles[low.bit_length() - 1]
            tables.append(tuple(table))
        object.__setattr__(self, "_row_tables", tuple(tables))

    def square_at(self, row: int, column: int) -> int:
        """The square under the switch at matrix ``row`` and ``column`` (0..7 each)."""
        if self.mirror:
            column = 7 - column
        file, rank = column, row
        for _ in range(self.rotation // 90):
            # A quarter turn clockwise seen from above: the a1 corner goes to a8.
            file, rank = rank, 7 - file
        return rank * 8 + file

    def position_of(self, square: int) -> tuple[int, int]:
        """The matrix (row, column) whose switch sits under ``square``."""
        for row in range(8):
            for column in range(8):
                if self.square_at(row, column) == square:
                    return row, column
        raise ValueError(f"not a square index: {square!r}")

    def bitmap(self, row_bytes: Sequence[int]) -> int:
        """The square bitmap from 8 bytes read row by row (bit *c* = column *c* closed)."""
        tables = self._row_tables
        bitmap = 0
        for row, byte in enumerate(row_bytes):
            bitmap |= tables[row][byte]
        return bitmap
