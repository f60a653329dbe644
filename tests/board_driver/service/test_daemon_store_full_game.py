"""A game played on while the store cannot be written, then the next start: what the stop
says it kept is what the start restores, and nothing is stored that the hands did not do
(issue 32, items 1 and 7), for real: the store, its journal and the simulated board's
pieces on a small tmpfs the test fills.

The attack run found, 3 of 3: 1. e4 e5 2. Nf3 Nc6 stored; the disk fills; Nc6 taken back by
hand; d6 and Bc4 played; stop. The log said the moves were kept in the hands journal for
the next start, but that start refused the journal (its events "do not lead to the stored
moves"), read the pieces and stored 1. e4 e5 2. Nf3 Nc6 3. Bc4: the take-back and d6 lost,
a move stored after a move taken back. And the pieces file, not saved on the full disk,
showed stale pieces, which the next start read as moves never made (``3. Ng1 Nb8``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import rules
from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
)
from tests.board_driver.service.test_store_full_disk import SmallDisk


def _stored(path: Path) -> tuple[list[str], list[tuple[int, str, str | None]]]:
    """Game 1's moves and its corrections (ply, kind, old move), as another program reads
    them."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        moves = [u for (u,) in db.execute("SELECT uci FROM moves WHERE game_id = 1 ORDER BY ply")]
        corrections = list(
            db.execute("SELECT ply, kind, old_uci FROM corrections WHERE game_id = 1 ORDER BY id")
        )
        games = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert games == 1
    return moves, corrections


def _config(directory: Path, disk: Path) -> None:
    (directory / "config.toml").write_text(
        f'[store]\npath = "{disk / "games.sqlite"}"\n[web]\nenabled = false\n'
        f'[sim]\nstate_file = "{disk / "sim-board.json"}"\n'
        f'leds_file = "{directory / "leds.json"}"\n'
    )


def test_a_take_back_and_the_moves_after_it_on_a_full_disk_are_what_the_next_start_stores(
    tmp_path: Path,
) -> None:
    disk = SmallDisk(tmp_path / "disk", 8 << 20)
    try:
        _config(tmp_path, disk.path)
        store = disk.path / "games.sqlite"
        daemon = DaemonProcess(tmp_path)
        daemon.wait_ready()
        daemon.send("gap 60", "lift e2", "place e4", "wait 350", "lift e7", "place e5")
        daemon.send("wait 350", "lift g1", "place f3", "wait 350", "lift b8", "place c6")
        assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 4), daemon.output()

        disk.fill()
        # Nc6 taken back by hand, then 2... d6 3. Bc4.
        daemon.send("wait 350", "lift c6", "place b8")
        assert daemon.wait_for(lambda: "takeback: " in daemon.output()), daemon.output()
        daemon.send("wait 350", "lift d7", "place d6", "wait 350", "lift f1", "place c4")
        assert daemon.wait_for(lambda: "ply 5: Bc4 (f1c4) played" in daemon.output()), (
            daemon.output()
        )
        assert "cannot store the game" in daemon.output()
        daemon.terminate()
        assert daemon.proc.returncode == 0
        out = daemon.output()
        assert "NOT STORED: game 1, the take-back of ply 4; ply 4-5 (d6 Bc4)" in out, out
        assert f"in the hands journal {store}.hands (the next start stores them)" in out, out
        assert _stored(store) == (["e2e4", "e7e5", "g1f3", "b8c6"], [])
        # No PGN could be written on the full disk: said, and none left empty or cut short
        # (an empty one stayed behind, then claimed at the next start to hold moves the
        # store lacked: issue 32, item 6).
        pgn = disk.path / "games.sqlite.game-1-unstored.pgn"
        assert f"not as PGN ({pgn}: No space left on device)" in out, out
        assert sorted(p.name for p in disk.path.iterdir() if "pgn" in p.name) == []

        disk.free()
        again = DaemonProcess(tmp_path)
        again.wait_ready()
        assert again.wait_for(lambda: "(f1c4) stored in game 1" in again.output()), again.output()
        moves, corrections = _stored(store)
        assert moves == ["e2e4", "e7e5", "g1f3", "d7d6", "f1c4"], again.output()
        assert corrections == [(4, "takeback", "b8c6")]
        assert "kept for you to read" not in again.output(), again.output()
        # The pieces file was saved on the full disk: the pieces are the game's, no move
        # read from stale pieces, and the board matches.
        game = rules.Game.from_record(rules.Position(), moves)
        assert int(_pieces(disk.path), 16) == game.position.occupancy()
        assert "read from the pieces" not in again.output()
        assert "waiting for the board to match" not in again.output(), again.output()
        # The game goes on from there.
        again.send("gap 60", "lift g8", "place f6")
        assert again.wait_for(lambda: "ply 6: Nf6 (g8f6) stored in game 1" in again.output())
        again.terminate()
        assert again.proc.returncode == 0
        assert _stored(store)[0][-1] == "g8f6"
    finally:
        disk.unmount()


def _pieces(directory: Path) -> str:
    import json

    return json.loads((directory / "sim-board.json").read_text())["pieces"]


def test_an_empty_unstored_pgn_is_removed_and_an_unreadable_one_named_as_such(
    tmp_path: Path,
) -> None:
    """An earlier magboard's stop on a full disk left ``game-N-unstored.pgn`` empty, and
    every start after said it "holds moves the store does not have". Empty, it holds
    nothing: removed. One that is no PGN game is kept, and said to be that."""
    from board_driver.service.store import Store
    from tests.board_driver.daemon_process import write_config

    write_config(tmp_path, "[web]\nenabled = false\n")
    store = tmp_path / "games.sqlite"
    with Store.open(store) as stored:
        stored.sync_moves(stored.new_game(), [("e2e4", "e4")])
    game = rules.Game.from_record(rules.Position(), ["e2e4"])
    (tmp_path / "sim-board.json").write_text(f'{{"pieces": "{game.position.occupancy():016x}"}}')
    empty = tmp_path / "games.sqlite.game-1-unstored.pgn"
    empty.write_bytes(b"")
    daemon = DaemonProcess(tmp_path)
    daemon.wait_ready()
    assert daemon.wait_for(lambda: not empty.exists()), daemon.output()
    daemon.terminate()
    assert f"{empty}: empty, holds no moves: removed" in daemon.output(), daemon.output()

    with Store.open(store) as stored:
        stored.new_game()
    (tmp_path / "sim-board.json").write_text(f'{{"pieces": "{rules.Position().occupancy():016x}"}}')
    garbled = tmp_path / "games.sqlite.game-2-unstored.pgn"
    garbled.write_bytes(b"\x00\xff garbled [Event")
    again = DaemonProcess(tmp_path)  # game 2 on the board
    again.wait_ready()
    again.send("gap 60", "lift e2", "place e4")
    assert again.wait_for(lambda: "ply 1: e4 (e2e4) stored in game 2" in again.output())
    assert again.wait_for(lambda: "kept for you to read" in again.output()), again.output()
    again.terminate()
    out = again.output()
    assert f"{garbled} cannot be read as one game (game 2): kept for you to read" in out, out
    assert "holds moves the store does not have" not in out, out
    assert garbled.read_bytes() == b"\x00\xff garbled [Event"
