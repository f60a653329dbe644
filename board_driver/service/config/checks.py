"""The config's rules across keys: values each good alone that do not go together."""

from __future__ import annotations

from typing import Any

from board_driver.physical.pinmap import LED_SPI_PINS, UART_PINS


def led_data_pins(config: Any) -> dict[int, str]:
    """The GPIOs the LEDs keep busy, each with what uses it (none for the bridge or sim)."""
    leds = config.leds
    if leds.backend == "neopixel":
        return {leds.pin: f'[leds] pin (GPIO{leds.pin}, backend "neopixel")'}
    if leds.backend == "neopixel_spi":
        return {pin: f'the LEDs\' SPI (GPIO{pin}, backend "neopixel_spi")' for pin in LED_SPI_PINS}
    return {}


def check_across(config: Any, problems: list[str], bad: set[str] | frozenset = frozenset()) -> None:
    """Add a ``[section] key: ...`` problem for each rule broken. A rule that involves a
    key in ``bad`` is left out: that key is named already, and stands at its default."""

    def good(*keys: str) -> bool:
        return not bad.intersection(keys)

    s = config.sensing
    if good("sensing.rows", "sensing.columns") and set(s.rows) & set(s.columns):
        both = sorted(set(s.rows) & set(s.columns), key=str)
        problems.append(f"[sensing] columns: {both} also rows")
    pins = {k: v for k, v in config.buttons.pins().items() if good(f"buttons.{k}")}
    repeated = sorted({p for p in pins.values() if list(pins.values()).count(p) > 1})
    if repeated:
        problems.append(f"[buttons]: pins {repeated} are given to more than one button")
    from board_driver.service.config.sections import GPIO_BUTTON_BACKENDS

    backend = config.buttons.backend
    matrix_on_gpio = s.backend in ("gpiod", "rpigpio") and good("sensing.rows", "sensing.columns")
    leds = led_data_pins(config) if good("leds.pin", "leds.backend") else {}
    if backend in GPIO_BUTTON_BACKENDS:
        if not pins and len(config.buttons.pins()) == len(pins):
            problems.append(f'[buttons] backend: "{backend}" but no button has a pin')
        if matrix_on_gpio:
            clash = sorted(set(pins.values()) & (set(s.rows) | set(s.columns)), key=str)
            if clash:
                problems.append(f"[buttons]: pins {clash} are also used by the switch matrix")
        for name, pin in pins.items():
            if pin in leds:
                problems.append(f"[buttons] {name}: GPIO{pin} is also {leds[pin]}")
            elif pin in UART_PINS:
                problems.append(
                    f"[buttons] {name}: GPIO{pin} is the UART's (a serial console or the "
                    "bridge); choose a free pin (hardware/README.md, pin map)"
                )
    if matrix_on_gpio:
        for line in [*s.rows, *s.columns]:
            if line in leds:
                problems.append(f"[sensing]: GPIO{line} of the switch matrix is also {leds[line]}")
    game = config.game
    if (
        good("game.variant", "game.chess960_position")
        and game.variant != "chess960"
        and game.chess960_position != "random"
    ):
        problems.append(
            f"[game] chess960_position: {game.chess960_position} is a Chess960 start "
            f'position, but variant is "{game.variant}" (set variant = "chess960")'
        )
    if good("game.pass_ms", "game.settle_ms") and game.pass_ms > game.settle_ms:
        problems.append(
            f"[game] pass_ms: {game.pass_ms} is longer than settle_ms ({game.settle_ms})"
        )
