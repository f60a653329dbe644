"""Host side of the serial link to a microcontroller that scans the matrix and drives the LEDs.

:class:`BridgeLink` is the whole public surface for the daemon: it fits the sensing port
(``scan() -> int``) and the LED port (``show(colours)``), both with ``close()``. The codec
modules (:mod:`.cobs`, :mod:`.framing`, :mod:`.packets`) are pure and importable without
pyserial. The wire format is in ``PROTOCOL.md`` beside this file.
"""

from .errors import (
    CobsError,
    CrcError,
    FrameError,
    FrameLengthError,
    LinkDownError,
    MissingDependencyError,
    UnknownTypeError,
)
from .link import BridgeLink, LinkStats
from .packets import BUTTON_CODES, PROTOCOL_VERSION

__all__ = [
    "BUTTON_CODES",
    "PROTOCOL_VERSION",
    "BridgeLink",
    "CobsError",
    "CrcError",
    "FrameError",
    "FrameLengthError",
    "LinkDownError",
    "LinkStats",
    "MissingDependencyError",
    "UnknownTypeError",
]
