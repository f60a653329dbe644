"""The board as an app is told it: which piece stands on each square, named from the game.

Reed switches sense occupancy, not pieces; the DGT and ChessLink protocols report pieces.
So the emulation names them from the tracked game, and tells the app only what the
tracker would count: a square changes once it has held its new state for the pass time
(``[game] pass_ms``), so a rook slid over three squares is one lift and one place.

- A lifted piece is reported gone, and held "in hand".
- A placed piece is the piece in hand that fits: the only one; else the side to move's
  most recent (the mover, in a capture in either order, in castling); else the piece the
  game has on that square (an opponent's piece put back); else the most recent.
- With nothing in hand (a piece brought back from beside the board), the piece the square
  held before the last move (a captured piece, in a take-back); else the game's; else the
  start position's; else a pawn of the side to move.
- Whenever the game changes (a move committed, a take-back, a new game, a promotion
  named, the board back in sync), every occupied square the game has a piece on is named
  from the game again: a promotion shows the promoted piece once the move is committed,
  and a mistaken name lasts only until then.

>>> from board_driver.physical.squares import square
>>> view = BoardView(pass_ms=100)
>>> len(view.resync(STARTING_FEN, occupancy=START_OCCUPANCY))    # 32 pieces told
32
>>> view.lift(square("e2"), 0); view.place(square("e4"), 300)
>>> view.advance(350)          # e2 has been empty for 350 ms; e4 full for only 50
[(12, None)]
>>> view.advance(400)
[(28, 'P')]
>>> view.lift(square("f1"), 1000); view.place(square("e2"), 1040)   # a slide over e2, d3
>>> view.lift(square("e2"), 1080); view.place(square("d3"), 1120)
>>> view.lift(square("d3"), 1160); view.place(square("c4"), 1200)
>>> view.advance(2000)
[(5, None), (26, 'B')]
"""

from __future__ import annotations

from collections.abc import Iterable

from board_driver.physical.squares import square_name
from rules import STARTING_FEN
from rules.fen import piece_letters

#: The start position's occupancy (ranks 1, 2, 7 and 8).
START_OCCUPANCY = 0xFFFF00000000FFFF
#: One change the app is told of: (square, piece letter as in FEN, or None for empty).
Change = tuple[int, str | None]


def placement(fen: str) -> dict[int, str]:
    """The pieces of a FEN (its first field), by square (a1 = 0); ValueError if it is not one.

    >>> placement("8/8/8/8/8/8/8/K6k w - - 0 1")
    {0: 'K', 7: 'k'}
    """
    return piece_letters(fen)


def _turn(fen: str) -> str:
    fields = fen.split()
    return fields[1] if len(fields) > 1 and fields[1] in ("w", "b") else "w"


START_PLACEMENT = placement(STARTING_FEN)


