"""The daemon's configuration: ``/etc/magboard/config.toml``, every key optional.

The file is TOML with one table per port or concern::

    [sensing]
    backend = "gpiod"          # "gpiod" | "rpigpio" | "bridge" | "sim"
    rate_hz = 200

    [leds]
    backend = "neopixel_spi"   # "neopixel_spi" | "neopixel" | "bridge" | "sim"
    brightness = 0.3

    [leds.colours]
    red = [255, 0, 0]

Which file is read: ``--config PATH``, else ``$MAGBOARD_CONFIG``, else
``/etc/magboard/config.toml``. The default file may be missing (every key then takes its
default); a file named explicitly must exist.

Unknown tables and keys and bad values are rejected, and every problem is named with
its key, so one run of ``magboard config check`` lists all of them:

>>> parse_config('[leds]\\nbrightness = 1.7\\n', source="config.toml")
Traceback (most recent call last):
...
board_driver.service.config.ConfigError: config.toml: [leds] brightness: 1.7 is not between 0 and 1

>>> parse_config('[game]\\ntouch_move = "enforce"\\n').game.touch_move
'enforce'
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from board_driver.arbiter.tracker import MIN_SETTLE_MS, TOUCH_MOVE_MODES
from board_driver.physical.buttons import BUTTONS
from board_driver.physical.leds import PIXEL_ORDERS
from board_driver.physical.leds import layout as strip_layout
from board_driver.physical.leds.render import DEFAULT_PALETTE
from board_driver.physical.pinmap import DEFAULT_BUTTON_PINS, DEFAULT_COLUMNS, DEFAULT_ROWS
from board_driver.physical.sensing.loop import MAX_RATE_HZ, MIN_RATE_HZ
from board_driver.players.engine.player import MAX_HASH_MB, MAX_THREADS
from board_driver.players.engine.seat import SIDES as ENGINE_SIDES

DEFAULT_PATH = Path("/etc/magboard/config.toml")
#: The service's state directory (systemd ``StateDirectory=magboard``).
SERVICE_STATE_DIR = Path("/var/lib/magboard")

SENSING_BACKENDS = ("gpiod", "rpigpio", "bridge", "sim")
LED_BACKENDS = ("neopixel_spi", "neopixel", "bridge", "sim")
BUTTON_BACKENDS = ("gpio", "bridge", "none")
# The allowed values belong to the modules that use them; the config only checks against them.
BUTTON_KEYS = BUTTONS
LED_ORDERS = strip_layout.ORDERS
LED_FIRSTS = strip_layout.CORNERS
LED_ALONG = strip_layout.ALONG

#: The default palette: colour name -> RGB at full brightness (before brightness/gamma).
DEFAULT_COLOURS: dict[str, tuple[int, int, int]] = {
    name: rgb for name, rgb in DEFAULT_PALETTE.items() if name != "off"
}


class ConfigError(ValueError):
    """The config file cannot be used; the message names every problem and its key."""

    def __init__(self, problems: list[str], source: str = "") -> None:
        self.problems = list(problems)
        self.source = source
        prefix = f"{source}: " if source else ""
        super().__init__("\n".join(prefix + p for p in self.problems))


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
    """``[buttons]``: push-buttons, by BCM pin (``gpio``) or on the bridge; off by default."""

    backend: str = "none"
    adjust: int | None = DEFAULT_BUTTON_PINS.get("adjust")
    promote: int | None = DEFAULT_BUTTON_PINS.get("promote")
    claim_draw: int | None = DEFAULT_BUTTON_PINS.get("claim_draw")
    resign: int | None = DEFAULT_BUTTON_PINS.get("resign")
    new_game: int | None = DEFAULT_BUTTON_PINS.get("new_game")
    hint: int | None = DEFAULT_BUTTON_PINS.get("hint")

    def pins(self) -> dict[str, int]:
        """The buttons that have a pin: name -> BCM number."""
        return {k: getattr(self, k) for k in BUTTON_KEYS if getattr(self, k) is not None}


@dataclass(frozen=True)
class GameConfig:
    """``[game]``: the options of a new game and the tracker's timing."""

    touch_move: str = "warn"
    takeback: bool = True
    hints: bool = False
    settle_ms: int = 250
    pass_ms: int = 100


@dataclass(frozen=True)
class WebConfig:
    """``[web]``: the page the daemon serves."""

    host: str = "127.0.0.1"
    port: int = 8080
    token: str = ""


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


