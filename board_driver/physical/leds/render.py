"""From a :class:`~board_driver.physical.frame.Frame` to the 64 RGB values the LED port lights.

Each colour letter is looked up in a palette (configurable as ``[leds.colours]``), then
gamma-corrected (LEDs are linear, eyes are not: half of 255 looks far brighter than half
as bright) and capped in brightness (30% by default: enough under a wooden square, and
it keeps 64 LEDs within a small power supply; see ``hardware/README.md``).

>>> from board_driver.physical.frame import Frame
>>> renderer = Renderer()
>>> colours = renderer.render(Frame.off().with_square(0, "r"))
>>> colours[0], colours[1]
((76, 0, 0), (0, 0, 0))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from board_driver.physical.frame import COLOUR_NAMES, Frame
from board_driver.physical.ports import RGB

#: Default RGB per colour name, before gamma and brightness.
DEFAULT_PALETTE: dict[str, RGB] = {
    "off": (0, 0, 0),
    "red": (255, 0, 0),
    "orange": (255, 96, 0),
    "yellow": (255, 200, 0),
    "green": (0, 255, 0),
    "blue": (0, 0, 255),
    "cyan": (0, 255, 255),
    "white": (255, 255, 255),
}
DEFAULT_BRIGHTNESS = 0.3
DEFAULT_GAMMA = 2.2
#: The ``[leds]`` keys that belong to rendering rather than to the strip.
RENDER_KEYS = frozenset({"brightness", "gamma", "colours"})


class RenderConfigError(ValueError):
    """A palette colour, brightness or gamma in the config is wrong."""


def check_palette(colours: Mapping[str, Any]) -> dict[str, RGB]:
    """The default palette updated with ``colours`` (``{"red": [255, 0, 0], ...}``)."""
    palette = dict(DEFAULT_PALETTE)
    for name, value in colours.items():
        if name not in DEFAULT_PALETTE or name == "off":
            known = ", ".join(n for n in DEFAULT_PALETTE if n != "off")
            raise RenderConfigError(f"[leds.colours] {name}: not a colour name (known: {known})")
        if (
            isinstance(value, str | bytes)
            or not isinstance(value, Sequence)
            or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255
                       for v in value)
        ):  # fmt: skip
            raise RenderConfigError(
                f"[leds.colours] {name}: expected [red, green, blue] with each 0..255, "
                f"got {value!r}"
            )
        palette[name] = (value[0], value[1], value[2])
    return palette


class Renderer:
    """Turns frames into the 64 RGB values for :meth:`~board_driver.physical.ports.LedPort.show`."""

    def __init__(
        self,
        *,
        colours: Mapping[str, Any] | None = None,
        brightness: float = DEFAULT_BRIGHTNESS,
        gamma: float = DEFAULT_GAMMA,
    ) -> None:
        if isinstance(brightness, bool) or not isinstance(brightness, int | float):
            raise RenderConfigError(f"[leds] brightness must be a number, got {brightness!r}")
        if not 0.0 <= brightness <= 1.0:
            raise RenderConfigError(f"[leds] brightness must be 0.0..1.0, got {brightness!r}")
        if isinstance(gamma, bool) or not isinstance(gamma, int | float) or not 0.1 <= gamma <= 5:
            raise RenderConfigError(f"[leds] gamma must be a number 0.1..5, got {gamma!r}")
        self.palette = check_palette(colours or {})
        self.brightness = float(brightness)
        self.gamma = float(gamma)
        # One table for all channels: 0..255 in -> gamma-corrected, capped 0..255 out.
        self.table = tuple(
            round(255 * (value / 255) ** self.gamma * self.brightness) for value in range(256)
        )
        self._by_letter = {
            letter: self.correct(self.palette[name]) for letter, name in COLOUR_NAMES.items()
        }

    @classmethod
    def from_config(cls, options: Mapping[str, Any]) -> Renderer:
        """A renderer from the ``[leds]`` table (keys other than :data:`RENDER_KEYS` ignored)."""
        return cls(**{key: value for key, value in options.items() if key in RENDER_KEYS})

    def correct(self, rgb: RGB) -> RGB:
        """Gamma and brightness applied to one colour."""
        table = self.table
        return (table[rgb[0]], table[rgb[1]], table[rgb[2]])

    def render(self, frame: Frame, phase_on: bool = True) -> list[RGB]:
        """The 64 colours to light, a1 first; blinking squares dark unless ``phase_on``."""
        if not phase_on and frame.blink:
            frame = frame.at_phase(False)
        by_letter = self._by_letter
        return [by_letter[letter] for letter in frame.colours]


def render(
    frame: Frame,
    phase_on: bool = True,
    *,
    colours: Mapping[str, Any] | None = None,
    brightness: float = DEFAULT_BRIGHTNESS,
    gamma: float = DEFAULT_GAMMA,
) -> list[RGB]:
    """One-off :meth:`Renderer.render`; keep a :class:`Renderer` to render repeatedly."""
    return Renderer(colours=colours, brightness=brightness, gamma=gamma).render(frame, phase_on)
