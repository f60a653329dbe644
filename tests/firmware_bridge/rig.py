"""A virtual bridge board: the real firmware (hardware/firmware) on fake hardware, talking to
the host over a pseudo-terminal pair that stands for the USB cable.

The fake CircuitPython modules live in ``fakes/``; :func:`install_fakes` puts them on
``sys.path`` (front) with the firmware directory (back, so its ``code.py`` never shadows the
standard library's ``code``).
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import time
import tty
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE_DIR = ROOT / "hardware" / "firmware"
FAKES_DIR = Path(__file__).resolve().parent / "fakes"
START = 0xFFFF00000000FFFF


def install_fakes() -> None:
    if str(FAKES_DIR) not in sys.path:
        sys.path.insert(0, str(FAKES_DIR))
    if str(FIRMWARE_DIR) not in sys.path:
        sys.path.append(str(FIRMWARE_DIR))


class Rig:
    """Switches, LEDs, power and a USB cable, around the firmware's own ``code.py``.

    ``device_path`` is a symlink to the current pty, as udev's ``/dev/magboard-bridge`` is to
    the current ``/dev/ttyACMn``: it vanishes when the cable is pulled.
    """

    def __init__(self, directory: Path, pieces: int = START) -> None:
        install_fakes()
        import board
        import fakehw
        import usb_cdc
        from magboard_fw import config

        self.hw = fakehw.hw
        self.hw.release_all()  # a fresh board: nothing claimed, power on
        self.hw.powered = True
        self.hw.pressed = frozenset()
        self.config = config
        self.device_path = str(directory / "magboard-bridge")
        self._rows = [getattr(board, name) for name in config.ROW_PINS]
        self._columns = [getattr(board, name) for name in config.COLUMN_PINS]
        self._buttons = {name: getattr(board, pin) for name, pin in config.BUTTON_PINS.items()}
        runpy.run_path(str(FIRMWARE_DIR / "boot.py"))  # what CircuitPython runs at power-up
        self.serial = usb_cdc.data
        self._fds: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        self.crashes: list[BaseException] = []
        self.pieces = 0
        self.set_board(pieces)

    # ----------------------------------------------------------- the pieces
    def set_board(self, pieces: int) -> None:
        closed = set()
        for square in range(64):
            if pieces >> square & 1:
                closed.add((self._rows[square // 8], self._columns[square % 8]))
        self.hw.closed = frozenset(closed)
        self.pieces = pieces

    def lift(self, square: int) -> None:
        assert self.pieces >> square & 1, f"no piece on {square}"
        self.set_board(self.pieces & ~(1 << square))

    def place(self, square: int) -> None:
        assert not self.pieces >> square & 1, f"a piece is on {square} already"
        self.set_board(self.pieces | 1 << square)

    def press(self, name: str, hold_s: float = 0.06) -> None:
        pin = self._buttons[name]
        self.hw.pressed = self.hw.pressed | {pin}
        time.sleep(hold_s)
        self.hw.pressed = self.hw.pressed - {pin}

    # ----------------------------------------------------------- the LEDs
    def leds(self) -> list[tuple[int, int, int]]:
        """What the strip shows, by square (a1 = 0)."""
        from magboard_fw.pixels import pixel_index

        strip = self.hw.strips[-1]
        order, first = self.config.PIXEL_ORDER, self.config.PIXEL_FIRST
        return [strip.shown[pixel_index(square, order, first)] for square in range(64)]

    # ----------------------------------------------------------- the cable
    def plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
        os.set_blocking(master, False)
        os.symlink(os.ttyname(slave), self.device_path)
        self._fds = (master, slave)
        self.serial.attach(master)

    def pull(self) -> None:
        self.serial.detach()
        if self._fds is not None:
            os.unlink(self.device_path)
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def inject(self, data: bytes) -> None:
        """Bytes on the line from the device's side, as noise or a rogue sender would."""
        assert self._fds is not None
        os.write(self._fds[0], data)

    # ----------------------------------------------------------- power
    def power_on(self) -> None:
        self.hw.powered = True
        self._thread = threading.Thread(target=self._run, name="firmware", daemon=True)
        self._thread.start()

    def power_off(self) -> None:
        self.hw.powered = False
        if self._thread is not None:
            self._thread.join(timeout=5)
            assert not self._thread.is_alive(), "the firmware did not stop"
            self._thread = None
        self.hw.release_all()

    def _run(self) -> None:
        try:
            runpy.run_path(str(FIRMWARE_DIR / "code.py"), run_name="__main__")
        except BaseException as error:
            if type(error).__name__ != "PowerOff":
                self.crashes.append(error)

    def close(self) -> None:
        self.power_off()
        self.pull()

    def __enter__(self) -> Rig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
