"""Starting the extensions the config enables, each on the door, and stopping them.

An extension that cannot start (a library missing, a device absent, its own failure) is
logged and the board runs on without it; only a config that asks for what cannot be had
at all (:class:`~board_driver.door.extension.ExtensionConfigError`) stops the daemon, with exit
2 like any other config error: it is raised from here, the ones started stopped first.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from typing import Any

from board_driver.door.extension import ExtensionConfigError, ExtensionError, extensions

log = logging.getLogger("magboard")


async def start_extensions(
    door: Any, config: Any, *, skip: Iterable[str] = ()
) -> list[tuple[str, Any]]:
    """Start every enabled extension (but those in ``skip``); returns what to stop."""
    skipped = set(skip)
    running: list[tuple[str, Any]] = []
    for extension in extensions():
        section = config.section(extension.name)
        if extension.name in skipped or not extension.enabled(section, config):
            continue
        try:
            extension.validate_environment(section)
            running.append((extension.name, await extension.start(door, section)))
        except ExtensionConfigError:
            await stop_extensions(running)
            raise
        except ExtensionError as exc:
            log.error("%s: %s (the board works on without it)", extension.name, exc)
        except Exception:  # its bug must not stop the board
            log.exception("%s: failed to start (the board works on without it)", extension.name)
    return running


async def stop_extensions(running: list[tuple[str, Any]]) -> None:
    """Stop what :func:`start_extensions` started, the last started first."""
    while running:
        name, extension = running.pop()
        try:
            await extension.stop()
        except Exception:
            with contextlib.suppress(Exception):
                log.exception("%s: failed to stop", name)
