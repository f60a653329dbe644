"""Playing the engine through ``magboard run --sim --script -``, a real process each.

The test is the person at the board: it plays White's moves itself and reads the
engine's moves (Black) from the daemon's log ("engine move: e5 (e7e5) to play on the
board: ..."), then moves the engine's pieces for it by writing lift/place lines.
"""

from __future__ import annotations

import io
import os
import random
import re
import signal
import sqlite3
import time
from pathlib import Path

import chess
import chess.pgn
import pytest

from board_driver.players.engine import EngineNotFound, find_engine
from tests.board_driver.daemon_process import DaemonProcess, run_magboard, write_config

try:
    STOCKFISH: Path | None = find_engine()
except EngineNotFound:
    STOCKFISH = None

pytestmark = pytest.mark.skipif(
    STOCKFISH is None,
    reason="Stockfish not found on PATH nor at /usr/games/stockfish (apt-get install stockfish)",
)

ENGINE_MOVE = re.compile(r"engine move: (\S+) \((\w+)\) to play on the board: (.*)$")
ENGINE_STARTED = re.compile(r"engine: (.+) started \(pid (\d+)\)")
HINT = re.compile(r"hint: (\S+) \((\w+)\)")
ENGINE_CONFIG = """
[engine]
side = "black"
skill = 0
depth = 1
movetime_ms = 0
"""


def hand_lines(board: chess.Board, move: chess.Move) -> list[str]:
    """How a person plays ``move`` on the physical board, as board-script lines."""
    frm, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
    if board.is_castling(move):
        rank = frm[1]
        rook_from, rook_to = ("h", "f") if to[0] == "g" else ("a", "d")
        return [f"lift {frm}", f"place {to}", f"lift {rook_from}{rank}", f"place {rook_to}{rank}"]
    if board.is_en_passant(move):
        return [f"lift {frm}", f"place {to}", f"lift {to[0]}{frm[1]}"]
    if board.is_capture(move):
        return [f"lift {to}", f"lift {frm}", f"place {to}"]
    return [f"lift {frm}", f"place {to}"]


def human_choice(board: chess.Board, rng: random.Random) -> chess.Move:
    """White's move: a mate if there is one, else the best capture, else any (queens only)."""
    moves = [m for m in board.legal_moves if m.promotion in (None, chess.QUEEN)]
    for move in moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return move
    captures = [m for m in moves if board.is_capture(m) and not board.is_en_passant(m)]
    if captures:
        return max(captures, key=lambda m: board.piece_type_at(m.to_square) or 0)
    return rng.choice(moves)


def cpu_ticks(pid: int) -> int:
    """The CPU time a process has used, in clock ticks (user and system, /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class Game:
    """The daemon and the test's copy of the game."""

    def __init__(self, proc: DaemonProcess) -> None:
        self.proc = proc
        self.board = chess.Board()

    def wait_stored(self, plies: int, timeout: float = 20.0) -> None:
        if not self.proc.wait_for(lambda: len(self.proc.moves_logged()) >= plies, timeout):
            raise AssertionError(f"ply {plies} never stored:\n{self.proc.output()[-3000:]}")

    def engine_moves(self) -> list[tuple[str, str, str]]:
        found = [ENGINE_MOVE.search(line) for line in self.proc.lines]
        return [(m[1], m[2], m[3]) for m in found if m]

    def wait_engine_move(self, count: int, timeout: float = 20.0) -> tuple[str, str, str]:
        if not self.proc.wait_for(lambda: len(self.engine_moves()) >= count, timeout):
            raise AssertionError(f"no engine move {count}:\n{self.proc.output()[-3000:]}")
        return self.engine_moves()[count - 1]

    def play(self, move: chess.Move) -> None:
        """Move the pieces on the board for ``move`` and wait until it is stored."""
        self.proc.send(*hand_lines(self.board, move))
        self.board.push(move)
        self.wait_stored(len(self.board.move_stack))


