"""Position: the moves the laws allow, check, and make/unmake, on positions chosen by hand."""

from __future__ import annotations

import copy
import pickle

import pytest

import rules
from rules import (
    BISHOP,
    BLACK,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
    IllegalMoveError,
    Move,
    Piece,
    Position,
    parse_square,
    square_name,
)


def ucis(pos: Position) -> set[str]:
    return {m.uci() for m in pos.legal_moves()}


# ---------------------------------------------------------------- squares, pieces, moves


def test_squares_are_numbered_a1_to_h8():
    assert parse_square("a1") == 0
    assert parse_square("e4") == 28
    assert square_name(63) == "h8"
    for bad in ("i1", "a9", "e", "", None):
        with pytest.raises(ValueError, match="not a square"):
            parse_square(bad)


def test_piece_symbols():
    assert Piece(KNIGHT, BLACK).symbol() == "n"
    assert Piece(PAWN, WHITE).symbol() == "P"
    assert Piece.from_symbol("q") == Piece(QUEEN, BLACK)
    with pytest.raises(ValueError, match="not a piece letter: 'x'"):
        Piece.from_symbol("x")
    with pytest.raises(AttributeError):
        Piece(KING, WHITE).color = BLACK


def test_constants():
    assert (rules.WHITE, rules.BLACK) == (True, False)
    assert (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING) == (1, 2, 3, 4, 5, 6)


def test_moves_compare_by_squares_and_promotion_and_are_immutable():
    pos = Position.from_fen("7k/3P4/8/8/8/8/8/4K3 w - - 0 1")
    move = pos.parse_uci("d7d8q")
    assert move == Move.from_uci("d7d8q") == Move(51, 59, QUEEN)
    assert move != Move.from_uci("d7d8n")
    assert hash(move) == hash(Move(51, 59, QUEEN))
    assert str(move) == "d7d8q"
    assert repr(move) == "Move.from_uci('d7d8q')"
    with pytest.raises(AttributeError, match="immutable"):
        move.to_square = 1
    assert copy.deepcopy(move) == move
    again = pickle.loads(pickle.dumps(move))
    assert again == move and again.promotion == QUEEN


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("e2", "not a UCI move: 'e2' (expected e.g. 'e2e4'"),
        ("e2e9", "squares must be a1..h8"),
        ("e7e8k", "promotion letter must be one of n, b, r, q"),
        ("e2e2", "from and to are the same square"),
    ],
)
def test_uci_syntax_errors(text, message):
    with pytest.raises(IllegalMoveError, match="not a UCI move") as info:
        Move.from_uci(text)
    assert message in str(info.value)


def test_move_constructor_checks_its_arguments():
    with pytest.raises(ValueError, match=r"squares must be 0\.\.63"):
        Move(0, 64)
    with pytest.raises(ValueError, match="promotes to a knight, bishop, rook or queen"):
        Move(52, 60, KING)


# ---------------------------------------------------------------- reading a position


def test_start_position_reads():
    pos = Position()
    assert pos.turn == WHITE
    assert pos.piece_at(parse_square("e1")) == Piece(KING, WHITE)
    assert pos.piece_at(parse_square("d8")) == Piece(QUEEN, BLACK)
    assert pos.piece_at(parse_square("e4")) is None
    assert pos.occupancy() == 0xFFFF00000000FFFF
    assert pos.king_square(WHITE) == 4 and pos.king_square(BLACK) == 60
    assert pos.checkers() == []
    assert pos.pieces(KNIGHT, WHITE) == [1, 6]
    assert str(pos).splitlines()[0] == "r n b q k b n r"
    assert pos.castling_rights == "KQkq" and pos.ep_square is None


def test_checkers_lists_both_pieces_of_a_double_check():
    pos = Position.from_fen("4k3/8/5N2/8/8/8/8/4RK2 b - - 0 1")
    assert sorted(square_name(s) for s in pos.checkers()) == ["e1", "f6"]
    # In double check only the king moves.
    assert all(m.from_square == pos.king_square(BLACK) for m in pos.legal_moves())


# ---------------------------------------------------------------- the laws


def test_pinned_piece_moves_only_along_the_pin():
    pos = Position.from_fen("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1")
    rook_moves = {u for u in ucis(pos) if u.startswith("e2")}
    assert rook_moves == {"e2e3", "e2e4", "e2e5", "e2e6", "e2e7"}
    pinned_knight = Position.from_fen("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1")
    assert not {u for u in ucis(pinned_knight) if u.startswith("e2")}


def test_check_must_be_answered():
    pos = Position.from_fen("4k3/8/8/8/8/8/3P4/r3K2R w K - 0 1")
    # Castling out of check is not allowed; d2 cannot block a rank check from a1.
    assert ucis(pos) == {"e1e2", "e1f2"}


