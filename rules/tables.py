"""Tables computed once at import: rays, knight and king steps, pawn moves, prebuilt moves.

The move generator walks these instead of doing square arithmetic, and appends moves
that already exist instead of building new ones: in CPython that is most of its speed.
Indexing by colour uses ``True`` (White) = 1, ``False`` (Black) = 0.
"""

from __future__ import annotations

from typing import NamedTuple

from .core import BISHOP, KNIGHT, QUEEN, ROOK, Move

# Directions as (file step, rank step): orthogonal first (0-3), then diagonal (4-7).
DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))
KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)


def _walk(sq: int, df: int, dr: int) -> tuple[int, ...]:
    f, r = sq & 7, sq >> 3
    out = []
    f += df
    r += dr
    while 0 <= f < 8 and 0 <= r < 8:
        out.append(r * 8 + f)
        f += df
        r += dr
    return tuple(out)


def _step(sq: int, steps: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    f, r = sq & 7, sq >> 3
    return tuple((r + dr) * 8 + f + df for df, dr in steps if 0 <= f + df < 8 and 0 <= r + dr < 8)


#: RAYS[sq][d]: the squares from sq outward in direction d, nearest first.
RAYS = tuple(tuple(_walk(sq, df, dr) for df, dr in DIRECTIONS) for sq in range(64))
#: Only the non-empty rays, split by kind, for attack tests.
ORTHO_RAYS = tuple(tuple(r for r in RAYS[sq][:4] if r) for sq in range(64))
DIAG_RAYS = tuple(tuple(r for r in RAYS[sq][4:] if r) for sq in range(64))
#: RAYS_WITH_PREFIX[sq][d]: (square, frozenset of the squares from sq's neighbour up to it).
RAYS_WITH_PREFIX = tuple(
    tuple(tuple((t, frozenset(ray[: i + 1])) for i, t in enumerate(ray)) for ray in RAYS[sq])
    for sq in range(64)
)
ORTHO_LINES = tuple(tuple(r for r in RAYS_WITH_PREFIX[sq][:4] if r) for sq in range(64))
DIAG_LINES = tuple(tuple(r for r in RAYS_WITH_PREFIX[sq][4:] if r) for sq in range(64))
#: SINGLE[sq]: frozenset({sq}), the only answer to a knight's or pawn's check but capture.
SINGLE = tuple(frozenset((sq,)) for sq in range(64))
KNIGHT_SQUARES = tuple(_step(sq, KNIGHT_STEPS) for sq in range(64))
KING_SQUARES = tuple(_step(sq, DIRECTIONS) for sq in range(64))


def _pawn_attacks(sq: int, white: bool) -> tuple[int, ...]:
    dr = 1 if white else -1
    return _step(sq, ((-1, dr), (1, dr)))


#: PAWN_ATTACKS[color][sq]: the squares a pawn of that colour on sq attacks. Read the other
#: way round, PAWN_ATTACKS[color][sq] also holds where an enemy pawn must stand to attack sq.
PAWN_ATTACKS = (
    tuple(_pawn_attacks(sq, False) for sq in range(64)),
    tuple(_pawn_attacks(sq, True) for sq in range(64)),
)


def _quiet_and_capture(frm: int, to: int) -> tuple[int, Move, Move]:
    return (to, Move(frm, to), Move(frm, to, is_capture=True))


def _moves_along(frm: int, ray: tuple[int, ...]) -> tuple[tuple[int, Move, Move], ...]:
    return tuple(_quiet_and_capture(frm, t) for t in ray)


#: Per square, per direction: (to, quiet move, capturing move) outward.
_RAY_MOVES = tuple(tuple(_moves_along(sq, ray) for ray in RAYS[sq]) for sq in range(64))
ROOK_MOVES = tuple(tuple(r for r in _RAY_MOVES[sq][:4] if r) for sq in range(64))
BISHOP_MOVES = tuple(tuple(r for r in _RAY_MOVES[sq][4:] if r) for sq in range(64))
QUEEN_MOVES = tuple(ROOK_MOVES[sq] + BISHOP_MOVES[sq] for sq in range(64))
_NO_MOVES: tuple[tuple[tuple[tuple[int, Move, Move], ...], ...], ...] = tuple(() for _ in range(64))
#: SLIDER_MOVES[piece type][sq] (no moves for the pieces that do not slide)
SLIDER_MOVES = (
    _NO_MOVES,
    _NO_MOVES,
    _NO_MOVES,
    BISHOP_MOVES,
    ROOK_MOVES,
    QUEEN_MOVES,
    _NO_MOVES,
)
KNIGHT_MOVES = tuple(_moves_along(sq, KNIGHT_SQUARES[sq]) for sq in range(64))
KING_MOVES = tuple(_moves_along(sq, KING_SQUARES[sq]) for sq in range(64))


def _pawn_moves(frm: int, to: int, capture: bool) -> tuple[Move, ...]:
    if to >> 3 in (0, 7):
        return tuple(Move(frm, to, p, is_capture=capture) for p in PROMOTIONS)
    return (Move(frm, to, is_capture=capture),)


_PawnPush = tuple[int, tuple[Move, ...]]
_PawnDouble = tuple[int, Move]


def _pawn_tables(
    white: bool,
) -> tuple[
    tuple[_PawnPush, ...],
    tuple[_PawnDouble | None, ...],
    tuple[tuple[_PawnPush, ...], ...],
]:
    push: list[_PawnPush] = []
    double: list[_PawnDouble | None] = []
    caps: list[tuple[_PawnPush, ...]] = []
    step = 8 if white else -8
    start_rank = 1 if white else 6
    for sq in range(64):
        to = sq + step
        if not 0 <= to < 64 or sq >> 3 in (0, 7):
            push.append((sq, ()))  # no pawn stands on its first or last rank
            double.append(None)
            caps.append(())
            continue
        push.append((to, _pawn_moves(sq, to, False)))
        double.append((to, Move(sq, to + step)) if sq >> 3 == start_rank else None)
        caps.append(tuple((t, _pawn_moves(sq, t, True)) for t in _pawn_attacks(sq, white)))
    return tuple(push), tuple(double), tuple(caps)


_BLACK_PAWNS = _pawn_tables(False)
_WHITE_PAWNS = _pawn_tables(True)
#: PAWN_PUSH[color][sq] = (to, moves); PAWN_DOUBLE[color][sq] = (square passed, move) or None;
#: PAWN_CAPTURES[color][sq] = ((to, moves), ...). Promotions give four moves.
PAWN_PUSH = (_BLACK_PAWNS[0], _WHITE_PAWNS[0])
PAWN_DOUBLE = (_BLACK_PAWNS[1], _WHITE_PAWNS[1])
PAWN_CAPTURES = (_BLACK_PAWNS[2], _WHITE_PAWNS[2])

#: EN_PASSANT[(from, to)]
EN_PASSANT = {
    (frm, to): Move(frm, to, is_en_passant=True)
    for rank, dr in ((4, 1), (3, -1))
    for frm in range(rank * 8, rank * 8 + 8)
    for to in _step(frm, ((-1, dr), (1, dr)))
}

# Castling rights as bits, one per rook that may castle: bit f for the white rook on file f
# of the first rank, bit 8 + f for the black rook on file f of the eighth. Standard chess
# uses the four corner bits; Chess960 any of them (at most one each side of its king).
WHITE_KINGSIDE, WHITE_QUEENSIDE, BLACK_KINGSIDE, BLACK_QUEENSIDE = 1 << 7, 1, 1 << 15, 1 << 8
#: Every right of White, of Black: indexed by colour (Black = 0, White = 1).
RIGHTS_OF = (0xFF00, 0x00FF)
ALL_RIGHTS = 0xFFFF


def castling_bit(square: int) -> int:
    """The right of the rook on a back-rank square (0 for any other square)."""
    if square < 8:
        return 1 << square
    if square >= 56:
        return 1 << (square - 48)
    return 0


def rook_square(bit_index: int) -> int:
    """The square of the rook whose right is bit ``bit_index`` (0-15)."""
    return bit_index if bit_index < 8 else bit_index + 48


#: Rights kept after a move from or to a square: moving a rook, or capturing it, ends its
#: right. (What a king's move ends depends on where the king starts: see the position.)
ROOK_KEPT = tuple(ALL_RIGHTS & ~castling_bit(sq) for sq in range(64))
#: The standard table, kings on e1 and e8 included.
CASTLING_KEPT = tuple(
    kept & ~RIGHTS_OF[1] if sq == 4 else kept & ~RIGHTS_OF[0] if sq == 60 else kept
    for sq, kept in enumerate(ROOK_KEPT)
)

CASTLE_WK = Move(4, 6, is_castling=True)
CASTLE_WQ = Move(4, 2, is_castling=True)
CASTLE_BK = Move(60, 62, is_castling=True)
CASTLE_BQ = Move(60, 58, is_castling=True)


class Castling960(NamedTuple):
    """What a Chess960 castling of one king square with one rook square needs."""

    move: Move
    #: Squares that must be empty: every square between the king and its final square and
    #: between the rook and its final square, both final squares, but the king's and
    #: the rook's own.
    empty: tuple[int, ...]
    #: Squares the king passes over (not its own, not its final square): none attacked.
    path: tuple[int, ...]


def _span(a: int, b: int) -> set[int]:
    """The squares from a to b on one rank, both included."""
    return set(range(min(a, b), max(a, b) + 1))


def _castling960(king: int, rook: int) -> Castling960:
    move = Move.castling(king, rook)
    to, rook_to = move.to_square, move.rook_to
    assert rook_to is not None
    empty = (_span(king, to) | _span(rook, rook_to)) - {king, rook}
    path = _span(king, to) - {king, to}
    return Castling960(move, tuple(sorted(empty)), tuple(sorted(path)))


#: CASTLING_960[king square * 64 + rook square], for a king and a rook on one back rank.
CASTLING_960 = {
    king * 64 + rook: _castling960(king, rook)
    for back in (0, 56)
    for king in range(back, back + 8)
    for rook in range(back, back + 8)
    if rook != king
}
