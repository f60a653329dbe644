"""The part of Adafruit's ``adafruit_pixelbuf.PixelBuf`` the fake NeoPixel drivers share.

Colours are set as ``(r, g, b)`` tuples or ``0xRRGGBB`` ints, per item or slice, or with
``fill``; ``brightness`` scales what is sent (``int(value * brightness)``);
``auto_write=False`` sends only on ``show()``; bytes go out in ``pixel_order``.
"""

from __future__ import annotations


class PixelBuf:
    def __init__(self, size: int, *, brightness: float = 1.0, byteorder: str = "GRB",
                 auto_write: bool = False) -> None:  # fmt: skip
        if byteorder not in ("RGB", "GRB", "RGBW", "GRBW", "BGR", "BRG", "RBG", "GBR"):
            raise ValueError(f"Invalid byteorder {byteorder!r}")
        self._n = size
        self._order = byteorder
        self._bpp = len(byteorder)
        self._pixels: list[tuple[int, ...]] = [(0,) * self._bpp] * size
        self._brightness = min(max(brightness, 0.0), 1.0)
        self.auto_write = auto_write

    def __len__(self) -> int:
        return self._n

    def _colour(self, value) -> tuple[int, ...]:
        if isinstance(value, int):
            if not 0 <= value <= 0xFFFFFF:
                raise ValueError("Color must be 0..0xFFFFFF")
            value = (value >> 16 & 255, value >> 8 & 255, value & 255)
        value = tuple(value)
        if len(value) == 3 and self._bpp == 4:
            value = (*value, 0)
        if len(value) != self._bpp or not all(isinstance(v, int) and 0 <= v <= 255 for v in value):
            raise ValueError(
                f"Expected tuple of length {self._bpp} with values 0..255, got {value!r}"
            )
        return value

    def __setitem__(self, index, value) -> None:
        if isinstance(index, slice):
            targets = range(*index.indices(self._n))
            values = list(value)
            if len(values) != len(targets):
                raise ValueError("Unmatched lengths")
            for i, v in zip(targets, values, strict=True):
                self._pixels[i] = self._colour(v)
        else:
            if index < 0:
                index += self._n
            if not 0 <= index < self._n:
                raise IndexError("Pixel index out of range")
            self._pixels[index] = self._colour(value)
        if self.auto_write:
            self.show()

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._pixels[i] for i in range(*index.indices(self._n))]
        return self._pixels[index]

    @property
    def brightness(self) -> float:
        return self._brightness

    @brightness.setter
    def brightness(self, value: float) -> None:
        self._brightness = min(max(value, 0.0), 1.0)
        if self.auto_write:
            self.show()

    def fill(self, color) -> None:
        c = self._colour(color)
        self._pixels = [c] * self._n
        if self.auto_write:
            self.show()

    def _bytes(self) -> bytes:
        out = bytearray()
        for pixel in self._pixels:
            channel = dict(zip("RGBW", pixel, strict=False))
            for name in self._order:
                out.append(int(channel[name] * self._brightness))
        return bytes(out)

    def show(self) -> None:
        self._transmit(self._bytes())

    def _transmit(self, data: bytes) -> None:
        raise NotImplementedError
