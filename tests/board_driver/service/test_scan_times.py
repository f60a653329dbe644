"""Scans are debounced at the moment the scanner read them, not when the loop gets to them.

A loop held up for a while (a store write on a slow SD card, a busy machine) must not
squeeze what the switches showed meanwhile into one moment: a piece placed and lifted
again 150 ms later would then read as a flicker, and the move it made would be lost.
In process, on the daemon with the simulated board and its real scanner thread.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from board_driver.squares import square
from tests.board_driver.service.test_door import SCHOLAR, make_daemon, play, run, until

# 4. Qxf7# played victim first, then the queen taken off f7 again 150 ms after it landed
# (the pieces put back for the next game), all while the daemon's loop is held up.
HANDS = [(0, "lift", "f7"), (40, "lift", "h5"), (80, "place", "f7"), (230, "lift", "f7"),
         (380, "place", "d1")]  # fmt: skip
STALL_S = 0.6


def test_a_move_made_while_the_loop_was_held_up_is_read_as_it_was_made(tmp_path: Path) -> None:
    daemon, board = make_daemon(tmp_path)

    def hands() -> None:  # another thread: the hands do not wait for the loop
        started = time.monotonic()
        for at_ms, action, name in HANDS:
            time.sleep(max(0.0, started + at_ms / 1000 - time.monotonic()))
            getattr(board, action)(square(name))

    async def scenario() -> None:
        await play(board, daemon, SCHOLAR)
        await asyncio.sleep(0.4)  # Nf6 settled
        mover = threading.Thread(target=hands)
        mover.start()
        time.sleep(STALL_S)  # the loop held up, as by a slow write
        mover.join()
        await until(lambda: daemon.tracker.game.outcome() is not None, timeout=5)
        snap = daemon.door.snapshot()
        assert snap.moves[-1] == "Qxf7#" and snap.result == "1-0", snap.moves

    run(daemon, scenario)
