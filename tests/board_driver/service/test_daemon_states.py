"""The daemon's own light patterns on the edge squares: starting, bridge link lost, hardware
fault; and an idle board that costs no wake-ups. In-process, with the simulated ports."""

from __future__ import annotations

import asyncio
import threading

from board_driver.physical.leds import Renderer, SimulatedLeds
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from board_driver.service.config import parse_config
from board_driver.service.daemon import (
    EDGE_SQUARES,
    FAULT_FRAME,
    LINK_LOST_FRAME,
    STARTING_FRAME,
    Daemon,
    Hardware,
)
from board_driver.service.notify import Notifier

RENDER = Renderer()
RED, YELLOW, BLUE = RENDER.correct((255, 0, 0)), RENDER.correct((255, 200, 0)), (0, 0, 76)


class FlakyBoard(SimulatedBoard):
    """A simulated board whose reads can be made to fail, like a loose ribbon cable."""

    def __init__(self) -> None:
        super().__init__()
        self.broken = threading.Event()

    def scan(self) -> int:
        if self.broken.is_set():
            raise OSError("GPIO read failed: Input/output error")
        return super().scan()


class RecordingLeds(SimulatedLeds):
    def __init__(self) -> None:
        super().__init__()
        self.history: list[list] = []
        self.listeners.append(self.history.append)


def make_daemon(tmp_path, board, *, link_up: bool | None = None):
    config = parse_config(
        f'[sensing]\nbackend = "sim"\n[leds]\nbackend = "sim"\n'
        f'[store]\npath = "{tmp_path / "g.sqlite"}"\n'
    )
    leds = RecordingLeds()
    hardware = Hardware(board, leds, RENDER.render, sim_board=board)
    daemon = Daemon(config, hardware, notifier=Notifier(environ={}))
    return daemon, leds


async def until(predicate, timeout: float = 3.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.01)


def edges(colours) -> set:
    return {tuple(colours[sq]) for sq in EDGE_SQUARES}


def test_starting_pattern_then_the_game_then_fault_and_recovery(tmp_path):
    board = FlakyBoard()
    daemon, leds = make_daemon(tmp_path, board)

    async def scenario() -> None:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.intake is not None and daemon.intake.scan_loop is not None)
        # The first thing lit was the starting pattern: blue edges.
        assert edges(leds.history[0]) == {BLUE}
        assert RENDER.render(STARTING_FRAME) == leds.history[0]
        # Then the game (nothing to show at the start).
        await until(lambda: leds.colours == [(0, 0, 0)] * 64)

        board.broken.set()  # the cable comes loose
        await until(lambda: edges(leds.colours) == {RED})
        assert daemon.current_frame() == FAULT_FRAME
        board.broken.clear()  # and is pushed back (the scan loop retries each second)
        await until(lambda: daemon.current_frame() != FAULT_FRAME, timeout=4)
        await until(lambda: leds.colours == [(0, 0, 0)] * 64)
        daemon.stop()
        assert await task == 0

    asyncio.run(scenario())


def test_bridge_link_lost_blinks_yellow_edges_until_it_is_back(tmp_path):
    board = SimulatedBoard()
    daemon, leds = make_daemon(tmp_path, board)

    async def scenario() -> None:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.tracker is not None)
        daemon.intake.link_changed(False, "device unplugged")
        assert daemon.current_frame() == LINK_LOST_FRAME
        await until(lambda: edges(leds.colours) == {YELLOW})
        await until(lambda: edges(leds.colours) == {(0, 0, 0)})  # blinking
        daemon.intake.link_changed(True, "")
        await until(lambda: leds.colours == [(0, 0, 0)] * 64)
        daemon.stop()
        assert await task == 0
        assert leds.closed

    asyncio.run(scenario())


def test_an_idle_board_wakes_the_loop_only_for_the_heartbeat(tmp_path):
    board = SimulatedBoard()
    daemon, _leds = make_daemon(tmp_path, board)
    wakeups = []

    async def scenario() -> None:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.tracker is not None)
        board.lift(square("e2"))
        board.place(square("e4"))
        await until(lambda: len(daemon.tracker.game.moves) == 1)

        def timers_left() -> list:
            timers = [*daemon.intake.timers.values(), *daemon._timers.values()]
            return [h for h in timers if not h.cancelled()]

        await until(lambda: not timers_left())  # the flash is over, the timers done
        original = daemon.intake.on_scan

        def counting(bitmap: int, scanned_ms: int | None = None) -> None:
            wakeups.append(bitmap)
            original(bitmap, scanned_ms)

        daemon.intake.on_scan = counting
        await asyncio.sleep(2.2)
        pending = timers_left()
        daemon.stop()
        assert await task == 0
        # About one heartbeat a second at 200 scans a second, and no timer left running.
        assert 1 <= len(wakeups) <= 3
        assert pending == []

    asyncio.run(scenario())


def test_a_takeback_then_new_game_is_stored_as_such(tmp_path):
    board = SimulatedBoard()
    daemon, _leds = make_daemon(tmp_path, board)

    async def scenario() -> None:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.tracker is not None)
        board.lift(square("e2"))
        board.place(square("e4"))
        await until(lambda: len(daemon.tracker.game.moves) == 1)
        await asyncio.sleep(0.4)
        board.lift(square("e4"))
        board.place(square("e2"))  # taken back: the pieces are home again
        await until(lambda: len(daemon.tracker.game.moves) == 0)
        await asyncio.sleep(0.4)
        from board_driver.physical.events import Button

        daemon.handle([Button(daemon.now_ms(), "new_game")])
        await until(lambda: daemon.game_id == 2)
        daemon.stop()
        await task

    asyncio.run(scenario())
    from board_driver.service.store import Store

    with Store.open(tmp_path / "g.sqlite") as store:
        games = store.games()
        first = store.game(1)
    assert [g.plies for g in games] == [0, 0]
    assert [(c.kind, c.old_uci) for c in first.corrections] == [("takeback", "e2e4")]


def test_a_move_is_in_the_store_before_its_lights_confirm_it(tmp_path):
    """Issue 6: every committed move is one stored transaction before the LEDs flash it."""
    import sqlite3

    board = SimulatedBoard()
    daemon, leds = make_daemon(tmp_path, board)
    white = RENDER.correct((255, 255, 255))
    stored_when_lit: list[list[str]] = []

    def on_write(colours: list) -> None:
        if colours[square("e2")] == white and colours[square("e4")] == white:
            with sqlite3.connect(tmp_path / "g.sqlite") as db:  # another reader, as after a crash
                stored_when_lit.append([r[0] for r in db.execute("SELECT uci FROM moves")])

    leds.listeners.append(on_write)

    async def scenario() -> None:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.tracker is not None)
        board.lift(square("e2"))
        board.place(square("e4"))
        await until(lambda: bool(stored_when_lit))
        daemon.stop()
        assert await task == 0

    asyncio.run(scenario())
    assert stored_when_lit[0] == ["e2e4"]
