"""Saving the games a damaged store still holds, and moving the file aside.

A damaged store is never repaired in place nor overwritten. :func:`recover` reads a copy
of it (the file and its write-ahead log), game by game and, where a game's rows cannot
all be read, ply by ply; writes every game it can replay to a PGN file; and renames the
damaged file (with its ``-wal`` and ``-shm``) to ``NAME.damaged-STAMP`` beside it, so that
the daemon's next start makes a new store. Nothing is deleted.

>>> import tempfile
>>> from pathlib import Path
>>> from board_driver.service.store import Store
>>> folder = Path(tempfile.mkdtemp())
>>> with Store.open(folder / "games.sqlite") as store:
...     game_id = store.new_game()
...     store.sync_moves(game_id, [("e2e4", "e4"), ("e7e5", "e5")])
>>> import sqlite3                                  # damage: a blob where a time was
>>> with sqlite3.connect(folder / "games.sqlite") as db:
...     _ = db.execute("UPDATE moves SET t = x'00ff' WHERE ply = 2")
>>> try:
...     Store.open(folder / "games.sqlite")
... except StoreDamagedError as refusal:
...     print(refusal.what)
game 1, ply 2: t holds 2 bytes of data, not text
>>> report = recover(folder / "games.sqlite")
>>> report.saved, report.pgn.read_text().split("\\n")[-2]
(1, '1. e4 e5 *')
>>> (folder / "games.sqlite").exists(), report.moved_to.name.startswith("games.sqlite.damaged-")
(False, True)
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from board_driver.service.store_errors import (
    StoreDamagedError,
    StoreError,
    StoreRefusedError,
)
from board_driver.user_files import UnusableFile, check_regular


@dataclass
class Recovery:
    """What :func:`recover` did."""

    #: The PGN file written (every game that could be read, oldest first).
    pgn: Path
    #: Where the damaged file now is.
    moved_to: Path
    #: Games written to the PGN, whole or in part.
    saved: int = 0
    #: Games written only in part, and games not written at all, in words.
    partial: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    #: What was wrong with the store.
    damage: str = ""


def recover(path: Path | str, out: Path | str | None = None) -> Recovery:
    """Save what can be read of the damaged store ``path`` as PGN (``out``, by default
    ``NAME.recovered-STAMP.pgn`` beside it) and move the file aside.

    StoreError, with nothing done, when there is no such file, when a daemon holds it,
    when it is not damaged (its games are read by ``magboard pgn all``) or written by a
    newer magboard, or when the PGN cannot be written.
    """
    path = Path(path)
    if not os.path.lexists(path):
        raise StoreError(f"{path}: no such database (nothing to recover)")
    with _locked(path) as lock:
        with tempfile.TemporaryDirectory(prefix="magboard-recover-") as scratch:
            copy = Path(scratch) / "copy.sqlite"
            try:
                for suffix in ("", "-wal"):
                    if os.path.lexists(f"{path}{suffix}"):
                        # A games database is a regular file: a device or a FIFO (a link
                        # to /dev/zero) would be copied forever, or waited on.
                        check_regular(f"{path}{suffix}")
                        shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")
            except UnusableFile as exc:
                raise StoreError(f"{exc}, not a games database: nothing to recover") from None
            except OSError as exc:
                raise StoreError(
                    f"{path}: cannot read it to recover it ({exc.strerror})"
                ) from None
            damage = _damage(copy)
            _pad(copy)
            stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            pgn_path = Path(out) if out else path.with_name(f"{path.name}.recovered-{stamp}.pgn")
            moved_to = _free_name(path.with_name(f"{path.name}.damaged-{stamp}"))
            report = Recovery(pgn_path, moved_to)
            report.damage = damage
            texts = _read_games(copy, str(path), report)
        _write_new(pgn_path, "\n\n".join(t.rstrip("\n") for t in texts) + ("\n" if texts else ""))
        for suffix in ("", "-wal", "-shm"):
            if os.path.lexists(f"{path}{suffix}"):
                os.rename(f"{path}{suffix}", f"{report.moved_to}{suffix}")
        lock.remove = True  # its store is gone: no lock file left beside nothing
    return report


class _locked:
    """Hold the daemon's lock on the store while recovering: never under a running daemon.

    A lock file made here is removed again (removed while held, so that a daemon
    starting meanwhile either finds it held or makes a new one), and so is any once the
    store is moved aside: ``recover`` leaves no ``.lock`` behind."""

    def __init__(self, path: Path) -> None:
        self.lock_path = Path(f"{path}.lock")
        self.handle: TextIO | None = None
        #: Remove the lock file when done (it was made here, or its store is gone).
        self.remove = False

    def __enter__(self) -> _locked:
        try:
            self.remove = not os.path.lexists(self.lock_path)
            self.handle = open(self.lock_path, "a")
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if self.handle is not None:
                self.handle.close()
                raise StoreError(
                    f"{self.lock_path.with_suffix('')}: a magboard daemon is using it; stop it "
                    "first (`systemctl stop magboard`)"
                ) from None
            raise StoreError(f"{self.lock_path}: cannot create ({exc.strerror})") from None
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.handle is not None
        if self.remove:  # while still held: a daemon starting now makes a new one
            with contextlib.suppress(OSError):
                self.lock_path.unlink()
        self.handle.close()


def _damage(copy: Path) -> str:
    """What is wrong with the store (its copy); StoreError if nothing is."""
    from board_driver.service.store import Store, rebuild_game

    try:
        with Store.open(copy, create=False) as store:
            for summary in store.games():
                rebuild_game(store.game(summary.id))
    except StoreDamagedError as exc:
        return exc.what
    except StoreRefusedError as exc:
        raise StoreError(f"{exc} (nothing to recover)") from None
    raise StoreError(
        "the games database is not damaged: nothing to recover (`magboard pgn all` prints "
        "its games)"
    )


def _pad(copy: Path) -> None:
    """Give a copy cut short the length its header says (zeros): SQLite refuses every
    query of a file shorter than that, but reads the pages that are there in one that
    is not."""
    with open(copy, "r+b") as handle:
        head = handle.read(100)
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            return
        page_size = int.from_bytes(head[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        wanted = int.from_bytes(head[28:32], "big") * page_size
        if os.fstat(handle.fileno()).st_size < wanted <= 1 << 32:
            handle.truncate(wanted)


def _read_games(copy: Path, name: str, report: Recovery) -> list[str]:
    """Every game of the copy that can be replayed, as PGN text; notes in ``report``."""
    try:
        db = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    db.text_factory = bytes
    try:
        ids: set[int] = set()
        for query in ("SELECT id FROM games", "SELECT DISTINCT game_id FROM moves"):
            ids.update(i for (i,) in _rows(db, query) if isinstance(i, int))
        texts = []
        for game_id in sorted(ids):
            text = _read_game(db, game_id, report)
            if text:
                texts.append(text)
        return texts
    finally:
        db.close()


def _read_game(db: sqlite3.Connection, game_id: int, report: Recovery) -> str | None:
    import rules
    from board_driver.service.store_pgn import game_pgn
    from board_driver.service.store_records import StoredGame, StoredMove

    notes = []
    row = next(iter(_rows(db, "SELECT started, start_fen FROM games WHERE id = ?", game_id)), None)
    started, start_fen = (_text(row[0]), _text(row[1])) if row else ("", None)
    if start_fen is None:
        notes.append("its start position could not be read: taken as the standard one")
        start_fen = rules.STARTING_FEN
    ucis = [_text(uci) for _, uci in _rows(db, _MOVES, game_id)]
    if not ucis or None in ucis:  # read what the rows allow, one ply at a time
        ucis = []
        while (uci := _one(db, game_id, len(ucis) + 1)) is not None:
            ucis.append(uci)
    named = [_text(v) for (v,) in _rows(db, _VARIANT, game_id)]
    variant = next((v for v in named if v is not None and v in rules.VARIANTS), "standard")
    options = {} if variant == "standard" else {"variant": variant}
    try:
        # Every ply is read, past a dead position too (a server's game went on).
        start = rules.Position.from_fen(start_fen, variant=variant)
        game = rules.Game(start, dead_position_ends=False)
    except ValueError:
        report.lost.append(f"game {game_id}: its start position is not a position")
        return None
    for ply, uci in enumerate(ucis, 1):
        try:
            game.push(game.position.parse_uci(uci or ""))
        except ValueError:
            notes.append(f"plies from {ply} on could not be read")
            break
    stored_plies = _stored_plies(db, game_id)
    played = len(game.moves)
    if played == len(ucis) and stored_plies > played:
        notes.append(f"plies from {played + 1} on could not be read")
    result = next(iter(_rows(db, _RESULT, game_id)), None)
    headers = dict(
        (name, value)
        for name, value in ((_text(n), _text(v)) for n, v in _rows(db, _HEADERS, game_id))
        if name and value
    )
    moves = [StoredMove(i, str(m), "", "") for i, m in enumerate(game.moves, 1)]
    stored = StoredGame(game_id, started or "", start_fen, options, moves, headers=headers)
    if result and not notes and _text(result[0]) in ("1-0", "0-1", "1/2-1/2"):
        stored = StoredGame(
            game_id,
            started or "",
            start_fen,
            options,
            moves,
            _text(result[0]) or "*",
            _text(result[1]),
            headers=headers,
        )
    if notes:
        stored.headers["MagboardRecovered"] = "; ".join(notes)
        report.partial.append(f"game {game_id}: " + "; ".join(notes))
    try:
        text = game_pgn(stored)
    except (StoreError, ValueError):
        text = game_pgn(StoredGame(game_id, started or "", start_fen, options, moves, headers={}))
    report.saved += 1
    return text


_MOVES = "SELECT ply, uci FROM moves WHERE game_id = ? ORDER BY ply"
_RESULT = "SELECT result, termination FROM result WHERE game_id = ?"
_HEADERS = "SELECT name, value FROM headers WHERE game_id = ? ORDER BY rowid"
_VARIANT = "SELECT value FROM options WHERE game_id = ? AND name = 'variant'"


def _rows(db: sqlite3.Connection, query: str, *args: object) -> list[tuple]:
    """The rows a query can read before SQLite trips on a damaged page (maybe none)."""
    rows = []
    try:
        for row in db.execute(query, args):
            rows.append(row)
    except sqlite3.Error:
        pass
    return rows


def _one(db: sqlite3.Connection, game_id: int, ply: int) -> str | None:
    found = _rows(db, "SELECT uci FROM moves WHERE game_id = ? AND ply = ?", game_id, ply)
    return _text(found[0][0]) if found else None


def _stored_plies(db: sqlite3.Connection, game_id: int) -> int:
    found = _rows(db, "SELECT max(ply) FROM moves WHERE game_id = ?", game_id)
    return found[0][0] if found and isinstance(found[0][0], int) else 0


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value if isinstance(value, str) else None


def _free_name(path: Path) -> Path:
    candidate, n = path, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate


def _write_new(path: Path, text: str) -> None:
    """Write ``text`` to a file that must not exist yet, on disk before returning."""
    try:
        with open(path, "x", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
    except FileExistsError:
        raise StoreError(f"{path}: already exists; name another file with --out") from None
    except OSError as exc:
        if os.path.exists(path):
            os.unlink(path)
        raise StoreError(
            f"{path}: cannot write the recovered games ({exc.strerror}); nothing was moved"
        ) from None
