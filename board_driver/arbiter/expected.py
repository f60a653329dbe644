"""A move to execute for the other side (an engine, an online opponent).

When the other side is an engine, the person at the board moves its pieces for it. The
tracker then accepts only the move the engine chose; until the engine has chosen, no
move at all (a move made while the engine thinks is out of sync, not a second move).
The lights show the move to play: its squares blinking cyan, from and to, both rook
squares when castling, the victim's square for a capture or en passant.

>>> from rules import Position
>>> from board_driver.physical.squares import square_name, squares_of
>>> pos = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
>>> [square_name(sq) for sq in squares_of(execute_squares(pos.parse_uci("e8c8")))]
['a8', 'c8', 'd8', 'e8']
>>> describe_move(pos, pos.parse_uci("e8c8"))["san"]
'O-O-O'
"""

from __future__ import annotations

from typing import Any

from board_driver.arbiter.parts import TrackerParts
from board_driver.arbiter.reading import MoveReading
from board_driver.arbiter.touch import TouchMove
from board_driver.physical.squares import square_name
from rules import BISHOP, BLACK, KNIGHT, QUEEN, ROOK, WHITE, Color, Move, Piece, Position

Event = dict[str, Any]

PIECE_NAMES = {QUEEN: "queen", ROOK: "rook", BISHOP: "bishop", KNIGHT: "knight"}


def execute_squares(move: Move) -> int:
    """The squares a person touches to play ``move``, as a 64-bit mask."""
    mask = (1 << move.from_square) | (1 << move.to_square)
    if move.rook_from is not None and move.rook_to is not None:  # castling
        mask |= (1 << move.rook_from) | (1 << move.rook_to)
    if move.captured_square is not None:  # a capture
        mask |= 1 << move.captured_square
    return mask


def describe_move(position: Position, move: Move) -> dict[str, Any]:
    """What a person (or the web page) needs to play ``move`` from ``position``."""
    return move_details(move, position.san(move), position.turn)


def move_details(move: Move, san: str, side: Color) -> dict[str, Any]:
    """A move's details for an event (``move``, ``engine_move``, ``hint``): ``san``, ``uci``,
    ``from``, ``to``, ``side`` (who moves), and when they apply ``captured``, ``en_passant``,
    ``rook_from``/``rook_to``, ``promotion`` (``q``...) and ``promotion_piece`` (``queen``...).

    >>> move_details(Move.from_uci("e7e8q"), "e8=Q", WHITE)["promotion_piece"]
    'queen'
    """
    details: dict[str, Any] = {
        "san": san,
        "uci": str(move),
        "from": square_name(move.from_square),
        "to": square_name(move.to_square),
        "side": "white" if side == WHITE else "black",
    }
    if move.captured_square is not None:  # a capture
        details["captured"] = square_name(move.captured_square)
    if move.is_en_passant:
        details["en_passant"] = True
    if move.rook_from is not None and move.rook_to is not None:  # castling
        details["rook_from"] = square_name(move.rook_from)
        details["rook_to"] = square_name(move.rook_to)
    if move.promotion is not None:
        details["promotion"] = Piece(move.promotion, BLACK).symbol()  # the lower-case letter
        details["promotion_piece"] = PIECE_NAMES[move.promotion]
    return details


def how_to_play(details: dict[str, Any]) -> str:
    """A move's details (:func:`move_details`) in words for the person at the board.

    >>> pos = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    >>> how_to_play(describe_move(pos, pos.parse_uci("e8c8")))
    'e8 to c8, rook a8 to d8'
    """
    text = f"{details['from']} to {details['to']}"
    if "rook_from" in details:
        text += f", rook {details['rook_from']} to {details['rook_to']}"
    if "captured" in details:
        text += f", take the piece on {details['captured']}"
    if "promotion_piece" in details:
        text += f", the pawn becomes a {details['promotion_piece']}"
    return text


class NoTouchMove(TouchMove):
    """Touch-move does not bind the hand that plays the other side's move for it."""

    __slots__ = ()

    def lift(self, *args: Any, **kwargs: Any) -> None:  # whatever TouchMove.lift takes
        return None


def paired_takeback(depth: int, other_to_move: bool) -> int:
    """A take-back in a game against the other side undoes whole pairs.

    ``depth``: how many moves back the board is (0: not a take-back position);
    ``other_to_move``: the engine's turn now. Returns the moves to take back, 0 for
    none, or -1 when only half of a pair is set back (the engine's reply undone but
    not yet the person's move: wait quietly for the rest).

    >>> paired_takeback(2, other_to_move=False), paired_takeback(1, other_to_move=False)
    (2, -1)
    >>> paired_takeback(1, other_to_move=True), paired_takeback(2, other_to_move=True)
    (1, 0)
    >>> paired_takeback(4, other_to_move=False), paired_takeback(3, other_to_move=True)
    (4, 3)
    """
    if depth == 0:
        return 0
    if other_to_move:
        # The engine has not replied yet (or its reply is not played): the person's
        # move alone ends the last pair.
        return depth if depth % 2 else 0
    return depth if depth % 2 == 0 else -1


