"""The UCI client and the engine player against the real Stockfish (Debian's package)."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
from pathlib import Path

import chess
import pytest

from board_driver.players.engine import (
    EngineCrashed,
    EngineError,
    EngineLevel,
    EngineNotFound,
    EnginePlayer,
    EngineTimeout,
    SearchLimit,
    UciEngine,
    find_engine,
)
from board_driver.players.engine.uci import parse_option
from rules import STARTING_FEN


def _stockfish() -> Path | None:
    try:
        return find_engine()
    except EngineNotFound:
        return None


STOCKFISH = _stockfish()
needs_stockfish = pytest.mark.skipif(
    STOCKFISH is None,
    reason="Stockfish not found on PATH nor at /usr/games/stockfish (apt-get install stockfish)",
)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


def test_find_engine_names_a_missing_or_unusable_path(tmp_path: Path) -> None:
    with pytest.raises(EngineNotFound, match="nope: no such file"):
        find_engine(tmp_path / "nope")
    with pytest.raises(EngineNotFound, match="not an executable program"):
        find_engine(tmp_path)
    plain = tmp_path / "engine.txt"
    plain.write_text("not a program")
    with pytest.raises(EngineNotFound, match="not an executable program"):
        find_engine(plain)


def test_option_lines_are_read() -> None:
    option = parse_option("option name UCI_Elo type spin default 1350 min 1350 max 2850")
    assert option is not None
    assert (option.name, option.type, option.default, option.min, option.max) == (
        "UCI_Elo",
        "spin",
        "1350",
        1350,
        2850,
    )
    assert parse_option("option name Clear Hash type button").name == "Clear Hash"
    assert parse_option("info depth 3") is None


def test_levels_are_checked_and_described() -> None:
    with pytest.raises(ValueError, match="skill: 21"):
        EngineLevel(skill=21)
    with pytest.raises(ValueError, match="depth or a movetime"):
        EngineLevel(depth=None, movetime_ms=None)
    assert EngineLevel(skill=3, depth=4, movetime_ms=None).describe() == "skill 3, depth 4"
    assert SearchLimit(depth=5, movetime_ms=200).go() == "go depth 5 movetime 200"


@needs_stockfish
def test_stockfish_handshake_and_a_legal_reply() -> None:
    async def scenario() -> tuple[str, str | None, dict]:
        engine = await UciEngine.start(STOCKFISH)
        try:
            await engine.configure({"Skill Level": 5, "Threads": 1})
            await engine.new_game()
            move = await engine.best_move(STARTING_FEN, ["e2e4"], SearchLimit(depth=3))
            return engine.name, move, engine.options
        finally:
            await engine.quit()

    name, move, options = run(scenario())
    assert name.startswith("Stockfish")
    assert {"Skill Level", "UCI_LimitStrength", "UCI_Elo"} <= set(options)
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(move) in board.legal_moves


@needs_stockfish
def test_an_unknown_option_is_named() -> None:
    async def scenario() -> None:
        engine = await UciEngine.start(STOCKFISH)
        try:
            await engine.configure({"Skill Levle": 3})
        finally:
            await engine.quit()

    with pytest.raises(EngineError, match="no option 'Skill Levle'"):
        run(scenario())


@needs_stockfish
def test_mated_side_has_no_move() -> None:
    fools_mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"

    async def scenario() -> str | None:
        engine = await UciEngine.start(STOCKFISH)
        try:
            return await engine.best_move(fools_mate, [], SearchLimit(depth=2))
        finally:
            await engine.quit()

    assert run(scenario()) is None


@needs_stockfish
def test_a_cancelled_search_leaves_the_engine_usable() -> None:
    async def scenario() -> str | None:
        engine = await UciEngine.start(STOCKFISH)
        try:
            long = asyncio.create_task(
                engine.best_move(STARTING_FEN, [], SearchLimit(movetime_ms=20_000))
            )
            await asyncio.sleep(0.3)
            long.cancel()
            with pytest.raises(asyncio.CancelledError):
                await long
            return await engine.best_move(STARTING_FEN, ["d2d4"], SearchLimit(depth=2))
        finally:
            await engine.quit()

    board = chess.Board()
    board.push_uci("d2d4")
    assert chess.Move.from_uci(run(scenario())) in board.legal_moves


@needs_stockfish
def test_a_killed_engine_is_reported_as_crashed() -> None:
    async def scenario() -> None:
        engine = await UciEngine.start(STOCKFISH)
        try:
            search = asyncio.create_task(
                engine.best_move(STARTING_FEN, [], SearchLimit(movetime_ms=20_000))
            )
            await asyncio.sleep(0.3)
            os.kill(engine.pid, signal.SIGKILL)
            await search
        finally:
            await engine.quit()

    with pytest.raises(EngineCrashed, match="signal 9"):
        run(scenario())


def _fake_engine(tmp_path: Path, body: str) -> Path:
    """A tiny 'engine' in shell, for the misbehaviours Stockfish never shows."""
    script = tmp_path / "engine.sh"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_an_engine_that_never_answers_times_out(tmp_path: Path) -> None:
    silent = _fake_engine(tmp_path, "exec sleep 30\n")

    async def scenario() -> None:
        await UciEngine.start(silent, timeout=0.5)

    with pytest.raises(
        EngineTimeout, match=r"no answer to 'uci' within 0\.5 s: is it a UCI engine\?"
    ):
        run(scenario())


def test_an_engine_that_fails_says_why_with_its_last_stderr_lines(tmp_path: Path) -> None:
    failing = _fake_engine(
        tmp_path,
        'read line\necho "id name Failing 1"\necho uciok\nread line\n'
        'echo "Failed to allocate 65536MB for transposition table." >&2\nexit 1\n',
    )

    async def scenario() -> None:
        engine = await UciEngine.start(failing)
        try:
            await engine.configure({})
        finally:
            await engine.kill()

    with pytest.raises(EngineCrashed) as caught:
        run(scenario())
    assert "(exit 1); it said: Failed to allocate 65536MB for transposition table." in str(
        caught.value
    )


def test_a_program_that_is_no_engine_is_reported(tmp_path: Path) -> None:
    not_uci = _fake_engine(tmp_path, "read line\necho hello\n")

    with pytest.raises(EngineCrashed, match="ended waiting for 'uci'"):
        run(UciEngine.start(not_uci))


@needs_stockfish
def test_the_player_restarts_a_killed_engine_and_answers_for_the_same_game() -> None:
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]

    async def scenario() -> tuple[str | None, int, int, int]:
        player = EnginePlayer(STOCKFISH, EngineLevel(skill=1, depth=None, movetime_ms=3000))
        try:
            await player.start()
            first_pid = player.pid
            assert first_pid is not None
            search = asyncio.create_task(player.best_move(STARTING_FEN, moves))
            await asyncio.sleep(0.5)
            os.kill(first_pid, signal.SIGKILL)
            move = await search
            return move, first_pid, player.pid or 0, player.starts
        finally:
            await player.close()

    move, first_pid, second_pid, starts = run(scenario())
    assert starts == 2 and second_pid != first_pid
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    assert chess.Move.from_uci(move) in board.legal_moves


def _recording_engine(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "commands.log"
    return _fake_engine(
        tmp_path,
        f"""while read line; do
  echo "$line" >> {log}
  case "$line" in
    uci) echo "id name Recorder 1.0"
         echo "option name Skill Level type spin default 20 min 0 max 20"
         echo "option name UCI_LimitStrength type check default false"
         echo "option name UCI_Elo type spin default 1350 min 1350 max 2850"
         echo uciok;;
    isready) echo readyok;;
    go*) echo "info depth 1"; echo "bestmove e2e4 ponder e7e5";;
    quit) exit 0;;
  esac
