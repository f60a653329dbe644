"""Damaged stores, the attack way: every kind of damage is refused with a message that says
what and where, the file is left byte for byte as it was, nothing starts a new game over
it, and ``magboard store recover`` saves what can be read.

The damage is made to a store written by the store's own code (four games, headers and
game data): truncations, bytes scribbled over SQLite's page headers, bad UTF-8 and blobs
and numbers where text belongs, dropped tables and columns, orphan rows, gaps in a game's
plies, moves that are not moves, a schema from a newer magboard.
"""

from __future__ import annotations

import io
import os
import random
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from board_driver.service.store import (
    EXIT_STORE_REFUSED,
    Store,
    StoreDamagedError,
    StoreRefusedError,
    StoreTooNewError,
    rebuild_game,
)
from tests.board_driver.daemon_process import run_magboard, write_config

PAGE = 4096
SANS = {
    "mate": ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"],
    "long": ["d4", "d5", "c4", "e6", "Nc3", "Nf6", "Bg5", "Be7", "e3", "O-O"] * 1,
    "promo": ["a8=R+", "Kd7"],
    "empty": [],
}


def _make_store(path: Path) -> dict[int, list[str]]:
    """A store made by the store's own code; returns each game's moves (UCI)."""
    import rules

    games = {}
    with Store.open(path) as store:
        for name, sans in SANS.items():
            fen = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1" if name == "promo" else rules.STARTING_FEN
            game = rules.Game(rules.Position.from_fen(fen))
            for san in sans:
                game.push_san(san)
            gid = store.new_game(fen, {"touch_move": "warn"})
            line = list(zip(map(str, game.moves), game.san_moves(), strict=True))
            store.sync_moves(gid, line)
            if game.outcome():
                store.finish(gid, game.outcome().result(), game.outcome().termination)
            store.set_headers(gid, {"White": f"Ada {name}", "Event": "club night"})
            store.set_game_data(gid, "lichess", {"game": f"id{gid}", "accepted_ply": "3"})
            games[gid] = [m for m, _ in line]
        # Many plies, so that the moves table spans pages of its own: a seeded random game.
        rng, game = random.Random(5), rules.Game()
        while len(game.moves) < 260 and game.outcome() is None:
            game.push(rng.choice(sorted(game.position.legal_moves(), key=str)))
        gid = store.new_game()
        line = list(zip(map(str, game.moves), game.san_moves(), strict=True))
        store.sync_moves(gid, line)
        games[gid] = [m for m, _ in line]
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return games


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> tuple[bytes, dict[int, list[str]]]:
    path = tmp_path_factory.mktemp("template") / "games.sqlite"
    games = _make_store(path)
    return path.read_bytes(), games


def _sql(statements: str, *, foreign_keys: bool = False) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        for phase in statements.split("||"):  # a new connection reads an edited schema
            db = sqlite3.connect(path, isolation_level=None)
            db.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
            for statement in phase.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.close()

    damage.__doc__ = statements
    return damage


# Each column that holds text, with a row to spoil in it.
_TEXT_COLUMNS = [
    ("games", "started", "id = 2"),
    ("games", "start_fen", "id = 3"),
    ("options", "name", "game_id = 1"),
    ("options", "value", "game_id = 2"),
    ("moves", "uci", "game_id = 1 AND ply = 3"),
    ("moves", "san", "game_id = 2 AND ply = 5"),
    ("moves", "t", "game_id = 5 AND ply = 200"),
    ("result", "result", "game_id = 1"),
    ("result", "termination", "game_id = 1"),
    ("result", "t", "game_id = 1"),
    ("headers", "name", "game_id = 2"),
    ("headers", "value", "game_id = 3"),
    ("game_data", "extension", "game_id = 1"),
    ("game_data", "name", "game_id = 4"),
    ("game_data", "value", "game_id = 2"),
]
#: Text columns whose text has a shape (a time, a move, a result, a position).
_SHAPED = ("started", "start_fen", "uci", "t", "result")
_INT_COLUMNS = [("moves", "ply", "game_id = 1 AND ply = 2"), ("options", "game_id", "rowid = 1")]
_BAD_VALUES = {
    "bad UTF-8": "CAST(x'c328ff61' AS TEXT)",
    "a blob": "x'00ff10'",
    "a number": "12.5",
    "an integer": "7",
    "NULL": "NULL",
    "a long text": "printf('%.20000c', 'a')",
}


