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

The daemon's own sections are in :mod:`.sections`; each player and connector owns its
section (``[engine]``, ``[web]``, ...: :mod:`board_driver.door.extension`), read here the same way.

Which file is read: ``--config PATH``, else ``$MAGBOARD_CONFIG``, else
``/etc/magboard/config.toml`` (``$CONFIGURATION_DIRECTORY/config.toml`` where systemd, or a
test, sets that). The default file may be missing (every key then takes its
default); a file named explicitly must exist.

Unknown tables and keys and bad values are rejected, and every problem is named with
its key, so one run of ``magboard config check`` lists all of them:

>>> parse_config('[leds]\\nbrightness = 1.7\\n', source="config.toml")
Traceback (most recent call last):
...
board_driver.service.config.ConfigError: config.toml: [leds] brightness: 1.7 is not between 0 and 1

>>> parse_config('[game]\\ntouch_move = "enforce"\\n').game.touch_move
'enforce'
>>> parse_config('[web]\\nport = 8081\\n').web.port
8081
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from board_driver.door.config_values import Bad
from board_driver.door.extension import Extension
from board_driver.service.config.sections import (
    SECTIONS,
    BridgeConfig,
    ButtonsConfig,
    ClockConfig,
    GameConfig,
    LedsConfig,
    SensingConfig,
    SimConfig,
    StoreConfig,
    read_colours,
)
from board_driver.service.discovery import extensions, installed
from board_driver.user_files import UnusableFile, read_text

DEFAULT_PATH = Path("/etc/magboard/config.toml")
#: A config file is a few KB: a larger "config" is the wrong file (or a device).
MAX_CONFIG_BYTES = 1 << 20
#: The service's state directory (systemd ``StateDirectory=magboard``).
SERVICE_STATE_DIR = Path("/var/lib/magboard")


class ConfigError(ValueError):
    """The config file cannot be used; the message names every problem and its key."""

    def __init__(self, problems: list[str], source: str = "") -> None:
        self.problems = list(problems)
        self.source = source
        prefix = f"{source}: " if source else ""
        super().__init__("\n".join(prefix + p for p in self.problems))


def _extension_defaults() -> dict[str, Any]:
    return {ext.name: ext.config_class() for ext in extensions()}


