"""The part every NeoPixel backend shares: map squares to pixels, write only on change."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from board_driver.physical.leds.layout import StripLayout
from board_driver.physical.ports import RGB


class PixelStrip:
    """A :class:`~board_driver.physical.ports.LedPort` over an Adafruit pixel buffer.

    ``pixels`` is a ``neopixel.NeoPixel`` or ``neopixel_spi.NeoPixel_SPI`` made with
    ``auto_write=False`` and ``brightness=1.0`` (brightness and gamma are applied before
    :meth:`show`, once, instead of by the library on every write).
    """

    def __init__(self, pixels: Any, layout: StripLayout) -> None:
        self.pixels = pixels
        self.layout = layout
        self.writes = 0
        self._shown: list[RGB] | None = None

    def show(self, colours: Sequence[RGB]) -> None:
        """Light the squares; the strip is written only when a pixel changed."""
        wanted = self.layout.pixels(colours)
        shown = self._shown
        if wanted == shown:
            return
        pixels = self.pixels
        for index, colour in enumerate(wanted):
            if shown is None or shown[index] != colour:
                pixels[index] = colour
        pixels.show()
        self.writes += 1
        self._shown = wanted

    def close(self) -> None:
        """Turn every LED off and release the library's hardware."""
        if self.pixels is None:
            return
        deinit = getattr(self.pixels, "deinit", None)
        if deinit is not None:
            deinit()  # the Adafruit drivers blank the strip and release the pin
        else:
            self.pixels.fill((0, 0, 0))
            self.pixels.show()
        self.pixels = None
        self._shown = None
