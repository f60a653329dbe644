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
Version 3 adds ``on_board``: which game is on the board (an adjourned game resumed from
the page is not the newest one), so that a restart comes back to it. Version 4 adds
``review``: an engine's score and best move after each ply of a game (the page's review).
Version 5 adds ``clock_log``: every change of a game's clock (a move switching it, a pause,
an adjustment, a penalty, a flag) with both times left, so that the clock survives a
restart and each move's ``%clk`` is kept.

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
SCHEMA_VERSION = 5

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

# One row at most; a store without one (migrated from version 2) has its newest game on
# the board.
_TABLES_V3 = """
CREATE TABLE on_board (
    game_id INTEGER NOT NULL REFERENCES games(id),
    t       TEXT NOT NULL
);
"""

# A game's review, a row per position: after ``ply`` plies (0: the start), reached by ``uci``
# (NULL at ply 0; a row whose move is not the game's is stale), the engine's score from
# White's point of view (``cp``, or ``mate`` in moves: 0 = the side to move is mated) and
# its ``best`` move there (NULL when the game is over there).
_TABLES_V4 = """
CREATE TABLE review (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply     INTEGER NOT NULL,
    uci     TEXT,
    cp      INTEGER,
    mate    INTEGER,
    best    TEXT,
    depth   INTEGER NOT NULL,
    t       TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""

# Every change of a game's clock, in order (id); after ``ply`` plies, both times left then.
_TABLES_V5 = """
CREATE TABLE clock_log (
    id       INTEGER PRIMARY KEY,
    game_id  INTEGER NOT NULL REFERENCES games(id),
    ply      INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    white_ms INTEGER NOT NULL,
    black_ms INTEGER NOT NULL,
    note     TEXT NOT NULL,
    t        TEXT NOT NULL
);
"""

#: The statements that take a store from version ``v - 1`` to ``v``.
MIGRATIONS: dict[int, str] = {
    1: _TABLES_V1,
    2: _TABLES_V2,
    3: _TABLES_V3,
    4: _TABLES_V4,
    5: _TABLES_V5,
}


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

_STAMP = re.compile(rb"\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\d[0-9TZ:.+-]{0,13}")
_UCI = re.compile(rb"[a-h][1-8][a-h][1-8][qrbn]?")
_SAN = re.compile(rb"[a-hKQRBNOx1-8=+#-]{2,10}")
_FEN = re.compile(rb"[0-9a-zA-Z/ -]{1,100}")
#: What a clock_log row may say happened (board_driver.clock.keeper.ClockEntry).
_CLOCK_KINDS = frozenset(
    b"set start move takeback pause resume adjust penalty flag stop restart".split()
)
#: The shape of each kind of text column (any other column holds free text).
_SHAPES: dict[str, Callable[[bytes], bool]] = {
    "a time": lambda v: bool(_STAMP.fullmatch(v)),
    "a move": lambda v: bool(_UCI.fullmatch(v)),
    "a move in SAN": lambda v: bool(_SAN.fullmatch(v)),
    "a FEN": lambda v: bool(_FEN.fullmatch(v)),
    "a result": lambda v: v in (b"1-0", b"0-1", b"1/2-1/2"),
    "a correction": lambda v: v in (b"takeback", b"amend"),
    "a clock change": lambda v: v in _CLOCK_KINDS,
}
_UCI_SQL = "({c} GLOB '[a-h][1-8][a-h][1-8]' OR {c} GLOB '[a-h][1-8][a-h][1-8][qrbn]')"
#: The same shapes in SQL, true for a value out of shape ({c}: the column), so that the
#: big tables are checked without fetching every row into Python. Every shape is ASCII:
#: a byte outside it (text that is not UTF-8 included) puts a value out of shape.
_SHAPES_SQL = {
    "a time": "NOT {c} GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]"
    ":[0-6][0-9]*' OR {c} GLOB '*[^0-9TZ:.+-]*' OR length({c}) > 32",
    "a move": f"NOT {_UCI_SQL}",
    "a move in SAN": "length({c}) NOT BETWEEN 2 AND 10 OR {c} GLOB '*[^a-hKQRBNOx1-8=+#-]*'",
    "a FEN": "length({c}) NOT BETWEEN 1 AND 100 OR {c} GLOB '*[^0-9a-zA-Z/ -]*'",
    "a result": "{c} NOT IN ('1-0', '0-1', '1/2-1/2')",
    "a correction": "{c} NOT IN ('takeback', 'amend')",
    "a clock change": "{c} NOT IN ("
    + ", ".join(f"'{k.decode()}'" for k in sorted(_CLOCK_KINDS))
    + ")",
}


@dataclass(frozen=True)
class _Column:
    name: str
    kind: str  # "id", "int", "text" (free text), or a shape of _SHAPES
    nullable: bool = False
    limit: int = 10_000  # the longest free text a sound store holds there


_GAME = _Column("game_id", "int")
_T = _Column("t", "a time")

#: Every table of each version and what its columns hold.
_LAYOUT: dict[int, dict[str, tuple[_Column, ...]]] = {}
_LAYOUT[1] = {
    "games": (_Column("id", "id"), _Column("started", "a time"), _Column("start_fen", "a FEN")),
    "options": (_GAME, _Column("name", "text"), _Column("value", "text")),
    "moves": (
        _GAME,
        _Column("ply", "int"),
        _Column("uci", "a move"),
        _Column("san", "a move in SAN"),
        _T,
    ),
    "result": (_GAME, _Column("result", "a result"), _Column("termination", "text", limit=64), _T),
    "corrections": (
        _Column("id", "id"),
        _GAME,
        _Column("ply", "int"),
        _Column("kind", "a correction"),
        _Column("old_uci", "a move", nullable=True),
        _Column("new_uci", "a move", nullable=True),
        _T,
    ),
}
_LAYOUT[2] = {
    **_LAYOUT[1],
    "headers": (_GAME, _Column("name", "text", limit=255), _Column("value", "text")),
    "game_data": (
        _GAME,
        _Column("extension", "text", limit=255),
        _Column("name", "text", limit=255),
        _Column("value", "text"),
    ),
}
_LAYOUT[3] = {**_LAYOUT[2], "on_board": (_GAME, _T)}
_LAYOUT[4] = {
    **_LAYOUT[3],
    "review": (
        _GAME,
        _Column("ply", "int"),
        _Column("uci", "a move", nullable=True),
        _Column("cp", "int", nullable=True),
        _Column("mate", "int", nullable=True),
        _Column("best", "a move", nullable=True),
        _Column("depth", "int"),
        _T,
    ),
}
_LAYOUT[5] = {
    **_LAYOUT[4],
    "clock_log": (
        _Column("id", "id"),
        _GAME,
        _Column("ply", "int"),
        _Column("kind", "a clock change"),
        _Column("white_ms", "int"),
        _Column("black_ms", "int"),
        _Column("note", "text", limit=64),
        _T,
    ),
}
#: Tables of what can be worked out again (an engine's review): a row out of shape there
#: does not make the store damaged (it would keep the board from starting); reads leave it
#: out (:data:`REVIEW_ROWS`).
DERIVED = frozenset({"review"})
#: The review rows a read takes: those of the shapes magboard writes, within the bounds of
#: an engine's score (board_driver.door.review.MAX_CP, MAX_MATE) and depth.
REVIEW_ROWS = (
    "typeof(ply) = 'integer' AND ply BETWEEN 0 AND 100000"
    " AND typeof(depth) = 'integer' AND depth BETWEEN 0 AND 10000"
    " AND (uci IS NULL OR (typeof(uci) = 'text' AND {uci}))"
    " AND (best IS NULL OR (typeof(best) = 'text' AND {best}))"
    " AND ((cp IS NULL AND typeof(mate) = 'integer' AND mate BETWEEN -10000 AND 10000)"
    " OR (mate IS NULL AND typeof(cp) = 'integer' AND cp BETWEEN -100000 AND 100000))"
).format(uci=_UCI_SQL.format(c="uci"), best=_UCI_SQL.format(c="best"))

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
        problems = "; ".join(str(r[0]) for r in result).replace("*** in database main ***", "")
        problems = " ".join(problems.split())
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
        if table in DERIVED:
            continue  # its rows are read through REVIEW_ROWS: one out of shape is left out
        _check_table(db, table, columns)
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


def _sql_out_of_shape(column: _Column) -> str:
    c = column.name
    if column.kind == "id":
        return f"typeof({c}) != 'integer' OR {c} < 1"
    if column.kind == "int":
        wrong = f"typeof({c}) != 'integer'"
        return f"{c} IS NOT NULL AND {wrong}" if column.nullable else wrong
    shape = f"typeof({c}) != 'text' OR {_SHAPES_SQL[column.kind].format(c=c)}"
    return f"{c} IS NOT NULL AND ({shape})" if column.nullable else shape


def _check_table(db: sqlite3.Connection, table: str, columns: tuple[_Column, ...]) -> None:
    # Numbers and shaped text in SQL (the moves table is the big one); free text in
    # Python, whose UTF-8 decoder is the judge (those tables hold a few rows a game).
    shaped = [c for c in columns if c.kind != "text"]
    where = " OR ".join(f"({_sql_out_of_shape(c)})" for c in shaped)
    found = db.execute(f"SELECT rowid FROM {table} WHERE {where} LIMIT 1").fetchone()
    if found is not None:
        _check_rows(db, table, columns, f"WHERE rowid = {int(found[0])}")
        raise Damage(f"{table} row {found[0]}: a value is not of the kind magboard writes")
    if any(c.kind == "text" for c in columns):
        _check_rows(db, table, columns)


def _check_rows(
    db: sqlite3.Connection, table: str, columns: tuple[_Column, ...], where: str = ""
) -> None:
    # typeof() tells a blob from text; bytes, not str, so that text which is not UTF-8
    # is found here instead of raising in some later read.
    selected = ", ".join(f"typeof({c.name}), {c.name}" for c in columns)
    previous = db.text_factory
    db.text_factory = bytes
    try:
        for row in db.execute(f"SELECT rowid, {selected} FROM {table} {where}"):
            for i, column in enumerate(columns):
                problem = _bad_value(column, row[1 + 2 * i].decode(), row[2 + 2 * i])
                if problem:
                    record = {c.name: _show(row[2 + 2 * j]) for j, c in enumerate(columns)}
                    raise Damage(f"{_row_name(table, row[0], record)}: {column.name} {problem}")
    finally:
        db.text_factory = previous


def _row_name(table: str, rowid: int, record: dict[str, str]) -> str:
    if table == "games":
        return f"game {record['id']}"
    if table == "moves":
        return f"game {record['game_id']}, ply {record['ply']}"
    if "game_id" in record and table not in ("corrections", "clock_log"):
        return f"{table} of game {record['game_id']}"
    return f"{table} row {rowid}"


def _bad_value(column: _Column, sql_type: str, value: object) -> str | None:
    kind = column.kind
    if kind in ("id", "int"):
        if sql_type == "null" and column.nullable:
            return None
        if sql_type != "integer":
            return f"holds {_kind(sql_type, value)}, not a whole number"
        if kind == "id" and value < 1:  # type: ignore[operator]
            return f"is {value}, not a row number"
        return None
    if sql_type == "null":
        return None if column.nullable else "is empty (NULL)"
    if sql_type != "text":
        return f"holds {_kind(sql_type, value)}, not text"
    assert isinstance(value, bytes)
    try:
        value.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"is not UTF-8 text (byte {exc.start}: {value[exc.start : exc.start + 8]!r})"
    if kind == "text":
        if len(value) > column.limit:
            return f"is {len(value)} bytes long, longer than magboard writes there"
        return None
    if not _SHAPES[kind](value):
        return f"is not {kind} ({_show(value)})"
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
