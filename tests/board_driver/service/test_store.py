"""The games store: every change on disk when the call returns, history kept, bad files named."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from board_driver.door.review import ReviewedPly, Score
from board_driver.service.store import NoSuchGame, Store, StoreError
from board_driver.service.store_schema import SCHEMA_VERSION
from rules import STARTING_FEN

ROOT = Path(__file__).resolve().parents[3]


def magboard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "board_driver", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "state" / "magboard.sqlite"


def test_a_new_database_uses_wal_and_full_sync(db_path):
    with Store.open(db_path) as store:
        store.new_game()
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db_path.exists()


def test_moves_are_visible_to_another_connection_as_soon_as_stored(db_path):
    store = Store.open(db_path)
    game_id = store.new_game(STARTING_FEN, {"touch_move": "warn", "takeback": "true"})
    store.sync_moves(game_id, [("e2e4", "e4")])
    # A second process would see the same: read through a separate connection, no close.
    other = sqlite3.connect(db_path)
    assert other.execute("SELECT uci FROM moves WHERE game_id = ?", (game_id,)).fetchall() == [
        ("e2e4",)
    ]
    other.close()
    store.close()
    with Store.open(db_path) as again:
        stored = again.game(game_id)
    assert stored.options == {"touch_move": "warn", "takeback": "true"}
    assert stored.ucis == ["e2e4"]
    assert stored.result == "*"


def test_takebacks_and_amendments_rewrite_the_line_and_are_kept_as_history(db_path):
    with Store.open(db_path) as store:
        gid = store.new_game("4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
        store.sync_moves(gid, [("a7a8q", "a8=Q+")])
        store.sync_moves(gid, [("a7a8n", "a8=N")])  # late promotion choice
        store.sync_moves(gid, [("a7a8n", "a8=N"), ("e8d7", "Kd7")])
        store.sync_moves(gid, [("a7a8n", "a8=N")])  # take-back
        game = store.game(gid)
    assert game.ucis == ["a7a8n"]
    assert [(c.kind, c.ply, c.old_uci, c.new_uci) for c in game.corrections] == [
        ("amend", 1, "a7a8q", "a7a8n"),
        ("takeback", 2, "e8d7", None),
    ]


def test_results_and_listing(db_path):
    with Store.open(db_path) as store:
        first = store.new_game()
        store.sync_moves(first, [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4"), ("d8h4", "Qh4#")])
        store.finish(first, "0-1", "checkmate")
        second = store.new_game()
        listing = store.games()
        assert store.latest_game_id() == second
    assert [(g.id, g.plies, g.result, g.termination) for g in listing] == [
        (first, 4, "0-1", "checkmate"),
        (second, 0, "*", None),
    ]


def test_a_takeback_after_the_end_reopens_the_game(db_path):
    with Store.open(db_path) as store:
        gid = store.new_game()
        store.sync_moves(gid, [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4"), ("d8h4", "Qh4#")])
        store.finish(gid, "0-1", "checkmate")
        store.sync_moves(gid, [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4")])
        assert store.game(gid).result == "*"


def test_unknown_game_is_a_lookup_error(db_path):
    with Store.open(db_path) as store, pytest.raises(NoSuchGame):
        store.game(42)


def test_a_database_left_by_a_crash_is_recovered(tmp_path):
    # A child process stores moves and dies without closing: the WAL holds them.
    path = tmp_path / "crash.sqlite"
    code = (
        "import os; from board_driver.service.store import Store\n"
        f"s = Store.open({str(path)!r}); g = s.new_game()\n"
        "s.sync_moves(g, [('e2e4', 'e4'), ('c7c5', 'c5')])\n"
        "os._exit(9)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False, timeout=60)
    assert Path(str(path) + "-wal").exists()
    with Store.open(path) as store:
        assert store.game(store.latest_game_id()).ucis == ["e2e4", "c7c5"]


def test_a_corrupt_database_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.sqlite"
    path.write_bytes(b"this is not a database, just some bytes" * 200)
    with pytest.raises(StoreError, match="damaged"):
        Store.open(path)
    assert path.read_bytes().startswith(b"this is not")  # nothing was overwritten


def test_a_damaged_page_is_a_clear_error(tmp_path):
    path = tmp_path / "torn.sqlite"
    with Store.open(path) as store:
        gid = store.new_game()
        store.sync_moves(gid, [(f"m{i}", "x" * 200) for i in range(200)])
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[4096 * 2 : 4096 * 2 + 600] = b"\x07" * 600  # scribble over a b-tree page
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="damaged"):
        Store.open(path)


def test_games_command_lists_and_names_a_missing_store(tmp_path, db_path):
    missing = magboard("games", "--store", str(tmp_path / "nothing.sqlite"))
    assert missing.returncode == 1
    assert "no such database" in missing.stderr and "Traceback" not in missing.stderr

    with Store.open(db_path) as store:
        gid = store.new_game()
        store.sync_moves(gid, [("e2e4", "e4"), ("e7e5", "e5"), ("g1f3", "Nf3")])
    listed = magboard("games", "--store", str(db_path))
    assert listed.returncode == 0, listed.stderr
    assert f"{gid:>5}" in listed.stdout and "on the board" in listed.stdout
    # One unit everywhere (issue 16, item 7): three plies are 3 plies, as on the page and in
    # the log, not "2 moves".
    header, row = listed.stdout.splitlines()
    assert header.split()[3] == "plies" and row.split()[3] == "3", listed.stdout


def test_games_command_on_a_corrupt_store_exits_non_zero_without_traceback(tmp_path):
    path = tmp_path / "bad.sqlite"
    path.write_bytes(b"\x00garbage" * 1000)
    result = magboard("games", "--store", str(path))
    assert result.returncode == 1
    assert "damaged" in result.stderr and "Traceback" not in result.stderr


def _store_game(store: Store, sans: list[str], fen: str = STARTING_FEN) -> int:
    import rules

    game = rules.Game(rules.Position.from_fen(fen))
    for san in sans:
        game.push_san(san)
    gid = store.new_game(fen)
    store.sync_moves(gid, [(str(m), s) for m, s in zip(game.moves, game.san_moves(), strict=True)])
    outcome = game.outcome()
    if outcome:
        store.finish(gid, outcome.result(), outcome.termination)
    return gid


def test_pgn_command_prints_a_game_python_chess_reads_back(db_path):
    import io

    import chess.pgn

    with Store.open(db_path) as store:
        mate = _store_game(store, ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"])
        resigned = _store_game(store, ["d4", "d5", "c4"])
        store.finish(resigned, "1-0", "resignation")
        endgame = _store_game(store, ["a8=R+", "Kd7"], fen="4k3/P7/8/8/8/8/8/4K3 w - - 0 1")

    result = magboard("pgn", str(mate), "--store", str(db_path))
    assert result.returncode == 0, result.stderr
    read = chess.pgn.read_game(io.StringIO(result.stdout))
    assert [str(m) for m in read.mainline_moves()] == [
        "e2e4",
        "e7e5",
        "d1h5",
        "b8c6",
        "f1c4",
        "g8f6",
        "h5f7",
    ]
    assert read.headers["Result"] == "1-0"
    assert read.headers["Event"] == f"magboard game {mate}"

    every = magboard("pgn", "all", "--store", str(db_path)).stdout
    stream = io.StringIO(every)
    games = [chess.pgn.read_game(stream) for _ in range(3)]
    assert [g.headers["Result"] for g in games] == ["1-0", "1-0", "*"]
    assert games[2].headers["FEN"] == "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    assert [str(m) for m in games[2].mainline_moves()] == ["a7a8r", "e8d7"]

    latest = magboard("pgn", "--store", str(db_path)).stdout
    assert f'[Event "magboard game {endgame}"]' in latest


def test_pgn_of_an_unknown_game_is_a_clear_error(db_path):
    with Store.open(db_path) as store:
        store.new_game()
    result = magboard("pgn", "7", "--store", str(db_path))
    assert result.returncode == 1 and "no game 7" in result.stderr
    result = magboard("pgn", "seven", "--store", str(db_path))
    assert result.returncode == 2 and "not a game number" in result.stderr


# ------------------------------------------------------------ schema 2: what the door needs

FIXTURES = Path(__file__).resolve().parent / "store_fixtures"


def test_the_modules_examples_run():
    import doctest

    from board_driver.service import store, store_errors, store_pgn, store_recovery, store_schema

    for module in (store, store_errors, store_pgn, store_recovery, store_schema):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_pgn_headers_are_kept_per_game_and_written_over_magboards_own(db_path):
    import io

    import chess.pgn

    with Store.open(db_path) as store:
        gid = _store_game(store, ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"])
        other = store.new_game()
        store.set_headers(gid, {"White": "Ada", "Black": "Grace", "Event": "Club night"})
        store.set_headers(gid, {"Black": "", "Round": "3", "WhiteElo": "1850"})  # "" removes
        assert store.game(other).headers == {}
    with Store.open(db_path) as again:  # kept across a restart
        stored = again.game(gid)
    assert stored.headers == {
        "White": "Ada",
        "Event": "Club night",
        "Round": "3",
        "WhiteElo": "1850",
    }
    read = chess.pgn.read_game(
        io.StringIO(magboard("pgn", str(gid), "--store", str(db_path)).stdout)
    )
    assert read.headers["White"] == "Ada" and read.headers["Black"] == "?"
    assert read.headers["Event"] == "Club night" and read.headers["WhiteElo"] == "1850"
    assert read.headers["Result"] == "1-0"  # the game's own, whatever was set


@pytest.mark.parametrize(
    ("headers", "complaint"),
    [
        ({"Result": "1-0"}, "set by the game itself"),
        ({"FEN": "8/8/8/8/8/8/8/8 w - - 0 1"}, "set by the game itself"),
        ({"White Player": "x"}, 'name "White Player"'),
        ({"": "x"}, "PGN header name"),
        ({"White": "Ada\n[Result"}, "control character"),
        ({"White": "x" * 10_000}, "longer than 255"),
        ({"White": 7}, "is not text"),
    ],
)
def test_a_bad_header_is_refused_and_nothing_is_stored(db_path, headers, complaint):
    with Store.open(db_path) as store:
        gid = store.new_game()
        with pytest.raises(ValueError, match=complaint) as refused:
            store.set_headers(gid, {"Event": "kept out too", **headers})
        assert len(str(refused.value)) < 200  # a long value is not quoted whole
        assert store.game(gid).headers == {}


def test_game_data_is_kept_per_game_and_extension_and_merged(db_path):
    with Store.open(db_path) as store:
        first, second = store.new_game(), store.new_game()
        store.set_game_data(first, "lichess", {"game": "q7ZvsdUF", "accepted_ply": "0"})
        store.set_game_data(first, "lichess", {"accepted_ply": "12"})  # the other key stays
        store.set_game_data(first, "dgt", {"port": "/dev/rfcomm0"})
        store.set_game_data(second, "lichess", {"game": "other"})
        store.set_game_data(second, "lichess", {"game": None})  # None removes
    with Store.open(db_path) as again:
        assert again.game_data(first, "lichess") == {"game": "q7ZvsdUF", "accepted_ply": "12"}
        assert again.game_data(first, "dgt") == {"port": "/dev/rfcomm0"}
        assert again.game_data(second, "lichess") == {}
        assert again.game_data(first, "nobody") == {}
        assert again.game(first).data == {
            "dgt": {"port": "/dev/rfcomm0"},
            "lichess": {"accepted_ply": "12", "game": "q7ZvsdUF"},
        }
        with pytest.raises(NoSuchGame):
            again.set_game_data(99, "lichess", {"game": "x"})


@pytest.mark.parametrize(
    ("name", "data", "complaint"),
    [
        ("", {"a": "b"}, "extension name"),
        ("lichess", {"": "b"}, "key"),
        ("lichess", {"k": "v" * 5000}, "more than 4096"),
        ("lichess", {"k": 12}, "is not text"),
        ("lichess", {f"k{i}": "v" for i in range(33)}, "more than 32"),
    ],
)
def test_game_data_beyond_a_few_texts_is_refused_and_nothing_is_stored(
    db_path, name, data, complaint
):
    with Store.open(db_path) as store:
        gid = store.new_game()
        with pytest.raises(ValueError, match=complaint):
            store.set_game_data(gid, name, data)
        assert store.game(gid).data == {}


def test_the_games_not_over_can_be_found_to_resume(db_path):
    with Store.open(db_path) as store:
        adjourned = _store_game(store, ["e4", "c5"])
        mated = _store_game(store, ["f3", "e5", "g4", "Qh4#"])
        resigned = _store_game(store, ["d4"])
        store.finish(resigned, "0-1", "resignation")
        reopened = _store_game(store, ["f3", "e5", "g4", "Qh4#"])
        store.sync_moves(reopened, [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4")])  # take-back
        current = store.new_game()
        unfinished = store.unfinished_games()
    assert [g.id for g in unfinished] == [adjourned, reopened, current]
    assert [g.plies for g in unfinished] == [2, 3, 0]
    assert mated not in [g.id for g in unfinished] and not any(g.over for g in unfinished)


def test_a_store_of_schema_1_is_migrated_with_every_game_kept(tmp_path):
    """The fixture was written by the store code of schema 1 (make_v1_store.py)."""
    path = tmp_path / "old.sqlite"
    path.write_bytes((FIXTURES / "schema-v1.sqlite").read_bytes())
    with Store.open(path, readonly=True) as old:  # read-only: read as it is, not migrated
        assert old.version == 1
        before = [old.game(g.id) for g in old.games()]
        assert before[0].headers == {} and old.game_data(1, "lichess") == {}
        assert old.review(1) == []
    with Store.open(path) as store:
        assert store.version == SCHEMA_VERSION == 5
        assert store.game_on_board() == 4  # the newest game, as before the schema said
        after = [store.game(g.id) for g in store.games()]
        store.set_headers(3, {"White": "Ada"})
        store.set_game_data(3, "lichess", {"game": "abc"})
        store.sync_moves(3, [*[(m.uci, m.san) for m in after[2].moves], ("a8a7", "Ra7+")])
        store.set_review(1, [ReviewedPly(1, after[0].ucis[0], Score(mate=-2), "e7e5", 10)])
    assert len(before) == 4
    assert [(g.ucis, g.result, g.termination, g.options, g.corrections) for g in after] == [
        (g.ucis, g.result, g.termination, g.options, g.corrections) for g in before
    ]
    assert after[0].result == "0-1" and [c.kind for c in after[0].corrections] == ["takeback"]
    assert [g.id for g in Store.open(path, readonly=True).unfinished_games()] == [3, 4]
    with Store.open(path) as again:
        assert again.game(3).headers == {"White": "Ada"}
        assert again.game(3).ucis[-1] == "a8a7"
        assert again.review(1)[0].score == Score(mate=-2) and again.review(2) == []
        again.put_on_board(3)
    assert Store.open(path, readonly=True).game_on_board() == 3
    check = magboard("store", "check", "--store", str(path))
    assert check.returncode == 0 and f"schema {SCHEMA_VERSION}" in check.stdout


def test_a_migration_cut_short_leaves_the_old_store_whole(tmp_path):
    """The migration is one transaction: a crash in the middle leaves schema 1 as it was."""
    path = tmp_path / "old.sqlite"
    path.write_bytes((FIXTURES / "schema-v1.sqlite").read_bytes())
    code = (
        "import os, sqlite3\n"
        "from board_driver.service import store_schema\n"
        f"db = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
        "db.execute('BEGIN IMMEDIATE')\n"
        "db.execute(store_schema.MIGRATIONS[2].split(';')[0])\n"
        "os._exit(9)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False, timeout=60)
    with Store.open(path, readonly=True) as old:
        assert old.version == 1 and len(old.games()) == 4
    with Store.open(path) as store:
        assert store.version == SCHEMA_VERSION and len(store.games()) == 4
