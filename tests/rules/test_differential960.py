"""Differential tests for Chess960: our rules against python-chess's
(``chess.Board(chess960=True)``, the test oracle) over random positions from random start
positions.

Two kinds of walks. *Castling walks* start from a random start position with most of the
back ranks cleared and a few pawns gone (so that every form of castling comes up, and
castling refused for an attacked square too), and prefer castling whenever it is legal.
*Games* play random legal moves from a start position to the end, through repetitions
and long endgames. In every position: the same legal moves in UCI_Chess960, the same
flags, the same SAN for every move and SAN read back, castling read from the king's
castled square too, the same FEN in X-FEN and in Shredder-FEN and both read back, the
same check, mate, stalemate and insufficient-material answers; along games, the same
ending (a dead position, which python-chess does not know, aside), the same threefold
and fifty-move claims.

The default run is short; ``-m slow`` runs the long one.
"""

from __future__ import annotations

import random
from collections import Counter

import chess
import pytest

from rules import BLACK, WHITE, Game, Move, Position
from tests.rules.test_dead import _find_helpmate
from tests.rules.test_differential import assert_same_state

#: Our termination names for python-chess's automatic endings.
_ENDINGS = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient_material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventyfive_moves",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold_repetition",
}


def _castling_start(rng: random.Random) -> chess.Board:
    """A start position with most back-rank pieces but kings and rooks gone, a few
    pawns gone, and White or Black to move: castling of every form, soon."""
    while True:
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        for square in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8):
            piece = board.piece_at(square)
            if piece.piece_type not in (chess.KING, chess.ROOK) and rng.random() < 0.8:
                board.remove_piece_at(square)
        for square in chess.SquareSet(chess.BB_RANK_2 | chess.BB_RANK_7):
            if rng.random() < 0.3:
                board.remove_piece_at(square)
        board.turn = rng.random() < 0.5
        if board.is_valid():
            return board


def _castling_kinds(pos: Position, move: Move, san: str) -> set[str]:
    kinds = {"O-O" if san.startswith("O-O") and not san.startswith("O-O-O") else "O-O-O"}
    if move.to_square == move.from_square:
        kinds.add("the king stays")
    if move.to_square == move.rook_from:
        kinds.add("the king lands on its rook's square")
    if move.rook_to == move.from_square:
        kinds.add("the rook lands on the king's square")
    if san[-1] in "+#":
        kinds.add("castling gives check")
    if not pos.turn:
        kinds.add("Black castles")
    return kinds


def _refused_castlings(pos: Position, board: chess.Board) -> bool:
    """Is there a right whose squares are all free, yet no castling with that rook?"""
    castled = {m.rook_from for m in pos.legal_moves() if m.is_castling}
    king = pos.king_square(pos.turn)
    for rook in pos.castling_rooks(pos.turn):
        if rook in castled:
            continue
        kingside = rook > king
        back = king & 0o70
        to, rook_to = back + (6 if kingside else 2), back + (5 if kingside else 3)
        span = set(range(min(king, to), max(king, to) + 1))
        span |= set(range(min(rook, rook_to), max(rook, rook_to) + 1))
        if all(board.piece_at(sq) is None for sq in span - {king, rook}):
            return True
    return False


def _compare(pos: Position, board: chess.Board, features: Counter[str]) -> None:
    """Every answer of one position, ours against python-chess's."""
    fen, shredder = board.fen(), board.fen(shredder=True)
    assert pos.fen() == fen
    assert pos.fen(shredder=True) == shredder
    assert Position.from_fen(fen, variant="chess960") == pos
    assert Position.from_fen(shredder, variant="chess960").fen() == fen
    theirs = {board.uci(m): m for m in board.legal_moves}
    ours = {m.uci(): m for m in pos.legal_moves()}
    assert sorted(ours) == sorted(theirs), fen
    for text, move in ours.items():
        their = theirs[text]
        san = board.san(their)
        assert pos.san(move) == san, (fen, text)
        assert pos.parse_san(san) == move, (fen, san)
        assert pos.parse_uci(text) is move, (fen, text)
        assert move.is_capture == board.is_capture(their), (fen, text)
        assert move.is_en_passant == board.is_en_passant(their), (fen, text)
        assert move.is_castling == board.is_castling(their), (fen, text)
        if move.is_castling:
            features.update(_castling_kinds(pos, move, san))
            # Written as the king to its castled square: the castling, unless that is
            # the text of another legal move (a king's step to the same square).
            other = chess.square_name(move.from_square) + chess.square_name(move.to_square)
            if move.to_square != move.from_square:
                assert pos.parse_uci(other) is ours.get(other, move), fen
        if move.promotion:
            features["promotion"] += 1
        if move.is_en_passant:
            features["en passant"] += 1
    if _refused_castlings(pos, board):
        features["castling refused for an attacked square"] += 1
    assert_same_state(pos, board)


