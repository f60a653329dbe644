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

RANDOM_GAMES = 25
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


def _compare_game(uci_moves: list[str], start: str, features: set[str]) -> int:
    """Walk one game through both libraries, comparing every position; the number seen.
    ``features`` collects the kinds of moves and endings met on the way."""
    board = chess.Board(start)
    pos = Position.from_fen(start)
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
            if move.promotion:
                features.add(f"promotion {move.promotion}")
            if move.is_en_passant:
                features.add("en passant")
            if move.is_castling:
                features.add("castling")
        assert_same_state(pos, board)
        for name in ("checkmate", "stalemate", "insufficient_material"):
            if getattr(pos, f"is_{name}")():
                features.add(name)
        if len(pos.checkers()) == 2:
            features.add("double check")
        seen += 1
        if uci is None:
            break
        board.push_uci(uci)
        pos.push(pos.parse_uci(uci))
    return seen


def assert_same_state(pos: Position, board: chess.Board) -> None:
    """Check, checkmate, stalemate, insufficient material and the checkers: ours and
    python-chess's the same."""
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
    ), board.fen()
    assert sorted(pos.checkers()) == sorted(board.checkers()), board.fen()


def _tricky_walks() -> list[tuple[str, list[str]]]:
    """Random games from the perft file's hand-picked positions (pins, e.p. through a
    pin, castling that checks, promotions out of check...)."""
    rng = random.Random(RANDOM_SEED + 1)
    lines = (SHARED_DATA / "perft.epd").read_text().splitlines()[:20]
    walks = []
    for line in lines:
        fen = line.split(";")[0].strip()
        for _ in range(3):
            board = chess.Board(fen)
            moves = []
            while not board.is_game_over(claim_draw=False) and len(moves) < 80:
                move = rng.choice(list(board.legal_moves))
                moves.append(move.uci())
                board.push(move)
            walks.append((fen, moves))
    return walks


SELFPLAY = _selfplay_move_lists()
RANDOM = _random_move_lists()
TRICKY = _tricky_walks()


def test_selfplay_and_random_games_agree_with_python_chess():
    features: set[str] = set()
    seen = sum(_compare_game(moves, chess.STARTING_FEN, features) for moves in SELFPLAY + RANDOM)
    seen += sum(_compare_game(moves, fen, features) for fen, moves in TRICKY)
    assert len(SELFPLAY) == 100
    assert seen >= 10_000
    assert features == {
        "promotion 2", "promotion 3", "promotion 4", "promotion 5", "en passant", "castling",
        "checkmate", "stalemate", "insufficient_material", "double check",
    }  # fmt: skip


def _variants(san: str, board: chess.Board, move: chess.Move) -> list[str]:
    bare = san.rstrip("+#")
    out = [bare, bare.replace("O", "0"), bare + "!?"]
    piece = board.piece_at(move.from_square)
    if piece.piece_type != chess.PAWN and not board.is_castling(move):
        letter = piece.symbol().upper()
        sep = "x" if board.is_capture(move) else ""
        out.append(f"{letter}{chess.square_name(move.from_square)}{sep}{bare[-2:]}")
    return out


def test_lenient_san_reads_like_python_chess():
    """Suffixes left off, castling with zeros, long algebraic: where python-chess reads a
    text, we read the same move from it."""
    compared = 0
    for moves in SELFPLAY[::4] + RANDOM[::4]:
        board = chess.Board()
        pos = Position()
        for ply, uci in enumerate(moves):
            if ply % 7 == 0:
                for move in board.legal_moves:
                    for text in _variants(board.san(move), board, move):
                        try:
                            theirs = board.parse_san(text)
                        except ValueError:
                            continue
                        assert pos.parse_san(text).uci() == theirs.uci(), (board.fen(), text)
                        compared += 1
            board.push_uci(uci)
            pos.push(pos.parse_uci(uci))
    assert compared > 5_000


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
