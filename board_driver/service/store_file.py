"""The store's file on disk: a file that is there must be whole, and a new one appears whole.

Only a missing file is a new store. A file cut to a few bytes, or one that does not start
as SQLite's files do, is damaged (:class:`StoreDamagedError`), however it came to be:
so a new store is made beside its place and linked in whole, and a crash while making it
never leaves a cut-short file where the store should be.

A store in WAL mode is three files: the database, its ``-wal`` and its ``-shm``, which
SQLite maps into memory. A mapped file that stops taking writes (made immutable, its
card remounted read-only) kills the process with SIGBUS at SQLite's next touch, so the
store asks :func:`unwritable` before each use (issue 24).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from pathlib import Path

from board_driver.service import store_schema
from board_driver.service.store_errors import (
    WRITE_FAILURE_WORDS,
    StoreError,
    StoreWriteError,
    damaged,
    failure,
)

#: The first bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: A database file is never shorter than its header.
HEADER_BYTES = 100
#: The files of a store in WAL mode: the database, its write-ahead log, its shared memory.
WAL_SUFFIXES = ("", "-wal", "-shm")


def unwritable(path: str) -> str | None:
    """The first of the store's files (the database, its ``-wal``, its ``-shm``) that is
    there and cannot be written now (immutable, read-only, on a read-only file system), or
    None. A few ``access`` calls: cheap enough before every transaction.

    >>> unwritable("/nonexistent/games.sqlite") is None  # files not there are not in the way
    True
    """
    for suffix in WAL_SUFFIXES:
        if not writable(path + suffix):
            return path + suffix
    return None


def writable(name: str) -> bool:
    """Can the file ``name`` be written now (or is it not there, to be made)?"""
    return os.access(name, os.W_OK) or not os.path.lexists(name)


def check_header(path: Path) -> None:
    """A file that is there must be a whole SQLite file: only a missing one is a new store."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"{path}: is not a regular file (a games database is one)")
        with open(path, "rb") as handle:
            head = handle.read(HEADER_BYTES)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the games database ({exc.strerror})") from None
    if len(head) < HEADER_BYTES:
        raise damaged(
            str(path),
            f"it is {len(head)} byte{'s' * (len(head) != 1)} long, cut short (a games "
            f"database is never shorter than its {HEADER_BYTES}-byte header)",
        )
    if not head.startswith(SQLITE_MAGIC):
        raise damaged(str(path), f"it is not an SQLite database (it starts {head[:16]!r})")
    # The header's page count is trusted only while its "valid for" counter matches the
    # change counter (sqlite.org/fileformat2.html, offsets 16, 24, 28 and 92).
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    if head[92:96] == head[24:28] and pages > 0 and info.st_size < pages * page_size:
        raise damaged(
            str(path),
            f"it is {info.st_size} bytes long, but its header says {pages} pages of "
            f"{page_size} bytes ({pages * page_size} bytes): cut short",
        )


def create_file(path: Path) -> None:
    """A new, empty store at ``path``: made beside it and linked in whole, so that a crash
    never leaves a cut-short file where the store should be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{path.parent}: cannot create ({exc.strerror})") from None
    new = path.with_name(f".{path.name}.new-{os.getpid()}")
    for leftover in (new, Path(f"{new}-wal"), Path(f"{new}-shm")):
        leftover.unlink(missing_ok=True)
    try:
        db = sqlite3.connect(new, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            store_schema.create(db)
        finally:
            db.close()
        try:
            os.link(new, path)  # fails if a file appeared there meanwhile: never overwrite
        except FileExistsError:
            return
        except OSError:  # a file system without hard links
            os.replace(new, path)
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    except (OSError, sqlite3.Error) as exc:
        if isinstance(exc, sqlite3.Error):
            error = failure(str(path), exc, writing=True)
            reason = getattr(error, "reason", "io")
        else:
            reasons: dict[int | None, str] = {errno.ENOSPC: "full", errno.EROFS: "read_only"}
            reason = reasons.get(exc.errno, "io")
        raise StoreWriteError(
            f"{path}: cannot create the games database: {WRITE_FAILURE_WORDS[reason]} ({exc})",
            str(path),
            reason,
        ) from exc
    finally:
        new.unlink(missing_ok=True)
