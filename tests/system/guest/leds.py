"""The daemon's frames through the real NeoPixel libraries, decoded off a stand-in of the bus.

The daemon runs in this process (simulated reed switches, the installed config's LED
backend and layout options given here), with everything real from our code down to the
library: ``neopixel_spi.NeoPixel_SPI`` with Adafruit's pixel buffer and bus-device code.
Only the object the library writes to is replaced: Blinka's ``board.SPI()`` returns a
byte-level stand-in of the SPI bus that keeps what each ``write`` clocks out and at what
frequency; ``ws2812.py`` decodes that as the LEDs would. Every frame the daemon shows must
come out as the colours it asked for, pixel by pixel in the strip's order.

For the PWM backend (``neopixel``) the stand-in sits at the same depth: the module
``neopixel_write`` the library calls (Blinka's, which on a Pi hands the bytes to the
rpi_ws281x DMA driver or the Pi 5's PIO); its pin is a real ``digitalio`` pin on the
machine's GPIO chip. Those bytes are colours already, not line patterns.

    BLINKA_FORCEBOARD=RASPBERRY_PI_4B BLINKA_FORCECHIP=BCM2XXX \\
        /opt/magboard/bin/python leds.py --backend neopixel_spi --order serpentine --first a1

Prints one JSON line: frames checked, and the last frame's decoded colours by square.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import ws2812

# A game that lights many different frames: flashes, check, mate (kings green and red).
SCHOLARS_MATE = """gap 400
lift e2
place e4
lift e7
place e5
lift d1
place h5
lift b8
place c6
lift f1
place c4
lift g8
place f6
lift h5
lift f7
place f7
"""


class SpiBusStandIn:
    """Blinka's ``busio.SPI`` as the NeoPixel library uses it, keeping each write's bytes."""

    def __init__(self) -> None:
        self.frequency = 0
        self.mode = (0, 0)
        self.writes: list[tuple[int, bytes]] = []
        self._locked = False

    def try_lock(self) -> bool:
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self) -> None:
        self._locked = False

    def configure(self, *, baudrate: int = 100000, polarity: int = 0, phase: int = 0,
                  bits: int = 8) -> None:  # fmt: skip
        if not self._locked:
            raise RuntimeError("configure() on an SPI bus that is not locked")
        self.frequency, self.mode = baudrate, (polarity, phase)

    def write(self, buf, start: int = 0, end: int | None = None) -> None:
        if not self._locked:
            raise RuntimeError("write() on an SPI bus that is not locked")
        self.writes.append((self.frequency, bytes(buf[start:end])))

    def deinit(self) -> None:
        pass


def pixel_squares(count: int, order: str, first: str, along: str) -> list[tuple[int, ...]]:
    """The squares under (or around) each pixel, walking the strip over the board's grid:
    from the ``first`` corner along its rank or file to the far edge, then one line on, back
    the same way (serpentine) or from the same edge again (rows)."""
    size = 9 if count == 81 else 8
    file_step = 1 if first[0] == "a" else -1
    rank_step = 1 if first[1] == "1" else -1
    file0 = 0 if first[0] == "a" else size - 1
    rank0 = 0 if first[1] == "1" else size - 1
    out = []
    for line in range(size):
        backwards = order == "serpentine" and line % 2 == 1
        for step in range(size):
            along_step = size - 1 - step if backwards else step
            if along == "rank":
                f, r = file0 + file_step * along_step, rank0 + rank_step * line
            else:
                f, r = file0 + file_step * line, rank0 + rank_step * along_step
            if size == 8:
                out.append((r * 8 + f,))
            else:  # a corner point: the squares whose corner it is
                out.append(tuple(rank * 8 + file for rank in (r - 1, r) for file in (f - 1, f)
                                 if 0 <= rank < 8 and 0 <= file < 8))  # fmt: skip
    return out


def expected_pixels(colours: list, squares: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    return [tuple(max(colours[sq][c] for sq in around) for c in range(3)) for around in squares]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("neopixel_spi", "neopixel"), default="neopixel_spi")
    parser.add_argument("--count", type=int, default=64)
    parser.add_argument("--order", default="serpentine")
    parser.add_argument("--first", default="a1")
    parser.add_argument("--along", default="rank")
    parser.add_argument("--brightness", type=float, default=0.3)
    parser.add_argument("--pixel-order", default="GRB")
    args = parser.parse_args()

    writes: list[tuple[int, bytes]] = []
    if args.backend == "neopixel_spi":
        import board

        bus = SpiBusStandIn()
        board.SPI = lambda: bus  # the object the library writes to; nothing above it
        writes = bus.writes
    else:
        stand_in = types.ModuleType("neopixel_write")

        def neopixel_write(pin, buf) -> None:
            writes.append((0, bytes(buf)))

        stand_in.neopixel_write = neopixel_write
        sys.modules["neopixel_write"] = stand_in

    from board_driver.service.config import parse_config
    from board_driver.service.daemon import Daemon
    from board_driver.service.hardware import open_hardware

    work = Path(tempfile.mkdtemp(prefix="leds-"))
    config = parse_config(f"""
