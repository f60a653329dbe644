"""Fake ``neopixel`` (adafruit-circuitpython-neopixel) through Blinka: ``NeoPixel(pin, n)``
writes to the strip the fake world wires on that pin. On a Pi up to 4, without root, it
fails as rpi_ws281x does."""

from __future__ import annotations

from _pixelbuf import PixelBuf

from tests.fakes import world as _world

RGB, GRB, RGBW, GRBW = "RGB", "GRB", "RGBW", "GRBW"


class NeoPixel(PixelBuf):
    def __init__(self, pin, n: int, *, bpp: int = 3, brightness: float = 1.0,
                 auto_write: bool = True, pixel_order: str | None = None) -> None:  # fmt: skip
        world = _world.current()
        if world.model <= 4 and not world.root:
            raise RuntimeError("ws2811_init failed with code -5 (mmap() failed)")
        if not pixel_order:
            pixel_order = GRB if bpp == 3 else GRBW
        self.pin = pin
        super().__init__(n, brightness=brightness, byteorder=pixel_order, auto_write=auto_write)

    @property
    def n(self) -> int:
        return len(self)

    def _transmit(self, data: bytes) -> None:
        _world.current().send_to_strip(self.pin.id, data)

    def deinit(self) -> None:
        self.fill(0)
        self.show()
