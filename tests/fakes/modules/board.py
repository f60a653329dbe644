"""Fake Blinka ``board`` for a Raspberry Pi: ``D0``..``D27`` pins, ``MOSI``/``SCK``/``MISO``
and ``SPI()``, which fails like Blinka's when SPI is not enabled."""

from __future__ import annotations

import errno

from tests.fakes import world as _world


class Pin:
    def __init__(self, pin_id: int) -> None:
        self.id = pin_id

    def __repr__(self) -> str:
        return f"board.D{self.id}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pin) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)


for _n in range(28):
    globals()[f"D{_n}"] = Pin(_n)
SDA, SCL = Pin(2), Pin(3)
MISO, MOSI, SCK, SCLK = Pin(9), Pin(10), Pin(11), Pin(11)
CE0, CE1 = Pin(8), Pin(7)
TXD, RXD = Pin(14), Pin(15)
board_id = "RASPBERRY_PI_5"


class SPI:
    """The SPI0 bus (``busio.SPI(board.SCK, board.MOSI)``); writes go out on MOSI."""

    def __init__(self) -> None:
        world = _world.current()
        if not world.spi_enabled:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/dev/spidev0.0")
        self.frequency = 6_400_000
        self._locked = False

    def try_lock(self) -> bool:
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self) -> None:
        self._locked = False

    def configure(
        self, *, baudrate: int = 100000, polarity: int = 0, phase: int = 0, bits: int = 8
    ):
        self.frequency = baudrate

    def write(self, buf: bytes) -> None:
        _world.current().send_to_strip(MOSI.id, bytes(buf))

    def deinit(self) -> None:
        pass