done
""",
    ), log


def test_the_level_becomes_setoption_and_go_commands(tmp_path: Path) -> None:
    engine, log = _recording_engine(tmp_path)

    async def scenario() -> tuple[str | None, str]:
        player = EnginePlayer(engine, EngineLevel(elo=1500, depth=6, movetime_ms=None))
        try:
            move = await player.best_move(STARTING_FEN, ["d2d4"])
            player.set_level(EngineLevel(skill=4, depth=None, movetime_ms=250))
            await player.best_move(STARTING_FEN, [])
            return move, player.name
        finally:
            await player.close()

    move, name = run(scenario())
    assert (move, name) == ("e2e4", "Recorder 1.0")
    sent = log.read_text().splitlines()
    assert sent[0] == "uci"
    assert "setoption name UCI_LimitStrength value true" in sent
    assert "setoption name UCI_Elo value 1500" in sent
    assert f"position fen {STARTING_FEN} moves d2d4" in sent
    assert "go depth 6" in sent
    # The new level: full strength off, skill 4, a time per move.
    after = sent[sent.index("go depth 6") :]
    assert "setoption name UCI_LimitStrength value false" in after
    assert "setoption name Skill Level value 4" in after
    assert "go movetime 250" in after
    assert sent[-1] == "quit"


def test_an_elo_below_the_engines_range_is_brought_within_it(tmp_path: Path) -> None:
    engine, log = _recording_engine(tmp_path)

    async def scenario() -> None:
        player = EnginePlayer(engine, EngineLevel(elo=900, depth=3, movetime_ms=None))
        try:
            await player.best_move(STARTING_FEN, [])
        finally:
            await player.close()

    run(scenario())
    sent = log.read_text().splitlines()
    assert "setoption name UCI_Elo value 1350" in sent  # the recorder's minimum


def test_a_question_at_another_level_is_followed_by_the_players_own(tmp_path: Path) -> None:
    engine, log = _recording_engine(tmp_path)
    own = EngineLevel(skill=3, depth=2, movetime_ms=None)

    async def scenario() -> None:
        player = EnginePlayer(engine, own)
        try:
            await player.best_move(STARTING_FEN, [], level=own.full_strength())  # a hint
            await player.best_move(STARTING_FEN, ["e2e4"])  # the engine's own move
        finally:
            await player.close()

    run(scenario())
    sent = log.read_text().splitlines()
    skills = [line for line in sent if line.startswith("setoption name Skill Level")]
    assert skills == [
        "setoption name Skill Level value 3",  # on start
        "setoption name Skill Level value 20",  # the hint
        "setoption name Skill Level value 3",  # its own move again
    ]
    assert sent.index(skills[1]) < sent.index(f"position fen {STARTING_FEN}")
