"""COBS: Consistent Overhead Byte Stuffing (Cheshire & Baker, 1999).

Encoding removes every zero byte from a packet, so that a single ``0x00`` can end each frame
on the wire and a receiver that starts mid-stream resynchronises at the next one. The cost is
one byte per 254 bytes of data, plus one.

>>> encode(b"\\x11\\x00\\x22")
b'\\x02\\x11\\x02"'
>>> decode(encode(b"\\x00\\x00"))
b'\\x00\\x00'
"""

from __future__ import annotations

from .errors import CobsError

#: The longest run of non-zero bytes one code byte can carry.
_BLOCK = 254


def encode(data: bytes) -> bytes:
    """Return ``data`` COBS-encoded: no zero byte in it, the frame delimiter not included."""
    out = bytearray()
    blocks = bytes(data).split(b"\x00")
    last = len(blocks) - 1
    for index, block in enumerate(blocks):
        full = False
        while len(block) >= _BLOCK:
            out.append(0xFF)
            out += block[:_BLOCK]
            block = block[_BLOCK:]
            full = True
        # A 0xFF block implies no zero after it, so the last block needs no closing code
        # when it ended exactly on a 254-byte boundary.
        if index == last and full and not block:
            break
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def decode(encoded: bytes) -> bytes:
    """Return the data a COBS-encoded frame (without its delimiter) stands for.

    Raises :class:`CobsError` naming the offset when the encoding is broken.
    """
    out = bytearray()
    size = len(encoded)
    index = 0
    while index < size:
        code = encoded[index]
        if code == 0:
            raise CobsError(f"COBS: zero byte inside the frame at offset {index}")
        end = index + code
        if end > size:
            raise CobsError(
                f"COBS: the block at offset {index} needs {code - 1} bytes, "
                f"only {size - index - 1} left"
            )
        block = encoded[index + 1 : end]
        if 0 in block:
            raise CobsError(f"COBS: zero byte inside the frame after offset {index}")
        out += block
        index = end
        if code != 0xFF and index < size:
            out.append(0)
    return bytes(out)
