"""Where games are kept: one SQLite file (stdlib ``sqlite3``), WAL, ``synchronous=FULL``.

Every change to a game is one transaction that is on disk when the call returns, so the
daemon stores a move before its LEDs confirm it and a power cut loses nothing the
board has shown as done. After a crash SQLite replays its write-ahead log on open.

Tables (see :mod:`board_driver.service.store_schema`): ``games`` (start position, when),
``options`` (the game's options), ``moves`` (the line as it stands: a take-back deletes,
an amendment rewrites), ``result`` (how a finished game ended), ``corrections`` (every
take-back and amendment, kept as history), ``headers`` (PGN headers set for a game),
``game_data`` (a few texts per game for each extension), ``review`` (an engine's score
and best move after each ply: :meth:`Store.set_review`) and ``clock_log`` (every change
of a game's clock, written with the move that made it).

>>> store = Store.open(":memory:")
>>> game_id = store.new_game("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
>>> store.sync_moves(game_id, [("e2e4", "e4"), ("e7e5", "e5")])
>>> [m.san for m in store.game(game_id).moves]
['e4', 'e5']
>>> store.sync_moves(game_id, [("e2e4", "e4")])      # a take-back
>>> store.game(game_id).corrections[0].kind
'takeback'
>>> store.set_headers(game_id, {"White": "Ada", "Black": "Grace"})
>>> store.set_game_data(game_id, "lichess", {"game": "q7ZvsdUF", "accepted_ply": "1"})
>>> store.game_data(game_id, "lichess")
{'accepted_ply': '1', 'game': 'q7ZvsdUF'}
>>> [g.id for g in store.unfinished_games()]
[1]

**What can go wrong** is a :class:`StoreError` each (see
:mod:`board_driver.service.store_errors`): a damaged file is refused and kept
(:class:`StoreDamagedError`, recovered by ``magboard store recover``), one of a newer
magboard refused (:class:`StoreTooNewError`), and a write that fails (a full disk) is a
:class:`StoreWriteError` after which nothing of that call is stored and the same call can
be made again. An older schema is migrated on open.
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
from collections.abc import Mapping, Sequence

from board_driver.clock.keeper import ClockEntry
from board_driver.door.config_values import quote
from board_driver.door.review import ReviewedPly, Score
from board_driver.service import store_schema
from board_driver.service.store_connection import StoreConnection
from board_driver.service.store_errors import (
    EXIT_STORE_REFUSED,
    NoSuchGame,
    StoreDamagedError,
    StoreError,
    StoreRefusedError,
    StoreTooNewError,
    StoreWriteError,
)
from board_driver.service.store_pgn import game_pgn, rebuild_game
from board_driver.service.store_records import Correction, GameSummary, StoredGame, StoredMove
from board_driver.service.store_schema import SCHEMA_VERSION
from board_driver.service.store_values import (
    GAME_DATA_LIMITS,
    data_key,
    data_value,
    header_name,
    header_value,
)
from rules import STARTING_FEN

__all__ = [
    "EXIT_STORE_REFUSED",
    "SCHEMA_VERSION",
    "Correction",
    "GameSummary",
    "NoSuchGame",
    "Store",
    "StoreDamagedError",
    "StoreError",
    "StoreRefusedError",
    "StoreTooNewError",
    "StoreWriteError",
    "StoredGame",
    "StoredMove",
    "game_pgn",
    "rebuild_game",
]



def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Store(StoreConnection):
    """A connection to the games database, and the games in it. Use :meth:`open`.

    ``version`` is the file's schema version: :data:`SCHEMA_VERSION`, or an older one for
    a store opened read-only (``magboard games`` never migrates a file).
    """

    def _require(self, db: sqlite3.Connection, game_id: int) -> None:
        self._known_number(game_id)
        if db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
            raise NoSuchGame(f"no game {game_id} in {self.path}")

    def new_game(
        self, start_fen: str = STARTING_FEN, options: Mapping[str, str] | None = None
    ) -> int:
        """Start a game; returns its number."""
        with self._writing() as db:
            cursor = db.execute(
                "INSERT INTO games (started, start_fen) VALUES (?, ?)", (_now(), start_fen)
            )
            game_id = int(cursor.lastrowid or 0)
            for name, value in (options or {}).items():
                db.execute(
                    "INSERT INTO options (game_id, name, value) VALUES (?, ?, ?)",
                    (game_id, name, str(value)),
                )
            self._put_on_board(db, game_id)
        return game_id

    def put_on_board(self, game_id: int) -> None:
        """Make game ``game_id`` the one on the board (an adjourned game resumed), so that
        :meth:`game_on_board` names it after a restart. NoSuchGame if there is none."""
        with self._writing() as db:
            self._require(db, game_id)
            self._put_on_board(db, game_id)

    def _known_number(self, game_id: object) -> None:
        """NoSuchGame for what cannot be a game's number (SQLite's integers are 64-bit:
        a larger number would be an OverflowError, not a game missing)."""
        if isinstance(game_id, bool) or not isinstance(game_id, int) or not 0 < game_id < 2**63:
            small = isinstance(game_id, int) and abs(game_id) < 10**24
            shown = game_id if small else "(not a game number)"
            raise NoSuchGame(f"no game {shown} in {self.path}")

    @staticmethod
    def _put_on_board(db: sqlite3.Connection, game_id: int) -> None:
        db.execute("DELETE FROM on_board")
        db.execute("INSERT INTO on_board (game_id, t) VALUES (?, ?)", (game_id, _now()))

    def set_options(self, game_id: int, options: Mapping[str, str]) -> None:
        """Add or change a game's options (the web page's settings, the engine that plays a
        side), in one transaction."""
        with self._writing() as db:
            self._require(db, game_id)
            for name, value in options.items():
                db.execute(
                    "INSERT INTO options (game_id, name, value) VALUES (?, ?, ?) "
                    "ON CONFLICT (game_id, name) DO UPDATE SET value = excluded.value",
                    (game_id, name, str(value)),
                )

    def sync_moves(
        self,
        game_id: int,
        line: Sequence[tuple[str, str]],
        clock: Sequence[ClockEntry] = (),
    ) -> None:
        """Make the stored line ``line`` (``(uci, san)`` per ply) in one transaction, with
        the clock's changes that came with it (``clock``: a move's switch, a take-back's).

        Appended plies are new moves; plies that disappear are take-backs; a ply whose
        move changed (a promotion amended, a rook move that became castling) is an
        amendment. Take-backs and amendments are kept in ``corrections``; a review of the
        plies from the first one changed on is dropped (it was of another line). After a
        :class:`StoreWriteError` the same call can simply be made again.
        """
        stamp = _now()
        with self._writing() as db:
            self._require(db, game_id)
            self._log_clock(db, game_id, clock, stamp)
            stored = db.execute(
                "SELECT ply, uci, san FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
            ).fetchall()
            changed = next(
                (
                    ply
                    for ply, uci, _san in stored
                    if ply > len(line) or uci != line[ply - 1][0]
                ),
                None,
            )
            if changed is not None:
                db.execute(
                    "DELETE FROM review WHERE game_id = ? AND ply >= ?", (game_id, changed)
                )
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

    def log_clock(self, game_id: int, entries: Sequence[ClockEntry]) -> None:
        """Keep changes of a game's clock (a pause, an adjustment), in one transaction."""
        with self._writing() as db:
            self._require(db, game_id)
            self._log_clock(db, game_id, entries, _now())

    @staticmethod
    def _log_clock(
        db: sqlite3.Connection, game_id: int, entries: Sequence[ClockEntry], stamp: str
    ) -> None:
        for e in entries:
            db.execute(
                "INSERT INTO clock_log (game_id, ply, kind, white_ms, black_ms, note, t) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, e.ply, e.kind, e.white_ms, e.black_ms, e.note[:64], stamp),
            )

    def finish(self, game_id: int, result: str, termination: str) -> None:
        """Record how the game ended (``"1-0"`` / ``"0-1"`` / ``"1/2-1/2"``, a termination)."""
        with self._writing() as db:
            self._require(db, game_id)
            db.execute(
                "INSERT OR REPLACE INTO result (game_id, result, termination, t) "
                "VALUES (?, ?, ?, ?)",
                (game_id, result, termination, _now()),
            )

    def reopen(self, game_id: int) -> None:
        """Forget a recorded result (the game goes on after all)."""
        with self._writing() as db:
            db.execute("DELETE FROM result WHERE game_id = ?", (game_id,))

    def set_headers(self, game_id: int, headers: Mapping[str, str]) -> None:
        """Set PGN headers of a game (``Event``, ``White``, ``WhiteElo``, ...); ``""`` removes
        one. They are written by :func:`game_pgn`, over magboard's own.

        ValueError names a bad header (a name PGN cannot hold, a line break in a value,
        ``Result``/``FEN``/``SetUp``, which the game itself sets); nothing is stored then.
        """
        checked = [
            (header_name(name), header_value(name, value)) for name, value in headers.items()
        ]
        with self._writing() as db:
            self._require(db, game_id)
            for name, value in checked:
                if value:
                    db.execute(
                        "INSERT INTO headers (game_id, name, value) VALUES (?, ?, ?) "
                        "ON CONFLICT (game_id, name) DO UPDATE SET value = excluded.value",
                        (game_id, name, value),
                    )
                else:
                    db.execute(
                        "DELETE FROM headers WHERE game_id = ? AND name = ?", (game_id, name)
                    )

    def set_game_data(self, game_id: int, name: str, data: Mapping[str, str | None]) -> None:
        """Keep a few texts with a game for extension ``name`` (an online game's id, the last
        ply a server accepted): each key given is set, a ``None`` value removes it, the
        other keys stay. One transaction, like a move.

        ValueError for more than the limits of :data:`GAME_DATA_LIMITS` (32 keys of up to
        64 characters, values of up to 4096) or anything but text; nothing is stored then.
        """
        extension = data_key("extension name", name)
        checked = [(data_key("key", key), data_value(key, value)) for key, value in data.items()]
        with self._writing() as db:
            self._require(db, game_id)
            for key, value in checked:
                if value is None:
                    db.execute(
                        "DELETE FROM game_data WHERE game_id = ? AND extension = ? AND name = ?",
                        (game_id, extension, key),
                    )
                else:
                    db.execute(
                        "INSERT INTO game_data (game_id, extension, name, value) "
                        "VALUES (?, ?, ?, ?) ON CONFLICT (game_id, extension, name) "
                        "DO UPDATE SET value = excluded.value",
                        (game_id, extension, key, value),
                    )
            count = db.execute(
                "SELECT count(*) FROM game_data WHERE game_id = ? AND extension = ?",
                (game_id, extension),
            ).fetchone()[0]
            if count > GAME_DATA_LIMITS["names"]:
                raise ValueError(
                    f"game data of {quote(extension)}: {count} keys, more than "
                    f"{GAME_DATA_LIMITS['names']} (nothing stored)"
                )

    def set_review(self, game_id: int, plies: Sequence[ReviewedPly]) -> None:
        """Keep an engine's review of positions of a game (each replaces what was kept for
        its ply), in one transaction. NoSuchGame if there is no such game."""
        stamp = _now()
        with self._writing() as db:
            self._require(db, game_id)
            for entry in plies:
                db.execute(
                    "INSERT OR REPLACE INTO review (game_id, ply, uci, cp, mate, best, depth, t) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game_id,
                        entry.ply,
                        entry.uci,
                        entry.score.cp,
                        entry.score.mate,
                        entry.best,
                        entry.depth,
                        stamp,
                    ),
                )

    def review(self, game_id: int) -> list[ReviewedPly]:
        """What was reviewed of a game, by ply (empty when nothing; the caller compares
        each ply's ``uci`` with the game's moves: a take-back may have made one stale).

        >>> store = Store.open(":memory:")
        >>> game_id = store.new_game()
        >>> store.set_review(game_id, [ReviewedPly(0, None, Score(cp=20), "e2e4", 12)])
        >>> store.review(game_id)[0].score
        Score(cp=20, mate=None)
        """
        if "review" not in self._tables:  # an older store opened read-only
            return []
        with self._reading() as db:
            self._require(db, game_id)
            # Only rows of the shapes magboard writes: the review is worked out again
            # where one is not (a row out of shape never makes the store damaged).
            rows = db.execute(
                "SELECT ply, uci, cp, mate, best, depth FROM review WHERE game_id = ? AND "
                f"{store_schema.REVIEW_ROWS} ORDER BY ply",
                (game_id,),
            ).fetchall()
        return [
            ReviewedPly(ply, uci, Score(cp=cp, mate=mate), best, depth)
            for ply, uci, cp, mate, best, depth in rows
        ]

    # ------------------------------------------------------------------ reading

    def latest_game_id(self) -> int | None:
        """The newest game's number (finished or not), None when there is none."""
        with self._reading() as db:
            row = db.execute("SELECT max(id) FROM games").fetchone()
        return None if row[0] is None else int(row[0])

    def started(self, game_id: int) -> str:
        """When game ``game_id`` was started (NoSuchGame if there is none)."""
        self._known_number(game_id)
        with self._reading() as db:
            row = db.execute("SELECT started FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NoSuchGame(f"no game {game_id} in {self.path}")
        return str(row[0])

    def game_on_board(self) -> int | None:
        """The game on the board when the daemon stopped: the last one started or resumed
        (the newest game in a store that never said), None when there is none.

        >>> store = Store.open(":memory:")
        >>> first, second = store.new_game(), store.new_game()
        >>> store.put_on_board(first)
        >>> store.game_on_board() == first
        True
        """
        if "on_board" not in self._tables:  # an older store opened read-only
            return self.latest_game_id()
        with self._reading() as db:
            row = db.execute(
                "SELECT o.game_id FROM on_board o JOIN games g ON g.id = o.game_id "
                "ORDER BY o.rowid DESC LIMIT 1"
            ).fetchone()
        return int(row[0]) if row is not None else self.latest_game_id()

    def games(self) -> list[GameSummary]:
        """Every game, oldest first."""
        return self._summaries("")

    def unfinished_games(self) -> list[GameSummary]:
        """The games that are not over, oldest first: adjourned games that can be resumed."""
        return self._summaries("WHERE r.result IS NULL")

    def _summaries(self, where: str) -> list[GameSummary]:
        with self._reading() as db:
            rows = db.execute(
                "SELECT g.id, g.started, (SELECT count(*) FROM moves m WHERE m.game_id = g.id), "
                f"r.result, r.termination FROM games g LEFT JOIN result r ON r.game_id = g.id "
                f"{where} ORDER BY g.id"
            ).fetchall()
        return [GameSummary(i, s, n, r or "*", t) for i, s, n, r, t in rows]

    def game(self, game_id: int) -> StoredGame:
        """One game, with its moves, options, result, corrections, headers and data."""
        self._known_number(game_id)
        with self._reading() as db:
            row = db.execute(
                "SELECT id, started, start_fen FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise NoSuchGame(f"no game {game_id} in {self.path}")
            options = dict(
                db.execute("SELECT name, value FROM options WHERE game_id = ?", (game_id,))
            )
            moves = [
                StoredMove(*r)
                for r in db.execute(
                    "SELECT ply, uci, san, t FROM moves WHERE game_id = ? ORDER BY ply",
                    (game_id,),
                )
            ]
            corrections = [
                Correction(*r)
                for r in db.execute(
                    "SELECT ply, kind, old_uci, new_uci, t FROM corrections WHERE game_id = ? "
                    "ORDER BY id",
                    (game_id,),
                )
            ]
            res = db.execute(
                "SELECT result, termination, t FROM result WHERE game_id = ?", (game_id,)
            ).fetchone()
            headers: dict[str, str] = {}
            data: dict[str, dict[str, str]] = {}
            if "headers" in self._tables:  # an older store opened read-only has none
                headers = dict(
                    db.execute(
                        "SELECT name, value FROM headers WHERE game_id = ? ORDER BY rowid",
                        (game_id,),
                    )
                )
            clock = []
            if "clock_log" in self._tables:  # an older store opened read-only has none
                clock = [
                    ClockEntry(*row)
                    for row in db.execute(
                        "SELECT ply, kind, white_ms, black_ms, note FROM clock_log "
                        "WHERE game_id = ? ORDER BY id",
                        (game_id,),
                    )
                ]
            if "game_data" in self._tables:
                for extension, key, value in db.execute(
                    "SELECT extension, name, value FROM game_data WHERE game_id = ? "
                    "ORDER BY extension, name",
                    (game_id,),
                ):
                    data.setdefault(extension, {})[key] = value
        result, termination, finished = res if res else ("*", None, None)
        return StoredGame(
            row[0],
            row[1],
            row[2],
            options,
            moves,
            result,
            termination,
            finished,
            corrections,
            headers,
            data,
            self.path,
            clock,
        )

    def all_game_data(self, name: str) -> dict[int, dict[str, str]]:
        """What extension ``name`` keeps with each game, by game number (games with
        nothing left out)."""
        if "game_data" not in self._tables:
            return {}
        found: dict[int, dict[str, str]] = {}
        with self._reading() as db:
            rows = db.execute(
                "SELECT game_id, name, value FROM game_data WHERE extension = ? "
                "ORDER BY game_id, name",
                (name,),
            )
            for game_id, key, value in rows:
                found.setdefault(game_id, {})[key] = value
        return found

    def game_data(self, game_id: int, name: str) -> dict[str, str]:
        """What extension ``name`` keeps with a game (empty when nothing)."""
        if "game_data" not in self._tables:
            return {}
        with self._reading() as db:
            self._require(db, game_id)
            return dict(
                db.execute(
                    "SELECT name, value FROM game_data WHERE game_id = ? AND extension = ? "
                    "ORDER BY name",
                    (game_id, name),
                )
            )