def _logical_cases() -> list[tuple[str, Callable[[Path], None]]]:
    cases = []
    for table, column, where in _TEXT_COLUMNS:
        for what, value in _BAD_VALUES.items():
            if what in ("a number", "an integer") and column not in _SHAPED:
                continue  # a TEXT column stores the number as its text: "7" is free text
            if what == "a long text" and column not in ("uci", "san", "t", "start_fen"):
                continue
            sql = (
                f"UPDATE {table} SET {column} = {value} "
                f"WHERE rowid IN (SELECT rowid FROM {table} WHERE {where} LIMIT 1)"
            )
            if what == "NULL":  # NOT NULL columns: only a hand-edited schema lets it in
                sql = (
                    "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = "
                    "replace(sql, 'NOT NULL', '') "
                    f"WHERE name = '{table}'; PRAGMA writable_schema = OFF || {sql}"
                )
            cases.append((f"{table}.{column}: {what}", _sql(sql)))
    for table, column, where in _INT_COLUMNS:
        for what in ("bad UTF-8", "a blob", "a number"):
            sql = f"UPDATE {table} SET {column} = {_BAD_VALUES[what]} WHERE {where}"
            cases.append((f"{table}.{column}: {what}", _sql(sql)))
    for table in ("games", "options", "moves", "result", "corrections", "headers", "game_data"):
        cases.append((f"table {table} dropped", _sql(f"DROP TABLE {table}")))
        cases.append((f"table {table} renamed", _sql(f"ALTER TABLE {table} RENAME TO {table}_old")))
    for table, column in [("moves", "san"), ("games", "start_fen"), ("corrections", "kind")]:
        cases.append(
            (f"column {table}.{column} dropped", _sql(f"ALTER TABLE {table} DROP {column}"))
        )
    cases += [
        (
            "a move of no game",
            _sql("INSERT INTO moves VALUES (99, 1, 'e2e4', 'e4', '2025-01-01T00:00:00Z')"),
        ),
        (
            "a result of no game",
            _sql("INSERT INTO result VALUES (98, '1-0', 'x', '2025-01-01T00:00:00Z')"),
        ),
        ("a gap in the plies", _sql("DELETE FROM moves WHERE game_id = 1 AND ply = 3")),
        ("plies from 0", _sql("UPDATE moves SET ply = ply - 1 WHERE game_id = 2")),
        (
            "a move that is not one",
            _sql("UPDATE moves SET uci = 'z9z9' WHERE game_id = 1 AND ply = 2"),
        ),
        ("a result that is not one", _sql("UPDATE result SET result = '2-0'")),
        ("a time that is not one", _sql("UPDATE games SET started = 'yesterday' WHERE id = 1")),
        ("an illegal move", _sql("UPDATE moves SET uci = 'e2e5' WHERE game_id = 1 AND ply = 1")),
        ("a FEN that is not one", _sql("UPDATE games SET start_fen = 'not a fen' WHERE id = 1")),
        ("not magboard's (version 0)", _sql("PRAGMA user_version = 0")),
        (
            "schema text garbled",
            _sql(
                "PRAGMA writable_schema = ON; UPDATE sqlite_master "
                "SET sql = 'CREATE TABLE moves (' WHERE name = 'moves'; "
                "PRAGMA writable_schema = OFF"
            ),
        ),
        (
            "another app's database",
            _sql(
                "DROP TABLE corrections; DROP TABLE result; DROP TABLE headers; DROP TABLE "
                "game_data; DROP TABLE options; DROP TABLE moves; DROP TABLE games; "
                "CREATE TABLE notes (x); PRAGMA user_version = 0"
            ),
        ),
    ]
    return cases


