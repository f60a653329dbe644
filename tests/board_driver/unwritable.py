"""Files that stop taking writes, made for real: ``chattr +i`` (immutable, which even root
cannot write), on the test's own directory when its file system supports it, else on a
small ext4 file system the test makes (a loop device); skipped, saying why, only where the
machine can do neither (not root, no loop devices)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _chattr(flag: str, path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["chattr", flag, str(path)], capture_output=True, text=True)


def _supports_immutable(directory: Path) -> str:
    """ "" when ``chattr +i`` works in ``directory``, else why not."""
    probe = directory / ".immutable-probe"
    probe.write_text("x")
    try:
        result = _chattr("+i", probe)
    except FileNotFoundError:
        return "no chattr on this machine"
    if result.returncode != 0:
        return result.stderr.strip() or "chattr +i failed"
    _chattr("-i", probe)
    probe.unlink()
    return ""


@contextlib.contextmanager
def immutable_capable_directory(tmp_path: Path) -> Iterator[Path]:
    """A directory where files can be made immutable (see the module docstring)."""
    here = tmp_path / "state"
    here.mkdir()
    why = _supports_immutable(here)
    if not why:
        yield here
        return
    missing = [tool for tool in ("chattr", "mkfs.ext4", "mount") if shutil.which(tool) is None]
    if missing:  # a Raspberry Pi OS image without e2fsprogs' mkfs, say (issue 32, item 9)
        pytest.skip(f"cannot make a file immutable here ({why}), and no {', '.join(missing)} "
                    "to make a file system where it can be")  # fmt: skip
    image, mounted = tmp_path / "ext4.img", tmp_path / "ext4"
    mounted.mkdir()
    with open(image, "wb") as out:
        out.truncate(64 << 20)
    made = subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], capture_output=True, text=True)
    mount = subprocess.run(
        ["mount", "-o", "loop", str(image), str(mounted)], capture_output=True, text=True
    )
    if made.returncode or mount.returncode:
        pytest.skip(
            f"cannot make a file immutable here ({why}) nor mount an ext4 image "
            f"({(made.stderr or mount.stderr).strip()})"
        )
    try:
        yield mounted
    finally:
        for name in os.listdir(mounted):
            _chattr("-i", mounted / name)
        subprocess.run(["umount", "-l", str(mounted)], check=False)


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """``path`` cannot be written (nor removed, renamed, truncated) inside the block."""
    result = _chattr("+i", path)
    assert result.returncode == 0, result.stderr
    try:
        yield
    finally:
        make_writable(path)


def make_writable(path: Path) -> None:
    _chattr("-i", path)
