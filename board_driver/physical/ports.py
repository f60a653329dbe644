"""The two small ports every hardware backend fits.

Nothing right of debounce knows which hardware is attached; nothing left of it knows
chess. Backends (GPIO matrix, NeoPixel strip, the serial bridge, the simulator) fit
these protocols structurally, so :mod:`firmware_bridge` needs no import of ours.

Square *i* is bit *i* of a bitmap: a1 = 0 .. h8 = 63 (see :mod:`board_driver.physical.squares`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

RGB = tuple[int, int, int]


@runtime_checkable
class SensingPort(Protocol):
    """Reads the reed-switch matrix."""

    def scan(self) -> int:
        """One full scan now: a 64-bit bitmap, bit *i* set when square *i* holds a piece."""
        ...

    def close(self) -> None:
        """Release the hardware (lines, serial port)."""
        ...


@runtime_checkable
class LedPort(Protocol):
    """Lights the squares."""

    def show(self, colours: Sequence[RGB]) -> None:
        """Light 64 RGB colours (0..255 each) indexed by square, a1 = 0 .. h8 = 63.

        Palette, brightness cap and gamma are already applied; the backend maps squares
        to pixels and writes only when something changed.
        """
        ...

    def close(self) -> None:
        """Turn the lights off and release the hardware."""
        ...
