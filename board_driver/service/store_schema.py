"""What the games database holds, version by version, and how to tell a sound file.

The schema's version is SQLite's ``PRAGMA user_version``. A store of an older version is
migrated when the daemon opens it (one transaction: it is either all done or not at all);
one of a newer version is refused, untouched. :func:`check` reads the whole file once
before it is used and names the first thing wrong in it (a page SQLite cannot read, a
table missing, a column of the wrong kind, text that is not UTF-8), so that a damaged
store is refused with a message that says what and where, never half used.

Version 1 (magboard 0.x up to the door): ``games``, ``options``, ``moves``, ``result``,
``corrections``. Version 2 adds ``headers`` (a game's PGN headers) and ``game_data``
(a few texts per game per extension: an online game's id, the last ply a server took).

>>> import sqlite3
>>> db = sqlite3.connect(":memory:", isolation_level=None)
>>> create(db)
>>> check(db)
>>> db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
True
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

#: The version this magboard writes.
SCHEMA_VERSION = 2

_TABLES_V1 = """
CREATE TABLE games (
    id        INTEGER PRIMARY KEY,
    started   TEXT NOT NULL,
    start_fen TEXT NOT NULL
);
CREATE TABLE options (
    game_id INTEGER NOT NULL REFERENCES games(id),
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (game_id, name)
);
CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply     INTEGER NOT NULL,
    uci     TEXT NOT NULL,
    san     TEXT NOT NULL,
    t       TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE result (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id),
    result      TEXT NOT NULL,
    termination TEXT NOT NULL,
    t           TEXT NOT NULL
);
CREATE TABLE corrections (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply     INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    old_uci TEXT,
    new_uci TEXT,
    t       TEXT NOT NULL
);
"""

_TABLES_V2 = """
CREATE TABLE headers (
    game_id INTEGER NOT NULL REFERENCES games(id),
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (game_id, name)
);
CREATE TABLE game_data (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    extension TEXT NOT NULL,
    name      TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (game_id, extension, name)
);
"""

#: The statements that take a store from version ``v - 1`` to ``v``.
MIGRATIONS: dict[int, str] = {1: _TABLES_V1, 2: _TABLES_V2}


def create(db: sqlite3.Connection) -> None:
    """Make every table of the current version in an empty database (one transaction)."""
    migrate(db, 0)


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring a store of ``version`` to :data:`SCHEMA_VERSION`, in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for step in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[step].split(";"):
                if statement.strip():
                    db.execute(statement)
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


class Damage(Exception):
    """What is wrong in a store and where (the caller adds the file's name)."""


# ---------------------------------------------------------------------- the soundness check

_STAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)?")
_UCI = re.compile(rb"[a-h][1-8][a-h][1-8][qrbn]?")
_RESULTS = {b"1-0", b"0-1", b"1/2-1/2"}


@dataclass(frozen=True)
class _Column:
    name: str
    kind: str  # "id", "int", "text", "stamp", "uci", "uci?" (uci or NULL), or "result"
    limit: int = 10_000  # the longest text a sound store holds there


_ID = "id"
_GAME = _Column("game_id", "int")
_T = _Column("t", "stamp")

#: Every table of each version and what its columns hold.
_LAYOUT: dict[int, dict[str, tuple[_Column, ...]]] = {}
_LAYOUT[1] = {
    "games": (_Column("id", _ID), _Column("started", "stamp"), _Column("start_fen", "text", 100)),
    "options": (_GAME, _Column("name", "text"), _Column("value", "text")),
    "moves": (_GAME, _Column("ply", "int"), _Column("uci", "uci"), _Column("san", "text", 10), _T),
    "result": (_GAME, _Column("result", "result"), _Column("termination", "text"), _T),
    "corrections": (
        _Column("id", _ID),
        _GAME,
        _Column("ply", "int"),
        _Column("kind", "text"),
        _Column("old_uci", "uci?"),
        _Column("new_uci", "uci?"),
        _T,
    ),
}
_LAYOUT[2] = {
    **_LAYOUT[1],
    "headers": (_GAME, _Column("name", "text", 255), _Column("value", "text")),
    "game_data": (
        _GAME,
        _Column("extension", "text"),
        _Column("name", "text"),
        _Column("value", "text"),
    ),
}
#: How a message names a row, by table.
_ROW_NAME: dict[str, Callable[[dict[str, str]], str]] = {
    "games": lambda r: f"game {r['id']}",
    "moves": lambda r: f"game {r['game_id']}, ply {r['ply']}",
    "result": lambda r: f"the result of game {r['game_id']}",
}