def start(tmp_path: Path, extra: str = "") -> tuple[DaemonProcess, Game]:
    write_config(tmp_path, ENGINE_CONFIG + extra)
    proc = DaemonProcess(tmp_path)
    proc.wait_ready(timeout=30)
    proc.send("gap 150")
    return proc, Game(proc)


def test_a_whole_game_against_stockfish_with_the_engine_killed_mid_game(tmp_path: Path) -> None:
    proc, game = start(tmp_path)
    rng = random.Random(8)
    try:
        started = ENGINE_STARTED.search(proc.output())
        assert started, proc.output()
        engine_name, first_pid = started[1], int(started[2])
        answered = 0
        killed_at = None
        while not game.board.is_game_over() and len(game.board.move_stack) < 40:
            if game.board.turn == chess.WHITE:
                if len(game.board.move_stack) == 2 and killed_at is None:
                    # The engine dies between two moves: the game must go on.
                    os.kill(first_pid, signal.SIGKILL)
                    killed_at = len(game.board.move_stack)
                game.play(human_choice(game.board, rng))
                continue
            answered += 1
            san, uci, how = game.wait_engine_move(answered)
            move = chess.Move.from_uci(uci)
            assert move in game.board.legal_moves
            assert san == game.board.san(move)
            assert how.startswith(f"{uci[:2]} to {uci[2:4]}")
            if game.board.is_capture(move):
                captured = (
                    chess.square_name(move.to_square)
                    if not game.board.is_en_passant(move)
                    else uci[2] + uci[1]
                )
                assert f"take the piece on {captured}" in how
            game.play(move)
        if not game.board.is_game_over():
            proc.send("button resign")  # White (to move) gives up
            assert proc.wait_for(lambda: "game over: result=0-1" in proc.output(), 10)
            expected_result = "0-1"
        else:
            expected_result = game.board.result()
            assert proc.wait_for(lambda: f"result={expected_result}" in proc.output(), 10)
        # The engine was started again after the kill, and played on.
        pids = [int(m[2]) for m in ENGINE_STARTED.finditer(proc.output())]
        assert killed_at is not None and len(pids) >= 2 and pids[1] != first_pid
        assert re.search(r"engine: .* ended \(signal 9\); starting it again", proc.output())
        assert answered > killed_at // 2
    finally:
        proc.terminate()

    stored = run_magboard("pgn", "--config", str(tmp_path / "config.toml"))
    assert stored.returncode == 0, stored.stderr
    read = chess.pgn.read_game(io.StringIO(stored.stdout))
    assert read is not None and not read.errors
    assert read.headers["Black"] == engine_name
    assert read.headers["BlackEngineLevel"] == "skill 0, depth 1"
    assert read.headers["Result"] == expected_result
    assert [m.uci() for m in read.mainline_moves()] == [m.uci() for m in game.board.move_stack]
    # The store keeps which engine played which side.
    with sqlite3.connect(tmp_path / "games.sqlite") as db:
        kept = dict(db.execute("SELECT name, value FROM game_data WHERE extension = 'engine'"))
    assert kept["side"] == "black" and kept["name"] == engine_name


