"""The files a config names, checked as ``magboard run`` will use them, so that ``config
check`` and ``run`` agree: a file that ``run`` could not use is named by both, in the same
words, before anything starts (``run`` then exits 2, as for any other bad value).

Which files: the store and the simulated board's pieces (kept: read and rewritten), and
every key whose check is a :class:`~board_driver.door.config_values.FilePath` in a section the
config turns on (``[sim] leds_file``, ``[emulation] trace``, ``[lichess] token_file``).

>>> from board_driver.service.config import parse_config
>>> config = parse_config('[sim]\\nstate_file = "/dev/zero"\\n').with_sim()
>>> file_problems(config)
['[sim] state_file: /dev/zero is not a regular file (a character device)']
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from board_driver.door.config_values import FilePath, quote
from board_driver.service.discovery import extensions
from board_driver.user_files import UnusableFile, not_regular, read_private_text

#: The kernel's own trees: their files are interfaces, not places to keep anything (root
#: may "write" there as far as permissions go; the kernel refuses or misreads it).
KERNEL_TREES = (Path("/proc"), Path("/sys"))


@dataclass(frozen=True)
class ConfigFile:
    """A file the config has ``run`` use: its key (``"[sim] leds_file"``), path and use."""

    key: str
    path: Path
    use: str


def config_files(config: Any) -> list[ConfigFile]:
    """Every file ``run`` will use with this config (its defaults included)."""
    files = [ConfigFile("[store] path", config.store_path(), "kept")]
    if config.is_sim:
        files.append(ConfigFile("[sim] state_file", config.sim_state_file(), "kept"))
    if config.sim.leds_file:
        leds = Path(config.sim.leds_file).expanduser()
        files.append(ConfigFile("[sim] leds_file", leds, "written"))
    for extension in extensions():
        section = config.section(extension.name)
        if not extension.enabled(section, config):
            continue
        for key, check in extension.checks.items():
            value = getattr(section, key)
            if isinstance(check, FilePath) and value:
                path = Path(value).expanduser()
                files.append(ConfigFile(f"[{extension.name}] {key}", path, check.use))
    return files


def file_problems(config: Any) -> list[str]:
    """What would stop ``run`` from using its files, each naming its key."""
    problems = []
    for file in config_files(config):
        problem = file_problem(file.path, file.use)
        if problem:
            problems.append(f"{file.key}: {quote(str(file.path), 80)[1:-1]} {problem}")
    return problems


def file_problem(path: Path, use: str) -> str | None:
    """Why ``path`` cannot be used as ``use`` says (:data:`~board_driver.door.config_values.
    FILE_USES`), or None."""
    if use == "secret":
        return _secret_file(path)
    return _writable_file(path, read=use == "kept")


def _secret_file(path: Path) -> str | None:
    """A secret's file may be missing (a login on the page writes it); if it is there,
    it must be what its reader takes."""
    try:
        text = read_private_text(path)
    except UnusableFile as exc:
        return None if exc.missing else exc.why
    return None if text.strip() else "is empty"


def _writable_file(path: Path, *, read: bool) -> str | None:
    """Why ``path`` cannot be a file the daemon writes (and reads back, with ``read``)."""
    verb = "kept" if read else "written"
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return _creatable(path.parent, verb)
    except OSError as exc:
        return f"cannot be used ({exc.strerror})"
    if not stat.S_ISREG(info.st_mode):
        return not_regular(info.st_mode)
    tree = _kernel_tree(path)
    if tree is not None:
        return f"is in {tree}, the kernel's own files: not a file to {'keep' if read else 'write'}"
    if not os.access(path, (os.R_OK if read else 0) | os.W_OK):
        return f"cannot be {'read and written' if read else 'written'} by this user"
    return _creatable(path.parent, verb, exists=True)


def _creatable(directory: Path, verb: str, *, exists: bool = False) -> str | None:
    """Why files cannot be made in ``directory``, or None: judged by the nearest folder
    that exists, as the folders missing are made before the start (the store makes its
    own; :func:`board_driver.service.extensions.make_folders` an extension's). ``verb``:
    what the file cannot be ("kept", "written")."""
    probe = directory
    while not probe.exists():
        if probe.parent == probe:
            return "has no directory that exists above it"
        probe = probe.parent
    if not probe.is_dir():
        return f"cannot be made: {probe} is not a directory"
    what = "its directory" if exists else "it"
    tree = _kernel_tree(probe)
    if tree is not None:
        return f"cannot be {verb}: {probe} is in {tree}, the kernel's own files"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"cannot be {verb}: {what} cannot be written in {probe} by this user"
    return None


def _kernel_tree(path: Path) -> Path | None:
    """The kernel's tree that ``path`` is in (``/proc``, ``/sys``), or None."""
    resolved = path.resolve()
    return next((t for t in KERNEL_TREES if resolved == t or t in resolved.parents), None)
