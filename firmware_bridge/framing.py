"""Frames on the wire: ``COBS(type | seq | payload | crc16-le) | 0x00``.

The CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF), which is
``binascii.crc_hqx(data, 0xFFFF)``; it covers the type, the sequence number and the payload,
and is appended little-endian. See ``PROTOCOL.md``.

>>> frame = encode_frame(0x21, 7, b"\\x01\\x00\\x00\\x00")
>>> frame.endswith(b"\\x00") and b"\\x00" not in frame[:-1]
True
>>> decode_frame(frame[:-1])
(33, 7, b'\\x01\\x00\\x00\\x00')
"""

from __future__ import annotations

import binascii

from . import cobs
from .errors import CrcError, FrameLengthError

#: Initial value of the CRC-16 register (CRC-16/CCITT-FALSE).
CRC_INIT = 0xFFFF
#: Longest frame a receiver accepts, in encoded bytes, the delimiter not counted.
MAX_FRAME = 256
#: type + seq + crc: the smallest packet there is (an empty payload).
MIN_PACKET = 4
DELIMITER = b"\x00"


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, CRC_INIT)


def encode_frame(packet_type: int, seq: int, payload: bytes = b"") -> bytes:
    """One complete frame, delimiter included, ready to write to the serial port."""
    body = bytes((packet_type & 0xFF, seq & 0xFF)) + bytes(payload)
    packet = body + crc16(body).to_bytes(2, "little")
    return cobs.encode(packet) + DELIMITER


def decode_frame(encoded: bytes) -> tuple[int, int, bytes]:
    """``(type, seq, payload)`` of one frame without its delimiter.

    Raises :class:`~firmware_bridge.errors.CobsError`, :class:`CrcError` or
    :class:`FrameLengthError`, each saying what is wrong.
    """
    if len(encoded) > MAX_FRAME:
        raise FrameLengthError(f"frame of {len(encoded)} bytes, longer than {MAX_FRAME}")
    packet = cobs.decode(encoded)
    if len(packet) < MIN_PACKET:
        raise FrameLengthError(f"packet of {len(packet)} bytes, shorter than {MIN_PACKET}")
    body, sent = packet[:-2], int.from_bytes(packet[-2:], "little")
    actual = crc16(body)
    if sent != actual:
        raise CrcError(f"CRC mismatch: frame says {sent:#06x}, contents give {actual:#06x}")
    return body[0], body[1], body[2:]


class FrameSplitter:
    """Cuts a byte stream into frames at each ``0x00``.

    A run longer than :data:`MAX_FRAME` is garbage: it is dropped whole (counted in
    :attr:`oversize`) and the splitter waits for the next delimiter. Empty frames (two
    delimiters in a row) are skipped silently: senders use a lone ``0x00`` to flush.

    >>> splitter = FrameSplitter()
    >>> splitter.feed(b"\\x02a\\x00\\x02")
    [b'\\x02a']
    >>> splitter.feed(b"b\\x00")
    [b'\\x02b']
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self.oversize = 0
        self._buffer = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes]:
        """Add bytes read from the line; return the complete frames they finish."""
        frames: list[bytes] = []
        start = 0
        while True:
            end = data.find(0, start)
            if end < 0:
                self._take(data[start:])
                return frames
            self._take(data[start:end])
            if self._skipping:
                self._skipping = False
            elif self._buffer:
                frames.append(bytes(self._buffer))
            self._buffer.clear()
            start = end + 1

    def reset(self) -> None:
        """Forget a partial frame (after reopening the port)."""
        self._buffer.clear()
        self._skipping = False

    def _take(self, chunk: bytes) -> None:
        if self._skipping or not chunk:
            return
        self._buffer += chunk
        if len(self._buffer) > self.max_frame:
            self.oversize += 1
            self._buffer.clear()
            self._skipping = True
