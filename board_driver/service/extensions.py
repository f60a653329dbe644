"""Starting the extensions the config enables, each on the door, and stopping them.

The log says first which extensions were found, from which distribution, and which were
refused and why (:mod:`board_driver.service.discovery`). Before an extension starts, the
folders of the files its section names for writing (``FilePath("written")`` or
``"kept"``) are made, as the store's are. An extension that cannot start (a library
missing, a device absent, its own failure) is logged and the board runs on without it;
only a config that asks for what cannot be had at all
(:class:`~board_driver.door.extension.ExtensionConfigError`) stops the daemon, with exit 2
like any other config error: it is raised from here, named with the extension, the ones
started stopped first. ``magboard config check`` asks each extension the same question
before anything starts (:func:`environment_problems`).
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from board_driver.door.config_values import FilePath
from board_driver.door.extension import Extension, ExtensionConfigError, ExtensionError
from board_driver.service.discovery import installed

log = logging.getLogger("magboard")


async def start_extensions(
    door: Any, config: Any, *, skip: Iterable[str] = ()
) -> list[tuple[str, Any]]:
    """Start every enabled extension (but those in ``skip``); returns what to stop."""
    found = installed()
    for note in found.notes:
        log.warning("%s", note)
    log.info("extensions found: %s", found.summary() or "none")
    for refused in found.refused:
        log.error("%s", refused)
    skipped = set(skip)
    running: list[tuple[str, Any]] = []
    off: list[str] = []
    for extension in found.extensions():
        section = config.section(extension.name)
        try:
            if extension.name in skipped or not extension.enabled(section, config):
                off.append(extension.name)
                continue
            make_folders(extension, section)
            extension.validate_environment(section)
            started: Any = extension.start(door, section)
            if inspect.isawaitable(started):  # `async def start`, as it should be
                started = await started
            running.append((extension.name, started))
        except ExtensionConfigError as exc:
            await stop_extensions(running)
            raise ExtensionConfigError(named(extension.name, exc)) from exc
        except ExtensionError as exc:
            log.error("%s (the board works on without it)", named(extension.name, exc))
        except Exception:  # its bug must not stop the board
            log.exception("%s: failed to start (the board works on without it)", extension.name)
    log.info("extensions started: %s", ", ".join(name for name, _ in running) or "none")
    if off:
        log.info("extensions left off (their config sections do not turn them on): %s",
                 ", ".join(off))  # fmt: skip
    return running


def named(name: str, exc: Exception) -> str:
    """An extension's message with its name in front, unless it names its section already.

    >>> named("movelog", ExtensionConfigError("no such device"))
    'movelog: no such device'
    >>> named("engine", ExtensionConfigError("[engine] side = 'black' but no engine"))
    "[engine] side = 'black' but no engine"
    """
    text = str(exc)
    return text if text.startswith((f"[{name}]", f"{name}:")) else f"{name}: {text}"


def make_folders(extension: Extension, section: Any) -> None:
    """Make the folders of the files ``section`` names for writing (its ``FilePath``
    keys but secrets), as the store makes its own: ``config check`` has judged each by the
    nearest folder that exists. An ExtensionError when one cannot be made."""
    for key, check in extension.checks.items():
        value = getattr(section, key, None)
        if not isinstance(check, FilePath) or check.use == "secret" or not value:
            continue
        folder = Path(value).expanduser().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ExtensionError(
                f"[{extension.name}] {key}: cannot make the folder {folder} "
                f"({exc.strerror or exc})"
            ) from exc


def environment_problems(config: Any, *, skip: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """What ``run`` would find when it asks each enabled extension's
    ``validate_environment``, for ``magboard config check``: the problems that stop ``run``
    (ExtensionConfigError, exit 2), and the warnings of those ``run`` would start without
    (ExtensionError, or the check's own failure)."""
    problems: list[str] = []
    warnings: list[str] = []
    skipped = set(skip)
    for extension in installed().extensions():
        section = config.section(extension.name)
        try:
            if extension.name in skipped or not extension.enabled(section, config):
                continue
            extension.validate_environment(section)
        except ExtensionConfigError as exc:
            problems.append(named(extension.name, exc))
        except ExtensionError as exc:
            warnings.append(f"{named(extension.name, exc)} (run starts the board without it)")
        except Exception as exc:  # an outside extension's bug: said, not raised
            warnings.append(
                f"{extension.name}: its validate_environment failed ({type(exc).__name__}: "
                f"{exc}) (run starts the board without it)"
            )
    return problems, warnings


async def stop_extensions(running: list[tuple[str, Any]]) -> None:
    """Stop what :func:`start_extensions` started, the last started first."""
    while running:
        name, extension = running.pop()
        try:
            stopped = extension.stop()
            if inspect.isawaitable(stopped):
                await stopped
        except Exception:
            with contextlib.suppress(Exception):
                log.exception("%s: failed to stop", name)