class OtherSide(TrackerParts):
    """The side whose moves come from elsewhere, its move to play, and a hint lit for the
    person (a Tracker part). On that side's turn only the move given to :meth:`expect`
    is accepted, none before."""

    _other_side: Color | None  # its moves come from elsewhere (an engine)
    _expected: Move | None  # the other side's move, to play on the board
    _hint: Move | None  # a suggestion lit for the side to move
    _required: tuple[Move, ...] | None  # the moves the side at the board may make (require)
    _required_mates: bool  # ... or any move that checkmates

    @property
    def other_side(self) -> Color | None:
        """The side whose moves come from elsewhere (an engine), or None."""
        return self._other_side

    def set_other_side(self, color: Color | None) -> None:
        """Let ``color``'s moves come from elsewhere (None: people play both sides)."""
        if color == self._other_side:
            return
        self._other_side = color
        self._expected = None
        self._forget_choices()  # the hands so far cannot be read again under other sides
        self._reading.restrict(self._position.legal_moves(), TouchMove())
        self._restrict_to_expected()

    @property
    def awaiting(self) -> bool:
        """Is it the other side's turn, with its move not yet known?"""
        return (
            self._playing()
            and self._other_side is not None
            and self._position.turn == self._other_side
            and self._expected is None
        )

    @property
    def expected(self) -> Move | None:
        """The other side's move waiting to be played on the board, if any."""
        return self._expected

    def expect(self, move: Move | str, t_ms: int) -> list[Event]:
        """The other side chose ``move`` (a :class:`rules.Move` or UCI text): it is lit,
        and it is the only move the board may now show. ValueError if it is not that
        side's turn or the move is not legal."""
        if not self.awaiting:
            raise ValueError("expect: it is not the other side's turn to choose a move")
        legal = self._position.parse_uci(move) if isinstance(move, str) else move
        if not self._position.is_legal(legal):
            raise ValueError(f"expect: {legal} is not legal in {self._position.fen()}")
        self._expected = next(m for m in self._position.legal_moves() if m == legal)
        self._forget_choices()
        self._restrict_to_expected()
        if self.board != self._committed and self._deadline is None:
            return self._judge(t_ms)  # pieces moved while it was thinking: judge them now
        return []

    def show_hint(self, move: Move | str | None) -> None:
        """Light a suggested move for the side to move (green), until the next move."""
        if move is None:
            self._hint = None
            return
        hint = self._position.parse_uci(move) if isinstance(move, str) else move
        if not self._position.is_legal(hint):
            raise ValueError(f"hint: {hint} is not legal in {self._position.fen()}")
        self._hint = hint

    def require(self, moves: list[Move | str] | None, *, mates: bool = False) -> None:
        """The next move of the side at the board must be one of ``moves`` (or, with
        ``mates``, any move that checkmates): a puzzle's solution. Any other legal move is
        read as the move it is, refused and not played (``illegal``, reason ``refused``,
        with its ``san``): the board is out of sync until its pieces are put back (or moved
        on to a move required). None lifts it; the next move ends it. Touching and
        lifting are read as ever (a piece held shows nothing of the answer). ValueError
        on the turn of a player away, or for a move that is not legal."""
        if moves is None:
            self._required = None
            return
        if self._other_side is not None and self._position.turn == self._other_side:
            raise ValueError("require: it is the turn of the player away from the board")
        legal = []
        for move in moves:
            parsed = self._position.parse_uci(move) if isinstance(move, str) else move
            if not self._position.is_legal(parsed):
                raise ValueError(f"require: {parsed} is not legal in {self._position.fen()}")
            legal.append(next(m for m in self._position.legal_moves() if m == parsed))
        self._required = tuple(legal)
        self._required_mates = mates

    @property
    def required(self) -> tuple[Move, ...] | None:
        """The moves required of the side at the board this turn (None: any legal move)."""
        return self._required

    def meets(self, move: Move) -> bool:
        """Is ``move`` one the side at the board may make now (see :meth:`require`)?"""
        required = self._required
        if required is None or move in required:
            return True
        if not self._required_mates:
            return False
        after = self._position.copy()
        after.push(move)
        return after.is_checkmate()

    @property
    def hint(self) -> Move | None:
        """The suggestion lit for the side to move, if any."""
        return self._hint

    def _restrict_to_expected(self, reading: MoveReading | None = None) -> None:
        """On the other side's turn only its expected move may be read (none before)."""
        if self._other_side is None or self._position.turn != self._other_side:
            return
        moves = [self._expected] if self._expected is not None else []
        (reading or self._reading).restrict(moves, NoTouchMove())

    def _hint_squares(self) -> int:
        hint = self._hint
        return 0 if hint is None else (1 << hint.from_square) | (1 << hint.to_square)