class BoardView:
    """The pieces an app is told of; see the module docstring.

    Feed it the tracker's lifts and places (:meth:`lift`, :meth:`place`, with their
    times), the game's changes (:meth:`resync`), and the clock (:meth:`advance`, at
    :meth:`next_due`); each returns the squares whose piece changed, in order.
    """

    def __init__(self, pass_ms: int = 100) -> None:
        self.pass_ms = pass_ms
        self._shown: dict[int, str] = {}
        self._settled = 0  # occupancy, each square as it has held for the pass time
        self._pending: dict[int, tuple[bool, int]] = {}  # square -> (occupied, since)
        self._hand: list[str] = []  # pieces lifted and not yet placed, oldest first
        self._game: dict[int, str] = {}
        self._before: dict[int, str] = {}
        self._turn = "w"

    # ------------------------------------------------------------------ reading

    def piece_at(self, sq: int) -> str | None:
        """The piece the app is told stands on ``sq`` (a FEN letter), or None."""
        return self._shown.get(sq)

    @property
    def pieces(self) -> dict[int, str]:
        """Every piece the app is told of, by square."""
        return dict(self._shown)

    @property
    def occupancy(self) -> int:
        """The occupancy as told: each square as it has held for the pass time."""
        return self._settled

    def board_fen(self) -> str:
        """The pieces told, as the first field of a FEN.

        >>> view = BoardView()
        >>> _ = view.resync(STARTING_FEN, occupancy=START_OCCUPANCY)
        >>> view.board_fen()
        'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR'
        """
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for file in range(8):
                piece = self._shown.get(rank * 8 + file)
                if piece is None:
                    empty += 1
                else:
                    row += (str(empty) if empty else "") + piece
                    empty = 0
            rows.append(row + (str(empty) if empty else ""))
        return "/".join(rows)

    # ------------------------------------------------------------------ the board

    def lift(self, sq: int, t_ms: int) -> None:
        """The tracker saw ``sq`` empty at ``t_ms``; told once it has held the pass time."""
        self._sensed(sq, False, t_ms)

    def place(self, sq: int, t_ms: int) -> None:
        """The tracker saw a piece arrive on ``sq`` at ``t_ms``."""
        self._sensed(sq, True, t_ms)

    def _sensed(self, sq: int, occupied: bool, t_ms: int) -> None:
        if not 0 <= sq < 64:
            raise ValueError(f"not a square index: {sq!r}")
        if occupied == bool(self._settled >> sq & 1):
            self._pending.pop(sq, None)  # back as it was told: it only passed
        else:
            self._pending[sq] = (occupied, t_ms)

    def next_due(self) -> int | None:
        """When the next change will have held for the pass time (ms), or None."""
        if not self._pending:
            return None
        return min(t for _, t in self._pending.values()) + self.pass_ms

    def advance(self, now_ms: int) -> list[Change]:
        """Tell every change that has held for the pass time by ``now_ms``, oldest first."""
        due = sorted(
            (t, sq, occupied)
            for sq, (occupied, t) in self._pending.items()
            if t + self.pass_ms <= now_ms
        )
        changes: list[Change] = []
        for _, sq, occupied in due:
            del self._pending[sq]
            if occupied:
                self._settled |= 1 << sq
                piece = self._take_from_hand(sq)
                self._shown[sq] = piece
                changes.append((sq, piece))
            else:
                self._settled &= ~(1 << sq)
                lifted = self._shown.pop(sq) if sq in self._shown else None
                if lifted is not None:
                    self._hand.append(lifted)
                    changes.append((sq, None))
        return changes

    def _take_from_hand(self, sq: int) -> str:
        hand = self._hand
        if len(hand) == 1:
            return hand.pop()
        if hand:
            movers = [i for i, piece in enumerate(hand) if self._side(piece) == self._turn]
            if movers:
                return hand.pop(movers[-1])
            wanted = self._game.get(sq)
            if wanted in hand:
                return hand.pop(len(hand) - 1 - hand[::-1].index(wanted))
            return hand.pop()
        return self._guess(sq)

    def _guess(self, sq: int) -> str:
        """A piece from beside the board: see the module docstring."""
        before, now = self._before.get(sq), self._game.get(sq)
        if before is not None and before != now:
            return before
        if now is not None:
            return now
        if sq in START_PLACEMENT:
            return START_PLACEMENT[sq]
        return "P" if self._turn == "w" else "p"

    @staticmethod
    def _side(piece: str) -> str:
        return "w" if piece.isupper() else "b"

    # ------------------------------------------------------------------ the game

    def resync(
        self, fen: str, *, before: str | None = None, occupancy: int | None = None
    ) -> list[Change]:
        """The game is now at ``fen`` (``before``: the position before its last move).

        Every occupied square the game has a piece on is named from the game again; the
        game's pieces on squares that are empty are in hand. ``occupancy`` (the sensed
        squares, as after an overflow or at start) replaces what was told, and anything
        pending. Returns the squares whose piece changed.
        """
        self._game = placement(fen)
        self._turn = _turn(fen)
        if before is not None:
            self._before = placement(before)
        if occupancy is not None:
            self._settled = occupancy
            self._pending.clear()
        # The game's pieces off their squares are in hand (the side to move's last)...
        lifted = [p for sq, p in sorted(self._game.items()) if not self._settled >> sq & 1]
        self._hand = sorted(lifted, key=lambda piece: self._side(piece) == self._turn)
        shown: dict[int, str] = {}
        extra = []
        for sq in range(64):
            if self._settled >> sq & 1:
                if sq in self._game:
                    shown[sq] = self._game[sq]
                else:
                    extra.append(sq)
        # ...unless they stand on squares the game has empty: a piece told there keeps its
        # name (and is out of the hand); one not told yet is taken from the hand.
        for sq in extra:
            if self._shown.get(sq) in self._hand:
                shown[sq] = self._shown[sq]
                self._hand.remove(shown[sq])
        for sq in extra:
            if sq not in shown:
                shown[sq] = self._shown.get(sq) or self._take_from_hand(sq)
        return self._replace(shown)

    def _replace(self, shown: dict[int, str]) -> list[Change]:
        changes = [(sq, shown.get(sq)) for sq in range(64) if shown.get(sq) != self._shown.get(sq)]
        self._shown = shown
        return changes


def describe(changes: Iterable[Change]) -> str:
    """Changes as a log shows them: ``'e2 -, e4 P'``."""
    return ", ".join(f"{square_name(sq)} {piece or '-'}" for sq, piece in changes)
