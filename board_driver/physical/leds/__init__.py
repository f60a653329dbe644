"""LEDs: a light under every square, driven from 64 RGB values indexed by square.

Pick a backend by name, as the config's ``[leds] backend`` does, and render frames with a
:class:`~board_driver.physical.leds.render.Renderer`::

    >>> from board_driver.physical.frame import Frame
    >>> leds = open_leds("sim")
    >>> renderer = Renderer.from_config({"brightness": 0.3})
    >>> leds.show(renderer.render(Frame.off().with_square(28, "g")))
    >>> leds.colours[28]
    (0, 76, 0)

Backends: ``neopixel_spi`` (GPIO10, no root: the service's default), ``neopixel``
(GPIO18 through Blinka) and ``sim``. The NeoPixel ones import their library only when
opened. Options are the ``[leds]`` config keys: the strip takes ``count``, ``order``,
``first``, ``along``, ``pin`` (``neopixel`` only) and ``pixel_order``; ``brightness``,
``gamma`` and ``colours`` belong to the renderer and are ignored here.
"""

from __future__ import annotations

from typing import Any

from board_driver.physical.leds.layout import StripLayout
from board_driver.physical.leds.render import RENDER_KEYS, Renderer, render
from board_driver.physical.leds.sim import SimulatedLeds
from board_driver.physical.ports import LedPort

__all__ = [
    "BACKENDS",
    "LedConfigError",
    "Renderer",
    "SimulatedLeds",
    "StripLayout",
    "open_leds",
    "render",
]

BACKENDS = ("neopixel_spi", "neopixel", "sim")
_LAYOUT_KEYS = {"count", "order", "first", "along"}
_BACKEND_KEYS = {
    "neopixel_spi": {"pixel_order"},
    "neopixel": {"pin", "pixel_order"},
    "sim": set(),
}
OTHER_KEYS = {"backend", "device", "baud"}
KNOWN_KEYS = _LAYOUT_KEYS | set().union(*_BACKEND_KEYS.values()) | RENDER_KEYS | OTHER_KEYS
PIXEL_ORDERS = ("RGB", "GRB", "RGBW", "GRBW")


class LedConfigError(ValueError):
    """An LED backend name or option is wrong."""


def open_leds(backend: str = "neopixel_spi", **options: Any) -> LedPort:
    """Open the LED backend ``backend`` with the ``[leds]`` options given."""
    if backend not in BACKENDS:
        hint = " (the bridge's port is opened by firmware_bridge)" if backend == "bridge" else ""
        raise LedConfigError(
            f"[leds] backend: {backend!r} is not one of {', '.join(BACKENDS)}{hint}"
        )
    unknown = sorted(set(options) - KNOWN_KEYS)
    if unknown:
        raise LedConfigError(
            f"[leds]: unknown option {unknown[0]!r} (known: {', '.join(sorted(KNOWN_KEYS))})"
        )
    layout = StripLayout(**{k: v for k, v in options.items() if k in _LAYOUT_KEYS})
    mine = {k: v for k, v in options.items() if k in _BACKEND_KEYS[backend]}
    if options.get("pixel_order", "GRB") not in PIXEL_ORDERS:
        raise LedConfigError(
            f"[leds] pixel_order must be one of {', '.join(PIXEL_ORDERS)}, "
            f"got {options['pixel_order']!r}"
        )
    if backend == "sim":
        return SimulatedLeds()
    if backend == "neopixel_spi":
        from board_driver.physical.leds import neopixel_spi

        return neopixel_spi.open_strip(layout, **mine)
    from board_driver.physical.leds import neopixel

    return neopixel.open_strip(layout, **mine)
