"""Differential tests: our rules against python-chess (the test oracle) on real and random games.

Over all positions of the 100 self-play games and of seeded random games (well over
10,000 positions): the same legal moves, the same SAN for every legal move, SAN read back
to the same move, the same check / checkmate / stalemate / insufficient-material answers,
the same FEN, and our FEN read back to the same position.
"""

from __future__ import annotations

import random

import chess
import chess.pgn
import pytest

from rules import Position
from tests.conftest import SHARED_DATA

RANDOM_GAMES = 60
RANDOM_SEED = 20261122


def _selfplay_move_lists() -> list[list[str]]:
    games = []
    with open(SHARED_DATA / "selfplay.pgn") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append([m.uci() for m in game.mainline_moves()])
    return games


def _random_move_lists() -> list[list[str]]:
    """Games of uniformly random legal moves: many promotions (to every piece), en
    passant, odd castlings and bare endgames that engines never play."""
    rng = random.Random(RANDOM_SEED)
    games = []
    for _ in range(RANDOM_GAMES):
        board = chess.Board()
        moves = []
        while not board.is_game_over(claim_draw=False) and len(moves) < 300:
            move = rng.choice(list(board.legal_moves))
            moves.append(move.uci())
            board.push(move)
        games.append(moves)
    return games


def _compare_game(uci_moves: list[str]) -> int:
    """Walk one game through both libraries, comparing every position; the number seen."""
    board = chess.Board()
    pos = Position()
    seen = 0
    for uci in [*uci_moves, None]:
        fen = board.fen()
        assert pos.fen() == fen
        assert Position.from_fen(fen).fen() == fen
        theirs = {m.uci(): m for m in board.legal_moves}
        ours = {m.uci(): m for m in pos.legal_moves()}
        assert sorted(ours) == sorted(theirs), fen
        for text, move in ours.items():
            san = board.san(theirs[text])
            assert pos.san(move) == san, (fen, text)
            assert pos.parse_san(san) == move, (fen, san)
            their = theirs[text]
            assert move.is_capture == board.is_capture(their), (fen, text)
            assert move.is_en_passant == board.is_en_passant(their), (fen, text)
            assert move.is_castling == board.is_castling(their), (fen, text)
        assert (
            pos.is_check(),
            pos.is_checkmate(),
            pos.is_stalemate(),
            pos.is_insufficient_material(),
        ) == (
            board.is_check(),
            board.is_checkmate(),
            board.is_stalemate(),
            board.is_insufficient_material(),
        ), fen
        assert sorted(pos.checkers()) == sorted(board.checkers()), fen
        seen += 1
        if uci is None:
            break
        board.push_uci(uci)
        pos.push(pos.parse_uci(uci))
    return seen


SELFPLAY = _selfplay_move_lists()
RANDOM = _random_move_lists()


def test_selfplay_and_random_games_agree_with_python_chess():
    seen = sum(_compare_game(moves) for moves in SELFPLAY + RANDOM)
    assert len(SELFPLAY) == 100
    assert seen >= 10_000


@pytest.mark.parametrize("seed", range(3))
def test_pop_walks_back_through_the_same_fens(seed):
    moves = RANDOM[seed]
    pos = Position()
    fens = [pos.fen()]
    for uci in moves:
        pos.push(pos.parse_uci(uci))
        fens.append(pos.fen())
    while fens:
        assert pos.fen() == fens.pop()
        if fens:
            pos.pop()
