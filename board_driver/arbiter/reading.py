"""Reading one move from the hands: what was lifted and placed since the last position,
and which legal move the board shows done, or on its way.

A :class:`MoveReading` starts when a position is committed (or taken back) and lives
until the next one. It keeps when each square was lifted, placed and filled again, the
history of those events, and the pieces touched (touch-move, *j'adoube*); it answers
from the footprints of the position's legal moves.

While the mover's piece is still moving (sliding over squares, or resting on one for less
than the pass time: not yet released), a lift of one of the other side's pieces is the
other side's hand reaching out: it is kept apart (:attr:`MoveReading.others_off`), touches
nothing for the mover, and is handed to the next move once this one is committed
(board-script.md, "Released means rested").

>>> from rules import Position
>>> from board_driver.physical.squares import square
>>> reading = MoveReading(Position(), Timing())
>>> reading.note_lift(100, square("e2"), touch_mode="warn")
>>> reading.note_place(400, square("e4"))
>>> board = Position().occupancy() & ~(1 << square("e2")) | 1 << square("e4")
>>> str(reading.complete(board).move)
'e2e4'
>>> reading.released(reading.complete(board), 450), reading.released(reading.complete(board), 500)
(False, True)
"""

from __future__ import annotations

from board_driver.arbiter.footprint import Footprint, between, bit
from board_driver.arbiter.options import Timing
from board_driver.arbiter.touch import TouchMove
from board_driver.physical.squares import squares_of
from rules import KING, KNIGHT, PAWN, QUEEN, ROOK, Move, Position

_NEVER = -(1 << 62)


