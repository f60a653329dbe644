"""Fake ``neopixel`` (the Adafruit CircuitPython API): records each frame shown."""

from __future__ import annotations

from fakehw import hw

RGB = "RGB"
GRB = "GRB"
RGBW = "RGBW"
GRBW = "GRBW"


class NeoPixel:
    def __init__(
        self,
        pin: object,
        n: int,
        *,
        bpp: int = 3,
        brightness: float = 1.0,
        auto_write: bool = True,
        pixel_order: str | None = None,
    ) -> None:
        hw.claim(pin, self)
        self.pin = pin
        self.n = n
        self.brightness = brightness
        self.auto_write = auto_write
        self._pixels: list[tuple[int, int, int]] = [(0, 0, 0)] * n
        self.shown: list[tuple[int, int, int]] = [(0, 0, 0)] * n
        self.show_count = 0
        hw.strips.append(self)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int | slice) -> object:
        return self._pixels[index]

    def __setitem__(self, index: int | slice, value: object) -> None:
        if isinstance(index, slice):
            for at, colour in zip(range(*index.indices(self.n)), value, strict=True):
                self._pixels[at] = self._colour(colour)
        else:
            self._pixels[index] = self._colour(value)
        if self.auto_write:
            self.show()

    def fill(self, colour: object) -> None:
        self._pixels = [self._colour(colour)] * self.n
        if self.auto_write:
            self.show()

    def show(self) -> None:
        scale = self.brightness
        self.shown = [(int(r * scale), int(g * scale), int(b * scale)) for r, g, b in self._pixels]
        self.show_count += 1

    def deinit(self) -> None:
        hw.release(self.pin)

    @staticmethod
    def _colour(value: object) -> tuple[int, int, int]:
        if isinstance(value, int):
            return ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)
        red, green, blue = value  # type: ignore[misc]
        for part in (red, green, blue):
            if not 0 <= part <= 255:
                raise ValueError("colour components must be 0..255")
        return (red, green, blue)
