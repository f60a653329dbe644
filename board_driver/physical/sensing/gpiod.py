"""The matrix on the Pi's GPIO through libgpiod v2 (the ``gpiod`` Python bindings).

Rows are outputs driven one at a time (open drain when active low, so an undriven row
floats instead of fighting a driven one through a closed switch); the 8 columns are
inputs with the Pi's pull-ups, read in one call per row after a settle delay. With
``active_low`` (the default wiring: pull-ups, diodes pointing at the rows) the
line settings invert the logic in the kernel, so ACTIVE means "row selected" and
"switch closed" in both directions.

Needs no root: the service user only needs to be in the ``gpio`` group.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from board_driver.physical.gpiolines import open_chip, open_lines
from board_driver.physical.hwlib import require_library
from board_driver.physical.pinmap import DEFAULT_COLUMNS, DEFAULT_ROWS, check_distinct, check_lines
from board_driver.physical.sensing.orientation import Orientation

_BITS = tuple(1 << bit for bit in range(8))


def settle(settle_ns: int) -> None:
    """Wait ``settle_ns`` for the columns to follow a newly driven row.

    Sleeping costs at least the kernel's timer slack (~50 µs), more than the few µs a
    pull-up needs, so short waits spin on the clock instead.
    """
    if settle_ns <= 0:
        return
    if settle_ns >= 1_000_000:
        time.sleep(settle_ns / 1e9)
        return
    deadline = time.perf_counter_ns() + settle_ns
    while time.perf_counter_ns() < deadline:
        pass


class GpiodMatrix:
    """A :class:`~board_driver.physical.ports.SensingPort` scanning the matrix with libgpiod.

    >>> matrix = GpiodMatrix()                        # doctest: +SKIP
    >>> f"{matrix.scan():016x}"                       # doctest: +SKIP
    'ffff00000000ffff'
    """

    def __init__(
        self,
        rows: Sequence[int | str] = DEFAULT_ROWS,
        columns: Sequence[int | str] = DEFAULT_COLUMNS,
        *,
        chip: str = "",
        active_low: bool = True,
        settle_us: float = 10,
        rotation: int = 0,
        mirror: bool = False,
        consumer: str = "magboard",
        dev_dir: str = "/dev",
    ) -> None:
        rows = check_lines("rows", rows)
        columns = check_lines("columns", columns)
        check_distinct(rows=rows, columns=columns)
        if not 0 <= settle_us <= 10_000:
            raise ValueError(f"settle_us must be 0..10000, got {settle_us!r}")
        self.orientation = Orientation(rotation, mirror)
        gpiod = require_library("gpiod", backend="gpiod", package="gpiod", apt="python3-libgpiod")
        from gpiod.line import Bias, Direction, Drive, Value

        self._active = Value.ACTIVE
        self._inactive = Value.INACTIVE
        self.chip_path, offsets = open_lines(gpiod, chip, [*rows, *columns], dev_dir)
        self._rows = offsets[:8]
        self._columns = offsets[8:]
        row_settings = gpiod.LineSettings(
            direction=Direction.OUTPUT,
            drive=Drive.OPEN_DRAIN if active_low else Drive.OPEN_SOURCE,
            active_low=active_low,
            output_value=Value.INACTIVE,
        )
        column_settings = gpiod.LineSettings(
            direction=Direction.INPUT,
            bias=Bias.PULL_UP if active_low else Bias.PULL_DOWN,
            active_low=active_low,
        )
        self._settle_ns = int(settle_us * 1000)
        # The line changes of a scan, made once: select row 0; then for each next row,
        # select it and release the one before; at the end release the last.
        rows_ = self._rows
        self._steps = [{rows_[0]: Value.ACTIVE}] + [
            {rows_[i]: Value.ACTIVE, rows_[i - 1]: Value.INACTIVE} for i in range(1, 8)
        ]
        self._release_last = {rows_[7]: Value.INACTIVE}
        with open_chip(gpiod, self.chip_path) as handle:
            try:
                self._request = handle.request_lines(
                    config={tuple(self._rows): row_settings, tuple(self._columns): column_settings},
                    consumer=consumer,
                )
            except OSError as exc:
                raise OSError(
                    exc.errno,
                    f"cannot claim the matrix lines on {self.chip_path} ({exc.strerror}): another "
                    "program holds them (see `gpioinfo`), or the service user is not in the "
                    "'gpio' group",
                ) from exc

    def scan(self) -> int:
        """Drive each row in turn and read the 8 columns in one call."""
        request = self._request
        active = self._active
        columns = self._columns
        settle_ns = self._settle_ns
        row_bytes = []
        for step in self._steps:
            request.set_values(step)
            if settle_ns:
                settle(settle_ns)
            byte = 0
            for bit, value in zip(_BITS, request.get_values(columns), strict=True):
                if value is active:
                    byte |= bit
            row_bytes.append(byte)
        request.set_values(self._release_last)
        return self.orientation.bitmap(row_bytes)

    def close(self) -> None:
        """Leave every row undriven and release the lines."""
        if self._request is not None:
            self._request.set_values({row: self._inactive for row in self._rows})
            self._request.release()
            self._request = None

    def __repr__(self) -> str:
        return f"<GpiodMatrix {self.chip_path} rows={self._rows} columns={self._columns}>"