class MoveReading:
    """The hands since ``position`` was committed: events, touches, and what they show."""

    def __init__(
        self,
        position: Position,
        timing: Timing,
        start_board: int | None = None,
        *,
        before: int | None = None,
    ) -> None:
        self.position = position
        self.timing = timing
        #: The occupancy of the committed position (``before``, if the caller knows it).
        self.before = position.occupancy() if before is None else before
        #: The board when this reading started (after a restart it may differ from ``before``).
        self.start_board = self.before if start_board is None else start_board
        self.legal = position.legal_moves()
        self.footprints = [Footprint.of(m, self.before) for m in self.legal]
        self.transpositions = _transpositions(self.footprints)
        self.own = position.occupancy(position.turn)  # the side to move's pieces
        self.lift_t: dict[int, int] = {}
        self.place_t: dict[int, int] = {}
        self.refill_t: dict[int, int] = {}  # a square lifted and filled again
        #: The mover's squares whose every lift so far only flickered (set back within the
        #: pass time): the piece standing there is still the position's own, untouched.
        self.flickered = 0
        self.history: list[tuple[int, bool, int]] = []  # (t, lifted?, square) since the move
        #: The other side's lifts while the mover's piece moved, ``(t, square)``, and the
        #: squares among them still empty: the next move's, not this one's.
        self.others: list[tuple[int, int]] = []
        self.others_off = 0
        #: Squares the mover's piece left after resting there under the pass time.
        self.passed = 0
        self._last: tuple[int, bool, int] | None = None  # the mover's last (t, lift?, sq)
        self.touch = TouchMove()
        self.adjusting = False  # j'adoube announced
        self.adjusted: set[int] = set()

    def copy(self) -> MoveReading:
        """An independent copy (to go back to, if the hands are read again)."""
        other = MoveReading.__new__(MoveReading)
        other.__dict__.update(self.__dict__)
        other.lift_t = dict(self.lift_t)
        other.place_t = dict(self.place_t)
        other.refill_t = dict(self.refill_t)
        other.history = list(self.history)
        other.others = list(self.others)
        other.adjusted = set(self.adjusted)
        other.touch = self.touch.copy()
        return other

    def restrict(self, moves: list[Move], touch: TouchMove) -> None:
        """Only ``moves`` may be played (the other side's expected move), touched as ``touch``."""
        self.legal = moves
        self.footprints = [Footprint.of(m, self.before) for m in moves]
        self.transpositions = _transpositions(self.footprints)
        self.touch = touch

    # ------------------------------------------------------------------ events

    def boards(self) -> list[int]:
        """The occupancy at each moment of this move's hands: at its start, then after
        each lift and place of :attr:`history`."""
        boards = [self.start_board]
        for _, lifted, sq in self.history:
            boards.append(boards[-1] & ~(1 << sq) if lifted else boards[-1] | 1 << sq)
        return boards

    def passing(self, t: int, sq: int) -> bool:
        """Is a lift of ``sq`` at ``t`` a sliding piece leaving a square it only crossed?"""
        return t - self.place_t.get(sq, _NEVER) < self.timing.pass_ms

    def moving(self, t: int, board: int) -> bool:
        """Is the mover's piece still moving at ``t``: in the air (the board not still since
        it was lifted), or resting on a square less than the pass time (not released)?"""
        last = self._last
        if last is None:
            return False
        when, lifted, sq = last
        if lifted:
            return True
        return t - when < self.timing.pass_ms and bool(board & bit(sq))

    def settled(self) -> None:
        """The board has been still for the settle time: a piece in the air is held."""
        self._last = None

    def note_other_lift(self, t: int, sq: int) -> None:
        """The other side lifted its piece on ``sq`` while the mover's piece moved."""
        self.history.append((t, True, sq))
        self.lift_t[sq] = t
        self.others.append((t, sq))
        self.others_off |= bit(sq)

    def note_lift(self, t: int, sq: int, *, touch_mode: str, exempt: bool = False) -> None:
        """Record a lift (and what it touched); ``exempt``: it touches nothing (a piece
        lifted inside an amendment window)."""
        self.history.append((t, True, sq))
        passing = self.passing(t, sq)
        if self.own & bit(sq) or sq in self.place_t:
            self._last = (t, True, sq)  # the mover's piece leaves (not a victim lifted)
        if passing:
            del self.place_t[sq]  # a sliding piece crossed this square
            self.passed |= bit(sq)
        # A piece lifted again from a square it was set on is not the position's (its
        # touch was counted when it first left), unless that square only flickered.
        again = sq in self.lift_t and not self.flickered & bit(sq)
        exempt = exempt or passing or again or self.adjusting or touch_mode == "off"
        if self.adjusting:
            self.adjusted.add(sq)
        if not exempt and self.before & bit(sq):
            self.touch.lift(self.position, sq, t, together_ms=self.timing.pass_ms, legal=self.legal)
        self.lift_t[sq] = t

    def note_place(self, t: int, sq: int) -> None:
        """Record a place."""
        self.history.append((t, False, sq))
        self.passed &= ~bit(sq)
        if self.others_off & bit(sq):
            self.others_off &= ~bit(sq)  # the other side's piece back, or the mover's victim
        else:
            self._last = (t, False, sq)
        lifted = self.lift_t.get(sq)
        if lifted is not None:
            self.refill_t[sq] = t
            if t - lifted < self.timing.pass_ms:
                self.touch.forget(sq, lifted)  # the square flickered: no hand touched it
                first = next(w for w, up, at in self.history if up and at == sq)
                if self.own & bit(sq) and lifted == first:
                    self.flickered |= bit(sq)
            else:
                self.flickered &= ~bit(sq)
        self.place_t[sq] = t
        if self.adjusting:
            if sq in self.adjusted:
                self.adjusted.discard(sq)
            else:
                self.adjusting = False  # a piece left for another square: j'adoube ends
                self.adjusted.clear()

    def adjust(self) -> None:
        """*J'adoube* announced: pieces lifted and set back on their squares touch nothing."""
        self.adjusting = True
        self.adjusted = set()

    # ------------------------------------------------------------------ what the board shows

    def allowed(self, move: Move, touch_mode: str) -> bool:
        """May ``move`` be played, given the pieces touched?"""
        if touch_mode == "off":
            return True
        return self.touch.allows(move, self.legal)

    def undoing(self, index: int, fp: Footprint) -> bool:
        """Out of sync since the first ``index`` events of :attr:`history`: is ``fp``, which
        the board shows, only what remains of an action being undone (putting right is not
        moving, board-script.md "An illegal state ends")? So it is when hands have since
        only put its pieces right, unless its piece is the first of the mover's lifted (the
        king or the rook, for castling: after an illegal move the replacing move is made
        with the piece touched first, FIDE 7.5.1 with 4.3), or the board showed it done
        before the illegal state (what was seen counts), or every other piece the hands
        moved was only displaced and put back on its own square (knocked over, lifted and
        replaced, FIDE 7.4: that undoes nothing else, and ``fp`` was made meanwhile)."""
        if not self._only_put_right_since(index, fp.touched):
            return False
        move = fp.move
        first = self.first_own_lifted()
        if first == move.from_square or (move.is_castling and first == move.rook_from):
            return False
        return not (self.shown_done(fp, index) or self.only_displaced_besides(fp))

    def only_displaced_besides(self, fp: Footprint) -> bool:
        """Were the pieces this move's hands took off squares ``fp`` leaves alone only
        displaced: knocked over or lifted, and put back on their own squares, never set
        down anywhere they could move to (a piece set down there made a move, or part of
        one: the king of an illegal castling set on g1 before it went back to e1)?

        Switches do not tell pieces apart: a piece set down is taken to be its square's
        own, if in the hand, else one of those ``fp`` moves, else a displaced one (one
        that could move there, if any)."""
        displaced = self.before & ~fp.touched
        position = self.position
        origin = {sq: sq for sq in squares_of(self.start_board)}  # whose piece stands where
        hand: list[int] = []  # the home squares of the pieces in the hand
        for _, lifted, sq in self.history:
            if lifted:
                hand.append(origin.pop(sq, sq))
                continue
            if not hand:
                return False  # a piece from nowhere: no reading of hands explains it
            home = _set_down(hand, sq, displaced, position, self.before)
            hand.remove(home)
            origin[sq] = home
            moved = home != sq and displaced >> home & 1
            if moved and _could_move(position, self.before, home, sq):
                return False  # a move of its own (or part of one), not a displacement
        return True

    def _only_put_right_since(self, index: int, squares: int) -> bool:
        """After the first ``index`` events of :attr:`history`, did hands only put pieces
        right, as far as ``squares`` go (a piece lifted from a square the position leaves
        empty, or set down where the position has one), and at least once?"""
        since = self.history[index:]
        before = self.before
        return bool(since) and not any(
            squares >> sq & 1 and lifted == bool(before >> sq & 1) for _, lifted, sq in since
        )

    def first_own_lifted(self) -> int | None:
        """The square of the first of the mover's pieces lifted in this move's hands, or
        None. One set back within the pass time only flickered (no hand); a rook and then
        its king lifted within the pass time are one grip, the king first (FIDE 4.4.1, as
        for touch-move)."""
        history = self.history
        pass_ms = self.timing.pass_ms
        first: tuple[int, int] | None = None  # (t, square) of the first own lift
        for i, (t, lifted, sq) in enumerate(history):
            if first is not None and t - first[0] >= pass_ms:
                break
            if not (lifted and self.own & bit(sq)):
                continue
            back = next((e for e in history[i + 1 :] if e[2] == sq), None)
            if back is not None and back[0] - t < pass_ms:
                continue  # a flicker: the piece still stands there
            piece = self.position.piece_at(sq)
            if first is None:
                first = (t, sq)
                if piece is None or piece.piece_type != ROOK:
                    break
            elif piece is not None and piece.piece_type == KING:
                return sq
        return None if first is None else first[1]

    def shown_done(self, fp: Footprint, index: int) -> bool:
        """Did the board show ``fp`` done at some moment before the first ``index`` events
        of :attr:`history` were over (the other side's pieces lifted then aside; a capture's
        square emptied and filled again after the mover left)?"""
        theirs = self.start_board & self.before & ~self.own
        source, target = fp.move.from_square, fp.target
        left = emptied = refilled = False
        for at, board in enumerate(self.boards()[:index]):
            if at:
                _, lifted, sq = self.history[at - 1]
                if sq == source and lifted:
                    left = True
                elif sq == target:
                    refilled = refilled or (not lifted and emptied and left)
                    emptied = emptied or lifted
            if (
                (target is None or refilled)
                and not (fp.after ^ board) & ~(theirs & ~board & ~fp.lifts)
                and self.castling_seen(fp, at)
            ):
                return True
        return False

    def released(self, fp: Footprint, t: int) -> bool:
        """Has every piece ``fp`` places rested at least the pass time by ``t``?"""
        pass_ms = self.timing.pass_ms
        return all(t - self.place_t.get(sq, _NEVER) >= pass_ms for sq in squares_of(fp.places))

    def released_at(self, squares: int, t: int) -> int:
        """When the hand let go of the last piece on ``squares`` (a move's own squares): the
        time of the mover's last lift or place there, up to ``t`` (``t`` itself when none
        was seen, as after a restart). The moment a clock stops, not the later commit.

        >>> from rules import Position
        >>> reading = MoveReading(Position(), Timing())
        >>> reading.note_lift(100, 12, touch_mode="warn"); reading.note_place(400, 28)
        >>> reading.released_at(1 << 12 | 1 << 28, 650)
        400
        """
        others = set(self.others)  # the other side's lifts are not the mover's hand
        last = None
        for when, _lifted, sq in self.history:
            if when <= t and squares >> sq & 1 and (when, sq) not in others:
                last = when
        return t if last is None else last

    def target_refilled(self, fp: Footprint) -> bool:
        """A capture's square was emptied and filled again after the mover left its square;
        a Chess960 castling whose squares overlap, seen made (:meth:`castling_seen`)."""
        if fp.target is None:
            return fp.lifts & fp.places == 0 or self.castling_seen(fp)
        refilled = self.refill_t.get(fp.target)
        return refilled is not None and refilled > self.lift_t.get(fp.move.from_square, 0)

    def complete(self, board: int, choice: int | None = None, others: int = 0) -> Footprint | None:
        """The one legal move ``board`` shows done, if any (``choice``: the promotion piece
        chosen, None for a queen). ``others``: squares the other side's hand emptied, which
        are this move's only if it captures there."""
        if others:
            done = [
                fp
                for fp in self.footprints
                if not (fp.after ^ board) & ~(others & ~fp.lifts) and self.target_refilled(fp)
            ]
        else:
            done = [fp for fp in self.footprints if fp.after == board and self.target_refilled(fp)]
        if not done:
            return None
        if len(done) > 1 and any(fp.move.is_castling for fp in done):
            # A Chess960 castling seen made, and a king's or rook's move of the same
            # occupancy: what was seen counts (castling is read only where it was seen).
            done = [fp for fp in done if fp.move.is_castling]
        if len(done) > 1:
            # Same occupancy: captures by one piece on different squares (the last square
            # filled is where it landed), or the four promotions (the player's choice).
            latest = max(self.place_t.get(fp.move.to_square, -1) for fp in done)
            done = [fp for fp in done if self.place_t.get(fp.move.to_square, -1) == latest]
            if len(done) > 1:
                wanted = choice or QUEEN
                chosen = [fp for fp in done if fp.move.promotion == wanted]
                done = chosen or done[:1]
        return done[0]

    def history_allows(self, fp: Footprint, board: int) -> bool:
        """A castling rook (an en-passant victim) set back on its square after the king
        (the pawn) landed is not a move on its way: the player let go of it there. (Not
        so for a Chess960 rook whose square is the king's, or its own final square.)"""
        move = fp.move
        if move.is_castling and move.rook_from is not None:
            if move.rook_from in (move.to_square, move.rook_to):
                return True
            back, landed = move.rook_from, move.to_square
        elif move.is_en_passant and move.captured_square is not None:
            back, landed = move.captured_square, move.to_square
        else:
            return True
        if not board & bit(landed) or not board & bit(back):
            return True
        refilled = self.refill_t.get(back)
        return refilled is None or refilled < self.place_t.get(landed, 0)

    def on_the_way(self, board: int, touch_mode: str, *, sliding: bool = False) -> bool:
        """Is ``board`` a state on the way to a legal move (allowed by touch-move)?
        ``sliding``: the board is not still yet (a slider may stand on its path)."""
        before = self.before
        strict = touch_mode == "enforce"
        for fp in self.footprints:
            if strict and not self.allowed(fp.move, touch_mode):
                continue
            if (
                fp.on_the_way(before, board, sliding=sliding)
                and self.history_allows(fp, board)
                and not self.rook_moved_alone(fp, board)
            ):
                return True
        return False

    def rook_moved_alone(self, fp: Footprint, board: int) -> bool:
        """Does ``board`` show a castling's rook moved while its king was never lifted? A
        rook that moves while its king is never lifted makes a rook move, not castling
        (board-script.md, "Chess960 castling"): where no rook move reads it, the board is
        not on its way to castling."""
        move = fp.move
        rook_from, rook_to = move.rook_from, move.rook_to
        if rook_from is None or rook_to is None or rook_from == rook_to:
            return False
        king = move.from_square
        set_down = board & ~self.before & bit(rook_to)  # the rook on its final square
        return bool(set_down) and king not in self.lift_t and bool(board & bit(king))

    def castling_seen(self, fp: Footprint, upto: int | None = None) -> bool:
        """Was ``fp``, a castling, seen made by the hands (the first ``upto`` events of
        :attr:`history`; all of them by default)? Its king lifted during the move (as FIDE
        recommends for a physical board, Guidelines II.3: a king whose final square is its
        own is lifted and put back), and the pieces set down so that the king can stand
        on its final square and the rook on its own: a square that one leaves and the
        other reaches was emptied and filled again (the occupancy before and after a
        Chess960 castling can be the same: what was seen counts). Not a castling: True.

        The pieces cannot be told apart, so each place is tried as any piece then in the
        hand (the king, the rook, or another); the states are few.
        """
        move = fp.move
        rook_from, rook_to = move.rook_from, move.rook_to
        if not move.is_castling or rook_from is None or rook_to is None:
            return True
        king_from, king_to = move.from_square, move.to_square
        start = self.start_board
        hand = -1
        # (king's square, rook's square, other pieces in the hand, king lifted yet)
        king = king_from if start & bit(king_from) else hand
        rook = rook_from if start & bit(rook_from) else hand
        states = {(king, rook, 0, king == hand)}
        history = self.history if upto is None else self.history[:upto]
        for _, lifted, sq in history:
            after: set[tuple[int, int, int, bool]] = set()
            for king, rook, others, king_lifted in states:
                if lifted:
                    if king == sq:
                        after.add((hand, rook, others, True))
                    elif rook == sq:
                        after.add((king, hand, others, king_lifted))
                    else:
                        after.add((king, rook, others + 1, king_lifted))
                    continue
                if king == hand:
                    after.add((sq, rook, others, king_lifted))
                if rook == hand:
                    after.add((king, sq, others, king_lifted))
                if others or hand not in (king, rook):
                    after.add((king, rook, max(others - 1, 0), king_lifted))
            states = after
        return any(
            king == king_to and rook == rook_to and king_lifted
            for king, rook, _, king_lifted in states
        )

    def transposed(self) -> Footprint | None:
        """A Chess960 castling seen made whose occupancy is the position's (king and rook
        swapped squares), or None."""
        for fp in self.transpositions:
            if self.castling_seen(fp):
                return fp
        return None

    def swapped_back(self, fp: Footprint) -> bool:
        """Were ``fp``'s king and rook squares (a castling that swapped them) both seen
        empty at one moment and filled again since: the pieces swapped back (a take-back
        of it, what was seen counting)?"""
        squares = bit(fp.move.from_square) | bit(fp.move.to_square)
        boards = self.boards()
        emptied = next((i for i, board in enumerate(boards) if not board & squares), None)
        return emptied is not None and boards[-1] & squares == squares

    def victims_set_back(self, moves: list[Move]) -> bool:
        """Were the pieces these moves captured seen set back on their squares (not only
        sensed), as a take-back of them needs?"""
        return all(
            not m.is_capture or m.is_en_passant or m.to_square in self.refill_t for m in moves
        )

    # ------------------------------------------------------------------ lights

    def half_done(self, board: int) -> int:
        """A castling king landed without its rook (a Chess960 king whose final square is
        its own, lifted and put back); an en-passant pawn beside its victim."""
        before = self.before
        shown = board | self.others_off
        mask = 0
        for fp in self.footprints:
            move = fp.move
            if not (move.is_castling or move.is_en_passant):
                continue
            if move.from_square == move.to_square:
                if self._king_put_back(fp, board) and move.rook_from is not None:
                    mask |= bit(move.rook_from) | bit(move.rook_to or move.rook_from)
                continue
            if not board & bit(move.to_square) or board & bit(move.from_square):
                continue
            if not fp.on_the_way(before, shown) or not self.history_allows(fp, board):
                continue
            rook_from, rook_to, victim = move.rook_from, move.rook_to, move.captured_square
            if rook_from is not None and rook_to is not None and board != fp.after:
                mask |= bit(rook_from) | bit(rook_to)
            elif move.is_en_passant and victim is not None and board & bit(victim):
                mask |= bit(victim)
        return mask

    def _king_put_back(self, fp: Footprint, board: int) -> bool:
        """A Chess960 castling whose king stays: the king lifted and put back (touched
        first, and not under *j'adoube*), nothing else moved yet."""
        king = fp.move.from_square
        return (
            board == self.before
            and king in self.refill_t
            and not self.adjusting
            and self.touch.own in (None, king)
        )

    def hints(self, board: int) -> int:
        """The legal destinations of the side to move's piece last lifted and still in hand."""
        in_hand = self.own & ~board
        if not in_hand:
            return 0
        lifted = max(squares_of(in_hand), key=lambda sq: self.lift_t.get(sq, -1))
        return sum(bit(m.to_square) for m in self.legal if m.from_square == lifted)


