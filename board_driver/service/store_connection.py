"""The games store's SQLite connection: opening a file (a damaged one refused, an older
schema migrated, write-ahead logging), one transaction per change, and the files that
stop taking writes under it (a full disk, a store made immutable, a card turned read-only:
never touched again once SQLite's ``-shm`` mapping of them could kill the process).
:class:`~board_driver.service.store.Store` is the games kept through it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from board_driver.door.config_values import quote
from board_driver.service import store_schema
from board_driver.service.store_errors import (
    StoreError,
    StoreTooNewError,
    StoreWriteError,
    damaged,
    failure,
)
from board_driver.service.store_file import check_header, create_file, unwritable, writable
from board_driver.service.store_schema import SCHEMA_VERSION, Damage


class StoreConnection:
    """A connection to the games database. Use :meth:`open`.

    ``version`` is the file's schema version: :data:`SCHEMA_VERSION`, or an older one for
    a store opened read-only (``magboard games`` never migrates a file).
    """

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self.path = path
        self.version = SCHEMA_VERSION
        self._tables: set[str] = set()
        self._identity: tuple[int, int] | None = None  # the file's (device, inode) at open
        self._readonly = False
        # SQLite maps the -shm writable when it can write it at open; a mapping whose file
        # then stops taking writes is never touched again (see _check_files).
        self._shm_mapped = False
        self._degraded = False  # opened while a file could not be written: reopened later

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, readonly: bool = False) -> Self:
        """Open the database at ``path``; with ``create`` (not ``readonly``) a missing file
        is made, and an older schema migrated.

        :class:`StoreDamagedError` for a file that is there but damaged (cut to a few bytes
        included: only a missing file is a new store), :class:`StoreTooNewError` for one of
        a newer magboard; both leave the file as it was. Otherwise a plain
        :class:`StoreError`, never a bare sqlite3 error: the file missing (without
        ``create``), unreadable, a directory.
        """
        where = str(path)
        blocked = None
        if where != ":memory:":
            p = Path(path)
            if p.is_dir():
                raise StoreError(f"{p}: is a directory, not a database")
            if not os.path.lexists(p):
                if not create or readonly:
                    raise StoreError(f"{p}: no such database (no game has been stored yet)")
                create_file(p)
            else:
                check_header(p)
            blocked = unwritable(where)
        try:
            if readonly:
                db = sqlite3.connect(
                    f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
            else:
                db = sqlite3.connect(where, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{where}: cannot open ({exc})") from None
        store = cls(db, where)
        store._readonly = readonly
        if where != ":memory:":
            store._shm_mapped = writable(f"{where}-shm")
            store._degraded = blocked is not None
        try:
            store._prepare(readonly)
            if where != ":memory:":
                store._identity = _identity(where)
        except BaseException:
            db.close()
            raise
        return store

    def _prepare(self, readonly: bool) -> None:
        db = self._db
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreTooNewError(
                    f"{self.path}: written by a newer magboard (schema {version}, this one "
                    f"knows {SCHEMA_VERSION}); it is left as it is: run that magboard",
                    self.path,
                    f"schema {version} is newer than {SCHEMA_VERSION}",
                )
            if version == 0:
                found = store_schema.tables(db)
                if found:
                    raise Damage(
                        "it is not a magboard games database (its tables: "
                        f"{quote(', '.join(sorted(found)))})"
                    )
                if readonly:  # an empty SQLite file, as the sqlite3 shell leaves one
                    raise StoreError(f"{self.path}: empty database (no game has been stored yet)")
            else:
                store_schema.check(db)
            if not readonly:
                if version < SCHEMA_VERSION:
                    store_schema.migrate(db, version)
                    version = SCHEMA_VERSION
                mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if mode.lower() not in ("wal", "memory"):
                    raise StoreError(f"{self.path}: cannot use write-ahead logging (mode {mode})")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            self._tables = store_schema.tables(db)
        except Damage as exc:
            raise damaged(self.path, str(exc)) from None
        except sqlite3.Error as exc:
            raise failure(self.path, exc, writing=not readonly) from None
        self.version = version

    def close(self) -> None:
        """Close the connection (everything is already on disk).

        Not when the ``-shm`` SQLite mapped has stopped taking writes: closing would write
        it and kill the process (SIGBUS). The connection is then left open for good (the
        kernel drops it at exit; the write-ahead log keeps every committed move)."""
        if self._shm_unsafe() is not None:
            _abandon(self._db)
            return
        self._db.close()

    def _shm_unsafe(self) -> str | None:
        """The ``-shm`` SQLite mapped writable, if it cannot be written now (else None)."""
        if not self._shm_mapped:
            return None
        blocked = unwritable(self.path)
        return blocked if blocked is not None and blocked.endswith("-shm") else None

    def _check_files(self, *, writing: bool) -> None:
        """Before SQLite touches the files: refuse when one cannot be written (SQLite would
        die on the mapped ``-shm``, or fail halfway); reopen a connection made while one
        could not be, once they all can."""
        if self.path == ":memory:":
            return
        blocked = unwritable(self.path)
        if blocked is None:
            if self._degraded and not self._readonly:
                self._reopen()
            return
        if writing:
            raise StoreWriteError(
                f"{self.path}: cannot store: {blocked} cannot be written (immutable, or its "
                "file system is read-only)",
                self.path,
                "read_only",
            )
        if self._shm_mapped and blocked.endswith("-shm"):
            raise StoreError(
                f"{self.path}: cannot read the games database now: {blocked} cannot be "
                "written (immutable, or its file system is read-only)"
            )

    def _reopen(self) -> None:
        """A connection made while a file could not be written stays read-only in SQLite
        (and its connections in this process share what it mapped): closed, and made
        again, now that every file can be written."""
        self._db.close()
        self._db = sqlite3.connect(self.path, isolation_level=None)
        try:
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error:
            return  # still not writable: made again next time; the caller's call says why
        self._degraded = mode.lower() != "wal"
        self._shm_mapped = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One transaction: all of it on disk when the block ends, or none of it."""
        self._check_files(writing=True)
        db = self._db
        if self._identity is not None and _identity(self.path) != self._identity:
            # SQLite would go on writing to the unlinked file, and all of it would vanish.
            raise StoreWriteError(
                f"{self.path}: cannot store: the file was removed or replaced while in use",
                self.path,
                "removed",
            )
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                # A failed COMMIT (a full disk) may leave the transaction open, or SQLite may
                # have rolled it back already: either way nothing of it stays.
                if db.in_transaction:
                    try:
                        db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                raise
        except sqlite3.Error as exc:
            raise failure(self.path, exc, writing=True) from exc

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        self._check_files(writing=False)
        try:
            yield self._db
        except sqlite3.Error as exc:
            raise failure(self.path, exc, writing=False) from exc


#: Connections never to be closed (see :meth:`Store.close`).
_ABANDONED: list[sqlite3.Connection] = []


def _abandon(db: sqlite3.Connection) -> None:
    """Keep ``db`` open until the process ends: a connection is closed when it is freed,
    even at the interpreter's exit, so it gets a reference that is never given back."""
    import ctypes

    _ABANDONED.append(db)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(db))


def _identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
