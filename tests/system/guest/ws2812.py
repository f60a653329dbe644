"""What a chain of WS2812B LEDs makes of the bytes an SPI bus clocks out on its data line.

Written from the LED's datasheet, not from any driver: the line idles low; a low time of at
least 50 µs (the reset) latches the colours; each bit is a high pulse then a low one, 1.25 µs
in all (± 600 ns), a 0 being 220-380 ns high and a 1 580-1000 ns high (WS2812B-V5 figures);
24 bits make one LED's colour, green, red, blue, most significant bit first; the first 24
bits after a reset are the first LED's. A byte clocked out at ``frequency`` Hz lasts 8 bit
times, so one byte can shape one LED bit as a run of ones then zeros: anything else on the
line (a pulse split in two, a pulse outside both ranges) is an error, named with its place.

>>> bit1, bit0 = 0b11110000, 0b11000000          # at 6.4 MHz: 625 ns and 312.5 ns high
>>> red = [bit0] * 8 + [bit1] * 8 + [bit0] * 8    # green 0, red 255, blue 0
>>> decode(bytes(64) + bytes(red) + bytes(64), 6_400_000).colours
[(255, 0, 0)]
"""

from __future__ import annotations

from dataclasses import dataclass

RESET_MIN_US = 50.0
T0H_NS = (220.0, 380.0)
T1H_NS = (580.0, 1000.0)
BIT_NS = (1250.0 - 600.0, 1250.0 + 600.0)


class LineError(ValueError):
    """The bytes do not make a WS2812 signal."""


@dataclass(frozen=True)
class Strip:
    """What the LEDs latched: their colours (r, g, b) in chain order, and the resets seen."""

    colours: list[tuple[int, int, int]]
    reset_before_us: float
    reset_after_us: float
    high_ns: tuple[float, float]  # the 0 and 1 pulses' high times


def decode(data: bytes, frequency: int, order: str = "GRB") -> Strip:
    """The colours a WS2812B chain shows after ``data`` at ``frequency`` Hz on its data line;
    ``order``: the chips' channel order on the wire (GRB for WS2812B)."""
    if not frequency:
        raise LineError("no SPI clock frequency: the bus was never configured")
    bit_ns = 1e9 / frequency
    byte_ns = 8 * bit_ns
    if not BIT_NS[0] <= byte_ns <= BIT_NS[1]:
        raise LineError(f"one byte lasts {byte_ns:.0f} ns at {frequency} Hz: not one LED bit")
    start = 0
    while start < len(data) and data[start] == 0:
        start += 1
    end = len(data)
    while end > start and data[end - 1] == 0:
        end -= 1
    before = start * byte_ns / 1000
    after = (len(data) - end) * byte_ns / 1000
    if before < RESET_MIN_US or after < RESET_MIN_US:
        raise LineError(f"resets of {before:.1f} and {after:.1f} µs: under {RESET_MIN_US} µs")
    bits = []
    seen_high = set()
    for index in range(start, end):
        byte = data[index]
        ones = 8 - (byte ^ 0xFF).bit_length() if byte else 0  # leading ones
        if byte != (0xFF << (8 - ones)) & 0xFF or ones == 0:
            raise LineError(f"byte {index} ({byte:08b}) is not one high pulse then low")
        high = ones * bit_ns
        if T0H_NS[0] <= high <= T0H_NS[1]:
            bits.append(0)
        elif T1H_NS[0] <= high <= T1H_NS[1]:
            bits.append(1)
        else:
            raise LineError(f"byte {index}: a {high:.0f} ns pulse is neither a 0 nor a 1")
        seen_high.add(high)
    if len(bits) % 24:
        raise LineError(f"{len(bits)} bits is not a whole number of LEDs (24 bits each)")
    colours = []
    for led in range(len(bits) // 24):
        value = 0
        for bit in bits[led * 24 : led * 24 + 24]:
            value = value << 1 | bit
        channels = dict(zip(order, (value >> 16, value >> 8 & 0xFF, value & 0xFF), strict=True))
        colours.append((channels["R"], channels["G"], channels["B"]))
    zero = min((h for h in seen_high if h <= T0H_NS[1]), default=0.0)
    one = min((h for h in seen_high if h >= T1H_NS[0]), default=0.0)
    return Strip(colours, before, after, (zero, one))
