"""A full disk under ``magboard run``, for real: the store on a small tmpfs the test fills
(issue 24, item 3). The log said a move was "stored" in the same millisecond as "cannot
store the game", and a SIGTERM while the disk was still full dropped the moves not stored
with only "stopped" in the log.

What a user must read instead: a move is said stored only once the store has it; at a stop
the daemon tries once more, then says loudly which moves it could not write and where they
were kept (the hands journal, which has its room made beforehand and so goes on on a full
disk, and a PGN beside the store when there is room for one); the next start, with room,
stores them.
"""

from __future__ import annotations

from pathlib import Path

from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
)
from tests.board_driver.service.stored import stored_ucis
from tests.board_driver.service.test_store_full_disk import SmallDisk


def test_on_a_full_disk_the_log_is_truthful_and_a_stop_says_where_the_moves_are(
    tmp_path: Path,
) -> None:
    disk = SmallDisk(tmp_path / "disk", 8 << 20)
    try:
        store = disk.path / "games.sqlite"
        (tmp_path / "config.toml").write_text(
            f'[store]\npath = "{store}"\n[web]\nenabled = false\n'
            f'[sim]\nstate_file = "{tmp_path / "sim-board.json"}"\n'
            f'leds_file = "{tmp_path / "leds.json"}"\n'
        )
        daemon = DaemonProcess(tmp_path)
        daemon.wait_ready()
        daemon.send("gap 60", "lift e2", "place e4", "wait 350", "lift e7", "place e5")
        assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 2), daemon.output()

        disk.fill()
        daemon.send("wait 350", "lift g1", "place f3", "wait 350", "lift b8", "place c6")
        assert daemon.wait_for(lambda: "ply 4: Nc6 (b8c6) played" in daemon.output())
        out = daemon.output()
        assert "cannot store the game" in out and "the disk is full" in out
        assert "ply 3: Nf3 (g1f3) played in game 1, NOT stored yet" in out
        assert [ply for ply, _, _ in daemon.moves_logged()] == [1, 2]  # never "stored"

        daemon.terminate()  # still full: tried once more, then said
        assert daemon.proc.returncode == 0
        out = daemon.output()
        assert f"NOT STORED: game 1, ply 3-4 (Nf3 Nc6): {store}: cannot store: the disk" in out
        assert f"in the hands journal {store}.hands (the next start stores them)" in out
        assert "not as PGN" in out and "No space left on device" in out  # no room for it
        assert stored_ucis(store) == ["e2e4", "e7e5"]

        disk.free()
        again = DaemonProcess(tmp_path)
        again.wait_ready()
        assert again.wait_for(lambda: len(again.moves_logged()) == 2), again.output()
        assert [m[:2] for m in again.moves_logged()] == [(3, "Nf3"), (4, "Nc6")]
        assert stored_ucis(store) == ["e2e4", "e7e5", "g1f3", "b8c6"]
        again.terminate()
        assert again.proc.returncode == 0
    finally:
        disk.unmount()
