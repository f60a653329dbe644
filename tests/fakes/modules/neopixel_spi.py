"""Fake ``neopixel_spi`` (adafruit-circuitpython-neopixel-spi): ``NeoPixel_SPI`` sends its
pixels over the SPI bus's MOSI line to whatever strip the fake world wires there."""

from __future__ import annotations

from _pixelbuf import PixelBuf

RGB, GRB, RGBW, GRBW = "RGB", "GRB", "RGBW", "GRBW"


class NeoPixel_SPI(PixelBuf):
    def __init__(self, spi, n: int, *, bpp: int = 3, brightness: float = 1.0,
                 auto_write: bool = True, pixel_order: str | None = None,
                 frequency: int = 6400000, reset_time: float = 80e-6,
                 bit0: int = 0b11000000, bit1: int = 0b11110000) -> None:  # fmt: skip
        if not pixel_order:
            pixel_order = GRB if bpp == 3 else GRBW
        self._spi = spi
        self.frequency = frequency
        super().__init__(n, brightness=brightness, byteorder=pixel_order, auto_write=auto_write)

    @property
    def n(self) -> int:
        return len(self)

    def _transmit(self, data: bytes) -> None:
        self._spi.write(data)

    def deinit(self) -> None:
        self.fill(0)
        self.show()
