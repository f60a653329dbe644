"""Setting a position up kind by kind: the switches cannot tell a rook from a knight.

A reed switch says only that a square holds a piece. So a position is set up one *kind*
of piece at a time (the white king, the white queen, the white rooks, ... then Black's):
while a group is due its squares still empty are lit, and a piece placed on one of them
is taken to be of that kind. :class:`SetupGuide` follows the board through the set-up and
says, square by square, what the board knows of the piece standing there:

- **right**: the kind the position wants, as far as the board can know it: placed while
  its group was due, or standing there already as the game before had it;
- **wrong**: the board knows another kind stands there (the game before had it so): it
  must come off, and the right piece go on when its group is due;
- **unknown**: the board cannot tell (a piece standing before the set-up that no game
  accounts for, or one placed while an earlier group was due: *early*, a square whose
  kind was not due yet). The board says so, and trusts the hands.

>>> from rules import Position
>>> from board_driver.physical.squares import square
>>> target = Position.from_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
>>> guide = SetupGuide(target, board=0)
>>> [g.words() for g in guide.groups]
['white king: e1', 'white rooks: a1 and h1', 'black king: e8']
>>> guide.due().words()
'white king: e1'
>>> guide.place(square("e1"))
>>> guide.due().words(), guide.done()
('white rooks: a1 and h1', False)
>>> guide.place(square("e8"))   # the black king's square, before its turn
>>> [square_name(sq) for sq in squares_of(guide.early_squares())]
['e8']
>>> guide.place(square("a1")); guide.place(square("h1"))
>>> guide.due(), guide.done()
(None, True)
>>> [square_name(sq) for sq in squares_of(guide.unknown_squares())]
['e8']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from board_driver.arbiter.words import PIECE_WORDS, _listed, side_name
from board_driver.physical.squares import square_name, squares_of
from rules import BISHOP, BLACK, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE, Piece, Position

#: The order the groups come in: each side's pieces, the king first (every position has
#: one), pawns last; White's, then Black's.
KIND_ORDER = (KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN)


def piece_dict(piece: Piece) -> dict[str, str]:
    """``{"side": "white", "piece": "rook"}``: a piece as events name it."""
    return {"side": side_name(piece.color), "piece": PIECE_WORDS[piece.piece_type]}


@dataclass(frozen=True, slots=True)
class Group:
    """One kind of piece of one side and the squares the position gives it (a mask)."""

    piece: Piece
    squares: int

    def words(self) -> str:
        """``white rooks: a1 and e1``."""
        name = f"{side_name(self.piece.color)} {PIECE_WORDS[self.piece.piece_type]}"
        listed = squares_of(self.squares)
        return f"{name}{'s' if len(listed) > 1 else ''}: {_listed(listed)}"

    def to_dict(self) -> dict[str, Any]:
        return {**piece_dict(self.piece), "squares": [square_name(sq) for sq in
                                                      squares_of(self.squares)]}  # fmt: skip


def groups_of(position: Position) -> list[Group]:
    """The position's pieces in the order they are set up (kinds it lacks are left out)."""
    groups = []
    for color in (WHITE, BLACK):
        for kind in KIND_ORDER:
            squares = sum(1 << sq for sq in position.pieces(kind, color))
            if squares:
                groups.append(Group(Piece(kind, color), squares))
    return groups


