"""What can go wrong with the games store, as exceptions, and SQLite's errors in those words.

- :class:`StoreDamagedError`: the file is there but damaged (cut short, not a database,
  a page SQLite cannot read, a table missing, a value of the wrong kind). It is refused,
  never overwritten: the message says what and where and names ``magboard store
  recover``, which saves the games that can be read as PGN and moves the file aside.
- :class:`StoreTooNewError`: written by a newer magboard (an older schema is migrated).
- :class:`StoreWriteError`: a write failed (the disk is full, the file system read-only,
  the file removed). Nothing of that call is stored, the store stays as it was, and the
  same call can be made again later (it succeeds once there is room again).

The daemon exits with :data:`EXIT_STORE_REFUSED` when it cannot use its store (damaged or
too new), and :data:`EXIT_STORE_IN_USE` when another daemon has it, both of which the
systemd unit lists in ``RestartPreventExitStatus``: restarting would not mend it.

>>> error = failure("/var/lib/magboard/magboard.sqlite",
...                 sqlite3.OperationalError("database or disk is full"), writing=True)
>>> type(error).__name__, error.reason
('StoreWriteError', 'full')
"""

from __future__ import annotations

import shlex
import sqlite3

#: The daemon's exit status when its store is refused (damaged, or from a newer magboard):
#: EX_DATAERR of sysexits.h. The unit's ``RestartPreventExitStatus`` lists it.
EXIT_STORE_REFUSED = 65
#: The daemon's exit status when another daemon runs with its store (the same board twice):
#: EX_UNAVAILABLE of sysexits.h, also in the unit's ``RestartPreventExitStatus`` (started
#: again, it would only be refused again).
EXIT_STORE_IN_USE = 69


class StoreError(Exception):
    """The database cannot be used; the message says which file and what to do."""


class NoSuchGame(StoreError, LookupError):
    """No game with that number."""


class StoreRefusedError(StoreError):
    """The file is there, but this magboard will not use it; it is left untouched.

    Restarting does not mend it: the daemon exits with :data:`EXIT_STORE_REFUSED`.
    ``path`` is the file; ``what`` says what is wrong, without the file's name.
    """

    def __init__(self, message: str, path: str = "", what: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.what = what or message


class StoreDamagedError(StoreRefusedError):
    """The file is damaged: refused, kept, recoverable with ``magboard store recover``."""


class StoreTooNewError(StoreRefusedError):
    """The file was written by a newer magboard (a newer schema)."""


class StoreWriteError(StoreError):
    """A write failed: nothing of that call was stored, and it can be tried again.

    ``reason`` is one of ``"full"`` (no room on the disk), ``"read_only"`` (the file or
    its file system cannot be written), ``"removed"`` (the file was deleted or moved
    while open: a retry cannot succeed), ``"busy"`` (another process holds the file),
    ``"io"`` (the device failed).
    """

    def __init__(self, message: str, path: str, reason: str) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


# SQLite's result codes (sqlite3.h) that say why a write failed.
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY, _SQLITE_IOERR = 5, 6, 8, 10
_SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 11, 13, 14, 26
_SQLITE_READONLY_DBMOVED = _SQLITE_READONLY | 4 << 8
#: A failed write's ``reason``, by SQLite's result code (extended first, then primary).
WRITE_FAILURES = {
    _SQLITE_FULL: "full",
    _SQLITE_READONLY: "read_only",
    _SQLITE_READONLY_DBMOVED: "removed",
    _SQLITE_BUSY: "busy",
    _SQLITE_LOCKED: "busy",
    _SQLITE_IOERR: "io",
    _SQLITE_CANTOPEN: "io",
}
#: The reasons in words, for messages.
WRITE_FAILURE_WORDS = {
    "full": "the disk is full",
    "read_only": "the file or its file system is read-only",
    "removed": "the file was removed or moved while in use",
    "busy": "another program holds the file locked",
    "io": "the device failed to write",
}


def damaged(path: str, what: str) -> StoreDamagedError:
    """The error for a damaged store: what and where, and how to recover."""
    return StoreDamagedError(
        f"{path}: the games database is damaged: {what}. It is left as it is. "
        f"`magboard store recover --store {shlex.quote(path)}` saves the games that can be "
        "read (as PGN) and moves the file aside; the next start makes a new store.",
        path,
        what,
    )


def failure(path: str, exc: sqlite3.Error, *, writing: bool) -> StoreError:
    """The :class:`StoreError` that says what went wrong, from SQLite's error."""
    code = getattr(exc, "sqlite_errorcode", None) or 0
    text = str(exc)
    if len(text) > 200:  # SQLite quotes the text it could not decode: a few dozen will do
        text = f"{text[:200]}... ({len(text)} characters)"
    if code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or any(
        sign in text for sign in ("malformed", "unsupported file format")
    ):
        return damaged(path, f"SQLite cannot read it ({text})")
    if "decode to UTF-8" in text:
        return damaged(path, f"a text is not UTF-8 ({text[:120]})")
    reason = WRITE_FAILURES.get(code) or WRITE_FAILURES.get(code & 0xFF)
    if reason is None and "disk is full" in text:  # no code: an error made by hand
        reason = "full"
    if reason in ("io", "read_only") and _read_only_file_system(path):
        reason = "read_only"
    if reason is None:
        verb = "write" if writing else "read"
        return StoreError(f"{path}: cannot {verb} the games database ({text})")
    words = WRITE_FAILURE_WORDS[reason]
    return StoreWriteError(f"{path}: cannot store: {words} ({text})", path, reason)


def _read_only_file_system(path: str) -> bool:
    import os

    try:
        return bool(os.statvfs(os.path.dirname(os.path.abspath(path))).f_flag & os.ST_RDONLY)
    except OSError:
        return False
