"""The daemon's own config sections: the board's ports, the game, the store, the simulator.

Each section is a frozen dataclass of its keys with their defaults, and a check per key
(:mod:`board_driver.door.config_values`). The allowed values belong to the modules that use
them; a section only checks against them. Players and connectors own their sections
(:mod:`board_driver.door.extension`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from board_driver.arbiter.setup import VARIANTS
from board_driver.arbiter.tracker import MIN_SETTLE_MS, TOUCH_MOVE_MODES
from board_driver.clock.control import parse_time_control
from board_driver.clock.keeper import ILLEGAL_MOVE_RULES, SWITCHES
from board_driver.door.config_values import (
    Bad,
    Check,
    FilePath,
    boolean,
    integer,
    lines,
    number,
    one_of,
    optional_pin,
    pin,
    quote,
    text,
)
from board_driver.physical.buttons import BUTTONS
from board_driver.physical.leds import PIXEL_ORDERS
from board_driver.physical.leds import layout as strip_layout
from board_driver.physical.leds.render import DEFAULT_PALETTE
from board_driver.physical.pinmap import DEFAULT_BUTTON_PINS, DEFAULT_COLUMNS, DEFAULT_ROWS
from board_driver.physical.sensing.loop import MAX_RATE_HZ, MIN_RATE_HZ

SENSING_BACKENDS = ("gpiod", "rpigpio", "bridge", "sim")
LED_BACKENDS = ("neopixel_spi", "neopixel", "bridge", "sim")
#: ``gpiod`` and ``rpigpio`` as in ``[sensing]``; ``gpio`` (the name before them) reads the
#: buttons with the same library as the matrix.
BUTTON_BACKENDS = ("none", "gpiod", "rpigpio", "bridge", "gpio")
#: The backends that read buttons on the Pi's own GPIO lines.
GPIO_BUTTON_BACKENDS = ("gpiod", "rpigpio", "gpio")
BUTTON_KEYS = BUTTONS

#: The default palette: colour name -> RGB at full brightness (before brightness/gamma).
DEFAULT_COLOURS: dict[str, tuple[int, int, int]] = {
    name: rgb for name, rgb in DEFAULT_PALETTE.items() if name != "off"
}


@dataclass(frozen=True)
class SensingConfig:
    """``[sensing]``: how the reed-switch matrix is read."""

    backend: str = "gpiod"
    rate_hz: float = 200.0
    debounce_ms: int = 30
    chip: str = ""
    rows: tuple[int | str, ...] = DEFAULT_ROWS
    columns: tuple[int | str, ...] = DEFAULT_COLUMNS
    active_low: bool = True
    settle_us: int = 10
    rotation: int = 0
    mirror: bool = False


@dataclass(frozen=True)
class LedsConfig:
    """``[leds]``: the NeoPixel strip under the squares."""

    backend: str = "neopixel_spi"
    count: int = 64
    order: str = "serpentine"
    first: str = "a1"
    along: str = "rank"
    pixel_order: str = "GRB"
    brightness: float = 0.3
    gamma: float = 2.2
    pin: int = 18
    colours: Mapping[str, tuple[int, int, int]] = field(
        default_factory=lambda: dict(DEFAULT_COLOURS)
    )


@dataclass(frozen=True)
class BridgeConfig:
    """``[bridge]``: the serial link to a microcontroller that scans and lights."""

    device: str = "/dev/magboard-bridge"
    baud: int = 115200


@dataclass(frozen=True)
class ButtonsConfig:
    """``[buttons]``: push-buttons; off (``"none"``) until configured. ``"gpiod"`` or
    ``"rpigpio"`` read them on the Pi's GPIO lines (``"gpio"``: with the library the matrix
    uses), at the BCM pins given (the defaults are the guide's wiring); ``"bridge"`` takes
    them from the serial bridge."""

    backend: str = "none"
    adjust: int | None = DEFAULT_BUTTON_PINS.get("adjust")
    promote: int | None = DEFAULT_BUTTON_PINS.get("promote")
    claim_draw: int | None = DEFAULT_BUTTON_PINS.get("claim_draw")
    resign: int | None = DEFAULT_BUTTON_PINS.get("resign")
    new_game: int | None = DEFAULT_BUTTON_PINS.get("new_game")
    hint: int | None = DEFAULT_BUTTON_PINS.get("hint")
    clock_white: int | None = DEFAULT_BUTTON_PINS.get("clock_white")
    clock_black: int | None = DEFAULT_BUTTON_PINS.get("clock_black")
    pause: int | None = DEFAULT_BUTTON_PINS.get("pause")
    # The questions a player asks the board (the speech extension answers; no default pins).
    say_move: int | None = None
    say_moves: int | None = None
    say_clocks: int | None = None
    say_material: int | None = None
    say_square: int | None = None
    say_rank: int | None = None
    say_file: int | None = None

    def pins(self) -> dict[str, int]:
        """The buttons that have a pin: name -> BCM number."""
        return {k: getattr(self, k) for k in BUTTON_KEYS if getattr(self, k) is not None}


@dataclass(frozen=True)
class GameConfig:
    """``[game]``: the options of a new game and the tracker's timing, and the rules a new
    game is played by: ``variant`` (``"standard"`` or ``"chess960"``) and, for Chess960,
    ``chess960_position``: a start position by number (0-959, Scharnagl's numbering; 518
    is the standard array) or ``"random"`` (a new one drawn for each game)."""

    touch_move: str = "warn"
    takeback: bool = True
    hints: bool = False
    settle_ms: int = 250
    pass_ms: int = 100
    variant: str = "standard"
    chess960_position: int | str = "random"

    def kind(self) -> tuple[str, int | str | None]:
        """A new game's variant and its start position (for Chess960: a number or
        ``"random"``; None for standard chess)."""
        if self.variant == "chess960":
            return self.variant, self.chess960_position
        return self.variant, None


def chess960_position(_key: str, value: Any) -> int | str:
    """A Chess960 start position: a number from 0 to 959, or ``"random"``."""
    if value == "random":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 959:
        raise Bad(f'{quote(value)} is not a start position: a number from 0 to 959, or "random"')
    return value


@dataclass(frozen=True)
class ClockConfig:
    """``[clock]``: the chess clock of a new game (the page and a script's ``option clock``
    change it per game).

    ``control``: the time control (``"none"``, ``"5+0"``, ``"3+2"``, ``"5+3 delay"``,
    ``"5+2 bronstein"``, ``"40/5400+30:1800+30"``: see :mod:`board_driver.clock.control`);
    ``switch``: ``"board"`` (the mover's clock stops when the hand lets go of the move) or
    ``"buttons"`` (the players press clock buttons: ``[buttons] clock_white``,
    ``clock_black``); ``illegal_move``: ``"guide"`` (the board guides it back) or ``"fide"``
    (FIDE 7.5.5: two minutes to the opponent, the second one loses); ``low_time_s``: below
    this many seconds on the running clock the board's edge lights orange (0: never).
    """

    control: str = "none"
    switch: str = "board"
    illegal_move: str = "guide"
    low_time_s: int = 20


def time_control(_key: str, value: Any) -> str:
    """A time control's text, in its own words (``"none"`` for no clock)."""
    if not isinstance(value, str):
        raise Bad(f"{value!r} is not a time control (a text: \"3+2\", \"none\")")
    try:
        control = parse_time_control(value)
    except ValueError as exc:
        raise Bad(str(exc)) from None
    return "none" if control is None else control.name()


@dataclass(frozen=True)
class StoreConfig:
    """``[store]``: where games are kept; ``""`` = ``magboard.sqlite`` in the state directory."""

    path: str = ""


@dataclass(frozen=True)
class SimConfig:
    """``[sim]``: the simulated board and lights.

    ``state_file``: the simulated board's pieces (``""`` = ``sim-board.json`` in the state
    directory). ``leds_file``: where the simulated lights write what they show, as JSON,
    on every change (``""`` = nowhere), for tests and tools.
    """

    state_file: str = ""
    leds_file: str = ""


#: section name -> (its dataclass, a check per key). ``[leds.colours]`` is read apart.
SECTIONS: dict[str, tuple[type, dict[str, Check]]] = {
    "sensing": (
        SensingConfig,
        {
            "backend": one_of(*SENSING_BACKENDS),
            "rate_hz": number(MIN_RATE_HZ, MAX_RATE_HZ),
            "debounce_ms": integer(0, 1000),
            "chip": text,
            "rows": lines(8),
            "columns": lines(8),
            "active_low": boolean,
            "settle_us": integer(0, 10000),
            "rotation": integer(choices=(0, 90, 180, 270)),
            "mirror": boolean,
        },
    ),
    "leds": (
        LedsConfig,
        {
            "backend": one_of(*LED_BACKENDS),
            "count": integer(choices=(64, 81)),
            "order": one_of(*strip_layout.ORDERS),
            "first": one_of(*strip_layout.CORNERS),
            "along": one_of(*strip_layout.ALONG),
            "pixel_order": one_of(*PIXEL_ORDERS),
            "brightness": number(0, 1),
            "gamma": number(0.1, 5),
            "pin": pin,
        },
    ),
    "bridge": (BridgeConfig, {"device": text, "baud": integer(1200, 4_000_000)}),
    "buttons": (
        ButtonsConfig,
        {"backend": one_of(*BUTTON_BACKENDS), **{k: optional_pin for k in BUTTON_KEYS}},
    ),
    "game": (
        GameConfig,
        {
            "touch_move": one_of(*TOUCH_MOVE_MODES),
            "takeback": boolean,
            "hints": boolean,
            "settle_ms": integer(MIN_SETTLE_MS, 10000),
            "pass_ms": integer(0, 10000),
            "variant": one_of(*VARIANTS),
            "chess960_position": chess960_position,
        },
    ),
    "clock": (
        ClockConfig,
        {
            "control": time_control,
            "switch": one_of(*SWITCHES),
            "illegal_move": one_of(*ILLEGAL_MOVE_RULES),
            "low_time_s": integer(0, 3600),
        },
    ),
    "store": (StoreConfig, {"path": FilePath("kept")}),
    "sim": (SimConfig, {"state_file": FilePath("kept"), "leds_file": FilePath("written")}),
}


def read_colours(table: Any, problems: list[str]) -> dict[str, tuple[int, int, int]]:
    """``[leds.colours]``: the palette, each colour named and checked."""
    from board_driver.door.config_values import Bad, rgb

    colours = dict(DEFAULT_COLOURS)
    if not isinstance(table, dict):
        problems.append("[leds] colours: must be a table [leds.colours]")
        return colours
    for key, value in table.items():
        if key not in DEFAULT_COLOURS:
            problems.append(
                f"[leds.colours] {key}: unknown colour (known: {', '.join(DEFAULT_COLOURS)})"
            )
            continue
        try:
            colours[key] = rgb(key, value)
        except Bad as bad:
            problems.append(f"[leds.colours] {key}: {bad}")
    return colours