def _transpositions(footprints: list[Footprint]) -> list[Footprint]:
    """The Chess960 castlings among ``footprints`` after which every square holds a piece
    as before (the king and the rook swap squares, or both stay but one)."""
    return [fp for fp in footprints if fp.move.is_castling and not fp.lifts & ~fp.places]


def _set_down(hand: list[int], sq: int, displaced: int, position: Position, before: int) -> int:
    """Which piece in the hand (by its home square) was set down on ``sq``: its own, else
    one the move under way moves, else a displaced one (one that could move there first)."""
    if sq in hand:
        return sq
    moving = [home for home in hand if not displaced >> home & 1]
    if moving:
        return moving[-1]
    return next((home for home in hand if _could_move(position, before, home, sq)), hand[-1])


def _could_move(position: Position, before: int, home: int, to: int) -> bool:
    """Could the piece standing on ``home`` in ``position`` (whose occupancy is
    ``before``) go to ``to`` the way its kind moves, check and castling rights aside?
    (A king's two steps along its first rank count: castling; in Chess960 a king on its
    first rank going to the c- or g-file square of it, whatever it starts on and even
    onto its own rook.)"""
    piece, there = position.piece_at(home), position.piece_at(to)
    if piece is None or to == home:
        return False
    df, dr = (to & 7) - (home & 7), (to >> 3) - (home >> 3)
    kind = piece.piece_type
    first_rank = 0 if piece.color else 7
    if (
        kind == KING
        and position.variant == "chess960"
        and dr == 0
        and home >> 3 == first_rank
        and to & 7 in (2, 6)
    ):
        return True  # castling's square
    if there is not None and there.color == piece.color:
        return False
    if kind == KNIGHT:
        return {abs(df), abs(dr)} == {1, 2}
    if kind == KING:
        return max(abs(df), abs(dr)) == 1 or (dr == 0 and abs(df) == 2)
    if kind == PAWN:
        forward = 1 if piece.color else -1
        if df == 0:
            double = dr == 2 * forward and home >> 3 == (1 if piece.color else 6)
            return (dr == forward or double) and not before & (bit(to) | between(home, to))
        return (
            abs(df) == 1 and dr == forward and (bool(before >> to & 1) or to == position.ep_square)
        )
    straight, diagonal = df == 0 or dr == 0, abs(df) == abs(dr)
    if not {ROOK: straight, QUEEN: straight or diagonal}.get(kind, diagonal):
        return False
    return not before & between(home, to)
