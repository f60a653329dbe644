"""Simulated LEDs: keep the last colours for the web page, and draw them in a terminal.

>>> leds = SimulatedLeds()
>>> leds.show([(76, 0, 0)] + [(0, 0, 0)] * 63)
>>> leds.colours[0], leds.writes
((76, 0, 0), 1)
>>> leds.show([(76, 0, 0)] + [(0, 0, 0)] * 63)   # the same again: nothing written
>>> leds.writes
1
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from board_driver.physical.ports import RGB

OFF: RGB = (0, 0, 0)


class SimulatedLeds:
    """A :class:`~board_driver.physical.ports.LedPort` that remembers what it shows.

    ``listeners`` are called with the 64 colours on every change (from the caller's
    thread), for the web page.
    """

    def __init__(self) -> None:
        self.colours: list[RGB] = [OFF] * 64
        self.writes = 0
        self.closed = False
        self.listeners: list[Callable[[list[RGB]], None]] = []
        self._lock = threading.Lock()

    def show(self, colours: Sequence[RGB]) -> None:
        if len(colours) != 64:
            raise ValueError(f"expected 64 colours, one per square, got {len(colours)}")
        wanted = [tuple(c) for c in colours]
        with self._lock:
            if wanted == self.colours:
                return
            self.colours = wanted  # type: ignore[assignment]
            self.writes += 1
        for listener in list(self.listeners):
            listener(list(self.colours))

    def close(self) -> None:
        self.show([OFF] * 64)
        self.closed = True

    def render_terminal(self, *, colour: bool = True, pieces: int = 0) -> str:
        """The board as 8 text lines, rank 8 first, with file and rank labels.

        With ``colour`` each square is an ANSI 24-bit background (its LED's colour scaled up
        so a 30% cap stays visible) and ``●`` marks the squares in ``pieces``; without,
        ``#`` is a lit square, ``o`` a piece, ``@`` both and ``.`` neither.
        """
        return render_terminal(self.colours, colour=colour, pieces=pieces)


def render_terminal(colours: Sequence[RGB], *, colour: bool = True, pieces: int = 0) -> str:
    """See :meth:`SimulatedLeds.render_terminal`."""
    lines = []
    peak = max((max(c) for c in colours), default=0) or 1
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            sq = rank * 8 + file
            mark = "●" if pieces >> sq & 1 else " "
            r, g, b = colours[sq]
            if colour:
                if (r, g, b) == OFF:
                    # Unlit squares keep the board's pattern: a1 is a dark square.
                    r = g = b = 40 if (rank + file) % 2 == 0 else 80
                else:
                    # Stretch to full scale: the cap is for eyes over a board, not a screen.
                    scale = 255 / peak
                    r, g, b = (min(255, round(v * scale)) for v in (r, g, b))
                cells.append(f"\x1b[48;2;{r};{g};{b}m {mark} \x1b[0m")
            else:
                lit = (r, g, b) != OFF
                held = pieces >> sq & 1
                cells.append(("@" if held else "#") if lit else ("o" if held else "."))
        lines.append(f"{rank + 1} " + ("".join(cells) if colour else " ".join(cells)))
    lines.append("   " + "  ".join("abcdefgh") if colour else "  " + " ".join("abcdefgh"))
    return "\n".join(lines)
