"""The matrix on the Pi's GPIO through ``RPi.GPIO`` (Pi 1-4; ``rpi-lgpio`` on a Pi 5).

RPi.GPIO has no open-drain outputs, so rows are push-pull: the selected row is driven to
the active level and the others to the inactive one. With the diode per switch that the
guide requires, no current flows between rows; without diodes, this backend would short
two outputs through closed switches (use ``gpiod``, which drives rows open-drain).
Columns are inputs with the Pi's pull-ups (pull-downs when ``active_low = false``).
"""

from __future__ import annotations

from collections.abc import Sequence

from board_driver.physical.hwlib import require_library
from board_driver.physical.pinmap import DEFAULT_COLUMNS, DEFAULT_ROWS, check_distinct, check_lines
from board_driver.physical.sensing.gpiod import settle
from board_driver.physical.sensing.orientation import Orientation


def import_rpigpio():
    """The ``RPi.GPIO`` module, set to BCM numbering."""
    # Not in the `pi` extra: on a Pi 5 the same module comes from rpi-lgpio instead.
    gpio = require_library(
        "RPi.GPIO",
        backend="rpigpio",
        package="RPi.GPIO",
        apt="python3-rpi.gpio (Pi 1-4) or python3-rpi-lgpio (Pi 5)",
        in_pi_extra=False,
    )
    gpio.setwarnings(False)
    if gpio.getmode() not in (None, gpio.BCM):
        raise ValueError("RPi.GPIO is already set to BOARD numbering; magboard uses BCM numbers")
    gpio.setmode(gpio.BCM)
    return gpio


class RpiGpioMatrix:
    """A :class:`~board_driver.physical.ports.SensingPort` scanning the matrix with RPi.GPIO."""

    def __init__(
        self,
        rows: Sequence[int] = DEFAULT_ROWS,
        columns: Sequence[int] = DEFAULT_COLUMNS,
        *,
        active_low: bool = True,
        settle_us: float = 10,
        rotation: int = 0,
        mirror: bool = False,
    ) -> None:
        lines = check_lines("rows", rows), check_lines("columns", columns)
        check_distinct(rows=lines[0], columns=lines[1])
        if any(isinstance(line, str) for line in (*lines[0], *lines[1])):
            raise ValueError("the rpigpio backend takes BCM numbers, not line names")
        rows, columns = [int(n) for n in lines[0]], [int(n) for n in lines[1]]
        self.orientation = Orientation(rotation, mirror)
        self._settle_ns = int(settle_us * 1000)
        gpio = import_rpigpio()
        self._gpio = gpio
        self._active = gpio.LOW if active_low else gpio.HIGH
        self._inactive = gpio.HIGH if active_low else gpio.LOW
        self._rows = list(rows)
        self._columns = list(columns)
        pull = gpio.PUD_UP if active_low else gpio.PUD_DOWN
        gpio.setup(self._rows, gpio.OUT, initial=self._inactive)
        gpio.setup(self._columns, gpio.IN, pull_up_down=pull)
        self._open = True

    def scan(self) -> int:
        """Drive each row in turn and read the columns one by one (RPi.GPIO has no bulk read)."""
        gpio = self._gpio
        output, read = gpio.output, gpio.input
        active, inactive = self._active, self._inactive
        row_bytes = []
        for row in self._rows:
            output(row, active)
            settle(self._settle_ns)
            byte = 0
            for bit, column in enumerate(self._columns):
                if read(column) == active:
                    byte |= 1 << bit
            output(row, inactive)
            row_bytes.append(byte)
        return self.orientation.bitmap(row_bytes)

    def close(self) -> None:
        """Return our pins (only ours) to inputs."""
        if self._open:
            self._gpio.cleanup(self._rows + self._columns)
            self._open = False