@dataclass(frozen=True)
class Config:
    """The whole configuration. ``Config()`` is every default.

    The daemon's own sections are attributes; an extension's section is one too
    (``config.web``, ``config.engine``), read from :attr:`extensions`.
    """

    sensing: SensingConfig = field(default_factory=SensingConfig)
    leds: LedsConfig = field(default_factory=LedsConfig)
    bridge: BridgeConfig = field(default_factory=BridgeConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    game: GameConfig = field(default_factory=GameConfig)
    clock: ClockConfig = field(default_factory=ClockConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    sim: SimConfig = field(default_factory=SimConfig)
    #: Each extension's section, by its name.
    extensions: Mapping[str, Any] = field(default_factory=_extension_defaults)
    #: Where it was read from (None: no file, every default).
    source: Path | None = field(default=None, compare=False)
    #: What the file holds that is not used, though the config is usable (a section whose
    #: extension was refused): ``config check`` prints these, ``run`` logs them.
    notes: tuple[str, ...] = field(default=(), compare=False)

    def __getattr__(self, name: str) -> Any:
        # Only called for names that are not fields: an extension's section.
        try:
            return self.__dict__["extensions"][name]
        except KeyError:
            raise AttributeError(f"the config has no section [{name}]") from None

    def section(self, name: str) -> Any:
        """A section by name, the daemon's or an extension's."""
        return getattr(self, name)

    def with_sim(self) -> Config:
        """This config with every hardware port on the simulator (``magboard run --sim``)."""
        return dataclasses.replace(
            self,
            sensing=dataclasses.replace(self.sensing, backend="sim"),
            leds=dataclasses.replace(self.leds, backend="sim"),
            buttons=dataclasses.replace(self.buttons, backend="none"),
        )

    def with_instance(self, number: int, state_dir: Path | None = None) -> Config:
        """This config as board ``number`` of several on one machine (``magboard run
        --instance N``): its store and its simulated board's pieces in a state directory of
        its own, ``instance-N`` in the usual one (its page's token and every extension's
        files follow the store there), and its page on ``[web] port`` + N. ConfigError when
        the file names a file that every instance would then share.

        >>> config = Config().with_instance(2, Path("/var/lib/magboard"))
        >>> print(config.store_path()); print(config.sim_state_file()); config.web.port
        /var/lib/magboard/instance-2/magboard.sqlite
        /var/lib/magboard/instance-2/sim-board.json
        8082
        """
        shared = [key for key, value in (("[store] path", self.store.path),
                                         ("[sim] state_file", self.sim.state_file),
                                         ("[sim] leds_file", self.sim.leds_file)) if value]
        port = self.web.port + number
        problems = [f"{key}: set, so every instance would share it: with --instance, leave it "
                    "out (each instance keeps its own in its state directory)" for key in shared]
        if port > 65535:
            problems.append(f"[web] port: {self.web.port} + instance {number} is past 65535")
        if problems:
            raise ConfigError(problems, str(self.source or "the config"))
        folder = (state_dir or state_directory()) / f"instance-{number}"
        return dataclasses.replace(
            self,
            store=dataclasses.replace(self.store, path=str(folder / "magboard.sqlite")),
            sim=dataclasses.replace(self.sim, state_file=str(folder / "sim-board.json")),
            extensions={**self.extensions, "web": dataclasses.replace(self.web, port=port)},
        )

    def with_section(self, name: str, section: Any) -> Config:
        """This config with one extension's section replaced."""
        return dataclasses.replace(self, extensions={**self.extensions, name: section})

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

    ``$STATE_DIRECTORY``, which systemd's ``StateDirectory=`` sets for the service (its
    ``/var/lib/magboard``), else ``$XDG_STATE_HOME/magboard`` (``~/.local/state/magboard``)
    for anyone else, root included: a root shell outside the service (a container, a
    fresh Pi image) gets a directory of its own, not the service's store and token.

    >>> state_directory({"STATE_DIRECTORY": "/var/lib/magboard"})
    PosixPath('/var/lib/magboard')
    >>> state_directory({"HOME": "/root"})
    PosixPath('/root/.local/state/magboard')
    """
    env = os.environ if environ is None else environ
    if env.get("STATE_DIRECTORY"):
        # systemd may list several, separated by colons; ours is the first.
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    xdg = env.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME", "~")).expanduser() / ".local" / "state"
    return base / "magboard"


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The config file read when none is named: ``config.toml`` in
    ``$CONFIGURATION_DIRECTORY`` (systemd's ``ConfigurationDirectory=`` sets it for the
    service: ``/etc/magboard``; the tests set one of their own, so that they never read the
    machine's), else :data:`DEFAULT_PATH`.

    >>> default_config_path({"CONFIGURATION_DIRECTORY": "/etc/magboard"})
    PosixPath('/etc/magboard/config.toml')
    >>> default_config_path({})
    PosixPath('/etc/magboard/config.toml')
    """
    env = os.environ if environ is None else environ
    if env.get("CONFIGURATION_DIRECTORY"):
        return Path(env["CONFIGURATION_DIRECTORY"].split(":")[0]) / DEFAULT_PATH.name
    return DEFAULT_PATH


def config_path(explicit: str | os.PathLike[str] | None = None) -> tuple[Path, bool]:
    """Which file to read, and whether it was named (a named file must exist).

    ``--config`` wins over ``$MAGBOARD_CONFIG``, which wins over the default path
    (:func:`default_config_path`).
    """
    if explicit:
        return Path(explicit), True
    if os.environ.get("MAGBOARD_CONFIG"):
        return Path(os.environ["MAGBOARD_CONFIG"]), True
    return default_config_path(), False


def load_config(explicit: str | os.PathLike[str] | None = None) -> Config:
    """Read the config file (see :func:`config_path`); ConfigError names what is wrong."""
    path, named = config_path(explicit)
    try:
        text = read_text(path, limit=MAX_CONFIG_BYTES)
    except UnusableFile as exc:
        if exc.missing and not named:
            return Config()
        why = "no such file" if exc.missing else exc.why
        raise ConfigError([why], str(path)) from None
    return parse_config(text, source=str(path), path=path)


def parse_config(text: str, *, source: str = "<config>", path: Path | None = None) -> Config:
    """Parse and validate TOML text; ConfigError lists every problem, each naming its key."""
    from board_driver.service.config.checks import check_across

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"not valid TOML: {exc}"], source) from None
    owners = {ext.name: ext for ext in extensions()}
    known = [*SECTIONS, *owners]
    problems: list[str] = []
    notes: list[str] = []
    bad: set[str] = set()  # "section.key" of every bad value
    sections: dict[str, Any] = {}
    extension_sections = _extension_defaults()
    for name, value in data.items():
        if name not in known:
            refused = installed().refused_section(name)
            if refused is not None:  # the package's fault, not the file's: run on
                notes.append(
                    f"[{name}]: not used: the extension that reads it ({refused.entry_point!r} "
                    f"of {refused.distribution}) was refused: {refused.why}"
                )
            else:
                problems.append(unclaimed_section(name, known))
            continue
        if not isinstance(value, dict):
            problems.append(f"{name}: must be a table [{name}], not a value")
            continue
        if name in owners:
            ext = owners[name]
            extension_sections[name] = _read_section(
                name, ext.config_class, dict(ext.checks), value, problems, bad
            )
        else:
            cls, checks = SECTIONS[name]
            sections[name] = _read_section(name, cls, checks, value, problems, bad)
    # The rules across keys too, on the keys that were good (a bad one left its default).
    config = Config(
        **sections, extensions=extension_sections, source=path, notes=tuple(notes)
    )
    check_across(config, problems, bad)
    for ext in owners.values():
        if not any(key.startswith(f"{ext.name}.") for key in bad):
            problems.extend(_extension_check_across(ext, config))
    if problems:
        raise ConfigError(problems, source)
    return config


