"""Touch-move (FIDE 4.3): which moves the pieces touched so far still allow.

Lifts are taken as the side to move's (4.2.1: only that player may touch the pieces).
Only the first own piece touched that *can* be moved counts, and the first opponent's
piece touched that *can* be captured:

>>> from rules import Position
>>> pos = Position()
>>> touch = TouchMove()
>>> touch.lift(pos, 12, t_ms=100)          # e2
>>> touch.own
12
>>> legal = pos.legal_moves()
>>> touch.allows(pos.parse_uci("e2e4"), legal), touch.allows(pos.parse_uci("d2d4"), legal)
(True, False)
"""

from __future__ import annotations

from rules import KING, ROOK, Move, Position


class TouchMove:
    """The pieces touched by the side to move since the last move, and what they demand."""

    __slots__ = (
        "_demand",
        "_own_first",
        "opponent",
        "opponent_t",
        "own",
        "own_t",
        "rook_first",
        "rook_first_t",
    )

    def __init__(self) -> None:
        self.own: int | None = None
        self.own_t = 0
        self.opponent: int | None = None
        self.opponent_t = 0
        #: A rook of the side to move touched before any other of its pieces, even one
        #: that cannot move (a Chess960 rook boxed in beside its king): castling with it
        #: is not allowed on this move (FIDE 4.4.2).
        self.rook_first: int | None = None
        self.rook_first_t = 0
        self._own_first = True
        self._demand: tuple[int | None, list[Move] | None] | None = None  # cached

    def copy(self) -> TouchMove:
        """An independent copy (of the same class: the other side's hand stays untouched)."""
        other = type(self).__new__(type(self))
        for name in TouchMove.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def squares(self) -> list[int]:
        """The touched pieces' squares (own first)."""
        return [sq for sq in (self.own, self.opponent) if sq is not None]

    def lift(
        self,
        position: Position,
        square: int,
        t_ms: int,
        together_ms: int = 0,
        legal: list[Move] | None = None,
    ) -> None:
        """A piece standing on ``square`` in ``position`` was lifted at ``t_ms``.

        Lifts within ``together_ms`` of the first count as one grip (the switches of two
        pieces taken together open a few milliseconds apart). ``legal``: the position's
        legal moves, if already known."""
        piece = position.piece_at(square)
        if piece is None:
            return
        self._demand = None
        if legal is None:
            legal = position.legal_moves()
        if piece.color == position.turn:
            if self.own is None and self.rook_first is None and piece.piece_type == ROOK:
                self.rook_first, self.rook_first_t = square, t_ms
            elif (
                piece.piece_type == KING
                and self.rook_first is not None
                and t_ms - self.rook_first_t <= together_ms
            ):
                self.rook_first = None  # king and rook together: the king first (4.4.1)
            if self.own is not None:
                # King and rook lifted together: the king counts first (4.4.1),
                # so that a castling read from one scan is not a rook move owed.
                together = t_ms - self.own_t <= together_ms
                first = position.piece_at(self.own)
                if not (
                    together
                    and piece.piece_type == KING
                    and first is not None
                    and first.piece_type == ROOK
                ):
                    return
                if not any(m.from_square == square for m in legal):
                    return
            elif not any(m.from_square == square for m in legal):
                return
            if self.opponent is None or t_ms - self.opponent_t <= together_ms:
                self._own_first = True  # 4.3.3: when unclear, the own piece was first
            self.own, self.own_t = square, t_ms
        elif self.opponent is None and any(m.captured_square == square for m in legal):
            self.opponent, self.opponent_t = square, t_ms
            if self.own is None:
                self._own_first = False
            elif t_ms - self.own_t <= together_ms:
                self._own_first = True  # 4.3.3: when unclear, the own piece was first

    def forget(self, square: int, lifted_at: int) -> None:
        """The lift of ``square`` at ``lifted_at`` was a flicker, not a hand: undo it."""
        self._demand = None
        if self.own == square and self.own_t == lifted_at:
            self.own = None
            self._own_first = False
        if self.opponent == square and self.opponent_t == lifted_at:
            self.opponent = None
            self._own_first = True
        if self.rook_first == square and self.rook_first_t == lifted_at:
            self.rook_first = None

    def demand(self, legal: list[Move]) -> tuple[int | None, list[Move] | None]:
        """The square whose piece dictates the move, and the moves it allows (4.3.1 to
        4.3.3); ``(None, None)`` when nothing touched binds. ``legal`` is the position's
        legal moves (the same list each time: the answer is kept until the next touch)."""
        if self._demand is None:
            self._demand = self._find_demand(legal)
        return self._demand

    def _find_demand(self, legal: list[Move]) -> tuple[int | None, list[Move] | None]:
        square, moves = self._find_touch_demand(legal)
        rook = self.rook_first
        if rook is None:
            return square, moves
        # FIDE 4.4.2: a rook touched before its king may not castle; where nothing else
        # binds (the rook cannot move), any other move may be made.
        allowed = [m for m in (legal if moves is None else moves) if not _castles_with(m, rook)]
        if moves is None and len(allowed) == len(legal):
            return None, None
        if square is None or any(m.is_castling and m.from_square == square for m in legal):
            square = rook  # the rook's touch is what binds (not the king's, touched after)
        return square, allowed

    def _find_touch_demand(self, legal: list[Move]) -> tuple[int | None, list[Move] | None]:
        own, opp = self.own, self.opponent
        if own is None and opp is None:
            return None, None
        if own is not None and opp is not None:
            both = [m for m in legal if m.from_square == own and m.captured_square == opp]
            if both:
                return own, both
        own_moves = [m for m in legal if own is not None and m.from_square == own]
        opp_moves = [m for m in legal if opp is not None and m.captured_square == opp]
        groups = [(own, own_moves), (opp, opp_moves)]
        if not self._own_first:
            groups.reverse()
        for square, moves in groups:
            if moves:
                return square, moves
        return None, None

    def allows(self, move: Move, legal: list[Move]) -> bool:
        """May ``move`` be played, given the pieces touched?"""
        _, moves = self.demand(legal)
        return moves is None or move in moves


def _castles_with(move: Move, rook: int) -> bool:
    return move.is_castling and move.rook_from == rook
