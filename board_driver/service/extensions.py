"""Starting the extensions the config enables, each on the door, and stopping them.

The log says first which extensions were found, from which distribution, and which were
refused and why (:mod:`board_driver.service.discovery`). An extension that cannot start (a
library missing, a device absent, its own failure) is logged and the board runs on without
it; only a config that asks for what cannot be had at all
(:class:`~board_driver.door.extension.ExtensionConfigError`) stops the daemon, with exit 2
like any other config error: it is raised from here, the ones started stopped first.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Iterable
from typing import Any

from board_driver.door.extension import ExtensionConfigError, ExtensionError
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
            extension.validate_environment(section)
            started: Any = extension.start(door, section)
            if inspect.isawaitable(started):  # `async def start`, as it should be
                started = await started
            running.append((extension.name, started))
        except ExtensionConfigError:
            await stop_extensions(running)
            raise
        except ExtensionError as exc:
            log.error("%s: %s (the board works on without it)", extension.name, exc)
        except Exception:  # its bug must not stop the board
            log.exception("%s: failed to start (the board works on without it)", extension.name)
    log.info(
        "extensions started: %s%s",
        ", ".join(name for name, _ in running) or "none",
        f" (not turned on by the config: {', '.join(off)})" if off else "",
    )
    return running


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