class SetupGuide:
    """A position to set up on the pieces standing (``board``), kind by kind.

    ``known``: what the board knows stands on some of those squares (the game before's
    pieces, when the board showed its position); the others it cannot tell. Each lift and
    place is told (:meth:`lift`, :meth:`place`), in the order the hands made them.
    """

    def __init__(
        self, target: Position, board: int, known: Mapping[int, Piece] | None = None
    ) -> None:
        self.target = target
        self.goal = target.occupancy()
        self.groups = groups_of(target)
        self._group_of = {sq: i for i, g in enumerate(self.groups) for sq in squares_of(g.squares)}
        self.board = board
        known = known or {}
        #: What the board believes stands on each occupied square (None: it cannot tell).
        self.known: dict[int, Piece | None] = {sq: known.get(sq) for sq in squares_of(board)}
        #: Squares filled while an earlier group was due (their kind was not due yet).
        self.early: set[int] = set()

    # ------------------------------------------------------------------ the hands

    def lift(self, sq: int) -> None:
        self.board &= ~(1 << sq)
        self.known.pop(sq, None)
        self.early.discard(sq)

    def place(self, sq: int) -> None:
        due = self.due_index()
        group = self._group_of.get(sq)
        self.board |= 1 << sq
        if group is not None and due is not None and group == due:
            self.known[sq] = self.groups[group].piece  # placed while its kind was lit
        else:
            self.known[sq] = None
            if group is not None and (due is None or group > due):
                self.early.add(sq)

    # ------------------------------------------------------------------ what it shows

    def wants(self, sq: int) -> Piece | None:
        """The piece the position puts on ``sq``."""
        return self.target.piece_at(sq)

    def wrong_squares(self) -> int:
        """Squares the board knows hold another piece than the position's."""
        return sum(
            1 << sq
            for sq, piece in self.known.items()
            if piece is not None and self.goal >> sq & 1 and piece != self.wants(sq)
        )

    def unknown_squares(self) -> int:
        """Squares of the position that hold a piece the board cannot tell."""
        return sum(1 << sq for sq, piece in self.known.items() if piece is None) & self.goal

    def missing(self) -> int:
        return self.goal & ~self.board

    def extra(self) -> int:
        return self.board & ~self.goal

    def due_index(self) -> int | None:
        """The first group with a square still to fill (or to empty of a wrong piece)."""
        open_ = self.missing() | self.wrong_squares()
        return next((i for i, g in enumerate(self.groups) if g.squares & open_), None)

    def due(self) -> Group | None:
        """The group lit now (None once every group stands)."""
        index = self.due_index()
        return None if index is None else self.groups[index]

    def early_squares(self) -> int:
        """Squares filled before their kind was due, whose group is still to come."""
        due = self.due_index()
        return sum(
            1 << sq
            for sq in self.early
            if due is not None and self._group_of.get(sq, -1) > due
        )

    def done(self) -> bool:
        """Does the board show the position, with no piece it knows is wrong?"""
        return self.board == self.goal and not self.wrong_squares()

    def known_pieces(self) -> dict[int, Piece]:
        """What the board knows stands where (for the set-up after this one)."""
        return {sq: piece for sq, piece in self.known.items() if piece is not None}

    def state(self) -> dict[str, Any]:
        """The set-up as events and snapshots carry it: ``fen``, ``number`` and ``groups``
        (the group due, counted from 1: 0 once all stand), ``group`` (its ``side``,
        ``piece``, ``squares``, with ``missing`` and ``unchecked``: its squares still
        empty, and those whose piece the board cannot tell), ``extra`` (squares to empty),
        ``wrong`` (squares the board knows hold another piece: ``square``, ``holds``,
        ``wants``), ``early`` (squares filled before their kind was due: ``square`` and
        the kind they are for)."""
        index = self.due_index()
        group: dict[str, Any] | None = None
        if index is not None:
            due = self.groups[index]
            group = due.to_dict()
            group["missing"] = [square_name(sq) for sq in squares_of(due.squares & self.missing())]
            group["unchecked"] = [
                square_name(sq) for sq in squares_of(due.squares & self.unknown_squares())
            ]
        wrong = []
        for sq in squares_of(self.wrong_squares()):
            holds, wants = self.known[sq], self.wants(sq)
            assert holds is not None and wants is not None
            wrong.append({"square": square_name(sq), "holds": piece_dict(holds),
                          "wants": piece_dict(wants)})  # fmt: skip
        early = []
        for sq in squares_of(self.early_squares()):
            wants = self.wants(sq)
            assert wants is not None
            early.append({"square": square_name(sq), **piece_dict(wants)})
        return {
            "fen": self.target.fen(),
            "number": 0 if index is None else index + 1,
            "groups": len(self.groups),
            "group": group,
            "extra": [square_name(sq) for sq in squares_of(self.extra())],
            "wrong": wrong,
            "early": early,
        }

    def unchecked(self) -> list[dict[str, str]]:
        """Every square of the position whose piece the board cannot tell, with the piece
        the position wants there (said when the game begins)."""
        out = []
        for sq in squares_of(self.unknown_squares()):
            wants = self.wants(sq)
            assert wants is not None
            out.append({"square": square_name(sq), **piece_dict(wants)})
        return out
