"""The clock in the running daemon (in process, on the simulated board): switched when
the hand lets go, stored with every move, back after a restart paused at the last stored
move and saying so, a flag falling on the daemon's own timer, pause and adjust logged and
stored, and %clk and TimeControl in the stored game's PGN."""

from __future__ import annotations

import asyncio
import io
import logging
from pathlib import Path

import chess.pgn
import pytest

from board_driver.door import ActionRefused
from board_driver.physical.leds import Renderer, SimulatedLeds
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.service.config import parse_config
from board_driver.service.daemon import Daemon, Hardware
from board_driver.service.notify import Notifier
from board_driver.service.store import Store, game_pgn
from tests.board_driver.service.test_door import drain, play, until


def make_daemon(
    tmp_path: Path, clock: str = "3+2", board: SimulatedBoard | None = None, low_time_s: int = 0
):
    config = parse_config(
        f'[sensing]\nbackend = "sim"\n[leds]\nbackend = "sim"\n'
        f'[store]\npath = "{tmp_path / "g.sqlite"}"\n'
        f'[clock]\ncontrol = "{clock}"\nlow_time_s = {low_time_s}\n'
    )
    board = board or SimulatedBoard()
    hardware = Hardware(board, SimulatedLeds(), Renderer().render, sim_board=board)
    return Daemon(config, hardware, notifier=Notifier(environ={})), board


def run(daemon: Daemon, scenario) -> None:
    async def main() -> None:
        task = asyncio.create_task(daemon.run())
        try:
            await until(lambda: daemon.tracker is not None and daemon.lights.pattern is None)
            await scenario()
        finally:
            daemon.stop()
            assert await asyncio.wait_for(task, 10) == 0

    asyncio.run(main())


