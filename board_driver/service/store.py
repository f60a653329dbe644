"""Where games are kept: one SQLite file (stdlib ``sqlite3``), WAL, ``synchronous=FULL``.

Every change to a game is one transaction that is on disk when the call returns, so the
daemon stores a move before its LEDs confirm it and a power cut loses nothing the
board has shown as done. After a crash SQLite replays its write-ahead log on open.

Tables: ``games`` (start position, when), ``options`` (the game's options), ``moves``
(the line as it stands: a take-back deletes, an amendment rewrites), ``result`` (how a
finished game ended), ``corrections`` (every take-back and amendment, kept as history).

>>> store = Store.open(":memory:")
>>> game_id = store.new_game("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
>>> store.sync_moves(game_id, [("e2e4", "e4"), ("e7e5", "e5")])
>>> [m.san for m in store.game(game_id).moves]
['e4', 'e5']
>>> store.sync_moves(game_id, [("e2e4", "e4")])      # a take-back
>>> store.game(game_id).corrections[0].kind
'takeback'
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rules import STARTING_FEN

if TYPE_CHECKING:  # the rules core is needed only to rebuild games and print PGN
    import rules

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id        INTEGER PRIMARY KEY,
    started   TEXT NOT NULL,
    start_fen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS options (
    game_id INTEGER NOT NULL REFERENCES games(id),
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (game_id, name)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply     INTEGER NOT NULL,
    uci     TEXT NOT NULL,
    san     TEXT NOT NULL,
    t       TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS result (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id),
    result      TEXT NOT NULL,
    termination TEXT NOT NULL,
    t           TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS corrections (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply     INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    old_uci TEXT,
    new_uci TEXT,
    t       TEXT NOT NULL
);
"""


class StoreError(Exception):
    """The database cannot be used; the message says which file and what to do."""


class NoSuchGame(StoreError, LookupError):
    """No game with that number."""


@dataclass(frozen=True)
class StoredMove:
    ply: int  # 1 = White's first move
    uci: str
    san: str
    t: str


@dataclass(frozen=True)
class Correction:
    ply: int
    kind: str  # "takeback" | "amend"
    old_uci: str | None
    new_uci: str | None
    t: str


@dataclass(frozen=True)
class StoredGame:
    id: int
    started: str
    start_fen: str
    options: dict[str, str] = field(default_factory=dict)
    moves: list[StoredMove] = field(default_factory=list)
    result: str = "*"
    termination: str | None = None
    finished: str | None = None
    corrections: list[Correction] = field(default_factory=list)

    @property
    def ucis(self) -> list[str]:
        return [m.uci for m in self.moves]


