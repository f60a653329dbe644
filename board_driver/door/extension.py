"""Extensions: the players and connectors that plug into the running board, each enabled
by a config section of its own, built in or installed from another package.

An extension is a small object in its package's ``__init__.py`` that imports nothing heavy:
its config section (a frozen dataclass of keys with their defaults, and a check for each
key), whether the config enables it, what it needs installed, and ``start(door, section)``,
which imports the real module only then, so the daemon's memory holds only what the
config uses. The daemon starts every enabled extension after the board is ready, and
stops them before it stops; an extension that fails to start is logged and the board runs
on without it.

A whole extension, in a dozen lines (a package ``magboard_announcer``)::

    from dataclasses import dataclass
    from board_driver.door.config_values import boolean
    from board_driver.door.extension import Extension

    @dataclass(frozen=True)
    class AnnouncerConfig:
        enabled: bool = False

    class Announcer(Extension):
        name = "announcer"                       # the section [announcer]
        config_class = AnnouncerConfig
        checks = {"enabled": boolean}

        async def start(self, door, section):
            from magboard_announcer.speaker import Speaker  # heavy: only here
            return await Speaker(door).start()   # anything with `async def stop()`

    extension = Announcer()

and, in the package's ``pyproject.toml``, the entry point that names that object::

    [project.entry-points."magboard.extensions"]
    announcer = "magboard_announcer:extension"

magboard registers its own extensions the same way; :mod:`board_driver.service.discovery`
finds them all (``docs/architecture.md``, "Write your own connector").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from board_driver.door import Door
from board_driver.door.config_values import Check


class ExtensionError(Exception):
    """An extension cannot start (a library missing, a device absent); the message says
    what to do, and is logged after the extension's name. The board runs on without it."""


class ExtensionConfigError(ExtensionError):
    """The config asks an extension for what cannot be had at all (an engine side with no
    engine installed): ``config check`` names it (from :meth:`Extension.validate_environment`)
    and ``run`` stops with exit 2, as for any config error; both put the extension's name
    in front of the message unless it starts with its ``[section]``."""


class Running(Protocol):
    """What :meth:`Extension.start` returns: something the daemon stops at the end."""

    async def stop(self) -> None: ...


class Extension:
    """Base class of an extension (see the module docstring)."""

    #: The config section, ``[name]``, and the extension's name in logs.
    name: ClassVar[str] = ""
    #: A frozen dataclass: the section's keys and their defaults.
    config_class: ClassVar[type] = object
    #: Each key's check (:mod:`board_driver.door.config_values`).
    checks: ClassVar[Mapping[str, Check]] = {}
    #: Keys whose values are secrets: masked in ``config show`` and never logged.
    secrets: ClassVar[tuple[str, ...]] = ()

    def enabled(self, section: Any, config: Any) -> bool:
        """Whether the config turns this extension on (default: an ``enabled`` key)."""
        return bool(getattr(section, "enabled", False))

    def check_across(self, section: Any, config: Any) -> list[str]:
        """Problems that involve more than one key (each a ``[section] key: ...`` text).
        ``section`` holds the file's checked values; ``config`` is the whole configuration
        (another section: ``config.section("engine")``)."""
        return []

    def validate_environment(self, section: Any) -> None:
        """ExtensionError if what it needs is not there (a library, a device);
        ExtensionConfigError if the config asks what can never be had. Called by ``run``
        before :meth:`start` and by ``magboard config check``, for an enabled extension."""

    async def start(self, door: Door, section: Any) -> Running:
        """Start on the daemon's loop, using only ``door``; import heavy modules here.
        ``section`` is this extension's config section (a ``config_class`` instance)."""
        raise NotImplementedError
