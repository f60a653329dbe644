"""Flag fall judged by the laws, against an independent judge at scale.

Ours: the product's own path, a :class:`Timekeeper` whose running clock runs out on a real
:class:`Tracker` (``time_out``: the board judged, then ``forfeit``, which asks
``rules``' ``unwinnable``). The judge: python-chess alone (a test dependency, never
imported by the product), which decides where it can be sure:

- the opponent has insufficient material (``has_insufficient_material``, the rule Lichess
  applies to a flag fall): a draw;
- python-chess finds a line of legal moves, both sides helping, after which the opponent
  has mated (a helpmate, searched for; or played out at random from the position, checks
  preferred, and ending in the opponent's mate): a win for the opponent;
- otherwise it does not know (a lone rook's mate is many moves away; locked pawns).

Where the judge is sure, ours must agree. Where it is not and ours says "draw", a deeper
helpmate search must find no mate (ours never takes a win away). Both flags: once the
first has fallen the game is over, and the other clock can never fall.
"""

from __future__ import annotations

import random

import chess
import pytest

from board_driver.arbiter.tracker import Tracker
from board_driver.clock.control import parse_time_control
from board_driver.clock.keeper import Timekeeper
from rules import Game, Position

#: Material for one side: mostly little, where flag falls are drawn or decided.
MATERIAL = ["", "", "", "N", "B", "N", "B", "NN", "BB", "BN", "P", "PP", "R", "Q", "RB", "QN",
            "PN", "PB"]  # fmt: skip


