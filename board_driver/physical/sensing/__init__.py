"""Sensing: the reed-switch matrix, read as 64-bit bitmaps (bit *i* = square *i*).

Pick a backend by name, as the config's ``[sensing] backend`` does::

    >>> port = open_sensing("sim")
    >>> f"{port.scan():016x}"
    'ffff00000000ffff'

Backends: ``gpiod`` (libgpiod v2, the default on a Pi), ``rpigpio`` (RPi.GPIO) and
``sim`` (:class:`~board_driver.physical.sensing.sim.SimulatedBoard`). The hardware ones import
their library only when opened. :class:`ScanLoop` scans in a thread;
:class:`SquareHealth` spots stuck and flickering squares.

Options are the ``[sensing]`` config keys. A backend ignores the keys that belong to
another backend (so ``--sim`` can reuse a Pi's config) or to the scan loop and debounce
(``rate_hz``, ``debounce_ms``); an unknown key is an error.
"""

from __future__ import annotations

from typing import Any

from board_driver.physical.ports import SensingPort
from board_driver.physical.sensing.health import SquareHealth
from board_driver.physical.sensing.loop import ScanLoop, monotonic_ms
from board_driver.physical.sensing.orientation import Orientation

__all__ = [
    "BACKENDS",
    "Orientation",
    "ScanLoop",
    "SensingConfigError",
    "SquareHealth",
    "monotonic_ms",
    "open_sensing",
]

BACKENDS = ("gpiod", "rpigpio", "sim")
_MATRIX_KEYS = {"rows", "columns", "active_low", "settle_us", "rotation", "mirror"}
_BACKEND_KEYS = {
    "gpiod": _MATRIX_KEYS | {"chip", "consumer", "dev_dir"},
    "rpigpio": _MATRIX_KEYS,
    "sim": {"pieces", "diodes", "state_file"},
}
#: Keys of the ``[sensing]`` table used elsewhere (the scan loop, debounce, the bridge).
OTHER_KEYS = {"backend", "rate_hz", "debounce_ms", "device", "baud"}
KNOWN_KEYS = set().union(*_BACKEND_KEYS.values(), OTHER_KEYS)


class SensingConfigError(ValueError):
    """A sensing backend name or option is wrong."""


def open_sensing(backend: str = "gpiod", **options: Any) -> SensingPort:
    """Open the sensing backend ``backend`` with the ``[sensing]`` options given."""
    if backend not in BACKENDS:
        hint = " (the bridge's port is opened by firmware_bridge)" if backend == "bridge" else ""
        raise SensingConfigError(
            f"[sensing] backend: {backend!r} is not one of {', '.join(BACKENDS)}{hint}"
        )
    unknown = sorted(set(options) - KNOWN_KEYS)
    if unknown:
        raise SensingConfigError(
            f"[sensing]: unknown option {unknown[0]!r} (known: {', '.join(sorted(KNOWN_KEYS))})"
        )
    mine = {key: value for key, value in options.items() if key in _BACKEND_KEYS[backend]}
    try:
        if backend == "gpiod":
            from board_driver.physical.sensing.gpiod import GpiodMatrix

            return GpiodMatrix(**mine)
        if backend == "rpigpio":
            from board_driver.physical.sensing.rpigpio import RpiGpioMatrix

            return RpiGpioMatrix(**mine)
        from board_driver.physical.sensing.sim import SimulatedBoard

        return SimulatedBoard(**mine)
    except TypeError as exc:  # a value of the wrong type reached a constructor
        raise SensingConfigError(f"[sensing] {backend}: {exc}") from exc