def unclaimed_section(name: str, known: list[str]) -> str:
    """The problem of a section nobody reads: a typo, or an extension not installed.

    >>> print(unclaimed_section("engien", ["game", "engine", "web"]))
    [engien]: unknown section: did you mean [engine]? Or the package of an extension that \
reads [engien] is not installed here (known: game, engine, web)
    """
    near = difflib.get_close_matches(name, known, n=1)
    guess = f"did you mean [{near[0]}]? Or" if near else "a typo, or"
    return (
        f"[{name}]: unknown section: {guess} the package of an extension that reads [{name}] "
        f"is not installed here (known: {', '.join(known)})"
    )


def _extension_check_across(ext: Extension, config: Config) -> list[str]:
    """An extension's own checks across keys; its failure is named, not raised."""
    try:
        return list(ext.check_across(config.section(ext.name), config))
    except Exception as exc:  # an outside extension's bug must not make the file unreadable
        return [f"[{ext.name}]: its extension's check failed ({type(exc).__name__}: {exc})"]


def _read_section(
    name: str,
    cls: type,
    checks: Mapping[str, Any],
    table: dict[str, Any],
    problems: list[str],
    bad: set[str],
) -> Any:
    values: dict[str, Any] = {}
    for key, value in table.items():
        if name == "leds" and key == "colours":
            values["colours"] = read_colours(value, problems)
            continue
        check = checks.get(key)
        if check is None:
            known = list(checks) + (["colours"] if name == "leds" else [])
            problems.append(f"[{name}] {key}: unknown key (known: {', '.join(known)})")
            continue
        try:
            values[key] = check(key, value)
        except Bad as why:
            problems.append(f"[{name}] {key}: {why}")
            bad.add(f"{name}.{key}")
    return cls(**values)


def secret_keys() -> dict[str, tuple[str, ...]]:
    """Each section's secret keys (masked in ``config show``, never logged)."""
    return {ext.name: tuple(ext.secrets) for ext in extensions() if ext.secrets}


def section_names() -> list[str]:
    """Every section, the daemon's first, in the order ``config show`` writes them."""
    return [*SECTIONS, *(ext.name for ext in extensions())]


def to_toml(config: Config, *, mask_secrets: bool = True) -> str:
    """The config as TOML (``magboard config show``); see :mod:`.toml`."""
    from board_driver.service.config.toml import write_toml

    return write_toml(config, section_names(), secret_keys() if mask_secrets else {})


__all__ = [
    "DEFAULT_PATH",
    "SERVICE_STATE_DIR",
    "Config",
    "ConfigError",
    "Extension",
    "config_path",
    "default_config_path",
    "load_config",
    "parse_config",
    "secret_keys",
    "section_names",
    "state_directory",
    "to_toml",
]