def test_the_clock_runs_is_stored_and_comes_back_paused_after_a_restart(tmp_path, caplog):
    daemon, board = make_daemon(tmp_path)
    seen: dict = {}

    async def first() -> None:
        door = daemon.door
        clock = door.snapshot().clock
        assert clock["state"] == "waiting" and clock["white_ms"] == clock["black_ms"] == 180_000
        events = door.subscribe()
        await play(board, daemon, [("e2", "e4")])  # free: Black's clock starts
        first = next(e for e in drain(events) if e["type"] == "move")
        assert first["clk"] == 180_000 and first["released"] < first["t"]
        assert door.snapshot().clock["state"] == "running"
        await asyncio.sleep(0.3)
        await play(board, daemon, [("e7", "e5")])
        move = next(e for e in drain(events) if e["type"] == "move")
        clock = door.snapshot().clock
        assert clock["turn"] == "white" and clock["clks"][1] == move["clk"]
        # Black was charged from White's release to its own (not to the commits), +2 s.
        used = move["released"] - first["released"]
        assert used >= 300 and move["clk"] == 180_000 - used + 2_000
        seen["clks"] = clock["clks"]
        with_pause = door.clock("pause")
        assert with_pause[0]["action"] == "pause" and door.snapshot().clock["state"] == "paused"
        door.clock("adjust", white_ms=100_000, black_ms=90_000)
        with_resume = door.clock("resume")
        assert with_resume[0]["state"] == "running"
        await play(board, daemon, [("g1", "f3")])
        seen["clks"] = door.snapshot().clock["clks"]
        with pytest.raises(ActionRefused, match="pause, resume or adjust"):
            door.clock("nap")

    run(daemon, first)
    clks = seen["clks"]
    assert clks[0] == 180_000 and clks[2] <= 100_000 + 2_000

    with Store.open(tmp_path / "g.sqlite") as store:
        stored = store.game(1)
    kinds = [e.kind for e in stored.clock]
    assert kinds[:1] == ["set"] and {"move", "pause", "adjust", "resume"} <= set(kinds)
    pgn = game_pgn(stored)
    parsed = chess.pgn.read_game(io.StringIO(pgn))  # python-chess reads our %clk
    assert parsed.headers["TimeControl"] == "180+2"
    assert [round(n.clock() * 1000) // 100 for n in parsed.mainline()] == [c // 100 for c in clks]

    # A restart (the same store, the same pieces): the clock comes back paused, says so.
    again, _ = make_daemon(tmp_path, board=board)
    caplog.set_level(logging.INFO, "magboard")

    async def second() -> None:
        clock = again.door.snapshot().clock
        assert clock["state"] == "paused" and clock["reason"] == "restart"
        assert clock["turn"] == "black" and clock["clks"] == clks
        # As when Nf3 was let go: Black's 90 s as adjusted, White's after its move.
        assert (clock["white_ms"], clock["black_ms"]) == (clks[2], 90_000)
        await asyncio.sleep(0.2)
        assert again.door.snapshot().clock["black_ms"] == 90_000  # not running
        # The next move let go starts the clock again (that move is free).
        await play(board, again, [("b8", "c6")])
        clock = again.door.snapshot().clock
        assert clock["state"] == "running" and clock["clks"][3] == 90_000

    run(again, second)
    assert "clock: paused at ply 3, as stored before the restart" in caplog.text


def test_a_flag_falls_on_the_daemons_timer(tmp_path):
    daemon, board = make_daemon(tmp_path, clock="2s+0")

    async def scenario() -> None:
        events = daemon.door.subscribe()
        await play(board, daemon, [("e2", "e4")])  # Black has 2 s from now
        await until(lambda: daemon.door.snapshot().result != "*", timeout=10)
        snap = daemon.door.snapshot()
        assert (snap.result, snap.termination, snap.winner) == ("1-0", "timeout", "white")
        assert snap.clock["state"] == "stopped" and snap.clock["black_ms"] == 0
        over = next(e for e in drain(events) if e["type"] == "game_over")
        assert over["termination"] == "timeout"

    run(daemon, scenario)
    with Store.open(tmp_path / "g.sqlite") as store:
        stored = store.game(1)
    assert stored.termination == "timeout" and stored.clock[-1].kind == "flag"
    assert '[Termination "time forfeit"]' in game_pgn(stored)


def test_options_set_a_new_clock_and_none_takes_it_away(tmp_path):
    daemon, _board = make_daemon(tmp_path, clock="none")

    async def scenario() -> None:
        door = daemon.door
        assert door.snapshot().clock is None
        with_clock = door.set_options(clock="5+3 delay")
        assert any(e["type"] == "clock" and e["action"] == "set" for e in with_clock)
        clock = door.snapshot().clock
        assert clock["control"] == "5+3 delay" and clock["white_ms"] == 300_000
        assert door.snapshot().options["clock"] == "5+3 delay"
        door.set_options(clock="none")
        assert door.snapshot().clock is None
        with pytest.raises(ActionRefused, match="no clock"):
            door.clock("pause")
        with pytest.raises(ActionRefused, match="time control"):
            door.set_options(clock="3 + soon")

    run(daemon, scenario)


def test_low_time_lights_the_edge_while_that_clock_runs(tmp_path):
    daemon, board = make_daemon(tmp_path, clock="15s+0", low_time_s=20)
    a8, h1 = 56, 7

    async def scenario() -> None:
        lights = lambda: daemon.door.snapshot().lights  # noqa: E731
        assert lights().colours[a8] == "."  # the clock waits: nothing runs
        await play(board, daemon, [("e2", "e4")])  # Black's 15 s run: under 20 s
        await until(lambda: lights().colours[a8] == "o" and lights().colours[h1] == "o")
        assert not lights().blink >> a8 & 1  # blinking only in the last 10 s
        daemon.door.clock("pause")
        await until(lambda: lights().colours[a8] == ".")

    run(daemon, scenario)


def test_a_reviewed_game_with_a_clock_has_both_in_its_pgn(tmp_path):
    """%clk and the review's %eval share a move's comment; python-chess reads both."""
    from board_driver.clock.keeper import ClockEntry
    from board_driver.door.review import ReviewedPly, Score

    with Store.open(tmp_path / "g.sqlite") as store:
        game_id = store.new_game(options={"clock": "3+2"})
        store.sync_moves(
            game_id,
            [("e2e4", "e4"), ("e7e5", "e5")],
            [
                ClockEntry(0, "set", 180_000, 180_000, "3+2"),
                ClockEntry(1, "move", 180_000, 180_000),
                ClockEntry(2, "move", 180_000, 178_500),
            ],
        )
        store.set_review(
            game_id,
            [
                ReviewedPly(1, "e2e4", Score(cp=30), "e7e5", 12),
                ReviewedPly(2, "e7e5", Score(cp=25), "g1f3", 12),
            ],
        )
        pgn = game_pgn(store.game(game_id), review=store.review(game_id))
    moves = list(chess.pgn.read_game(io.StringIO(pgn)).mainline())
    assert [m.clock() for m in moves] == [180.0, 178.5]
    assert [m.eval().white().score() for m in moves] == [30, 25]
