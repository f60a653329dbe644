"""A Chess960 game against the real Stockfish through the real daemon (issue 35).

``magboard run --sim --script -`` with ``[game] variant = "chess960"`` and the engine as
Black. The test is the person at the board: it castles as FIDE recommends for a physical
board (the king lifted first and held while the rook moves: here the king and rook swap
squares), plays the engine's moves for it (the engine answers in UCI_Chess960, a castling
as the king taking its rook), and python-chess, in its Chess960 mode, is the judge of every
move. Were ``UCI_Chess960`` not set, the engine would read White's castling (``f1g1``) as
no move at all and answer for the wrong side, and X-FEN's ``KQkq`` for the wrong rooks.
"""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import chess
import chess.pgn
import pytest

from board_driver.players.engine import EngineNotFound, find_engine
from tests.board_driver.daemon_process import DaemonProcess, run_magboard, write_config
from tests.board_driver.players.test_engine_daemon import ENGINE_MOVE, hand_lines

try:
    STOCKFISH: Path | None = find_engine()
except EngineNotFound:
    STOCKFISH = None

pytestmark = pytest.mark.skipif(
    STOCKFISH is None,
    reason="Stockfish not found on PATH nor at /usr/games/stockfish (apt-get install stockfish)",
)

# Chess960 position 96, BBQNRNKR: the king on g1 castles short where it stands, its rook
# going h1-f1, once the knight has left f1.
POSITION = 96
START = "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1"
OPENING = ["f1g3", "g1h1"]  # Ng3, then O-O (UCI_Chess960: the king takes its rook)
PLIES = 24


def castling_lines(board: chess.Board, move: chess.Move) -> list[str]:
    """A Chess960 castling as FIDE recommends: the king lifted first and held off the
    board while the rook goes to its square, then the king set down (a king or a rook
    whose square is its own lifted and put back)."""
    king = move.from_square
    rook = move.to_square  # python-chess: the king takes its rook
    rank = chess.square_rank(king)
    kingside = board.is_kingside_castling(move)
    king_to = chess.square(6 if kingside else 2, rank)
    rook_to = chess.square(5 if kingside else 3, rank)
    name = chess.square_name
    return [f"lift {name(king)}", f"lift {name(rook)}", f"place {name(rook_to)}",
            f"place {name(king_to)}"]  # fmt: skip


def engine_moves(proc: DaemonProcess) -> list[tuple[str, str]]:
    """(SAN, UCI) of every engine move the daemon's log announced so far."""
    found = [ENGINE_MOVE.search(line) for line in proc.output().splitlines()]
    return [(m[1], m[2]) for m in found if m]


def test_a_chess960_game_against_stockfish(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        f'[game]\nvariant = "chess960"\nchess960_position = {POSITION}\n'
        '[engine]\nside = "black"\nskill = 0\ndepth = 2\nmovetime_ms = 0\n',
    )
    proc = DaemonProcess(tmp_path)
    board = chess.Board(START, chess960=True)
    rng = random.Random(960)
    try:
        proc.wait_ready(timeout=30)
        proc.send("gap 150")
        answered = 0
        while not board.is_game_over() and len(board.move_stack) < PLIES:
            if board.turn == chess.WHITE:
                moves = list(board.legal_moves)
                planned = [m for m in moves if m.uci() in OPENING[len(board.move_stack) // 2 :][:1]]
                move = planned[0] if planned else rng.choice(moves)
                lines = (
                    castling_lines(board, move) if board.is_castling(move)
                    else hand_lines(board, move)
                )  # fmt: skip
            else:
                answered += 1
                if not proc.wait_for(lambda n=answered: len(engine_moves(proc)) >= n, 30):
                    raise AssertionError(f"no engine move {answered}:\n{proc.output()[-3000:]}")
                san, uci = engine_moves(proc)[answered - 1]
                move = chess.Move.from_uci(uci)
                assert move in board.legal_moves, (uci, board.fen())  # UCI_Chess960's form
                assert san == board.san(move)
                lines = (
                    castling_lines(board, move) if board.is_castling(move)
                    else hand_lines(board, move)
                )  # fmt: skip
            proc.send(*lines)
            board.push(move)
            plies = len(board.move_stack)
            if not proc.wait_for(lambda p=plies: len(proc.moves_logged()) >= p, 30):
                raise AssertionError(f"ply {plies} never stored:\n{proc.output()[-3000:]}")
            assert [uci for _, _, uci in proc.moves_logged()] == [
                m.uci() for m in board.move_stack
            ]
        assert [m.uci() for m in board.move_stack[0:3:2]] == OPENING  # White castled
        assert "engine_error" not in proc.output() and "not legal" not in proc.output()
        assert not re.search(r"illegal|out of sync", proc.output())
    finally:
        proc.terminate()

    stored = run_magboard("pgn", "--config", str(tmp_path / "config.toml"))
    assert stored.returncode == 0, stored.stderr
    read = chess.pgn.read_game(io.StringIO(stored.stdout))
    assert read is not None and not read.errors
    assert read.headers["Variant"] == "Chess960" and read.headers["FEN"] == START
    assert [m.uci() for m in read.mainline_moves()] == [m.uci() for m in board.move_stack]
