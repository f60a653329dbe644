"""Property tests (hypothesis): random walks from many positions, standard and Chess960;
push then pop restores the position exactly, and every FEN written reads back to the same
position."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import Position
from tests.conftest import SHARED_DATA
from tests.rules.test_perft960 import CASES as CHESS960_CASES

FENS = [
    line.split(";")[0].strip()
    for line in (SHARED_DATA / "perft.epd").read_text().splitlines()
    if line.strip()
]


def internals(pos: Position) -> tuple:
    """Everything a position holds, its piece sets and king squares included."""
    return (
        pos._board[:],
        pos.turn,
        pos._castling,
        pos.ep_square,
        pos.halfmove_clock,
        pos.fullmove_number,
        sorted(pos._pieces[0]),
        sorted(pos._pieces[1]),
        pos._kings[:],
        len(pos._stack),
    )


def assert_consistent(pos: Position) -> None:
    board = pos._board
    assert sorted(pos._pieces[1]) == [sq for sq in range(64) if board[sq] > 0]
    assert sorted(pos._pieces[0]) == [sq for sq in range(64) if board[sq] < 0]
    assert board[pos._kings[1]] == 6 and board[pos._kings[0]] == -6


walks = st.tuples(
    st.sampled_from(FENS),
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=60),
)


@settings(max_examples=300, deadline=None)
@given(walks)
def test_push_then_pop_restores_exactly(walk):
    fen, choices = walk
    pos = Position.from_fen(fen)
    snapshots = []
    fens = []
    for choice in choices:
        moves = pos.legal_moves()
        if not moves:
            break
        snapshots.append(internals(pos))
        fens.append(pos.fen())
        pos.push(moves[choice % len(moves)])
        assert_consistent(pos)
    while snapshots:
        pos.pop()
        assert internals(pos) == snapshots.pop()
        assert pos.fen() == fens.pop()
    assert pos.fen() == Position.from_fen(fen).fen()


walks960 = st.tuples(
    st.sampled_from([fen for _, fen, _ in CHESS960_CASES]),
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=60),
)


@settings(max_examples=150, deadline=None)
@given(walks960)
def test_chess960_push_then_pop_restores_exactly_and_fens_read_back(walk):
    """Castling first wherever it is legal: the king and rook swapping squares, a king
    that stays, a rook jumping the king are all undone exactly."""
    fen, choices = walk
    pos = Position.from_fen(fen, variant="chess960")
    snapshots = []
    for choice in choices:
        moves = pos.legal_moves()
        if not moves:
            break
        for text in (pos.fen(), pos.fen(shredder=True)):
            again = Position.from_fen(text, variant="chess960")
            assert again.repetition_key() == pos.repetition_key() and again.fen() == pos.fen()
        snapshots.append(internals(pos))
        castles = [m for m in moves if m.is_castling]
        pos.push(castles[0] if castles and choice % 2 else moves[choice % len(moves)])
        assert_consistent(pos)
    while snapshots:
        pos.pop()
        assert internals(pos) == snapshots.pop()
    assert pos.fen() == Position.from_fen(fen, variant="chess960").fen()


@settings(max_examples=300, deadline=None)
@given(walks)
def test_fen_round_trips_along_random_games(walk):
    fen, choices = walk
    pos = Position.from_fen(fen)
    for choice in choices:
        text = pos.fen()
        again = Position.from_fen(text)
        assert again.fen() == text
        assert again.repetition_key() == pos.repetition_key()
        assert sorted(m.uci() for m in again.legal_moves()) == sorted(
            m.uci() for m in pos.legal_moves()
        )
        moves = pos.legal_moves()
        if not moves:
            break
        pos.push(moves[choice % len(moves)])


@settings(max_examples=100, deadline=None)
@given(walks)
def test_copy_and_san_do_not_disturb_the_position(walk):
    fen, choices = walk
    pos = Position.from_fen(fen)
    for choice in choices[:20]:
        moves = pos.legal_moves()
        if not moves:
            break
        before = internals(pos)
        twin = pos.copy()
        for move in moves:
            assert twin.parse_san(twin.san(move)) == move
        assert internals(pos) == before == internals(twin)
        pos.push(moves[choice % len(moves)])