def _truncation_cases(size: int) -> list[tuple[str, Callable[[Path], None]]]:
    lengths = [0, 1, 2, 15, 16, 50, 99, 100, 101, 512, PAGE - 1, PAGE, PAGE + 1]
    lengths += [PAGE * k for k in range(2, size // PAGE)]
    lengths += [PAGE * k + 1000 for k in range(1, size // PAGE, 2)]
    lengths += [size - 1, size - 100]

    def cut(length: int) -> Callable[[Path], None]:
        def damage(path: Path) -> None:
            os.truncate(path, length)

        return damage

    return [(f"cut to {n} bytes", cut(n)) for n in sorted(set(lengths)) if n < size]


def _scribble_cases(size: int, count: int) -> list[tuple[str, Callable[[Path], None]]]:
    """Bytes scribbled over the file header's fields and over pages' b-tree headers (where
    SQLite finds the damage), seeded."""
    rng = random.Random(173)
    cases = []
    header_fields = [(16, 2), (18, 2), (21, 3), (28, 4), (44, 4), (56, 4)]
    for offset, length in header_fields:
        cases.append((f"header bytes {offset}..{offset + length - 1}", offset, length))
    pages = size // PAGE
    while len(cases) < count:
        page = rng.randrange(1, pages)
        offset = page * PAGE + rng.choice([0, 1, 3, 5, 7])
        cases.append((f"page {page + 1} header at +{offset % PAGE}", offset, rng.randrange(1, 9)))

    def scribble(offset: int, length: int, seed: int) -> Callable[[Path], None]:
        def damage(path: Path) -> None:
            data = bytearray(path.read_bytes())
            noise = random.Random(seed).randbytes(length)
            data[offset : offset + length] = bytes(
                b ^ (n | 1) for b, n in zip(data[offset:], noise, strict=False)
            )
            path.write_bytes(bytes(data))

        return damage

    return [(name, scribble(o, n, i)) for i, (name, o, n) in enumerate(cases)]


def _all_cases(size: int) -> list[tuple[str, Callable[[Path], None]]]:
    return [*_logical_cases(), *_truncation_cases(size), *_scribble_cases(size, 60)]


def _open_and_read(path: Path) -> None:
    """What the daemon does at start: open, then replay the game it resumes."""
    with Store.open(path) as store:
        for summary in store.games():
            rebuild_game(store.game(summary.id))


def test_every_kind_of_damage_is_refused_with_what_and_where_and_the_file_kept(template, tmp_path):
    """194 damaged databases (97 logical, 37 truncations, 60 scribbles), each opened as the
    daemon opens its store: every one refused (damaged, or too new), the message naming
    the file and what is wrong, with `magboard store recover`; the file byte for byte as
    it was; never a traceback of sqlite3's, never a new game over it."""
    data, _games = template
    (tmp_path / "sound.sqlite").write_bytes(data)
    _open_and_read(tmp_path / "sound.sqlite")  # the store before the damage is sound
    cases = _all_cases(len(data))
    assert len(cases) >= 173  # at least as many as the attack run tried
    failures, seconds = [], []
    for i, (name, damage) in enumerate(cases):
        path = tmp_path / f"case{i}.sqlite"
        path.write_bytes(data)
        damage(path)
        before = path.read_bytes()
        started = time.perf_counter()
        try:
            _open_and_read(path)
        except StoreDamagedError as exc:
            message = str(exc)
            if str(path) not in message or "store recover" not in message or not exc.what:
                failures.append(f"{name}: {message}")
            if len(message) > 600:
                failures.append(f"{name}: a message of {len(message)} characters")
        except StoreRefusedError:
            pass
        except Exception as exc:  # anything else is a failure of this test
            failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
        else:
            failures.append(f"{name}: opened as if sound")
        seconds.append(time.perf_counter() - started)
        if path.read_bytes() != before:
            failures.append(f"{name}: the file was changed")
        for extra in ("-wal", "-shm"):
            Path(f"{path}{extra}").unlink(missing_ok=True)
    assert not failures, "\n".join(failures)
    assert max(seconds) < 2.0, max(seconds)


def test_a_newer_schema_is_refused_untouched_and_an_older_one_migrated(tmp_path):
    newer = tmp_path / "newer.sqlite"
    with Store.open(newer) as store:
        store.new_game()
    _sql("PRAGMA user_version = 7")(newer)
    before = newer.read_bytes()
    with pytest.raises(StoreTooNewError, match=r"newer magboard.*schema 7"):
        Store.open(newer)
    assert newer.read_bytes() == before


@pytest.mark.parametrize("length", [0, 1])
def test_a_store_cut_to_nothing_is_damaged_not_a_new_store(tmp_path, length):
    path = tmp_path / "games.sqlite"
    path.write_bytes(b"S"[:length])
    with pytest.raises(StoreDamagedError, match=f"{length} bytes? long, cut short"):
        Store.open(path)
    assert path.read_bytes() == b"S"[:length]


def test_the_daemon_refuses_a_damaged_store_with_the_exit_code_the_unit_does_not_restart(
    template, tmp_path
):
    """`magboard run` on a damaged store: exit 65, which the unit's RestartPreventExitStatus
    lists; the message says what, where, and how to recover; the file is unchanged."""
    config = write_config(tmp_path)
    store = tmp_path / "games.sqlite"
    store.write_bytes(b"")  # cut to nothing: before, a new game 1 started over it
    result = run_magboard("run", "--sim", "--config", str(config))
    assert result.returncode == EXIT_STORE_REFUSED, result.stderr
    assert "damaged" in result.stderr and "store recover" in result.stderr
    assert "Traceback" not in result.stderr
    assert store.read_bytes() == b""

    unit = (Path(__file__).resolve().parents[3] / "systemd" / "magboard.service").read_text()
    prevent = [
        line.split("=", 1)[1].split()
        for line in unit.splitlines()
        if line.startswith("RestartPreventExitStatus=")
    ]
    assert [str(EXIT_STORE_REFUSED) in codes for codes in prevent] == [True]


def test_recover_saves_the_readable_games_and_moves_the_file_aside(template, tmp_path):
    """A damaged store (one move of game 5 unreadable: bad UTF-8): `magboard store recover`
    writes every game python-chess can read back, game 5 up to the damage, moves the file
    aside (nothing deleted), and the next open makes a new store."""
    import chess.pgn

    data, games = template
    path = tmp_path / "games.sqlite"
    path.write_bytes(data)
    _sql("UPDATE moves SET san = CAST(x'c328' AS TEXT) WHERE game_id = 5 AND ply = 101")(path)
    damaged_bytes = path.read_bytes()
    check = run_magboard("store", "check", "--store", str(path))
    assert check.returncode == EXIT_STORE_REFUSED
    assert "game 5, ply 101: san is not UTF-8" in check.stderr, check.stderr

    result = run_magboard("store", "recover", "--store", str(path))
    assert result.returncode == 0, result.stderr
    assert not path.exists()
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("games.sqlite.damaged-")]
    assert [p.read_bytes() for p in aside if not p.name.endswith(("-wal", "-shm"))] == [
        damaged_bytes
    ]
    pgn = [p for p in tmp_path.iterdir() if p.name.endswith(".pgn")]
    assert len(pgn) == 1 and str(pgn[0]) in result.stdout
    stream = io.StringIO(pgn[0].read_text())
    read = []
    while (game := chess.pgn.read_game(stream)) is not None:
        read.append(game)
    assert [g.headers["Event"] for g in read] == ["club night"] * 4 + ["magboard game 5"]
    for gid, game in enumerate(read, 1):
        ucis = [m.uci() for m in game.mainline_moves()]
        if gid == 5:  # san is not replayed: the uci is whole, so every ply is saved
            assert ucis == games[5]
        else:
            assert ucis == games[gid]
            assert game.headers["White"] == f"Ada {list(SANS)[gid - 1]}"
    assert read[0].headers["Result"] == "1-0"

    with Store.open(path) as fresh:
        assert fresh.games() == []


def test_recover_of_a_store_cut_short_keeps_the_games_before_the_cut(template, tmp_path):
    """The last page lost: the games that can be read are saved, each move as stored (a
    game may stop short, never go wrong)."""
    import chess.pgn

    data, games = template
    path = tmp_path / "games.sqlite"
    path.write_bytes(data[: len(data) - PAGE])
    out = tmp_path / "o.pgn"
    result = run_magboard("store", "recover", "--store", str(path), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "moved the damaged store" in result.stdout and not path.exists()
    stream = io.StringIO(out.read_text())
    saved = 0
    while (game := chess.pgn.read_game(stream)) is not None:
        gid = int(game.headers["Event"].split()[-1]) if "magboard" in game.headers["Event"] else 0
        ucis = [m.uci() for m in game.mainline_moves()]
        assert any(ucis == moves[: len(ucis)] for moves in games.values()), (gid, ucis)
        saved += 1
    assert saved >= 1 and f"saved {saved} game" in result.stdout


@pytest.mark.parametrize(
    ("prepare", "complaint"),
    [
        ("sound", "not damaged: nothing to recover"),
        ("missing", "no such database"),
    ],
)
def test_recover_does_nothing_to_a_sound_or_missing_store(template, tmp_path, prepare, complaint):
    path = tmp_path / "games.sqlite"
    if prepare == "sound":
        path.write_bytes(template[0])
    result = run_magboard("store", "recover", "--store", str(path))
    assert result.returncode == 1
    assert complaint in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == (
        ["games.sqlite"] if prepare == "sound" else []
    )


def test_recover_refuses_while_a_daemon_holds_the_store(template, tmp_path):
    import fcntl

    path = tmp_path / "games.sqlite"
    path.write_bytes(b"")
    with open(f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = run_magboard("store", "recover", "--store", str(path))
    assert result.returncode == 1 and "daemon is using it" in result.stderr
    assert path.exists()


def test_store_check_says_ok_for_a_sound_store(template, tmp_path):
    path = tmp_path / "games.sqlite"
    path.write_bytes(template[0])
    result = run_magboard("store", "check", "--store", str(path))
    assert result.returncode == 0, result.stderr
    plies = sum(len(moves) for moves in template[1].values())
    assert result.stdout.startswith(f"ok: {path}, {len(template[1])} games, {plies} plies, ")


def _recover_every(template, tmp_path, step: int) -> None:
    import chess.pgn

    from board_driver.service.store_recovery import recover

    data, games = template
    failures, saved = [], 0
    for i, (name, damage) in enumerate(_all_cases(len(data))[::step]):
        path = tmp_path / f"case{i}.sqlite"
        path.write_bytes(data)
        damage(path)
        before = path.read_bytes()
        try:
            report = recover(path)
        except Exception as exc:
            failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        if Path(report.moved_to).read_bytes() != before:
            failures.append(f"{name}: the file moved aside is not the damaged file")
        stream = io.StringIO(report.pgn.read_text())
        while (game := chess.pgn.read_game(stream)) is not None:
            ucis = [m.uci() for m in game.mainline_moves()]
            if not any(ucis == moves[: len(ucis)] for moves in games.values()):
                failures.append(f"{name}: a game saved with moves never stored: {ucis[:8]}")
            saved += 1
    assert not failures, "\n".join(failures)
    assert saved > 0


def test_recover_saves_only_moves_that_were_stored(template, tmp_path):
    """`recover` on every 10th of the damaged databases (20): never an error of its own,
    the damaged file moved aside byte for byte, and every game saved is a stored game or
    the start of one (a move is never made up)."""
    _recover_every(template, tmp_path, 10)


@pytest.mark.slow
def test_recover_saves_only_moves_that_were_stored_all_cases(template, tmp_path):
    """The same on all 194 damaged databases."""
    _recover_every(template, tmp_path, 1)
