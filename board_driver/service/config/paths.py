"""The files a config names, checked as ``magboard run`` will use them, so that ``config
check`` and ``run`` agree: a path that ``run`` could not write is named by both, the same way.

>>> from board_driver.service.config import parse_config
>>> config = parse_config('[sim]\\nstate_file = "/dev/zero"\\n').with_sim()
>>> file_problems(config)
['[sim] state_file: /dev/zero is not a regular file (a device or a special file)']
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from board_driver.config_values import quote


def file_problems(config: Any) -> list[str]:
    """What would stop ``run`` from keeping its files, each naming its key."""
    files = [("[store] path", config.store_path())]
    if config.is_sim:
        files.append(("[sim] state_file", config.sim_state_file()))
    if config.sim.leds_file:
        files.append(("[sim] leds_file", Path(config.sim.leds_file).expanduser()))
    problems = []
    for key, path in files:
        problem = _writable_file(path)
        if problem:
            problems.append(f"{key}: {quote(str(path), 80)[1:-1]} {problem}")
    return problems


def _writable_file(path: Path) -> str | None:
    """Why ``path`` cannot be a file the daemon reads and rewrites, or None."""
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return _creatable(path.parent)
    except OSError as exc:
        return f"cannot be used ({exc.strerror})"
    if stat.S_ISDIR(info.st_mode):
        return "is a directory, not a file"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file (a device or a special file)"
    if str(path).startswith("/proc/") or not os.access(path, os.R_OK | os.W_OK):
        return "cannot be read and written by this user"
    return _creatable(path.parent, exists=True)


def _creatable(directory: Path, *, exists: bool = False) -> str | None:
    """Why files cannot be made in ``directory`` (made on demand), or None."""
    probe = directory
    while not probe.exists():
        if probe.parent == probe:
            return "has no directory that exists above it"
        probe = probe.parent
    if not probe.is_dir():
        return f"cannot be made: {probe} is not a directory"
    if str(probe).startswith("/proc") or not os.access(probe, os.W_OK | os.X_OK):
        what = "its directory" if exists else "it"
        return f"cannot be kept: {what} cannot be written in {probe} by this user"
    return None