def random_boards(seed: int, count: int):
    """Random legal positions, the game not over by itself, with a side to move whose
    flag can fall."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        board = chess.Board(None)
        if rng.random() < 0.3:  # a wall of pawns head to head: unwinnable past material
            for file in rng.sample(range(8), rng.randint(3, 6)):
                rank = rng.randint(1, 5)
                board.set_piece_at(chess.square(file, rank), chess.Piece(chess.PAWN, chess.WHITE))
                board.set_piece_at(
                    chess.square(file, rank + 1), chess.Piece(chess.PAWN, chess.BLACK)
                )
        squares = [sq for sq in rng.sample(range(64), 20) if board.piece_at(sq) is None][:10]
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        free = squares[2:]
        for color in (chess.WHITE, chess.BLACK):
            for letter in rng.choice(MATERIAL):
                sq = free.pop()
                if letter == "P" and chess.square_rank(sq) in (0, 7):
                    sq ^= 8  # a pawn never stands on the first or the last rank
                if board.piece_at(sq) is None:
                    symbol = letter if color else letter.lower()
                    board.set_piece_at(sq, chess.Piece.from_symbol(symbol))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if not board.is_valid() or board.is_game_over(claim_draw=False):
            continue
        made += 1
        yield board


def mating_line(board: chess.Board, rng: random.Random, plies: int) -> list[chess.Move] | None:
    """A random game from ``board`` (checks preferred) that ends in mate, or None."""
    board = board.copy()
    line: list[chess.Move] = []
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        checks = [m for m in moves if board.gives_check(m)]
        move = rng.choice(checks if checks and rng.random() < 0.7 else moves)
        board.push(move)
        line.append(move)
    return line if board.is_checkmate() else None


def cases(seed: int, count: int):
    """(board, the judge's witness: "win" when a mating line by the opponent of the side
    to move was played out from it, else None)."""
    rng = random.Random(seed + 1)
    for board in random_boards(seed, count):
        yield board, None
        line = mating_line(board, rng, 40)
        if line is None:
            continue
        winner = board.turn if len(line) % 2 else not board.turn
        walk = board.copy()
        for move in line:
            if walk.turn != winner and not walk.is_game_over(claim_draw=False):
                yield walk.copy(), "win"  # the flag of the side to move: its opponent mates
            walk.push(move)


def helpmate(board: chess.Board, winner: chess.Color, plies: int, budget: list[int]) -> bool:
    """Can ``winner`` mate within ``plies``, both sides helping (python-chess's moves only)?"""
    if board.is_checkmate():
        return board.turn != winner
    if plies == 0 or budget[0] <= 0 or board.is_game_over(claim_draw=False):
        return False
    budget[0] -= 1
    moves = list(board.legal_moves)
    if plies == 1:
        if board.turn != winner:
            return False
        moves = [m for m in moves if board.gives_check(m)]
    else:
        moves.sort(key=lambda m: not board.gives_check(m))  # checks first: mates come sooner
    for move in moves:
        board.push(move)
        found = helpmate(board, winner, plies - 1, budget)
        board.pop()
        if found:
            return True
    return False


def judge(board: chess.Board, flagged: chess.Color, plies: int, nodes: int) -> str:
    """``draw``, ``win`` (the opponent's) or ``unknown``: python-chess's verdict."""
    opponent = not flagged
    if board.has_insufficient_material(opponent):
        return "draw"
    for depth in range(1, plies + 1):
        if helpmate(board, opponent, depth, [nodes]):
            return "win"
    return "unknown"


def ours(fen: str) -> str:
    """The flag of the side to move falls, on the board's own clock: ``draw`` or ``win``."""
    tracker = Tracker(Game(Position.from_fen(fen)))
    keeper = Timekeeper(parse_time_control("1s+0"), game=tracker.game)
    keeper.clock.start(0)
    events = keeper.time_out(tracker, keeper.due())
    over = [e for e in events if e["type"] == "game_over"]
    assert len(over) == 1 and over[0]["termination"] == "timeout", events
    assert keeper.due() is None and keeper.clock.state == "stopped"  # no second flag
    turn = "white" if tracker.game.start.turn else "black"
    winner = over[0]["winner"]
    assert winner in (None, "white" if turn == "black" else "black")
    return "draw" if winner is None else "win"


def run(seed: int, count: int, plies: int, nodes: int) -> dict[str, int]:
    counts = {"draw": 0, "win": 0, "unknown": 0, "unknown_draw": 0, "over": 0}
    for board, witness in cases(seed, count):
        if Game(Position.from_fen(board.fen())).outcome() is not None:
            # Over already by our rules (a dead position python-chess does not see, as a
            # lone king that must take the queen beside it): no clock runs any more.
            counts["over"] += 1
            continue
        verdict = ours(board.fen())
        said = witness or judge(board, board.turn, plies, nodes)
        counts[said] += 1
        if said == "unknown":
            if verdict == "draw":
                counts["unknown_draw"] += 1
                # Ours says the opponent can never mate: a deeper search finds no mate.
                assert not helpmate(board.copy(), not board.turn, plies + 2, [nodes * 8]), (
                    board.fen()
                )
            continue
        assert verdict == said, (board.fen(), said, verdict)
    return counts


def test_flag_fall_verdicts_agree_with_python_chess():
    counts = run(seed=27, count=300, plies=2, nodes=150)
    # Not vacuous: both verdicts, decided by the judge, many times over.
    assert counts["draw"] > 25 and counts["win"] > 25, counts


@pytest.mark.slow
def test_flag_fall_verdicts_agree_with_python_chess_at_scale():
    counts = run(seed=2027, count=10_000, plies=2, nodes=200)
    assert counts["draw"] > 700 and counts["win"] > 900, counts


def test_the_first_flag_counts():
    """Both flags: the running clock's falls first and ends the game; the other clock then
    stands, and its time running out later changes nothing."""
    tracker = Tracker(Game())
    keeper = Timekeeper(parse_time_control("3s+0"), game=tracker.game)
    keeper.clock.switch(0)  # White's first move is free: Black's clock runs from 0
    events = keeper.time_out(tracker, keeper.due())
    over = [e for e in events if e["type"] == "game_over"]
    assert over[0]["winner"] == "white" and over[0]["t"] == 3_000
    assert keeper.due() is None and keeper.time_out(tracker, 10_000) == []
    assert keeper.reading(10_000)["white_ms"] == 3_000  # White's clock never ran out
    assert tracker.game.outcome().result() == "1-0"