@dataclass(frozen=True)
class GameSummary:
    id: int
    started: str
    plies: int
    result: str
    termination: str | None


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Store:
    """A connection to the games database. Use :meth:`open`."""

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self.path = path

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, readonly: bool = False) -> Store:
        """Open (and with ``create``, make) the database at ``path``.

        StoreError, never a bare sqlite3 error, when the file is missing (without
        ``create``), unreadable, not a database, damaged, or from a newer magboard.
        """
        where = str(path)
        if where != ":memory:":
            p = Path(path)
            if not p.exists() and not create:
                raise StoreError(f"{p}: no such database (no game has been stored yet)")
            if p.is_dir():
                raise StoreError(f"{p}: is a directory, not a database")
            if create and not readonly:
                try:
                    p.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreError(f"{p.parent}: cannot create ({exc.strerror})") from None
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
        try:
            store._prepare(readonly)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise StoreError(_explain(where, exc)) from None
        return store

    def _prepare(self, readonly: bool) -> None:
        db = self._db
        # Touch the file first: "file is not a database" shows here.
        db.execute("PRAGMA schema_version").fetchone()
        if not readonly:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() not in ("wal", "memory"):
                raise sqlite3.DatabaseError(f"cannot use write-ahead logging (mode {mode})")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"integrity check failed: {check}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"written by a newer magboard (schema {version}, this one knows {SCHEMA_VERSION})"
            )
        if not readonly and version < SCHEMA_VERSION:
            with self._transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        elif readonly and version == 0:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables == 0:
                raise StoreError(f"{self.path}: empty database (no game has been stored yet)")

    def close(self) -> None:
        """Close the connection (everything is already on disk)."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: object, *rest: object) -> None:
            if exc_type is None:
                self.db.execute("COMMIT")
            else:
                self.db.execute("ROLLBACK")

    def _transaction(self) -> Store._Tx:
        return Store._Tx(self._db)

    def new_game(
        self, start_fen: str = STARTING_FEN, options: Mapping[str, str] | None = None
    ) -> int:
        """Start a game; returns its number."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO games (started, start_fen) VALUES (?, ?)", (_now(), start_fen)
            )
            game_id = int(cursor.lastrowid or 0)
            for name, value in (options or {}).items():
                db.execute(
                    "INSERT INTO options (game_id, name, value) VALUES (?, ?, ?)",
                    (game_id, name, str(value)),
                )
        return game_id

    def set_options(self, game_id: int, options: Mapping[str, str]) -> None:
        """Add or change a game's options (the web page's settings, the engine that plays a
        side), in one transaction."""
        with self._transaction() as db:
            for name, value in options.items():
                db.execute(
                    "INSERT INTO options (game_id, name, value) VALUES (?, ?, ?) "
                    "ON CONFLICT (game_id, name) DO UPDATE SET value = excluded.value",
                    (game_id, name, str(value)),
                )

    def sync_moves(self, game_id: int, line: Sequence[tuple[str, str]]) -> None:
        """Make the stored line ``line`` (``(uci, san)`` per ply) in one transaction.

        Appended plies are new moves; plies that disappear are take-backs; a ply whose
        move changed (a promotion amended, a rook move that became castling) is an
        amendment. Take-backs and amendments are kept in ``corrections``.
        """
        stamp = _now()
        with self._transaction() as db:
            stored = db.execute(
                "SELECT ply, uci, san FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
            ).fetchall()
            for ply, uci, san in stored:
                if ply > len(line):
                    db.execute("DELETE FROM moves WHERE game_id = ? AND ply = ?", (game_id, ply))
                    db.execute(
                        "INSERT INTO corrections (game_id, ply, kind, old_uci, new_uci, t) "
                        "VALUES (?, ?, 'takeback', ?, NULL, ?)",
                        (game_id, ply, uci, stamp),
                    )
                elif (uci, san) != tuple(line[ply - 1]):
                    new_uci, new_san = line[ply - 1]
                    db.execute(
                        "UPDATE moves SET uci = ?, san = ?, t = ? WHERE game_id = ? AND ply = ?",
                        (new_uci, new_san, stamp, game_id, ply),
                    )
                    if new_uci != uci:
                        db.execute(
                            "INSERT INTO corrections (game_id, ply, kind, old_uci, new_uci, t) "
                            "VALUES (?, ?, 'amend', ?, ?, ?)",
                            (game_id, ply, uci, new_uci, stamp),
                        )
            for ply in range(len(stored) + 1, len(line) + 1):
                uci, san = line[ply - 1]
                db.execute(
                    "INSERT INTO moves (game_id, ply, uci, san, t) VALUES (?, ?, ?, ?, ?)",
                    (game_id, ply, uci, san, stamp),
                )
            if len(line) < len(stored):
                # A take-back past the end reopens a finished game.
                db.execute("DELETE FROM result WHERE game_id = ?", (game_id,))

    def finish(self, game_id: int, result: str, termination: str) -> None:
        """Record how the game ended (``"1-0"`` / ``"0-1"`` / ``"1/2-1/2"``, a termination)."""
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO result (game_id, result, termination, t) "
                "VALUES (?, ?, ?, ?)",
                (game_id, result, termination, _now()),
            )

    def reopen(self, game_id: int) -> None:
        """Forget a recorded result (the game goes on after all)."""
        with self._transaction() as db:
            db.execute("DELETE FROM result WHERE game_id = ?", (game_id,))

    # ------------------------------------------------------------------ reading

    def latest_game_id(self) -> int | None:
        """The newest game's number (finished or not), None when there is none."""
        row = self._db.execute("SELECT max(id) FROM games").fetchone()
        return None if row[0] is None else int(row[0])

    def games(self) -> list[GameSummary]:
        """Every game, oldest first."""
        rows = self._db.execute(
            "SELECT g.id, g.started, (SELECT count(*) FROM moves m WHERE m.game_id = g.id), "
            "r.result, r.termination FROM games g LEFT JOIN result r ON r.game_id = g.id "
            "ORDER BY g.id"
        ).fetchall()
        return [GameSummary(i, s, n, r or "*", t) for i, s, n, r, t in rows]

    def game(self, game_id: int) -> StoredGame:
        """One game, with its moves, options, result and corrections."""
        row = self._db.execute(
            "SELECT id, started, start_fen FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise NoSuchGame(f"no game {game_id} in {self.path}")
        options = dict(
            self._db.execute("SELECT name, value FROM options WHERE game_id = ?", (game_id,))
        )
        moves = [
            StoredMove(*r)
            for r in self._db.execute(
                "SELECT ply, uci, san, t FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
            )
        ]
        corrections = [
            Correction(*r)
            for r in self._db.execute(
                "SELECT ply, kind, old_uci, new_uci, t FROM corrections WHERE game_id = ? "
                "ORDER BY id",
                (game_id,),
            )
        ]
        res = self._db.execute(
            "SELECT result, termination, t FROM result WHERE game_id = ?", (game_id,)
        ).fetchone()
        result, termination, finished = res if res else ("*", None, None)
        return StoredGame(
            row[0], row[1], row[2], options, moves, result, termination, finished, corrections
        )


def _explain(path: str, exc: sqlite3.DatabaseError) -> str:
    text = str(exc)
    if "not a database" in text or "malformed" in text or "integrity" in text:
        return (
            f"{path}: the games database is damaged ({text}). Move it aside to start a "
            "new one; the games in it can sometimes be saved with `sqlite3 FILE .recover`."
        )
    if "readonly" in text or "unable to open" in text:
        return f"{path}: cannot write the games database ({text}); check its owner and mode"
    return f"{path}: cannot use the games database ({text})"


# ---------------------------------------------------------------------- games as chess


def rebuild_game(stored: StoredGame) -> rules.Game:
    """The stored game as a :class:`rules.Game`, recorded endings included.

    StoreError if a stored move is not legal where it stands (a damaged database).
    """
    import rules

    try:
        game = rules.Game(rules.Position.from_fen(stored.start_fen))
        for move in stored.moves:
            game.push(game.position.parse_uci(move.uci))
    except ValueError as exc:
        raise StoreError(f"game {stored.id}: the stored moves do not replay ({exc})") from None
    if stored.termination and game.outcome() is None:
        try:
            if stored.termination == "resignation":
                # The loser resigned: the side that did not win.
                loser = rules.BLACK if stored.result == "1-0" else rules.WHITE
                game.resign(loser)
            elif stored.termination == "agreement":
                game.agree_draw()
            elif stored.termination in ("threefold_repetition", "fifty_moves"):
                game.claim_draw()
        except ValueError as exc:
            raise StoreError(f"game {stored.id}: the stored result does not fit ({exc})") from None
    return game


def game_pgn(stored: StoredGame, *, site: str = "magboard") -> str:
    """The game as PGN text, with the Seven Tag Roster (readable by python-chess)."""
    game = rebuild_game(stored)
    date = stored.started[:10].replace("-", ".") if stored.started else "????.??.??"
    headers = {
        "Event": f"magboard game {stored.id}",
        "Site": site,
        "Date": date,
        "Round": "-",
        "White": "?",
        "Black": "?",
        "Result": stored.result,
    }
    headers.update(_legacy_engine_headers(stored.options))  # stores made before headers
    headers.update(
        {k[len("header:") :]: v for k, v in stored.options.items() if k.startswith("header:")}
    )
    return game.pgn(headers)


def _legacy_engine_headers(options: Mapping[str, str]) -> dict[str, str]:
    """PGN headers for an engine recorded the old way (``engine_side``, ``engine_name``...).

    >>> _legacy_engine_headers({"engine_side": "black", "engine_name": "Stockfish 15.1",
    ...                         "engine_level": "skill 3, depth 5", "engine_elo": "1500"})
    {'Black': 'Stockfish 15.1', 'BlackElo': '1500', 'BlackEngineLevel': 'skill 3, depth 5'}
    """
    side = options.get("engine_side", "none")
    if side not in ("white", "black"):
        return {}
    colour = side.capitalize()
    headers = {colour: options.get("engine_name", "?")}
    if options.get("engine_elo"):
        headers[f"{colour}Elo"] = options["engine_elo"]
    if options.get("engine_level"):
        headers[f"{colour}EngineLevel"] = options["engine_level"]
    return headers
