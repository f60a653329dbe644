"""Files read from a path a person gave (the config, a token file, a script, the store):
checked before they are read, so that a device, a FIFO, a directory or a file far larger
than its kind can be is refused in words instead of being read forever or waited on.

Every reader of such a path goes through here; the error says what the file is and why
it cannot be used, and the caller puts the config key or the option in front:

>>> read_text("/dev/zero", limit=4096)
Traceback (most recent call last):
...
board_driver.user_files.UnusableFile: /dev/zero is not a regular file (a character device)
>>> import tempfile, pathlib
>>> token = pathlib.Path(tempfile.mkdtemp()) / "token"
>>> _ = token.write_bytes(b"\\xfflip_abc\\n")
>>> read_text(token, limit=4096)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
board_driver.user_files.UnusableFile: /.../token is not UTF-8 text (byte 0xff at offset 0)
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

#: A secret (a token, a password) is a line of text: a larger file is the wrong file.
MAX_SECRET_BYTES = 64 * 1024
#: What a path that is not a regular file is, in words.
_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)


class UnusableFile(ValueError):
    """A file that cannot be used: ``str()`` is ``"<path> <why>"``.

    ``missing`` is true when there is no file at all (the callers to whom that is normal,
    such as a default config file, tell it from a file that is there but unusable).
    """

    def __init__(self, path: str | os.PathLike[str], why: str, *, missing: bool = False) -> None:
        self.path = Path(path)
        self.why = why
        self.missing = missing
        super().__init__(f"{self.path} {why}")


def not_regular(mode: int) -> str:
    """Why a file of ``mode``, not a regular file, cannot be used, in words.

    >>> not_regular(stat.S_IFIFO)
    'is not a regular file (a named pipe)'
    """
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    kind = next((words for test, words in _KINDS if test(mode)), "a special file")
    return f"is not a regular file ({kind})"


def _size(count: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def _refusal(path: str | os.PathLike[str], exc: OSError) -> UnusableFile:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return UnusableFile(path, "does not exist", missing=True)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return UnusableFile(path, "cannot be read by this user (permission denied)")
    return UnusableFile(path, f"cannot be read ({exc.strerror or exc})")


def check_regular(path: str | os.PathLike[str], *, limit: int | None = None) -> os.stat_result:
    """The file's status, if ``path`` is a regular file (a symlink to one is) of at most
    ``limit`` bytes; UnusableFile says why not. Nothing is opened: a device or a FIFO is
    judged by its status alone (opening a serial port or a FIFO is not harmless)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _refusal(path, exc) from None
    if not stat.S_ISREG(info.st_mode):
        raise UnusableFile(path, not_regular(info.st_mode))
    if limit is not None and info.st_size > limit:
        raise UnusableFile(
            path, f"is {_size(info.st_size)}, more than such a file can be ({_size(limit)})"
        )
    return info


def open_regular(path: str | os.PathLike[str], *, limit: int | None = None) -> BinaryIO:
    """``path`` opened for reading in binary, once :func:`check_regular` has passed.

    Opened without blocking and checked again through the open file, so that a path
    swapped for a FIFO between the check and the open cannot hold the caller up."""
    check_regular(path, limit=limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise _refusal(path, exc) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnusableFile(path, not_regular(info.st_mode))
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_bytes(path: str | os.PathLike[str], *, limit: int) -> bytes:
    """The whole file, at most ``limit`` bytes (a file that grows past it is refused)."""
    with open_regular(path, limit=limit) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise _refusal(path, exc) from None
    if len(data) > limit:
        raise UnusableFile(path, f"is more than such a file can be ({_size(limit)})")
    return data


def read_text(path: str | os.PathLike[str], *, limit: int) -> str:
    """The whole file as UTF-8 text, at most ``limit`` bytes (see :func:`read_bytes`)."""
    data = read_bytes(path, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnusableFile(
            path, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def read_private_text(path: str | os.PathLike[str], *, limit: int = MAX_SECRET_BYTES) -> str:
    """:func:`read_text` of a file that holds a secret: refused when others than its owner
    may read it (or write it), since the secret acts in the owner's name."""
    text = read_text(path, limit=limit)
    mode = os.stat(path).st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise UnusableFile(
            path,
            f"may be read by others than its owner (mode {stat.S_IMODE(mode):o}); chmod 600 it",
        )
    return text