def test_a_wrong_piece_lifted_for_the_engine_is_guided_back_and_a_hint_is_lit(
    tmp_path: Path,
) -> None:
    proc, game = start(tmp_path)
    try:
        game.play(chess.Move.from_uci("e2e4"))
        _, uci, _ = game.wait_engine_move(1)
        move = chess.Move.from_uci(uci)
        assert proc.wait_for(
            lambda: _lit(proc, move.from_square, "cyan") and _lit(proc, move.to_square, "cyan"),
            3,
        )
        # A black piece the engine did not move: lifted and held.
        wrong = next(
            chess.square_name(sq)
            for sq in chess.SquareSet(game.board.occupied_co[chess.BLACK])
            if sq != move.from_square and sq != move.to_square
        )
        proc.send(f"lift {wrong}")
        assert proc.wait_for(
            lambda: f"waiting for the board to match: fill {wrong}" in proc.output(), 5
        ), proc.output()
        assert f"fill={[wrong]}" in proc.output()  # the illegal announcement names it
        assert proc.wait_for(lambda: _lit(proc, chess.parse_square(wrong), "blue"), 3)
        proc.send(f"place {wrong}")
        assert proc.wait_for(lambda: "board matches the game again" in proc.output(), 5)
        assert len(proc.moves_logged()) == 1  # nothing was taken as Black's move
        game.play(move)
        # A hint for White: lit green, not played.
        proc.send("button hint")
        assert proc.wait_for(lambda: HINT.search(proc.output()) is not None, 10)
        hint = chess.Move.from_uci(HINT.search(proc.output())[2])
        assert hint in game.board.legal_moves
        assert proc.wait_for(
            lambda: _lit(proc, hint.from_square, "green") and _lit(proc, hint.to_square, "green"),
            3,
        )
        assert len(proc.moves_logged()) == 2
    finally:
        proc.terminate()


def _lit(proc: DaemonProcess, square: int, colour: str) -> bool:
    """Is ``square`` lit ``colour`` (green, cyan, blue) in the simulated LEDs now?

    Brightness and gamma scale the palette, so only which channels are on is compared;
    a blinking square is dark half the time: wait for it (``proc.wait_for``).
    """
    try:
        red, green, blue = proc.leds()[square]
    except (OSError, ValueError, KeyError):
        return False  # the file is being replaced: look again
    on = (red > 0, green > 0, blue > 0)
    return on == {"green": (False, True, False), "cyan": (False, True, True),
                  "blue": (False, False, True)}[colour]  # fmt: skip


def test_a_daemon_restarted_in_an_engine_game_asks_the_engine_again(tmp_path: Path) -> None:
    proc, game = start(tmp_path)
    try:
        game.play(chess.Move.from_uci("d2d4"))
        game.wait_engine_move(1)
    finally:
        proc.kill()  # a power cut: the engine's move was lit, not yet played
    proc = DaemonProcess(tmp_path)
    try:
        proc.wait_ready(timeout=30)
        assert "resuming game 1 at ply 1" in proc.output()
        game = Game(proc)
        game.board.push_uci("d2d4")
        _, uci, _ = game.wait_engine_move(1)
        proc.send("gap 150", *hand_lines(game.board, chess.Move.from_uci(uci)))
        assert proc.wait_for(lambda: proc.moves_logged() != [], 10), proc.output()
        assert proc.moves_logged()[0][::2] == (2, uci)  # ply 2, after the stored ply 1
    finally:
        proc.terminate()


def test_an_engine_killed_while_thinking_is_replaced_and_its_move_comes(tmp_path: Path) -> None:
    write_config(tmp_path, '[engine]\nside = "black"\nskill = 0\nmovetime_ms = 1500\n')
    proc = DaemonProcess(tmp_path)
    try:
        proc.wait_ready(timeout=30)
        first_pid = int(ENGINE_STARTED.search(proc.output())[2])
        game = Game(proc)
        proc.send("gap 150")
        idle = cpu_ticks(first_pid)
        game.play(chess.Move.from_uci("e2e4"))
        # Killed while it thinks (its 1.5 s): once it has used some CPU on the question.
        deadline = time.monotonic() + 20
        while cpu_ticks(first_pid) < idle + 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(first_pid, signal.SIGKILL)
        _, uci, _ = game.wait_engine_move(1, timeout=15)
        assert re.search(
            r"ended waiting for 'bestmove' \(signal 9\); starting it again", proc.output()
        ), proc.output()
        pids = [int(m[2]) for m in ENGINE_STARTED.finditer(proc.output())]
        assert len(pids) == 2 and pids[1] != first_pid
        game.play(chess.Move.from_uci(uci))  # and the game goes on
    finally:
        proc.terminate()