[sensing]
backend = "sim"
[leds]
backend = "{args.backend}"
count = {args.count}
order = "{args.order}"
first = "{args.first}"
along = "{args.along}"
brightness = {args.brightness}
pixel_order = "{args.pixel_order}"
[store]
path = "{work / "games.sqlite"}"
[sim]
state_file = "{work / "sim-board.json"}"
""")
    hardware = open_hardware(config)
    shown: list[tuple[list, int]] = []  # the 64 colours asked for, and the writes before
    show = hardware.leds.show

    def recording_show(colours) -> None:
        before = len(writes)
        show(colours)
        if len(writes) > before:
            shown.append((list(colours), len(writes) - 1))

    hardware.leds.show = recording_show
    (work / "mate.script").write_text(SCHOLARS_MATE)
    daemon = Daemon(config, hardware, script=str(work / "mate.script"))

    async def play() -> int:
        running = asyncio.create_task(daemon.run())
        while not daemon._tasks:  # the script starts when the daemon is ready
            await asyncio.sleep(0.05)
        await asyncio.gather(*daemon._tasks)
        await asyncio.sleep(1.0)  # the mate's frame, after the last move's flash
        final = daemon.door.snapshot()
        daemon.stop()
        await running
        return final

    snapshot = asyncio.run(play())
    hardware.close()
    squares = pixel_squares(args.count, args.order, args.first, args.along)
    problems = []
    chip_order = "GRB" if args.pixel_order == "GRB" else args.pixel_order
    for number, (colours, index) in enumerate(shown):
        frequency, data = writes[index]
        if args.backend == "neopixel_spi":
            decoded = ws2812.decode(data, frequency, chip_order).colours
        else:
            decoded = [tuple(dict(zip(chip_order, data[i:i + 3], strict=True))[c] for c in "RGB")
                       for i in range(0, len(data), 3)]  # fmt: skip
        wanted = expected_pixels(colours, squares)
        if decoded != wanted:
            wrong = [p for p in range(len(wanted)) if decoded[p] != wanted[p]][:5]
            problems.append(f"frame {number}: pixels {wrong} show "
                            f"{[decoded[p] for p in wrong]}, want {[wanted[p] for p in wrong]}")
    last_colours = shown[-1][0] if shown else []
    names = [f + r for r in "12345678" for f in "abcdefgh"]
    lit = {names[sq]: list(c) for sq, c in enumerate(last_colours) if any(c)}
    strip, dark = None, None
    if args.backend == "neopixel_spi" and shown:
        frequency, data = writes[shown[-1][1]]
        s = ws2812.decode(data, frequency, chip_order)
        strip = {"reset_us": [round(s.reset_before_us, 1), round(s.reset_after_us, 1)],
                 "high_ns": [round(h, 1) for h in s.high_ns], "frequency": frequency}
        # Closing the port (the daemon stopping) leaves the strip dark.
        dark = set(ws2812.decode(writes[-1][1], writes[-1][0], chip_order).colours) == {(0, 0, 0)}
    elif writes:
        dark = set(writes[-1][1]) == {0}
    print(json.dumps({"frames": len(shown), "writes": len(writes), "problems": problems,
                      "last_lit": lit, "result": snapshot.result,
                      "strip": strip, "dark_after_close": dark}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
