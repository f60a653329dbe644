"""A committed move that grows, by the same side, before the other side lifts anything.

Two moves can be completed after the board has read them (board-script.md, "When a move
counts"):

- a rook moved next to its king, then the king's two-square step beside it: castling,
  rook first (touch-move off or warn; under enforce it stays a rook move, FIDE 4.4.2);
- a pawn placed on the last rank, then a ``choose``: the promotion takes the piece named
  (late news of the player's choice, not a change of it).

Each stays open until a lift that is not part of it (the other side's move starting).
:class:`Amendments` is the part of :class:`~board_driver.arbiter.tracker.Tracker` that
keeps these windows.
"""

from __future__ import annotations

from dataclasses import dataclass

from board_driver.arbiter.footprint import Footprint
from board_driver.arbiter.game_events import Event, move_event, touch_move_event
from board_driver.arbiter.options import PROMOTION_PIECES
from board_driver.events import PROMOTION_LETTERS
from rules import Move


@dataclass(frozen=True, slots=True)
class CastlingAmendment:
    """A rook move that becomes castling if its king follows (rook first)."""

    castling: Move
    footprint: Footprint  # the castling's, from the position before the rook move
    before: int  # the occupancy before the rook move


class Amendments:
    """The castling and promotion windows of the last committed move (a Tracker part)."""

    _castle_amend: CastlingAmendment | None
    _promotion_square: int | None  # a promotion whose piece may be amended
    _choice: int | None  # the piece chosen for the next promotion

    def _castling_to_come(self, move: Move) -> Move | None:
        """The castling that ``move``, a rook move about to be committed, may become."""
        if self.options.touch_move == "enforce" or move.is_castling:
            return None
        return next(
            (
                m
                for m in self._reading.legal
                if m.is_castling and m.rook_from == move.from_square and m.rook_to == move.to_square
            ),
            None,
        )

    def _open_windows(self, move: Move, castling: Move | None, occupancy: int) -> None:
        """``move`` was just committed from ``occupancy``: what may still amend it."""
        playing = self._outcome is None
        self._castle_amend = (
            CastlingAmendment(castling, Footprint.of(castling, occupancy), occupancy)
            if castling is not None and playing
            else None
        )
        self._promotion_square = move.to_square if move.promotion is not None else None

    def _close_windows(self, sq: int) -> None:
        """A lift that is not part of the last move's completion ends its amendments."""
        amend = self._castle_amend
        if amend is not None and sq != amend.castling.from_square:
            self._castle_amend = None
        if self._promotion_square is not None and sq != self._promotion_square:
            self._promotion_square = None

    def _forget_windows(self) -> None:
        self._castle_amend = None
        self._promotion_square = None

    def _in_window(self, sq: int) -> bool:
        amend = self._castle_amend
        return (amend is not None and sq == amend.castling.from_square) or (
            sq == self._promotion_square
        )

    def _castling_shown(self) -> bool:
        """Does the board show the castling that the last rook move may become?"""
        amend = self._castle_amend
        return amend is not None and self.board == amend.footprint.after

    def _castling_on_the_way(self) -> bool:
        amend = self._castle_amend
        return amend is not None and amend.footprint.on_the_way(amend.before, self.board)

    def _amend_castling(self, t: int) -> list[Event]:
        """The king followed its rook: the rook move becomes castling (rook first)."""
        amend = self._castle_amend
        assert amend is not None
        self._castle_amend = None
        was_over = self._outcome
        rook_move, rook_san = self._pop()
        out: list[Event] = []
        if self.options.touch_move == "warn":
            # FIDE 4.4.2: a rook touched before its king may not castle.
            played = self.game.position.san(amend.castling)
            out.append(touch_move_event(t, "warn", rook_move.from_square, played))
            self._warned = rook_move.from_square
        san, mover = self._push(amend.castling)
        event = move_event(self.game, t, "move", amend.castling, san, mover)
        event["replaces"] = rook_san
        out.append(event)
        self._new_turn()
        out += self._after_move(t, was_over)
        return out

    def _choose(self, t: int, letter: str) -> list[Event]:
        if letter not in PROMOTION_LETTERS:
            raise ValueError(f"choose {letter!r} at {t} ms: expected one of q, r, b, n")
        piece = PROMOTION_PIECES[letter]
        if self._promotion_square is not None and not self._new_game_pending:
            last = self.game.moves[-1]
            if last.promotion == piece:
                return []
            return self._amend_promotion(piece, t)
        self._choice = piece  # for the next promotion only
        return []

    def _amend_promotion(self, piece: int, t: int) -> list[Event]:
        """Late news of the promotion piece: the last move is replayed with it."""
        was_over = self._outcome
        old, old_san = self._pop()
        new = next(
            m
            for m in self.game.position.legal_moves()
            if m.from_square == old.from_square
            and m.to_square == old.to_square
            and m.promotion == piece
        )
        san, mover = self._push(new)
        event = move_event(self.game, t, "promotion_amended", new, san, mover)
        event["replaces"] = old_san
        self._new_turn()
        return [event, *self._after_move(t, was_over)]
