"""The default Raspberry Pi wiring (BCM GPIO numbers), the one ``hardware/README.md`` draws.

Chosen so that no two things share a pin, whichever LED backend is used: the HAT EEPROM
pins (GPIO 0-1), the UART (GPIO 14-15, where a serial console or a bridge lives), GPIO18
(the ``neopixel`` backend's PWM pin) and SPI0's clock and data (GPIO 11 and 10, the
``neopixel_spi`` LEDs) are left alone. The 16 matrix lines use the 16 GPIOs free of any
other use. The buttons use I2C1's pins (GPIO 2-3, which have 1.8 kΩ pull-ups on the Pi:
ideal for buttons; I2C stays off) and SPI0's chip selects and MISO (GPIO 7, 8, 9), which
the LEDs do not need: ``dtoverlay=spi0-0cs,no_miso`` in the Pi's boot config (the
installer writes it) keeps the SPI driver off them.

>>> DEFAULT_ROWS[0], DEFAULT_COLUMNS[0]   # rank 1, file a
(4, 23)
>>> sorted(DEFAULT_BUTTON_PINS.values())
[2, 3, 7, 8, 9]
"""

from __future__ import annotations

from collections.abc import Sequence

#: Row lines, rank 1 first (header pins 7, 11, 13, 15, 29, 31, 33, 37).
DEFAULT_ROWS = (4, 17, 27, 22, 5, 6, 13, 26)
#: Column lines, file a first (header pins 16, 18, 22, 32, 36, 38, 40, 35).
DEFAULT_COLUMNS = (23, 24, 25, 12, 16, 20, 21, 19)
#: Button lines (header pins 3, 5, 21, 24, 26); ``hint`` has no default pin. Buttons are
#: off until ``[buttons] backend`` turns them on.
DEFAULT_BUTTON_PINS = {
    "adjust": 2,
    "promote": 3,
    "claim_draw": 9,
    "resign": 8,
    "new_game": 7,
}
#: NeoPixel data: SPI0 MOSI for ``neopixel_spi``, PWM0 for ``neopixel``.
LED_SPI_PIN = 10
LED_PWM_PIN = 18
#: The pins the ``neopixel_spi`` LEDs keep busy: SPI0's MOSI and clock.
LED_SPI_PINS = (10, 11)
#: The UART's pins (a serial console, or a bridge on the Pi's own serial port).
UART_PINS = (14, 15)
#: The line the Pi's boot config needs so that SPI0 leaves its chip selects and MISO
#: (GPIO 7, 8, 9) to the buttons (the NeoPixels need only MOSI and the clock).
SPI_OVERLAY = "dtoverlay=spi0-0cs,no_miso"

#: BCM number -> physical pin on the 40-pin header.
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18,
    10: 19, 9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32,
    13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip


class PinConfigError(ValueError):
    """A pin list in the config is wrong (length, range, duplicates)."""


def check_lines(name: str, lines: Sequence[int | str], count: int = 8) -> tuple[int | str, ...]:
    """Validate a list of GPIO lines (BCM numbers, or line names as strings)."""
    if isinstance(lines, str | bytes) or not isinstance(lines, Sequence):
        raise PinConfigError(f"{name} must be a list of {count} GPIO numbers, got {lines!r}")
    if len(lines) != count:
        raise PinConfigError(f"{name} must list {count} GPIO numbers, got {len(lines)}")
    for line in lines:
        if isinstance(line, bool) or not isinstance(line, int | str):
            raise PinConfigError(f"{name}: {line!r} is not a GPIO number")
        if isinstance(line, int) and not 0 <= line <= 53:
            raise PinConfigError(f"{name}: GPIO{line} does not exist (BCM numbers are 0..53)")
    return tuple(lines)


def check_distinct(**groups: Sequence[int | str]) -> None:
    """PinConfigError when one GPIO appears twice across the named groups."""
    seen: dict[int | str, str] = {}
    for group, lines in groups.items():
        for line in lines:
            if line in seen:
                raise PinConfigError(f"GPIO {line} is used twice: in {seen[line]} and in {group}")
            seen[line] = group