@dataclass(frozen=True)
class EngineConfig:
    """``[engine]``: a UCI engine as one side (``docs/engine.md``).

    ``side``: which side the engine plays (``"none"``: nobody; people on both sides);
    ``path``: the engine program (``""``: ``stockfish`` on PATH, else Debian's
    ``/usr/games/stockfish``); ``skill`` 0..20; ``depth`` (plies, 0 = no limit) and
    ``movetime_ms`` (0 = no limit) per move, at least one of them; ``elo``: a limited
    strength instead of ``skill`` (0 = off); ``threads`` and ``hash_mb`` for the engine.
    """

    side: str = "none"
    path: str = ""
    skill: int = 10
    depth: int = 0
    movetime_ms: int = 1000
    elo: int = 0
    threads: int = 1
    hash_mb: int = 16


@dataclass(frozen=True)
class Config:
    """The whole configuration. ``Config()`` is every default."""

    sensing: SensingConfig = field(default_factory=SensingConfig)
    leds: LedsConfig = field(default_factory=LedsConfig)
    bridge: BridgeConfig = field(default_factory=BridgeConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    game: GameConfig = field(default_factory=GameConfig)
    web: WebConfig = field(default_factory=WebConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    sim: SimConfig = field(default_factory=SimConfig)
    engine: EngineConfig = field(default_factory=EngineConfig)
    #: Where it was read from (None: no file, every default).
    source: Path | None = field(default=None, compare=False)

    def with_sim(self) -> Config:
        """This config with every hardware port on the simulator (``magboard run --sim``)."""
        return dataclasses.replace(
            self,
            sensing=dataclasses.replace(self.sensing, backend="sim"),
            leds=dataclasses.replace(self.leds, backend="sim"),
            buttons=dataclasses.replace(self.buttons, backend="none"),
        )

    @property
    def is_sim(self) -> bool:
        return self.sensing.backend == "sim"

    def store_path(self, state_dir: Path | None = None) -> Path:
        """The database file: ``[store] path``, or ``magboard.sqlite`` in the state directory."""
        if self.store.path:
            return Path(self.store.path).expanduser()
        return (state_dir or state_directory()) / "magboard.sqlite"

    def sim_state_file(self, state_dir: Path | None = None) -> Path:
        """The simulated board's pieces: ``[sim] state_file``, or one in the state directory."""
        if self.sim.state_file:
            return Path(self.sim.state_file).expanduser()
        return (state_dir or state_directory()) / "sim-board.json"


def state_directory(environ: Mapping[str, str] | None = None) -> Path:
    """Where the daemon keeps its state.

    ``$STATE_DIRECTORY`` (set by systemd's ``StateDirectory=``), else
    ``/var/lib/magboard`` for root, else ``$XDG_STATE_HOME/magboard``
    (``~/.local/state/magboard``) for a user.
    """
    env = os.environ if environ is None else environ
    if env.get("STATE_DIRECTORY"):
        # systemd may list several, separated by colons; ours is the first.
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return SERVICE_STATE_DIR
    xdg = env.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME", "~")).expanduser() / ".local" / "state"
    return base / "magboard"


def config_path(explicit: str | os.PathLike[str] | None = None) -> tuple[Path, bool]:
    """Which file to read, and whether it was named (a named file must exist).

    ``--config`` wins over ``$MAGBOARD_CONFIG``, which wins over the default path.
    """
    if explicit:
        return Path(explicit), True
    if os.environ.get("MAGBOARD_CONFIG"):
        return Path(os.environ["MAGBOARD_CONFIG"]), True
    return DEFAULT_PATH, False


def load_config(explicit: str | os.PathLike[str] | None = None) -> Config:
    """Read the config file (see :func:`config_path`); ConfigError names what is wrong."""
    path, named = config_path(explicit)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if named:
            raise ConfigError(["no such file"], str(path)) from None
        return Config()
    except IsADirectoryError:
        raise ConfigError(["is a directory, not a config file"], str(path)) from None
    except PermissionError:
        raise ConfigError(["cannot be read (permission denied)"], str(path)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError([f"is not UTF-8 text ({exc.reason})"], str(path)) from None
    except OSError as exc:
        raise ConfigError([f"cannot be read ({exc.strerror})"], str(path)) from None
    return parse_config(text, source=str(path), path=path)


def parse_config(text: str, *, source: str = "<config>", path: Path | None = None) -> Config:
    """Parse and validate TOML text; ConfigError lists every problem, each naming its key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"not valid TOML: {exc}"], source) from None
    problems: list[str] = []
    bad: set[str] = set()  # "section.key" of every bad value
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in _SECTIONS:
            problems.append(f"[{name}]: unknown section (known: {', '.join(_SECTIONS)})")
            continue
        if not isinstance(value, dict):
            problems.append(f"{name}: must be a table [{name}], not a value")
            continue
        sections[name] = _read_section(name, value, problems, bad)
    # The rules across keys too, on the keys that were good (a bad one left its default).
    config = Config(**sections, source=path)
    _check_across(config, problems, bad)
    if problems:
        raise ConfigError(problems, source)
    return config


# ----------------------------------------------------------------------------- validation

Check = Callable[[str, Any], Any]  # (key label, value) -> converted value, or raise _Bad


class _Bad(Exception):
    """One bad value; the message completes ``[section] key: ...``."""


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _one_of(*choices: str) -> Check:
    def check(_key: str, value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise _Bad(f"{_show(value)} is not one of " + ", ".join(f'"{c}"' for c in choices))
        return value

    return check


def _integer(low: int | None = None, high: int | None = None, choices: tuple = ()) -> Check:
    def check(_key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Bad(f"{_show(value)} is not a whole number")
        if choices and value not in choices:
            raise _Bad(f"{value} is not one of " + ", ".join(map(str, choices)))
        if low is not None and high is not None and not low <= value <= high:
            raise _Bad(f"{value} is not between {low} and {high}")
        if low is not None and value < low:
            raise _Bad(f"{value} is less than {low}")
        return value

    return check


def _number(low: float, high: float, *, open_low: bool = False) -> Check:
    def check(_key: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise _Bad(f"{_show(value)} is not a number")
        if not low <= value <= high or (open_low and value == low):
            raise _Bad(f"{value} is not between {low:g} and {high:g}")
        return float(value)

    return check


def _boolean(_key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"{_show(value)} is not true or false")
    return value


def _text(_key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad(f"{_show(value)} is not a string")
    return value


def _pin(_key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 53:
        raise _Bad(f"{_show(value)} is not a BCM GPIO number (0..53)")
    return value


def _button_pin(key: str, value: Any) -> int | None:
    if value is False:
        return None  # no such button
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 53:
        raise _Bad(f"{_show(value)} is not a BCM GPIO number (0..53), or false for none")
    return value


def _line(key: str, value: Any) -> int | str:
    if isinstance(value, str) and value.strip():
        return value  # a GPIO line name, as the chip labels it
    return _pin(key, value)


def _pins(key: str, value: Any) -> tuple[int | str, ...]:
    if not isinstance(value, list) or len(value) != 8:
        raise _Bad(f"{_show(value)} is not a list of 8 BCM GPIO numbers (or line names)")
    pins = tuple(_line(key, v) for v in value)
    if len(set(pins)) != 8:
        raise _Bad(f"{list(pins)} names a line twice")
    return pins


def _rgb(_key: str, value: Any) -> tuple[int, int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in value)
    ):
        raise _Bad(f"{_show(value)} is not [red, green, blue] with each 0..255")
    return (value[0], value[1], value[2])


def _elo(_key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"{_show(value)} is not a whole number")
    if value != 0 and not 500 <= value <= 4000:
        raise _Bad(f"{value} is not an Elo rating between 500 and 4000 (or 0 for off)")
    return value


_SCHEMA: dict[str, tuple[type, dict[str, Check]]] = {
    "sensing": (
        SensingConfig,
        {
            "backend": _one_of(*SENSING_BACKENDS),
            "rate_hz": _number(MIN_RATE_HZ, MAX_RATE_HZ),
            "debounce_ms": _integer(0, 1000),
            "chip": _text,
            "rows": _pins,
            "columns": _pins,
            "active_low": _boolean,
            "settle_us": _integer(0, 10000),
            "rotation": _integer(choices=(0, 90, 180, 270)),
            "mirror": _boolean,
        },
    ),
    "leds": (
        LedsConfig,
        {
            "backend": _one_of(*LED_BACKENDS),
            "count": _integer(choices=(64, 81)),
            "order": _one_of(*LED_ORDERS),
            "first": _one_of(*LED_FIRSTS),
            "along": _one_of(*LED_ALONG),
            "pixel_order": _one_of(*PIXEL_ORDERS),
            "brightness": _number(0, 1),
            "gamma": _number(0.1, 5),
            "pin": _pin,
            # "colours" is a table of its own, read by _read_colours.
        },
    ),
    "bridge": (
        BridgeConfig,
        {
            "device": _text,
            "baud": _integer(1200, 4_000_000),
        },
    ),
    "buttons": (
        ButtonsConfig,
        {"backend": _one_of(*BUTTON_BACKENDS), **{k: _button_pin for k in BUTTON_KEYS}},
    ),
    "game": (
        GameConfig,
        {
            "touch_move": _one_of(*TOUCH_MOVE_MODES),
            "takeback": _boolean,
            "hints": _boolean,
            "settle_ms": _integer(MIN_SETTLE_MS, 10000),
            "pass_ms": _integer(0, 10000),
        },
    ),
    "web": (
        WebConfig,
        {
            "host": _text,
            "port": _integer(1, 65535),
            "token": _text,
        },
    ),
    "store": (StoreConfig, {"path": _text}),
    "sim": (SimConfig, {"state_file": _text, "leds_file": _text}),
    "engine": (
        EngineConfig,
        {
            "side": _one_of(*ENGINE_SIDES),
            "path": _text,
            "skill": _integer(0, 20),
            "depth": _integer(0, 100),
            "movetime_ms": _integer(0, 600_000),
            "elo": _elo,
            "threads": _integer(1, MAX_THREADS),
            "hash_mb": _integer(1, MAX_HASH_MB),
        },
    ),
}
_SECTIONS = tuple(_SCHEMA)


def _read_section(name: str, table: dict[str, Any], problems: list[str], bad: set[str]) -> Any:
    cls, checks = _SCHEMA[name]
    values: dict[str, Any] = {}
    for key, value in table.items():
        if name == "leds" and key == "colours":
            values["colours"] = _read_colours(value, problems)
            continue
        check = checks.get(key)
        if check is None:
            known = list(checks) + (["colours"] if name == "leds" else [])
            problems.append(f"[{name}] {key}: unknown key (known: {', '.join(known)})")
            continue
        try:
            values[key] = check(key, value)
        except _Bad as why:
            problems.append(f"[{name}] {key}: {why}")
            bad.add(f"{name}.{key}")
    return cls(**values)


def _read_colours(table: Any, problems: list[str]) -> dict[str, tuple[int, int, int]]:
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
            colours[key] = _rgb(key, value)
        except _Bad as bad:
            problems.append(f"[leds.colours] {key}: {bad}")
    return colours


def _check_across(config: Config, problems: list[str], bad: set[str] = frozenset()) -> None:
    """Rules that involve more than one key; a rule with a key in ``bad`` is left out
    (that key is already named, and stands at its default here)."""

    def good(*keys: str) -> bool:
        return not bad.intersection(keys)

    s = config.sensing
    if good("sensing.rows", "sensing.columns") and set(s.rows) & set(s.columns):
        problems.append(f"[sensing] columns: {sorted(set(s.rows) & set(s.columns))} also rows")
    pins = {k: v for k, v in config.buttons.pins().items() if good(f"buttons.{k}")}
    repeated = sorted({p for p in pins.values() if list(pins.values()).count(p) > 1})
    if repeated:
        problems.append(f"[buttons]: pins {repeated} are given to more than one button")
    if config.buttons.backend == "gpio":
        if not pins and len(config.buttons.pins()) == len(pins):
            problems.append('[buttons] backend: "gpio" but no button has a pin')
        if s.backend in ("gpiod", "rpigpio") and good("sensing.rows", "sensing.columns"):
            clash = sorted(set(pins.values()) & (set(s.rows) | set(s.columns)))
            if clash:
                problems.append(f"[buttons]: pins {clash} are also used by the switch matrix")
    if (
        good("engine.depth", "engine.movetime_ms")
        and config.engine.depth == 0
        and config.engine.movetime_ms == 0
    ):
        problems.append(
            "[engine] movetime_ms: 0 (no time limit) needs a depth; set depth or movetime_ms"
        )
    if good("game.pass_ms", "game.settle_ms") and config.game.pass_ms > config.game.settle_ms:
        problems.append(
            f"[game] pass_ms: {config.game.pass_ms} is longer than settle_ms "
            f"({config.game.settle_ms})"
        )


# ----------------------------------------------------------------------------- TOML out


def to_toml(config: Config) -> str:
    """The config as TOML, every key written (``magboard config show``).

    Reading the output back gives the same config:

    >>> parse_config(to_toml(Config())) == Config()
    True
    """
    lines: list[str] = []
    for name in _SECTIONS:
        section = getattr(config, name)
        lines.append(f"[{name}]")
        nested = []
        for f in dataclasses.fields(section):
            value = getattr(section, f.name)
            if isinstance(value, Mapping):
                nested.append((f.name, value))
            elif value is not None:
                lines.append(f"{f.name} = {_toml_value(value)}")
            else:  # an optional pin left out: written so that it reads back as none
                lines.append(f"{f.name} = false")
        for sub, mapping in nested:
            lines.append("")
            lines.append(f"[{name}.{sub}]")
            lines.extend(f"{k} = {_toml_value(v)}" for k, v in mapping.items())
        lines.append("")
    return "\n".join(lines)


#: TOML basic-string escapes; any other control character is written as \\uXXXX.
_TOML_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _toml_char(char: str) -> str:
    if char in _TOML_ESCAPES:
        return _TOML_ESCAPES[char]
    if ord(char) < 0x20 or ord(char) == 0x7F:
        return f"\\u{ord(char):04x}"
    return char


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + "".join(_toml_char(c) for c in value) + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")
