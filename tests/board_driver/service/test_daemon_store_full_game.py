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

        disk.free()
        again = DaemonProcess(tmp_path)
        again.wait_ready()
        assert again.wait_for(lambda: "(f1c4) stored in game 1" in again.output()), again.output()
        moves, corrections = _stored(store)
        assert moves == ["e2e4", "e7e5", "g1f3", "d7d6", "f1c4"], again.output()
        assert corrections == [(4, "takeback", "b8c6")]
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
