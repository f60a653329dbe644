"""NeoPixels on the Pi's SPI MOSI pin (GPIO10) through ``adafruit-circuitpython-neopixel-spi``.

The service's default: it needs no root, only membership of the ``spi`` group and
``dtparam=spi=on`` in ``/boot/firmware/config.txt``. The SPI clock shapes the NeoPixel
bits, so the strip's timing does not depend on the CPU being idle.
"""

from __future__ import annotations

from board_driver.physical.hwlib import require_library
from board_driver.physical.leds.layout import StripLayout
from board_driver.physical.leds.strip import PixelStrip

_PACKAGE = "adafruit-circuitpython-neopixel-spi"


def open_strip(layout: StripLayout, *, pixel_order: str = "GRB") -> PixelStrip:
    """The strip on SPI0 MOSI (GPIO10)."""
    neopixel_spi = require_library("neopixel_spi", backend="neopixel_spi", package=_PACKAGE)
    board = require_library("board", backend="neopixel_spi", package="adafruit-blinka")
    try:
        spi = board.SPI()
    except (OSError, RuntimeError, ValueError) as exc:
        raise RuntimeError(
            f"cannot open the SPI bus for the LEDs ({exc}): enable SPI "
            "(raspi-config > Interface Options > SPI, or dtparam=spi=on) and add the "
            "service user to the 'spi' group"
        ) from exc
    pixels = neopixel_spi.NeoPixel_SPI(
        spi, layout.count, brightness=1.0, auto_write=False, pixel_order=pixel_order
    )
    return PixelStrip(pixels, layout)
