"""An LED frame: what the lights under the 64 squares show in one steady state.

A frame holds one colour letter per square (index a1 = 0 .. h8 = 63) and a blink
flag per square. Letters are the board-script letters: ``.`` off, ``r`` red,
``o`` orange, ``y`` yellow, ``g`` green, ``b`` blue, ``c`` cyan, ``w`` white.
Which RGB value each letter lights is the LED backend's palette (configurable).

The daemon times blinking: it hands the LED port ``frame.at_phase(on)``.

>>> f = Frame.off().with_square(28, "g").with_square(36, "r", blink=True)
>>> f.rows()[3], f.rows()[4]
('....R...', '....g...')
>>> f.at_phase(False).rows()[3]
'........'
"""

from __future__ import annotations

from dataclasses import dataclass

COLOUR_LETTERS = ".roygbcw"
COLOUR_NAMES = {
    ".": "off",
    "r": "red",
    "o": "orange",
    "y": "yellow",
    "g": "green",
    "b": "blue",
    "c": "cyan",
    "w": "white",
}


@dataclass(frozen=True, slots=True)
class Frame:
    """64 colour letters indexed by square, and a 64-bit mask of blinking squares."""

    colours: tuple[str, ...]
    blink: int = 0

    def __post_init__(self) -> None:
        if len(self.colours) != 64:
            raise ValueError(f"a frame has 64 squares, got {len(self.colours)}")
        for index, letter in enumerate(self.colours):
            if letter not in COLOUR_LETTERS:
                raise ValueError(
                    f"square {index}: colour {letter!r} is not one of {COLOUR_LETTERS!r}"
                )

    @classmethod
    def off(cls) -> Frame:
        """Every light off."""
        return cls((".",) * 64)

    @classmethod
    def from_rows(cls, rows: list[str] | tuple[str, ...]) -> Frame:
        """Read the board-script form: 8 strings, rank 8 first, upper case = blinking."""
        if len(rows) != 8 or any(len(r) != 8 for r in rows):
            raise ValueError("a frame is 8 rows of 8 letters, rank 8 first")
        colours = ["."] * 64
        blink = 0
        for row_index, row in enumerate(rows):
            rank = 7 - row_index
            for file, letter in enumerate(row):
                sq = rank * 8 + file
                lower = letter.lower()
                if lower not in COLOUR_LETTERS:
                    raise ValueError(f"row {row_index + 1}: {letter!r} is not a colour letter")
                colours[sq] = lower
                if letter != lower:
                    blink |= 1 << sq
        return cls(tuple(colours), blink)

    def rows(self) -> list[str]:
        """The board-script form: 8 strings of 8 letters, rank 8 first, upper case = blinking."""
        out = []
        for rank in range(7, -1, -1):
            chars = []
            for file in range(8):
                sq = rank * 8 + file
                letter = self.colours[sq]
                chars.append(letter.upper() if self.blink >> sq & 1 else letter)
            out.append("".join(chars))
        return out

    def with_square(self, square: int, letter: str, *, blink: bool = False) -> Frame:
        """A copy with one square set."""
        colours = list(self.colours)
        colours[square] = letter
        mask = self.blink & ~(1 << square)
        if blink and letter != ".":
            mask |= 1 << square
        return Frame(tuple(colours), mask)

    def at_phase(self, on: bool) -> Frame:
        """The frame as lit at one moment: blinking squares dark in the off phase."""
        if on or not self.blink:
            return Frame(self.colours, 0)
        colours = tuple(
            "." if self.blink >> sq & 1 else letter for sq, letter in enumerate(self.colours)
        )
        return Frame(colours, 0)

    def __str__(self) -> str:
        return "\n".join(self.rows())
