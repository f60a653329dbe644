"""What a legal move does to the squares: which empty, which fill, what stands after.

A reed switch sees presence only, so the tracker reads a move from its *footprint*:

- ``lifts``: the squares a piece leaves (the mover's square, a victim's square, the
  rook's corner when castling);
- ``places``: the squares a piece arrives on (the destination, the rook's square);
- ``after``: the occupancy once the move is done.

>>> from rules import Position
>>> from board_driver.physical.squares import square
>>> pos = Position()
>>> fp = Footprint.of(pos.parse_uci("e2e4"), pos.occupancy())
>>> fp.after == pos.occupancy() & ~(1 << square("e2")) | 1 << square("e4")
True
>>> fp.on_the_way(pos.occupancy(), pos.occupancy() & ~(1 << square("e2")))  # pawn in hand
True
"""

from __future__ import annotations

from typing import NamedTuple

from rules import Move


def bit(square: int) -> int:
    return 1 << square


class Footprint(NamedTuple):
    """A legal move's squares, against the occupancy it was played from.

    A named tuple: immutable like a frozen dataclass, but built four times faster, and
    every commit builds one for each legal move of the new position.
    """

    move: Move
    lifts: int
    places: int
    after: int
    #: A normal capture's square: it must be seen emptied and filled again, which is
    #: what tells ``Qxd5`` from ``Qxh5`` (both leave the same occupancy).
    target: int | None

    @classmethod
    def of(cls, move: Move, occupancy: int) -> Footprint:
        lifts = bit(move.from_square)
        places = bit(move.to_square)
        target = None
        if move.rook_from is not None and move.rook_to is not None:  # castling
            lifts |= bit(move.rook_from)
            places |= bit(move.rook_to)
        elif move.captured_square is not None:  # a capture
            lifts |= bit(move.captured_square)
            if not move.is_en_passant:
                target = move.to_square
        after = (occupancy & ~lifts) | places
        return _new_tuple(cls, (move, lifts, places, after, target))

    @property
    def touched(self) -> int:
        """Every square the move changes or passes through a hand."""
        return self.lifts | self.places

    def on_the_way(self, before: int, board: int, *, sliding: bool = False) -> bool:
        """Could ``board`` be a state on the way from ``before`` to this move's result?

        Only the move's squares may differ, and a piece standing on a square that was
        empty must have come from the square this move brings it from (the mover from
        its square, the rook from its corner): pieces do not appear from nowhere. With
        ``sliding`` (the board not yet still), the moving piece may also stand on a square
        of its path, passing over it.
        """
        move = self.move
        fills = board & ~before
        outside = (board ^ before) & ~(self.lifts | self.places)
        if outside:
            if not sliding:
                return False
            # Only the moving piece, sliding: one square of its path, filled, while it is
            # neither on its square nor yet on its destination.
            if (
                outside & (outside - 1)
                or not outside & fills & between(move.from_square, move.to_square)
                or board & bit(move.from_square)
                or fills & bit(move.to_square)
            ):
                return False
            fills &= ~outside
        places = self.places
        # A piece on its destination while its square still holds a piece came from
        # nowhere, unless the other piece of a Chess960 castling fills that square.
        if fills & bit(move.to_square) and board & bit(move.from_square) & ~places:
            return False
        rook_from, rook_to = move.rook_from, move.rook_to
        if rook_from is None or rook_to is None:  # not castling
            return True
        return not (fills & bit(rook_to) and board & bit(rook_from) & ~places)


_new_tuple = tuple.__new__  # the named tuple's own __new__, without its keyword handling


def between(a: int, b: int) -> int:
    """The squares strictly between ``a`` and ``b`` on a rank, file or diagonal (0 if
    they share none): the squares a sliding piece passes over from one to the other.

    >>> from board_driver.physical.squares import square, squares_of, square_name
    >>> [square_name(sq) for sq in squares_of(between(square("d1"), square("a4")))]
    ['c2', 'b3']
    >>> between(square("g1"), square("f3"))  # a knight's jump
    0
    """
    df = (b & 7) - (a & 7)
    dr = (b >> 3) - (a >> 3)
    if a == b or not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return 0  # one square (a Chess960 king that stays), or no line
    step = (df > 0) - (df < 0) + 8 * ((dr > 0) - (dr < 0))
    mask = 0
    for sq in range(a + step, b, step):
        mask |= 1 << sq
    return mask


def footprints(moves: list[Move], occupancy: int) -> list[Footprint]:
    """The footprints of ``moves``, all played from ``occupancy``."""
    return [Footprint.of(move, occupancy) for move in moves]
