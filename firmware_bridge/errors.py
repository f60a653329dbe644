"""What can go wrong on the serial bridge, as exceptions.

Corrupt input is a :class:`FrameError` (a ``ValueError``): the link counts it and drops the
frame, it never reaches the caller. The others reach the caller of :class:`BridgeLink`.
"""

from __future__ import annotations


class FrameError(ValueError):
    """A frame read from the line is not a valid packet (the link drops and counts it)."""


class CobsError(FrameError):
    """The frame's COBS encoding is broken (a block runs past the end, a stray zero)."""


class CrcError(FrameError):
    """The frame's CRC-16 does not match its contents."""


class FrameLengthError(FrameError):
    """The frame is too short, too long, or its payload has the wrong size for its type."""


class UnknownTypeError(FrameError):
    """The packet type byte is not one this protocol version knows."""

    def __init__(self, message: str, packet_type: int) -> None:
        super().__init__(message)
        self.packet_type = packet_type
        self.seq: int | None = None  # filled in by packets.decode
        self.payload = b""


class MissingDependencyError(ImportError):
    """pyserial is not installed; it comes with magboard's ``pi`` extra."""


class LinkDownError(ConnectionError):
    """No board has come over the link yet (no device, wrong device, or wrong version)."""