def tables(db: sqlite3.Connection) -> set[str]:
    """The names of the tables in the store."""
    return {
        name
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    }


def check(db: sqlite3.Connection) -> None:
    """Read the whole store once; :class:`Damage` names the first thing wrong.

    SQLite's errors while reading (a malformed image) are left to the caller.
    """
    result = db.execute("PRAGMA quick_check(5)").fetchall()
    if [r[0] for r in result] != ["ok"]:
        problems = "; ".join(str(r[0]) for r in result).replace("*** in database main *** ", "")
        raise Damage(f"SQLite's integrity check failed: {_cut(problems)}")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    layout = _LAYOUT.get(version)
    if layout is None:  # a version this magboard does not know: the caller refuses it
        return
    present = tables(db)
    for table, columns in layout.items():
        if table not in present:
            raise Damage(f"the table {table} is missing (schema version {version} has it)")
        found = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
        wanted = [c.name for c in columns]
        if found != wanted:
            raise Damage(f"the table {table} has the columns {found}, not {wanted}")
        _check_rows(db, table, columns)
    missing_links = db.execute("PRAGMA foreign_key_check").fetchone()
    if missing_links is not None:
        table, rowid, parent, _ = missing_links
        raise Damage(f"{table} row {rowid} belongs to no row of {parent}")
    gap = db.execute(
        "SELECT game_id, count(*), max(ply), min(ply) FROM moves GROUP BY game_id "
        "HAVING max(ply) != count(*) OR min(ply) != 1 LIMIT 1"
    ).fetchone()
    if gap is not None:
        raise Damage(
            f"moves of game {gap[0]}: {gap[1]} plies stored, numbered {gap[3]} to {gap[2]}"
        )


def _check_rows(db: sqlite3.Connection, table: str, columns: tuple[_Column, ...]) -> None:
    # typeof() tells a blob from text; bytes, not str, so that text which is not UTF-8
    # is found here instead of raising in some later read.
    selected = ", ".join(f"typeof({c.name}), {c.name}" for c in columns)
    previous = db.text_factory
    db.text_factory = bytes
    try:
        for row in db.execute(f"SELECT rowid, {selected} FROM {table}"):
            for i, column in enumerate(columns):
                problem = _bad_value(column, row[1 + 2 * i].decode(), row[2 + 2 * i])
                if problem:
                    record = {c.name: row[2 + 2 * j] for j, c in enumerate(columns)}
                    try:
                        place = _ROW_NAME[table]({k: _show(v) for k, v in record.items()})
                    except KeyError:
                        place = f"{table} row {row[0]}"
                    raise Damage(f"{place}: {column.name} {problem}")
    finally:
        db.text_factory = previous


def _bad_value(column: _Column, sql_type: str, value: object) -> str | None:
    kind = column.kind
    if kind in ("id", "int"):
        if sql_type != "integer":
            return f"holds {_kind(sql_type, value)}, not a whole number"
        if kind == "id" and value < 1:  # type: ignore[operator]
            return f"is {value}, not a row number"
        return None
    if sql_type == "null":
        return None if kind == "uci?" else "is empty (NULL)"
    if sql_type != "text":
        return f"holds {_kind(sql_type, value)}, not text"
    assert isinstance(value, bytes)
    try:
        value.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"is not UTF-8 text (byte {exc.start}: {value[exc.start : exc.start + 8]!r})"
    if len(value) > column.limit:
        return f"is {len(value)} bytes long, longer than magboard writes there"
    if kind == "stamp" and not _STAMP.fullmatch(value):
        return f"is not a time ({_show(value)})"
    if kind in ("uci", "uci?") and not _UCI.fullmatch(value):
        return f"is not a move ({_show(value)})"
    if kind == "result" and value not in _RESULTS:
        return f"is not a result ({_show(value)})"
    return None


def _kind(sql_type: str, value: object) -> str:
    if sql_type == "blob":
        return f"{len(value)} bytes of data"  # type: ignore[arg-type]
    return {
        "integer": f"the number {value}",
        "real": f"the number {value}",
        "null": "nothing (NULL)",
        "text": f"the text {_show(value)}",
    }.get(sql_type, sql_type)


def _show(value: object) -> str:
    if isinstance(value, bytes):
        return _cut(value.decode("utf-8", "replace"))
    return _cut(str(value))


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
