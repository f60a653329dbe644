"""The LEDs through the real NeoPixel libraries: every frame the daemon shows, decoded off a
byte-level stand-in of what the library writes to, is the colours asked for in the strip's
order (``[leds]`` layout, serpentine, brightness). See ``guest/leds.py``."""

from __future__ import annotations

import pytest

from tests.system import steps

#: Blinka finds a Raspberry Pi 4 by these (the machine's GPIO chip is labelled as one's).
PI_4 = {"BLINKA_FORCEBOARD": "RASPBERRY_PI_4B", "BLINKA_FORCECHIP": "BCM2XXX"}

LAYOUTS = [
    # The installer's defaults: 64 LEDs from a1 along rank 1, folding back each rank.
    {"backend": "neopixel_spi", "count": 64, "order": "serpentine", "first": "a1",
     "along": "rank", "brightness": 0.3},
    # Wired the other way round: from h8 down the files, each from the same edge, RGB chips.
    {"backend": "neopixel_spi", "count": 64, "order": "rows", "first": "h8", "along": "file",
     "brightness": 1.0, "pixel_order": "RGB"},
    # 81 LEDs at the squares' corners.
    {"backend": "neopixel_spi", "count": 81, "order": "serpentine", "first": "h1",
     "along": "rank", "brightness": 0.5},
    # The PWM library (GPIO18), whose bytes go to Blinka's neopixel_write.
    {"backend": "neopixel", "count": 64, "order": "serpentine", "first": "a1",
     "along": "rank", "brightness": 0.3},
]  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda v: f"{v['backend']}-{v['count']}-"
                         f"{v['order']}-{v['first']}-{v['along']}")  # fmt: skip
def test_every_frame_of_a_game_reaches_the_strip_in_its_order(machine, installed, layout):
    args = [f"--{key.replace('_', '-')}={value}" for key, value in layout.items()]
    seen = machine.python("leds.py", *args, python=steps.VENV_PYTHON, env=PI_4, timeout=600)
    assert seen["problems"] == [], seen["problems"]
    # A game's worth of frames: the start pattern, each move's flash, check, mate.
    assert seen["frames"] >= 10, seen
    assert seen["result"] == "1-0"
    # Mate: the winner's king green, the loser's red, at the configured brightness (full
    # channels are not changed by gamma).
    full = round(255 * layout["brightness"])
    lit = seen["last_lit"]
    assert lit["e1"] == [0, full, 0] and lit["e8"] == [full, 0, 0], lit
    assert seen["dark_after_close"]  # the daemon stopping turns the strip off
    if layout["backend"] == "neopixel_spi":
        strip = seen["strip"]
        assert strip["frequency"] == 6_400_000
        assert strip["high_ns"] == [312.5, 625.0]  # a 0 and a 1, within the WS2812B's ranges
        assert min(strip["reset_us"]) >= 50


def test_the_real_spi_bus_is_asked_for_and_its_absence_said_plainly(machine, installed):
    """Blinka's own ``board.SPI()``, unreplaced: the machine has no SPI controller, as a Pi
    whose SPI is off has none, and opening the LEDs says what to do."""
    opened = machine.run(steps.VENV_PYTHON, "-c",
                         "from board_driver.physical.leds import open_leds; "
                         "open_leds('neopixel_spi')", env=PI_4, timeout=120)  # fmt: skip
    assert opened.rc == 1, opened.describe()
    last = opened.stderr.strip().splitlines()[-1]
    assert "cannot open the SPI bus for the LEDs" in last, last
    assert "enable SPI" in last and "'spi' group" in last, last
    print(f"without SPI: {last}")
