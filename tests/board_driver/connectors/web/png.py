"""Just enough of PNG to read Chromium's screenshots: 8-bit RGB or RGBA, not interlaced.

>>> import struct, zlib
>>> raw = b"\\x00" + bytes([255, 0, 0, 0, 0, 255])  # one row, filter 0: red, blue
>>> def chunk(kind, data):
...     crc = struct.pack(">I", zlib.crc32(kind + data))
...     return struct.pack(">I", len(data)) + kind + data + crc
>>> png = (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0))
...        + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
>>> pixels(png)
[(255, 0, 0), (0, 0, 255)]
"""

from __future__ import annotations

import struct
import zlib


def pixels(png: bytes) -> list[tuple[int, int, int]]:
    """Every pixel's (red, green, blue), row by row."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, data, header = 8, b"", None
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            data += body
    assert header is not None
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"only 8-bit RGB or RGBA, not interlaced (got {header})")
    step = 3 if colour == 2 else 4
    stride = width * step
    raw = zlib.decompress(data)
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - step] if x >= step else 0
            up = previous[x]
            corner = previous[x - step] if x >= step else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                near = min(
                    (abs(p - left), 0, left), (abs(p - up), 1, up), (abs(p - corner), 2, corner)
                )
                line[x] = (line[x] + near[2]) & 0xFF
        rows.append(line)
        previous = line
    return [(row[x], row[x + 1], row[x + 2]) for row in rows for x in range(0, stride, step)]


def piece_shares(png: bytes) -> tuple[float, float]:
    """A piece on a square, as drawn: the share of its pixels (those that are not the
    square's colour, the commonest) that are dark (luma under 80), and that are white
    (over 235)."""
    found = pixels(png)
    counts: dict[tuple[int, int, int], int] = {}
    for colour in found:
        counts[colour] = counts.get(colour, 0) + 1
    ground = max(counts, key=counts.__getitem__)
    piece = [c for c in found if sum(abs(a - b) for a, b in zip(c, ground, strict=True)) > 60]
    luma = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b in piece]
    return sum(v < 80 for v in luma) / len(luma), sum(v > 235 for v in luma) / len(luma)