def _castling_walk(rng: random.Random, plies: int, features: Counter[str]) -> int:
    board = _castling_start(rng)
    pos = Position.from_fen(board.fen(shredder=True), variant="chess960")
    fens = [pos.fen()]
    seen = 0
    for _ in range(plies):
        _compare(pos, board, features)
        seen += 1
        moves = list(board.legal_moves)
        if not moves:
            break
        castles = [m for m in moves if board.is_castling(m)]
        move = rng.choice(castles if castles and rng.random() < 0.6 else moves)
        board.push(move)
        pos.push(pos.parse_uci(board.uci(board.pop())))
        board.push(move)
        fens.append(pos.fen())
    while pos.move_stack:  # every move taken back restores the position before it
        fens.pop()
        pos.pop()
        assert pos.fen() == fens[-1]
    return seen


def _game(rng: random.Random, features: Counter[str]) -> int:
    """A game of random moves from a random start position to its end (or 400 plies),
    compared position by position (SAN and all in one position of three, endings and
    claims in all); the number compared in full."""
    number = rng.randrange(960)
    board = chess.Board.from_chess960_pos(number)
    game = Game(Position.from_chess960(number))
    seen = 0
    while True:
        pos = game.position
        if len(game.moves) % 3 == 0:  # SAN for every move costs: one position in three
            _compare(pos, board, features)
            seen += 1
        theirs = board.outcome(claim_draw=False)
        ours = game.outcome()
        if ours is not None and ours.termination == "dead_position":
            assert theirs is None or theirs.termination in (
                chess.Termination.FIVEFOLD_REPETITION,
                chess.Termination.SEVENTYFIVE_MOVES,
            ), board.fen()
            # python-chess knows no dead position: a search for a mate by either side,
            # both cooperating, finds none.
            for color in (WHITE, BLACK):
                assert _find_helpmate(pos.copy(), color, 4, 3000) is None, board.fen()
            features["dead position"] += 1
            return seen
        assert (ours and ours.termination, ours and ours.winner) == (
            theirs and _ENDINGS[theirs.termination],
            theirs and theirs.winner,
        ), board.fen()
        if ours is not None:
            features[ours.termination] += 1
            if ours.termination == "checkmate":
                # The winner mated: no position on the way was dead, or unwinnable for it.
                replay = game.start.copy()
                for move in game.moves:
                    assert not replay.is_dead() and not replay.unwinnable(ours.winner), (
                        replay.fen()
                    )
                    replay.push(move)
            return seen
        assert game.can_claim_threefold() == board.is_repetition(3), board.fen()
        assert game.can_claim_fifty_moves() == (board.halfmove_clock >= 100), board.fen()
        if game.can_claim_threefold():
            features["threefold repetition claimable"] += 1
        if len(game.moves) >= 400:
            return seen
        move = rng.choice(list(board.legal_moves))
        text = board.uci(move)
        board.push(move)
        game.push_uci(text)


def _run(seed: int, walks: int, plies: int, games: int) -> tuple[int, Counter[str]]:
    """(positions compared in full, what they held)."""
    rng = random.Random(seed)
    features: Counter[str] = Counter()
    seen = sum(_castling_walk(rng, plies, features) for _ in range(walks))
    seen += sum(_game(rng, features) for _ in range(games))
    return seen, features


CASTLING_FORMS = {
    "O-O",
    "O-O-O",
    "Black castles",
    "the king stays",
    "the king lands on its rook's square",
    "the rook lands on the king's square",
    "castling gives check",
    "castling refused for an attacked square",
}


def test_random_chess960_positions_agree_with_python_chess():
    seen, features = _run(seed=960, walks=50, plies=30, games=6)
    print(f"{seen} positions compared: {dict(features)}")
    assert seen >= 2_000, seen
    assert set(features) >= CASTLING_FORMS, features
    assert {"promotion", "en passant", "checkmate"} <= set(features), features


@pytest.mark.slow
def test_random_chess960_positions_agree_with_python_chess_long():
    seen, features = _run(seed=1960, walks=2000, plies=40, games=300)
    print(f"{seen} positions compared: {dict(features)}")
    assert seen >= 100_000, seen
    assert set(features) >= CASTLING_FORMS, features
    assert {
        "promotion",
        "en passant",
        "checkmate",
        "stalemate",
        "insufficient_material",
        "threefold repetition claimable",
    } <= set(features), features
