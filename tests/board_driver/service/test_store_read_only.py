"""The store's file system turned read-only under ``magboard run`` (issue 32, item 7: a
read-only remount was caught by the same check as an immutable file, but never tested).

A file system cannot be remounted read-only while the daemon holds its files open for
writing (the kernel refuses: busy); what happens to a Pi's card is the kernel turning it
read-only itself after an error (``errors=remount-ro``). Here ext4's ``abort`` option does
that, for real: every write then fails with EROFS, the store's and the hands journal's.
The daemon goes on, says it cannot store and why, never that a move was stored; a stop says
loudly what was not stored and that nothing could keep it; the next start, on the file
system checked and mounted again, stores the move from the pieces (the simulated board's
file is elsewhere).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
)
from tests.board_driver.service.stored import stored_ucis


def _ext4(tmp_path: Path) -> tuple[Path, Path]:
    missing = [t for t in ("mkfs.ext4", "mount", "umount", "e2fsck") if shutil.which(t) is None]
    if missing:
        pytest.skip(f"no {', '.join(missing)} here to make a file system with")
    image, mounted = tmp_path / "ext4.img", tmp_path / "card"
    mounted.mkdir()
    with open(image, "wb") as out:
        out.truncate(32 << 20)
    made = subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], capture_output=True, text=True)
    mount = subprocess.run(["mount", "-o", "loop", str(image), str(mounted)],
                           capture_output=True, text=True)  # fmt: skip
    if made.returncode or mount.returncode:
        pytest.skip(f"cannot mount an ext4 image here: {(made.stderr or mount.stderr).strip()}")
    return image, mounted


def test_a_store_whose_file_system_turns_read_only_fails_loudly_and_the_next_start_stores(
    tmp_path: Path,
) -> None:
    image, card = _ext4(tmp_path)
    try:
        store = card / "games.sqlite"
        (tmp_path / "config.toml").write_text(
            f'[store]\npath = "{store}"\n[web]\nenabled = false\n'
            f'[sim]\nstate_file = "{tmp_path / "sim-board.json"}"\n'
            f'leds_file = "{tmp_path / "leds.json"}"\n'
        )
        daemon = DaemonProcess(tmp_path)
        daemon.wait_ready()
        daemon.send("gap 60", "lift e2", "place e4")
        assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 1), daemon.output()

        aborted = subprocess.run(["mount", "-o", "remount,abort", str(card)],
                                 capture_output=True, text=True)  # fmt: skip
        if aborted.returncode:
            daemon.kill()
            pytest.skip(f"cannot turn an ext4 read-only here: {aborted.stderr.strip()}")
        daemon.send("wait 350", "lift e7", "place e5")
        assert daemon.wait_for(lambda: "ply 2: e5 (e7e5) played" in daemon.output()), (
            daemon.output()
        )
        assert daemon.wait_for(lambda: "cannot store" in daemon.output()), daemon.output()
        assert daemon.proc.poll() is None, daemon.output()
        assert [p for p, _, _ in daemon.moves_logged()] == [1]  # e5 never said stored
        daemon.terminate()
        assert daemon.proc.returncode == 0, daemon.output()
        out = daemon.output()
        assert "read-only file system" in out.lower(), out  # the journal names it
        said = next(line for line in out.splitlines() if "NOT STORED" in line)
        assert "NOT STORED: game 1, ply 2 (e5)" in said, said
        assert "Kept nowhere" in said and "not as PGN" in said, said
        assert "Traceback" not in out

        subprocess.run(["umount", str(card)], check=True)
        subprocess.run(["e2fsck", "-fy", str(image)], capture_output=True)
        subprocess.run(["mount", "-o", "loop", str(image), str(card)], check=True)
        again = DaemonProcess(tmp_path)
        again.wait_ready()
        assert again.wait_for(lambda: (2, "e5", "e7e5") in again.moves_logged()), again.output()
        again.terminate()
        assert stored_ucis(store) == ["e2e4", "e7e5"]
    finally:
        subprocess.run(["umount", "-l", str(card)], capture_output=True)
