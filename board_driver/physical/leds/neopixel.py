"""NeoPixels on a PWM pin (GPIO18 by default) through ``adafruit-circuitpython-neopixel``.

On a Pi up to 4 this uses the rpi_ws281x DMA driver, which needs root (prefer
``neopixel_spi`` for the service); on a Pi 5 Blinka drives the pin with the RP1's PIO.
"""

from __future__ import annotations

from board_driver.physical.hwlib import require_library
from board_driver.physical.leds.layout import StripLayout
from board_driver.physical.leds.strip import PixelStrip
from board_driver.physical.pinmap import LED_PWM_PIN


def open_strip(
    layout: StripLayout, *, pin: int = LED_PWM_PIN, pixel_order: str = "GRB"
) -> PixelStrip:
    """The strip on ``pin`` (a BCM number)."""
    neopixel = require_library(
        "neopixel", backend="neopixel", package="adafruit-circuitpython-neopixel"
    )
    board = require_library("board", backend="neopixel", package="adafruit-blinka")
    if isinstance(pin, bool) or not isinstance(pin, int):
        raise ValueError(f"[leds] pin must be a BCM GPIO number, got {pin!r}")
    board_pin = getattr(board, f"D{pin}", None)
    if board_pin is None:
        raise ValueError(f"[leds] pin: this board has no GPIO{pin} (board.D{pin})")
    try:
        pixels = neopixel.NeoPixel(
            board_pin, layout.count, brightness=1.0, auto_write=False, pixel_order=pixel_order
        )
    except RuntimeError as exc:
        raise RuntimeError(
            f"cannot drive NeoPixels on GPIO{pin} ({exc}): on a Pi up to 4 the PWM driver "
            'needs root; run as root or use backend = "neopixel_spi" (GPIO10, no root)'
        ) from exc
    return PixelStrip(pixels, layout)
