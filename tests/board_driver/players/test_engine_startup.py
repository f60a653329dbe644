"""The engine at the daemon's start: which side a game gets, and an engine that fails.

Real ``magboard run --sim --script -`` processes; a stored game is prepared through the
store's own API, as a daemon that ran before would have left it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from board_driver.players.engine import EngineNotFound, find_engine
from board_driver.service.store import Store
from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
    run_magboard,
    write_config,
)

try:
    STOCKFISH: Path | None = find_engine()
except EngineNotFound:
    STOCKFISH = None

needs_stockfish = pytest.mark.skipif(STOCKFISH is None, reason="Stockfish not installed")


def store_game(directory: Path, options: dict[str, str]) -> None:
    """A game the daemon stored earlier, with these options (its engine side)."""
    directory.mkdir(parents=True, exist_ok=True)
    with Store.open(directory / "games.sqlite") as store:
        store.new_game(options=options)


def test_a_stored_engine_game_whose_engine_cannot_start_leaves_the_board_usable(
    tmp_path: Path,
) -> None:
    # The engine played Black in the stored game; since then the config gave up the
    # engine and its path names nothing.
    store_game(tmp_path, {"engine_side": "black"})
    write_config(tmp_path, '[engine]\nside = "none"\npath = "/nonexistent/engine"\n')
    proc = DaemonProcess(tmp_path)
    try:
        proc.wait_ready(timeout=30)
        assert "engine: cannot start the engine for black" in proc.output()
        assert "/nonexistent/engine: no such file" in proc.output()
        # The board works: White's move is stored; the engine is asked again (and fails).
        proc.send("gap 150", "lift e2", "place e4")
        assert proc.wait_for(lambda: proc.moves_logged() != [], 10), proc.output()
        assert proc.wait_for(lambda: "asking again in 5 s" in proc.output(), 10), proc.output()
        assert proc.proc.poll() is None
    finally:
        proc.terminate()


def test_a_config_giving_new_games_an_engine_that_does_not_exist_is_a_config_error(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path, '[engine]\nside = "black"\npath = "/nonexistent/engine"\n')
    result = run_magboard("run", "--sim", "--config", str(config), timeout=30)
    assert result.returncode == 2, result.stderr
    assert "[engine] side = 'black' but no engine can be found" in result.stderr
    assert "stopped (exit 2)" in result.stderr
    assert "Traceback" not in result.stderr
    # `config check` asks the same question first, in the same words.
    checked = run_magboard("config", "check", "--config", str(config), timeout=30)
    assert checked.returncode == 2, checked.stdout + checked.stderr
    assert f"{config}: [engine] side = 'black' but no engine can be found" in checked.stderr


@needs_stockfish
def test_the_configs_engine_side_applies_to_a_new_game_after_a_resumed_one(
    tmp_path: Path,
) -> None:
    # The stored game was between two people; the config now gives Black to the engine.
    store_game(tmp_path, {"engine_side": "none"})
    write_config(tmp_path, '[engine]\nside = "black"\nskill = 0\ndepth = 1\nmovetime_ms = 0\n')
    proc = DaemonProcess(tmp_path)
    try:
        proc.wait_ready(timeout=30)
        # Said at the start: not "plays black" (docs/engine.md once showed that) but when.
        said = "engine: plays black from the next new game (game 1, resumed, keeps people"
        assert said in proc.output() and "plays black (" not in proc.output(), proc.output()
        # The resumed game keeps its side: people play both moves.
        proc.send("gap 150", "lift e2", "place e4", "lift e7", "place e5")
        assert proc.wait_for(lambda: len(proc.moves_logged()) == 2, 10), proc.output()
        assert "engine move:" not in proc.output()
        # A new game: the pieces set up again, then White's first move.
        proc.send("button new_game", "lift e4", "place e2", "lift e5", "place e7")
        assert proc.wait_for(lambda: "new game 2" in proc.output(), 10), proc.output()
        proc.send("lift d2", "place d4")
        assert proc.wait_for(lambda: "engine move:" in proc.output(), 20), proc.output()
    finally:
        proc.terminate()
    with Store.open(tmp_path / "games.sqlite") as store:
        assert store.game(1).options["engine_side"] == "none"
        assert store.game(2).data["engine"]["side"] == "black"


def fake_uci_engine(directory: Path, bestmove: str) -> Path:
    """A tiny UCI engine in Python that answers every ``go`` with ``bestmove``."""
    import stat
    import sys

    script = directory / "fake-engine.py"
    script.write_text(
        f"""#!{sys.executable}
import sys
for line in sys.stdin:
    command = line.split()[0] if line.split() else ""
    if command == "uci":
        print("id name Fake 1.0", "uciok", sep="\\n", flush=True)
    elif command == "isready":
        print("readyok", flush=True)
    elif command == "go":
        print("bestmove {bestmove}", flush=True)
    elif command == "quit":
        break
"""
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_an_illegal_hint_from_the_engine_is_an_engine_error_not_a_traceback(
    tmp_path: Path,
) -> None:
    engine = fake_uci_engine(tmp_path, "e2e5")
    write_config(tmp_path, f'[engine]\nside = "none"\npath = "{engine}"\n')
    proc = DaemonProcess(tmp_path)
    try:
        proc.wait_ready(timeout=30)
        proc.send("button hint")
        assert proc.wait_for(
            lambda: "hint: Fake 1.0 answered 'e2e5', not a legal move" in proc.output(), 10
        ), proc.output()
        # The board goes on: a move is still taken.
        proc.send("gap 150", "lift e2", "place e4")
        assert proc.wait_for(lambda: proc.moves_logged() != [], 10), proc.output()
    finally:
        proc.terminate()
    assert "Traceback" not in proc.output()
    assert "exception was never retrieved" not in proc.output()
