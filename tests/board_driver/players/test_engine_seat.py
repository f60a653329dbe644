"""The engine through the door (``set_player``, as the web page uses it) and hints, in process."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from board_driver.physical.events import Button
from board_driver.players.engine import EngineLevel, EngineNotFound, find_engine
from board_driver.players.engine.seat import pgn_headers
from board_driver.service.config import parse_config
from board_driver.service.daemon import Daemon, open_hardware
from board_driver.service.lights import STARTING_FRAME
from board_driver.service.store import Store, game_pgn
from rules import WHITE

try:
    find_engine()
    HAVE_STOCKFISH = True
except EngineNotFound:
    HAVE_STOCKFISH = False

needs_stockfish = pytest.mark.skipif(
    not HAVE_STOCKFISH,
    reason="Stockfish not found on PATH nor at /usr/games/stockfish (apt-get install stockfish)",
)
FAST = EngineLevel(skill=0, depth=1, movetime_ms=None)
FAST_SETTINGS = {"skill": 0, "depth": 1, "movetime_ms": None}


def engine_seated(daemon: Daemon) -> bool:
    return (
        daemon.tracker is not None
        and daemon.lights.pattern is not STARTING_FRAME
        and "engine" in daemon.door.snapshot().player_states
    )


def engine_state(daemon: Daemon) -> dict:
    return dict(daemon.door.snapshot().player_states["engine"])


def make_daemon(tmp_path: Path, engine: str = "") -> Daemon:
    config = parse_config(
        f"""
[store]
path = "{tmp_path / "games.sqlite"}"
[sim]
state_file = "{tmp_path / "sim-board.json"}"
{engine}
"""
    ).with_sim()
    return Daemon(config, open_hardware(config))


async def until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.02)


def run_daemon(daemon: Daemon, scenario: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        running = asyncio.create_task(daemon.run())
        try:
            await until(lambda: engine_seated(daemon))
            await scenario()
        finally:
            daemon.stop()
            await asyncio.wait_for(running, 15)

    asyncio.run(main())


@needs_stockfish
def test_set_engine_hands_a_side_to_the_engine_and_back(tmp_path: Path) -> None:
    daemon = make_daemon(tmp_path)

    async def scenario() -> None:
        tracker = daemon.tracker
        assert tracker.other_side is None and not tracker.awaiting
        # White is to move: the engine thinks at once
        daemon.door.set_player("white", "engine", FAST_SETTINGS)
        await until(lambda: tracker.expected is not None)
        move = tracker.expected
        state = engine_state(daemon)
        assert state["side"] == "white" and state["engine"].startswith("Stockfish")
        expected = daemon.door.snapshot().expected
        assert (state["level"], expected) == ("skill 0, depth 1", str(move))
        frame = tracker.frame()
        for sq in (move.from_square, move.to_square):
            assert frame.colours[sq] == "c" and frame.blink >> sq & 1
        daemon.door.set_player("white", "human")
        assert tracker.other_side is None and tracker.expected is None
        assert "c" not in tracker.frame().colours
        with pytest.raises(ValueError, match="'purple' is not one of white, black"):
            daemon.door.set_player("purple", "engine")

    run_daemon(daemon, scenario)
    with Store.open(tmp_path / "games.sqlite") as store:
        stored = store.game(1)
    assert stored.data["engine"]["side"] == "none"  # the last word of the page


@needs_stockfish
def test_the_engine_side_and_level_go_into_the_pgn(tmp_path: Path) -> None:
    daemon = make_daemon(tmp_path, '[engine]\nside = "white"\nskill = 2\ndepth = 1\nelo = 1600')

    async def scenario() -> None:
        await until(lambda: daemon.tracker.expected is not None)

    run_daemon(daemon, scenario)
    with Store.open(tmp_path / "games.sqlite") as store:
        pgn = game_pgn(store.game(1))
    assert '[White "Stockfish' in pgn
    assert '[WhiteElo "1600"]' in pgn
    assert '[WhiteEngineLevel "elo 1600, depth 1, 1000 ms per move"]' in pgn
    assert '[Black "?"]' in pgn


def test_an_engine_that_cannot_be_found_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    daemon = make_daemon(tmp_path, '[engine]\npath = "/nonexistent/stockfish"')

    async def scenario() -> None:
        with pytest.raises(EngineNotFound, match="/nonexistent/stockfish: no such file"):
            daemon.door.set_player("black", "engine")
        assert engine_state(daemon)["side"] == "none" and daemon.tracker.other_side is None

    run_daemon(daemon, scenario)


@needs_stockfish
def test_a_hint_needs_no_engine_side_and_is_lit_green(tmp_path: Path) -> None:
    daemon = make_daemon(tmp_path)

    async def scenario() -> None:
        daemon.handle([Button(daemon.now_ms(), "hint")])
        await until(lambda: daemon.tracker.hint is not None)
        hint = daemon.tracker.hint
        assert daemon.tracker.game.position.turn == WHITE and not daemon.tracker.game.moves
        frame = daemon.tracker.frame()
        assert frame.colours[hint.from_square] == "g" and frame.colours[hint.to_square] == "g"

    run_daemon(daemon, scenario)


def test_pgn_headers_without_an_engine_are_empty() -> None:
    assert pgn_headers("none", "Stockfish", FAST) == {}


FAKE_ENGINE = """#!{python}
import sys
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name Clockwatcher 1", "uciok", sep="\\n", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "go":
        with open({log!r}, "a") as log:
            log.write(line)
        print("bestmove e7e5", flush=True)
    elif words[0] == "quit":
        break
"""


def test_the_engine_plays_on_the_clock_when_one_runs(tmp_path: Path) -> None:
    """Issue 27: with a clock the engine is told wtime/btime/winc/binc, not a move time."""
    import stat
    import sys

    log = tmp_path / "go.log"
    engine = tmp_path / "clockwatcher"
    engine.write_text(FAKE_ENGINE.format(python=sys.executable, log=str(log)))
    engine.chmod(engine.stat().st_mode | stat.S_IXUSR)
    daemon = make_daemon(
        tmp_path,
        f'[engine]\npath = "{engine}"\nside = "black"\nmovetime_ms = 700\n'
        '[clock]\ncontrol = "3+2"\n',
    )

    async def scenario() -> None:
        sim = daemon.hw.sim_board
        sim.lift(12)  # e2
        await asyncio.sleep(0.05)
        sim.place(28)  # e4: White's first move, free; Black's clock runs
        await until(lambda: daemon.door.snapshot().expected == "e7e5")

    run_daemon(daemon, scenario)
    go = log.read_text().split()
    assert go[:2] == ["go", "wtime"] and "movetime" not in go, go
    fields = dict(zip(go[1::2], map(int, go[2::2]), strict=True))
    assert fields["wtime"] == 180_000 and 170_000 < fields["btime"] <= 180_000
    assert fields["winc"] == fields["binc"] == 2_000
