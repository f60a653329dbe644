"""Scans are debounced at the moment the scanner read them, not when the loop gets to them.

A loop held up for a while (a store write on a slow SD card, a busy machine) must not
squeeze what the switches showed meanwhile into one moment: a piece placed and lifted
again 150 ms later would then read as a flicker, and the move it made would be lost.
In process, on the daemon with the simulated board and its real scanner thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path

from board_driver.physical.leds import Renderer, SimulatedLeds
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from board_driver.service.config import parse_config
from board_driver.service.daemon import Daemon, Hardware
from board_driver.service.notify import Notifier
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


def test_a_move_is_judged_the_settle_time_after_the_hand_let_go_not_after_debouncing(
    tmp_path: Path,
) -> None:
    """The tracker is handed each change at its edge: with a 200 ms debounce, the place
    still carries the moment the piece was set down, and the move is judged the settle
    time (250 ms) after it, not 200 ms later."""
    config = parse_config(
        f'[sensing]\nbackend = "sim"\ndebounce_ms = 200\n[leds]\nbackend = "sim"\n'
        f'[store]\npath = "{tmp_path / "g.sqlite"}"\n[engine]\npath = "/nonexistent/engine"\n'
    )
    board = SimulatedBoard()
    hardware = Hardware(board, SimulatedLeds(), Renderer().render, sim_board=board)
    daemon = Daemon(config, hardware, notifier=Notifier(environ={}))

    async def scenario() -> None:
        door = daemon.door
        with contextlib.closing(door.subscribe(board=True)) as seen:
            board.lift(square("e2"))
            await asyncio.sleep(0.3)
            placed_at = daemon.now_ms()
            board.place(square("e4"))
            await until(lambda: len(daemon.tracker.game.moves) == 1)
            await asyncio.sleep(0.05)
            events = []
            while (event := seen.get_nowait()) is not None:
                events.append(event)
        place = next(e for e in events if e.get("type") == "place")
        move = next(e for e in events if e.get("type") == "move")
        # Within a millisecond before (the scanner's clock and the loop's round apart).
        assert placed_at - 1 <= place["t"] < placed_at + 100, (placed_at, place)
        assert move["t"] == place["t"] + 250, (place, move)

    run(daemon, scenario)
