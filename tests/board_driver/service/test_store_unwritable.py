"""A store that stops taking writes mid-game, for real: its file, or only the ``-shm`` SQLite
maps into memory, made immutable with ``chattr +i`` while ``magboard run`` plays (issue 24,
item 2: the daemon died of SIGBUS, 3 of 3, and the moves since were lost).

What a user must see instead, as for a full disk: the daemon goes on, says it cannot store
(and never that a move was stored when it was not), lights the store-failing pattern, and
stores the game once the file takes writes again. A stop while it still cannot says loudly
what was not stored and where it was kept; the next start stores it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from board_driver.physical.leds import Renderer
from board_driver.service.lights import STORE_FAILING_FRAME
from board_driver.service.store import Store, StoreWriteError
from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
    write_config,
)
from tests.board_driver.unwritable import immutable, immutable_capable_directory

#: The RGB the store-failing pattern lights its edge squares with (a1 is an edge square).
ORANGE = Renderer().render(STORE_FAILING_FRAME, True)[0]


def stored(directory: Path) -> list[str]:
    """The moves of game 1, as another program reads them."""
    with sqlite3.connect(f"file:{directory / 'games.sqlite'}?mode=ro", uri=True) as db:
        return [u for (u,) in db.execute("SELECT uci FROM moves WHERE game_id = 1 ORDER BY ply")]


@pytest.mark.parametrize("which", ["-shm", ""], ids=["its -shm", "the store file"])
def test_a_store_made_immutable_mid_game_fails_loudly_keeps_the_game_and_stores_it_later(
    tmp_path: Path, which: str
) -> None:
    with immutable_capable_directory(tmp_path) as directory:
        write_config(directory, "[web]\nenabled = false\n")
        target = directory / f"games.sqlite{which}"
        daemon = DaemonProcess(directory)
        daemon.wait_ready()
        daemon.send("gap 60", "lift e2", "place e4")
        assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 1), daemon.output()

        with immutable(target):
            os.sync()  # the kernel writes the mapped pages back: SQLite's next write faults
            daemon.send("wait 300", "lift e7", "place e5")
            assert daemon.wait_for(lambda: "cannot store" in daemon.output()), daemon.output()
            assert daemon.wait_for(lambda: "ply 2: e5 (e7e5) played" in daemon.output())
            assert daemon.proc.poll() is None, f"the daemon died:\n{daemon.output()}"
            assert [p for p, _, _ in daemon.moves_logged()] == [1]  # e5 never said stored
            assert f"{target} cannot be written" in daemon.output()
            assert daemon.wait_for(lambda: ORANGE in daemon.leds(), timeout=5)
        # Writable again: stored at the next retry, and said.
        assert daemon.wait_for(lambda: "the store works again" in daemon.output(), timeout=5)
        assert stored(directory) == ["e2e4", "e7e5"]
        assert "now stored: e5" in daemon.output()

        # Immutable again, and the daemon stopped before it can store: said loudly, kept.
        with immutable(target):
            os.sync()
            daemon.send("wait 300", "lift g1", "place f3")
            assert daemon.wait_for(lambda: "ply 3: Nf3 (g1f3) played" in daemon.output())
            assert daemon.terminate() < 10 and daemon.proc.returncode == 0
            out = daemon.output()
            assert f"NOT STORED: game 1, ply 3 (Nf3): {directory / 'games.sqlite'}" in out, out
            assert f"in the hands journal {directory / 'games.sqlite.hands'}" in out
            pgn = directory / "games.sqlite.game-1-unstored.pgn"
            assert f"as PGN in {pgn}" in out
            assert "1. e4 e5 2. Nf3" in pgn.read_text()
            assert stored(directory) == ["e2e4", "e7e5"]

        # The next start, with the store writable: the move kept is stored.
        again = DaemonProcess(directory)
        again.wait_ready()
        assert again.wait_for(lambda: (3, "Nf3", "g1f3") in again.moves_logged()), again.output()
        assert stored(directory) == ["e2e4", "e7e5", "g1f3"]
        # Issue 32, item 6: the PGN that said these moves were not stored is true no more.
        assert again.wait_for(lambda: f"{pgn}: its moves are stored now" in again.output())
        assert not pgn.exists()
        again.terminate()


def test_a_store_opened_while_immutable_reads_and_stores_once_writable(tmp_path: Path) -> None:
    """A start while the store cannot be written (SQLite then opens it read-only for good):
    the games read, a write is refused saying why, and once the file can be written the same
    call stores (the store opens it again)."""
    with immutable_capable_directory(tmp_path) as directory:
        path = directory / "games.sqlite"
        with Store.open(path) as store:
            game_id = store.new_game()
            store.sync_moves(game_id, [("e2e4", "e4")])
        for which in ("", "-shm"):
            _leave_wal_files(path)  # as a daemon killed with the store open leaves them
            with immutable(Path(f"{path}{which}")):
                store = Store.open(path)
                assert store.game(game_id).ucis == ["e2e4"]
                with pytest.raises(StoreWriteError, match="cannot be written") as failed:
                    store.sync_moves(game_id, [("e2e4", "e4"), ("e7e5", "e5")])
                assert failed.value.reason == "read_only"
            store.sync_moves(game_id, [("e2e4", "e4"), ("e7e5", "e5")])
            assert store.game(game_id).ucis == ["e2e4", "e7e5"]
            store.sync_moves(game_id, [("e2e4", "e4")])
            store.close()


def _leave_wal_files(path: Path) -> None:
    import subprocess
    import sys

    script = (
        "import os, sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
        "db.execute('SELECT count(*) FROM games').fetchall(); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    assert Path(f"{path}-shm").exists()


def test_reading_a_store_whose_mapped_shm_stopped_taking_writes_is_refused_not_fatal(
    tmp_path: Path,
) -> None:
    """In a child process (a SIGBUS would end pytest): a read and the close, with the -shm the
    connection mapped made immutable, say what is wrong instead of crashing."""
    import subprocess
    import sys
    import textwrap

    with immutable_capable_directory(tmp_path) as directory:
        path = directory / "games.sqlite"
        script = textwrap.dedent(
            f"""
            import os, subprocess
            from board_driver.service.store import Store, StoreError
            store = Store.open({str(path)!r})
            game_id = store.new_game()
            store.sync_moves(game_id, [("e2e4", "e4")])
            subprocess.run(["chattr", "+i", {str(path) + "-shm"!r}], check=True)
            os.sync()
            try:
                store.game(game_id)
            except StoreError as exc:
                print("refused:", exc)
            store.close()
            print("closed")
            """
        )
        try:
            child = subprocess.run(
                [sys.executable, "-c", script],
                capture_output=True,
                text=True,
                timeout=60,
                cwd=Path(__file__).resolve().parents[3],
            )
        finally:
            subprocess.run(["chattr", "-i", f"{path}-shm"], check=False)
        assert child.returncode == 0, f"exit {child.returncode}\n{child.stdout}{child.stderr}"
        assert "refused:" in child.stdout and "-shm cannot be written" in child.stdout
        assert "closed" in child.stdout


def test_while_the_store_cannot_be_read_the_page_says_so_and_the_game_goes_on(
    tmp_path: Path,
) -> None:
    """The games list and a PGN asked for while the ``-shm`` SQLite mapped is immutable: a
    503 that says why (not a 500 and a traceback), the moves played meanwhile kept; the
    same requests answer once the file can be written again."""
    import json
    import tomllib
    import urllib.error
    import urllib.request

    with immutable_capable_directory(tmp_path) as directory:
        config = write_config(directory)
        port = tomllib.loads(config.read_text())["web"]["port"]
        daemon = DaemonProcess(directory)
        daemon.wait_ready()
        daemon.send("gap 60", "lift e2", "place e4")
        assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 1), daemon.output()

        def get(path: str) -> tuple[int, str]:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                    return r.status, r.read().decode()
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode()

        target = directory / "games.sqlite-shm"
        with immutable(target):
            os.sync()
            for path in ("/api/games", "/games/current.pgn", "/api/games/1/review"):
                status, body = get(path)
                assert status == 503, (path, status, body)
                assert f"{target} cannot be written" in body, body
            daemon.send("wait 300", "lift e7", "place e5")
            assert daemon.wait_for(lambda: "ply 2: e5 (e7e5) played" in daemon.output())
            assert daemon.proc.poll() is None
        assert daemon.wait_for(lambda: "the store works again" in daemon.output(), timeout=5)
        status, body = get("/api/games")
        assert status == 200 and json.loads(body)[0]["plies"] == 2, body
        assert "1. e4 e5" in get("/games/current.pgn")[1]
        assert "Traceback" not in daemon.output() and " failed" not in daemon.output()
        daemon.terminate()