def test_castling_not_through_or_into_an_attacked_square():
    pos = Position.from_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert {"e1g1", "e1c1"} <= ucis(pos)
    through = Position.from_fen("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert "e1g1" not in ucis(through) and "e1c1" in ucis(through)
    into = Position.from_fen("2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert "e1c1" not in ucis(into) and "e1g1" in ucis(into)
    # b1 may be attacked: only the king's path matters.
    b1 = Position.from_fen("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert "e1c1" in ucis(b1)
    blocked = Position.from_fen("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1")
    assert "e1c1" not in ucis(blocked)


def test_castling_rights_are_lost_by_king_and_rook_moves_and_captures():
    pos = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    pos.push(pos.parse_uci("h1h8"))  # the rook takes a rook: both kingside rights go
    assert pos.castling_rights == "Qq"
    pos.push(pos.parse_uci("e8d7"))
    assert pos.castling_rights == "Q"
    pos.pop()
    pos.pop()
    assert pos.castling_rights == "KQkq"


def test_castling_moves_the_rook():
    pos = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    move = pos.parse_uci("e8c8")
    assert move.is_castling and (move.rook_from, move.rook_to) == (56, 59)
    pos.push(move)
    assert pos.fen() == "2kr3r/8/8/8/8/8/8/R3K2R w KQ - 1 2"
    pos.pop()
    assert pos.fen() == "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"


def test_en_passant_capture_and_its_victim():
    pos = Position.from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    move = pos.parse_uci("e5d6")
    assert move.is_en_passant and move.is_capture
    assert square_name(move.captured_square) == "d5"
    pos.push(move)
    assert pos.fen() == "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2"
    pos.pop()
    assert pos.fen() == "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"


def test_en_passant_that_exposes_the_king_along_the_rank_is_illegal():
    pos = Position.from_fen("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1")
    assert "e5d6" not in ucis(pos)
    # Without the rook it is legal.
    assert "e5d6" in ucis(Position.from_fen("8/8/8/K2pP3/8/8/8/7k w - d6 0 1"))


def test_en_passant_can_capture_a_checking_pawn():
    pos = Position.from_fen("8/8/8/3pP3/4K3/8/8/7k w - d6 0 1")
    assert pos.is_check()
    assert "e5d6" in ucis(pos)


def test_all_four_promotions():
    pos = Position.from_fen("3rk3/2P5/8/8/8/8/8/4K3 w - - 0 1")
    assert {u for u in ucis(pos) if u.startswith("c7")} == {
        "c7c8q", "c7c8r", "c7c8b", "c7c8n", "c7d8q", "c7d8r", "c7d8b", "c7d8n",
    }  # fmt: skip
    pos.push(pos.parse_uci("c7d8n"))
    assert pos.piece_at(parse_square("d8")) == Piece(KNIGHT, WHITE)
    pos.pop()
    assert pos.piece_at(parse_square("c7")) == Piece(PAWN, WHITE)


def test_checkmate_and_stalemate():
    mate = Position.from_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert mate.is_check() and mate.is_checkmate() and not mate.is_stalemate()
    stale = Position.from_fen("7k/5Q2/8/8/8/8/8/K7 b - - 0 1")
    assert stale.is_stalemate() and not stale.is_check() and not stale.is_checkmate()


@pytest.mark.parametrize(
    ("fen", "insufficient"),
    [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
        ("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", True),
        ("4k3/8/8/8/8/8/8/4KB2 w - - 0 1", True),
        ("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", True),  # bishops both on dark squares
        ("4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", False),  # on squares of both colours
        ("4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", False),
        ("4kn2/8/8/8/8/8/8/4KN2 w - - 0 1", False),
        ("4k3/8/8/8/8/8/8/4KBN1 w - - 0 1", False),
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", False),
        ("4k3/8/8/8/8/8/8/4KR2 w - - 0 1", False),
    ],
)
def test_insufficient_material(fen, insufficient):
    assert Position.from_fen(fen).is_insufficient_material() is insufficient


# ---------------------------------------------------------------- make/unmake, errors


def test_push_then_pop_restores_everything():
    pos = Position.from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    before = pos.copy()
    for move in pos.legal_moves():
        pos.push(move)
        assert pos.peek() == move
        assert pos.pop() == move
        assert pos == before
        assert pos.fen() == before.fen()
    with pytest.raises(IndexError, match="no moves pushed"):
        Position().pop()


def test_copy_is_independent():
    pos = Position()
    twin = pos.copy()
    twin.push(twin.parse_san("e4"))
    assert pos.fen() != twin.fen()
    assert twin.move_stack == [Move.from_uci("e2e4")]
    assert pos.move_stack == []


@pytest.mark.parametrize(
    ("fen", "uci", "message"),
    [
        (rules.STARTING_FEN, "e2e5", "illegal move e2e5: the pawn on e2 cannot go to e5 in rnbq"),
        (rules.STARTING_FEN, "d1d3", "the queen on d1 cannot go to d3"),
        (rules.STARTING_FEN, "e7e5", "illegal move e7e5: it is White's turn"),
        (rules.STARTING_FEN, "a3a4", "illegal move a3a4: no piece on a3"),
        (rules.STARTING_FEN, "e1g1", "castling is not allowed here"),
        (rules.STARTING_FEN, "e1e2", "e2 holds White's own pawn"),
        ("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "e1e2", "the king would be in check on e2"),
        ("4k3/8/8/8/8/8/8/4K2r w - - 0 1", "e1f1", "the king would be in check on f1"),
        ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8", "a pawn reaching the last rank must promote"),
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2e3q", "a pawn promotes only on the last rank"),
        ("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", "f1h2q", "only a pawn promotes, this is a knight"),
        ("4k3/8/8/8/8/8/8/r3KN2 w - - 0 1", "f1d2", "White is in check and this knight move"),
        ("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "e2c3", "the knight on e2 is pinned"),
        ("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", "e5d6", "would leave White's king in check"),
    ],
)
def test_illegal_moves_say_why(fen, uci, message):
    pos = Position.from_fen(fen)
    with pytest.raises(IllegalMoveError) as info:
        pos.parse_uci(uci)
    assert message in str(info.value)
    assert not pos.is_legal(Move.from_uci(uci))


def test_legal_moves_is_a_fresh_list():
    pos = Position()
    pos.legal_moves().clear()
    assert len(pos.legal_moves()) == 20
