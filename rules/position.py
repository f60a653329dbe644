"""A position known to be legal: its pieces, side to move, castling, en passant, clocks.

The board is a plain list of 64 signed piece codes (White positive, Black negative,
0 empty) and the move generator walks precomputed tables (:mod:`rules.tables`). Legal
moves come from a pin and check filter: the king's own squares are tested for attack,
pinned pieces stay on their pin line, in check only captures of the checker and blocks
are kept, and only en passant is tried on the board (it can expose the king along the
rank). :meth:`Position.push` and :meth:`Position.pop` change the position in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import chess960 as _chess960
from .core import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    PIECE_NAMES,
    ROOK,
    SQUARE_NAMES,
    Color,
    Move,
    Piece,
)
from .dead import is_dead, unwinnable
from .errors import FenError, IllegalMoveError, VariantError
from .fen import (
    STARTING_FEN,
    castling_squares,
    castling_text,
    parse_fen_fields,
    placement_text,
)
from .san import move_to_san, parse_san
from .tables import (
    BLACK_KINGSIDE,
    BLACK_QUEENSIDE,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_WK,
    CASTLE_WQ,
    CASTLING_960,
    CASTLING_KEPT,
    DIAG_LINES,
    DIAG_RAYS,
    EN_PASSANT,
    KING_MOVES,
    KING_SQUARES,
    KNIGHT_MOVES,
    KNIGHT_SQUARES,
    ORTHO_LINES,
    ORTHO_RAYS,
    PAWN_ATTACKS,
    PAWN_CAPTURES,
    PAWN_DOUBLE,
    PAWN_PUSH,
    RIGHTS_OF,
    ROOK_KEPT,
    SINGLE,
    SLIDER_MOVES,
    WHITE_KINGSIDE,
    WHITE_QUEENSIDE,
    castling_bit,
)

if TYPE_CHECKING:
    from .chess960 import RandomSource

#: The variants the rules know: standard chess, and Chess960 (FIDE Guidelines II).
VARIANTS = ("standard", "chess960")

# One entry of the move stack: the move, the piece that moved, what stood on its target,
# and the castling rights, e.p. square and halfmove clock before it.
_Undo = tuple[Move, int, int, int, "int | None", int]

# ENEMY[white][code] is True for a piece of the side not to move. Negative codes index
# from the end of the 13-long list, so the table reads naturally for codes -6..6.
_ENEMY = (
    [False] * 7 + [False] * 6,  # Black to move: White pieces (1..6) are enemies
    [False] * 7 + [True] * 6,  # White to move: Black pieces (-6..-1) are enemies
)
for _code in range(1, 7):
    _ENEMY[0][_code] = True


# Attacker codes by defending side (indexed by ``white``): knight, pawn, the two codes
# that attack along a rank or file, the two along a diagonal, king.
_ATTACKER_CODES = (
    (2, 1, (4, 5), (3, 5), 6),  # Black defends: White attacks
    (-2, -1, (-4, -5), (-3, -5), -6),
)


def _attacked(board: list[int], sq: int, white: bool) -> bool:
    """Is ``sq`` attacked by the side that is not ``white``?"""
    knight, pawn, straight, diagonal, king = _ATTACKER_CODES[white]
    for t in KNIGHT_SQUARES[sq]:
        if board[t] == knight:
            return True
    for t in PAWN_ATTACKS[white][sq]:
        if board[t] == pawn:
            return True
    for ray in ORTHO_RAYS[sq]:
        for t in ray:
            p = board[t]
            if p:
                if p in straight:
                    return True
                break
    for ray in DIAG_RAYS[sq]:
        for t in ray:
            p = board[t]
            if p:
                if p in diagonal:
                    return True
                break
    for t in KING_SQUARES[sq]:  # noqa: SIM110 (a plain loop is faster here)
        if board[t] == king:
            return True
    return False


def _attackers(board: list[int], sq: int, white: bool) -> list[int]:
    """The squares of the pieces of the side not ``white`` that attack ``sq``, ascending."""
    s = -1 if white else 1
    found = [t for t in KNIGHT_SQUARES[sq] if board[t] == 2 * s]
    found += [t for t in PAWN_ATTACKS[white][sq] if board[t] == s]
    found += [t for t in KING_SQUARES[sq] if board[t] == 6 * s]
    for rays, kinds in ((ORTHO_RAYS[sq], (4 * s, 5 * s)), (DIAG_RAYS[sq], (3 * s, 5 * s))):
        for ray in rays:
            for t in ray:
                p = board[t]
                if p:
                    if p in kinds:
                        found.append(t)
                    break
    return sorted(found)


class Position:
    """A chess position: the pieces, side to move, castling rights, en passant, clocks.

    >>> p = Position()
    >>> len(p.legal_moves())
    20
    >>> p.push(p.parse_san('e4'))
    >>> p.fen()
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
    >>> p.pop()
    Move.from_uci('e2e4')

    Attributes (read them; change the position only through :meth:`push` / :meth:`pop`):
    ``turn`` (:data:`WHITE` / :data:`BLACK`), ``ep_square`` (the square a pawn just
    skipped with a double step, or ``None``), ``halfmove_clock``, ``fullmove_number``.

    A position plays by the rules of its :attr:`variant`: ``'standard'`` (the default) or
    ``'chess960'`` (FIDE Guidelines II: any of 960 start positions, castling with any rook
    that has not moved, king and rook to the usual squares). Start one by its number, or
    at random from a random source you give:

    >>> p = Position.from_chess960(0)
    >>> p.fen(), p.variant
    ('bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1', 'chess960')
    >>> import random
    >>> Position.random_chess960(random.Random(7)).chess960_number()
    331
    """

    __slots__ = (
        "_board",
        "_castling",
        "_chess960",
        "_kept",
        "_kings",
        "_legal_cache",
        "_pieces",
        "_stack",
        "ep_square",
        "fullmove_number",
        "halfmove_clock",
        "turn",
    )

    _board: list[int]
    _castling: int
    _chess960: bool
    _kept: tuple[int, ...]
    _kings: list[int]
    _legal_cache: list[Move] | None
    _pieces: tuple[set[int], set[int]]
    _stack: list[_Undo]
    ep_square: int | None
    fullmove_number: int
    halfmove_clock: int
    turn: Color

    def __init__(self, variant: str = "standard") -> None:
        """The standard start position; with ``variant='chess960'``, the same array
        (Chess960's number 518) under Chess960's rules."""
        chess960 = _is_chess960(variant)
        self._set(*parse_fen_fields(STARTING_FEN, chess960), chess960=chess960)

    def _set(
        self,
        board: list[int],
        turn: Color,
        castling: int,
        ep: int | None,
        half: int,
        full: int,
        *,
        chess960: bool,
    ) -> None:
        self._board = board
        self.turn = turn
        self._castling = castling
        self.ep_square = ep
        self.halfmove_clock = half
        self.fullmove_number = full
        self._chess960 = chess960
        self._pieces = (
            {sq for sq in range(64) if board[sq] < 0},
            {sq for sq in range(64) if board[sq] > 0},
        )
        kings = [-1, -1]
        for sq in range(64):
            if board[sq] == 6:
                kings[1] = sq
            elif board[sq] == -6:
                kings[0] = sq
        self._kings = kings
        self._kept = _kept_table(chess960, kings, castling)
        self._stack = []
        self._legal_cache = None

    # ------------------------------------------------------------------ FEN

    @classmethod
    def from_fen(cls, fen: str, *, variant: str = "standard") -> Position:
        """The position a FEN describes. Strict: raises :class:`FenError` naming the field.

        >>> sorted(m.uci() for m in Position.from_fen('8/8/8/8/8/8/8/K6k w - - 0 1').legal_moves())
        ['a1a2', 'a1b1', 'a1b2']

        The castling field may be FEN, X-FEN or Shredder-FEN (see :mod:`rules.fen`). With
        ``variant='chess960'`` any rook on a back rank may hold a right, at most one on
        each side of its king:

        >>> fen = 'bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9'
        >>> p = Position.from_fen(fen, variant='chess960')
        >>> p.fen(), p.fen(shredder=True).split()[2]
        ('bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9', 'HFhf')
        >>> Position.from_fen('4k3/8/8/8/8/8/8/1R2K2R w B - 0 1')
        Traceback (most recent call last):
        ...
        rules.errors.FenError: FEN castling 'B': 'B' names the rook on b1: standard chess ...
        """
        chess960 = _is_chess960(variant)
        board, turn, castling, ep, half, full = parse_fen_fields(fen, chess960)
        _validate(board, turn, castling, ep, chess960)
        pos = cls.__new__(cls)
        pos._set(board, turn, castling, ep, half, full, chess960=chess960)
        return pos

    @classmethod
    def from_chess960(cls, number: int) -> Position:
        """Chess960 start position ``number`` (0-959, Scharnagl's numbering, 518 the
        standard array): :class:`VariantError` for any other number.

        >>> Position.from_chess960(518).fen() == STARTING_FEN
        True
        """
        return cls.from_fen(_chess960.start_fen(number), variant="chess960")

    @classmethod
    def random_chess960(cls, rng: RandomSource) -> Position:
        """A Chess960 start position drawn from ``rng`` (``random.Random(seed)`` to draw
        the same one again, ``random.SystemRandom()`` for a game), each as likely."""
        return cls.from_chess960(_chess960.random_number(rng))

    @property
    def variant(self) -> str:
        """``'standard'`` or ``'chess960'`` (see :data:`VARIANTS`)."""
        return "chess960" if self._chess960 else "standard"

    def chess960_number(self) -> int | None:
        """The Chess960 start position this is, by number (518: the standard array), or
        ``None`` when it is not one (a piece moved, a right lost, Black to move).

        >>> Position().chess960_number()
        518
        """
        if not self.turn:
            return None
        board = self._board
        if board[8:16] != [1] * 8 or board[48:56] != [-1] * 8 or any(board[16:48]):
            return None
        if board[56:64] != [-p for p in board[0:8]]:
            return None
        rank = placement_text(board).split("/")[-1]
        try:
            number = _chess960.number_of(rank)
        except VariantError:
            return None
        # The rights must be those of the start: the two rooks of each side.
        rooks = [sq for sq in range(8) if board[sq] == 4]
        wanted = 0
        for sq in rooks:
            wanted |= castling_bit(sq) | castling_bit(sq + 56)
        return number if self._castling == wanted else None

    def fen(self, *, shredder: bool = False) -> str:
        """The FEN of the position. The en-passant square is written only when an
        en-passant capture is legal (as python-chess does, and as repetition counts it).

        The castling field is X-FEN (``KQkq``, or a rook's file where ``K``/``Q`` would not
        say which rook); with ``shredder``, Shredder-FEN (every right by its rook's file,
        ``HAha``)."""
        ep = "-"
        if self.ep_square is not None and self._legal_ep_exists():
            ep = SQUARE_NAMES[self.ep_square]
        castling = castling_text(self._board, self._castling, shredder=shredder)
        return (
            f"{placement_text(self._board)} {'w' if self.turn else 'b'} "
            f"{castling} {ep} {self.halfmove_clock} {self.fullmove_number}"
        )

    def board_fen(self) -> str:
        """Only the placement field of the FEN."""
        return placement_text(self._board)

    @property
    def castling_rights(self) -> str:
        """The castling field of the FEN (X-FEN): ``'KQkq'``, a subset of it, a rook's
        file in Chess960 where ``K``/``Q`` would not say which rook, or ``'-'``."""
        return castling_text(self._board, self._castling)

    def castling_rooks(self, color: Color) -> list[int]:
        """The squares of ``color``'s rooks that may still castle, ascending.

        >>> from rules import WHITE
        >>> Position().castling_rooks(WHITE)
        [0, 7]
        """
        return castling_squares(self._castling & RIGHTS_OF[color])

    def copy(self) -> Position:
        """An independent copy, move history included (so it can :meth:`pop` too)."""
        pos = Position.__new__(Position)
        pos._board = self._board[:]
        pos.turn = self.turn
        pos._castling = self._castling
        pos._chess960 = self._chess960
        pos._kept = self._kept
        pos.ep_square = self.ep_square
        pos.halfmove_clock = self.halfmove_clock
        pos.fullmove_number = self.fullmove_number
        pos._pieces = (set(self._pieces[0]), set(self._pieces[1]))
        pos._kings = self._kings[:]
        pos._stack = self._stack[:]
        pos._legal_cache = self._legal_cache
        return pos

    def __eq__(self, other: object) -> bool:
        """Equal when their FENs and variants are: same pieces, side, castling rights,
        clocks, and e.p. square where an e.p. capture is legal (history aside)."""
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.repetition_key() == other.repetition_key()
            and self._chess960 == other._chess960
            and self.halfmove_clock == other.halfmove_clock
            and self.fullmove_number == other.fullmove_number
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        if self._chess960:
            return f"Position.from_fen({self.fen()!r}, variant='chess960')"
        return f"Position.from_fen({self.fen()!r})"

    def __str__(self) -> str:
        """A text board, rank 8 at the top, '.' for an empty square."""
        rows = []
        for rank in range(7, -1, -1):
            cells = []
            for sq in range(rank * 8, rank * 8 + 8):
                p = self.piece_at(sq)
                cells.append(p.symbol() if p else ".")
            rows.append(" ".join(cells))
        return "\n".join(rows)

    # ------------------------------------------------------------------ reading

    def piece_at(self, square: int) -> Piece | None:
        """The piece on a square, or ``None``."""
        p = self._board[square]
        if not p:
            return None
        return Piece(p, True) if p > 0 else Piece(-p, False)

    def occupancy(self, color: Color | None = None) -> int:
        """A 64-bit bitmap of the occupied squares (bit i = square i), as a board scan;
        with ``color``, of the squares that side's pieces stand on.

        >>> from rules import BLACK, WHITE
        >>> hex(Position().occupancy(WHITE)), hex(Position().occupancy(BLACK))
        ('0xffff', '0xffff000000000000')
        """
        bits = 0
        if color is None or not color:
            for sq in self._pieces[0]:
                bits |= 1 << sq
        if color is None or color:
            for sq in self._pieces[1]:
                bits |= 1 << sq
        return bits

    def pieces(self, piece_type: int, color: Color) -> list[int]:
        """The squares holding pieces of that type and colour, ascending."""
        code = piece_type if color else -piece_type
        return sorted(sq for sq in self._pieces[color] if self._board[sq] == code)

    def king_square(self, color: Color) -> int:
        """The square of that side's king."""
        return self._kings[color]

    def checkers(self) -> list[int]:
        """The squares of the pieces giving check to the side to move (empty if none)."""
        return _attackers(self._board, self._kings[self.turn], self.turn)

    def attackers(self, color: Color, square: int) -> list[int]:
        """The squares of ``color``'s pieces that attack ``square``."""
        return _attackers(self._board, square, not color)

    def is_attacked_by(self, color: Color, square: int) -> bool:
        """Does ``color`` attack ``square``?"""
        return _attacked(self._board, square, not color)

    def is_check(self) -> bool:
        """Is the side to move in check?"""
        return _attacked(self._board, self._kings[self.turn], self.turn)

    def is_checkmate(self) -> bool:
        return self.is_check() and not self._legal()

    def is_stalemate(self) -> bool:
        return not self.is_check() and not self._legal()

    def is_insufficient_material(self) -> bool:
        """No sequence of legal moves can mate: K v K, K + one minor v K, or only
        bishops besides the kings, all on squares of one colour."""
        board = self._board
        knights = 0
        bishop_colours = set()
        for side in self._pieces:
            for sq in side:
                t = abs(board[sq])
                if t == KING:
                    continue
                if t == KNIGHT:
                    knights += 1
                elif t == BISHOP:
                    bishop_colours.add(((sq >> 3) + sq) & 1)
                else:
                    return False
        if knights:
            return knights == 1 and not bishop_colours
        return len(bishop_colours) <= 1

    def unwinnable(self, color: Color) -> bool:
        """Can ``color`` never checkmate, whatever both sides play (FIDE 6.9)?

        True only when that is certain; False when a mate may still be possible (or
        could not be ruled out within a small budget: a missed draw, never a wrong one).
        See :mod:`rules.dead` for how it is decided.

        >>> from rules import WHITE
        >>> Position.from_fen('4k3/8/8/8/8/8/8/4KB2 w - - 0 1').unwinnable(WHITE)
        True
        >>> # A black knight can hem its own king in (Kh8, Ng8): the bishop may yet mate.
        >>> Position.from_fen('4k3/8/8/8/8/8/3n4/4KB2 w - - 0 1').unwinnable(WHITE)
        False
        """
        return unwinnable(self, color)

    def is_dead(self) -> bool:
        """Is this a dead position: can neither side checkmate by any series of legal
        moves (FIDE 5.2.2)? Insufficient material is the simple case of it.

        >>> Position.from_fen('4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1').is_dead()
        True
        >>> Position.from_fen('4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4KN2 w - - 0 1').is_dead()
        False
        """
        return is_dead(self)

    def repetition_key(self) -> RepetitionKey:
        """What makes positions "the same" for repetition (FIDE 9.2.3): placement, side
        to move, castling rights (which rooks may castle: in Chess960 two positions with
        the same pieces differ when another rook keeps its right), and the e.p. square
        only if an e.p. capture is legal."""
        return (
            tuple(self._board),
            self.turn,
            self._castling,
            self.ep_square if self._legal_ep_exists() else None,
        )

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed on this position, oldest first."""
        return [entry[0] for entry in self._stack]

    # ------------------------------------------------------------------ moves

    def legal_moves(self) -> list[Move]:
        """All legal moves, each carrying its flags (capture, castling, e.p., promotion)."""
        return list(self._legal())

    def _legal(self) -> list[Move]:
        """The legal moves, computed once per position (push and pop forget them).
        Callers must not change the list."""
        moves = self._legal_cache
        if moves is None:
            moves = self._legal_cache = self._gen()
        return moves

    def is_legal(self, move: Move) -> bool:
        """Is this move legal here? Compared by from, to and promotion, a castling
        written either way (see :meth:`legal_move`)."""
        return move in self._legal() or self._castling_named(move) is not None

    def legal_move(self, move: Move) -> Move:
        """The legal move equal to ``move``, with its flags; :class:`IllegalMoveError` if none.

        A bare king's move names a castling written either way: the king to its castled
        square (``e1g1``, standard chess's UCI) or the king taking its own rook (``e1h1``,
        UCI_Chess960), in both variants, where no other legal move has that text.
        """
        key = move._key
        for m in self._legal():
            if m._key == key:
                return m
        castling = self._castling_named(move)
        if castling is not None:
            return castling
        raise IllegalMoveError(self._why_illegal(move))

    def _castling_named(self, move: Move) -> Move | None:
        """The legal castling a bare move names (see :meth:`legal_move`), or None. Asked
        only when no legal move equals ``move``: so the king's castled square names the
        castling only where no other legal move has that text (the king's step b1c1 is
        no O-O-O)."""
        if move.promotion is not None or move.from_square != self._kings[self.turn]:
            return None
        to = move.to_square
        castlings = [m for m in self._legal() if m.is_castling]
        # The king taking its own rook first: that text names one castling only.
        for m in castlings:
            if to == m.rook_from:
                return m
        for m in castlings:
            if to == m.to_square:
                return m
        return None

    def parse_uci(self, text: str) -> Move:
        """The legal move a UCI text names (``'e2e4'``, ``'e7e8q'``, ``'e1g1'``).

        Castling is read written either way (see :meth:`legal_move`): Stockfish with
        UCI_Chess960 and Lichess write a Chess960 castling as the king taking its rook.

        >>> p = Position.from_fen('rk3r2/pppppppp/8/8/8/8/PPPPPPPP/RK3R2 w AFaf - 0 1',
        ...                       variant='chess960')
        >>> p.parse_uci('b1f1'), p.parse_uci('b1g1'), p.parse_uci('b1c1')
        (Move.castling(1, 5), Move.castling(1, 5), Move.from_uci('b1c1'))
        >>> p.parse_uci('b1a1').uci(), p.san(p.parse_uci('b1a1'))
        ('b1a1', 'O-O-O')

        Raises :class:`IllegalMoveError` saying why when it is not legal here.
        """
        return self.legal_move(Move.from_uci(text))

    def _why_illegal(self, move: Move) -> str:
        """Why a move is not legal here, in words a player understands."""
        text = move.uci()
        frm, to = move.from_square, move.to_square
        board = self._board
        side = "White" if self.turn else "Black"
        p = board[frm]
        where = f"in {self.fen()}"
        origin, target = SQUARE_NAMES[frm], SQUARE_NAMES[to]
        if not p:
            return f"illegal move {text}: no piece on {origin} {where}"
        if (p > 0) != self.turn:
            return f"illegal move {text}: it is {side}'s turn {where}"
        kind = abs(p)
        name = PIECE_NAMES[kind]
        last_rank = to >> 3 in (0, 7)
        if kind == PAWN and last_rank and move.promotion is None:
            return f"illegal move {text}: a pawn reaching the last rank must promote {where}"
        if move.promotion is not None and (kind != PAWN or not last_rank):
            if kind != PAWN:
                return f"illegal move {text}: only a pawn promotes, this is a {name} {where}"
            return f"illegal move {text}: a pawn promotes only on the last rank {where}"
        if self._chess960:  # the king to its castled square, from further than a step
            castled_square = to & 7 in (2, 6) and to not in KING_SQUARES[frm]
        else:
            castled_square = to - frm in (2, -2)
        own_rook = 4 if self.turn else -4
        # The king taking its own rook is castling in UCI_Chess960.
        if kind == KING and frm >> 3 == to >> 3 and (castled_square or board[to] == own_rook):
            return (
                f"illegal move {text}: castling is not allowed here (it needs the rook's "
                "right, every square between king and rook and their final squares empty, "
                f"and no attack on the king's square, its path or its final square) {where}"
            )
        q = board[to]
        if q and (q > 0) == self.turn:
            return f"illegal move {text}: {target} holds {side}'s own {PIECE_NAMES[abs(q)]} {where}"
        if to not in self._reach(frm):
            return f"illegal move {text}: the {name} on {origin} cannot go to {target} {where}"
        if kind == KING:
            return f"illegal move {text}: the king would be in check on {target} {where}"
        if self.is_check():
            return (
                f"illegal move {text}: {side} is in check and this {name} move "
                f"does not end it {where}"
            )
        return (
            f"illegal move {text}: the {name} on {origin} is pinned, the move would leave "
            f"{side}'s king in check {where}"
        )

    def _reach(self, frm: int) -> set[int]:
        """The squares the piece on ``frm`` could move to, were its king not in danger."""
        board = self._board
        p = board[frm]
        kind = abs(p)
        white = p > 0
        if kind == PAWN:
            step = 8 if white else -8
            reach = set()
            if not board[frm + step]:
                reach.add(frm + step)
                dbl = PAWN_DOUBLE[white][frm]
                if dbl is not None and not board[dbl[1].to_square]:
                    reach.add(dbl[1].to_square)
            for t in PAWN_ATTACKS[white][frm]:
                if (board[t] and (board[t] > 0) != white) or t == self.ep_square:
                    reach.add(t)
            return reach
        if kind == KNIGHT:
            return set(KNIGHT_SQUARES[frm])
        if kind == KING:
            return set(KING_SQUARES[frm])
        if kind == BISHOP:
            rays = DIAG_RAYS[frm]
        elif kind == ROOK:
            rays = ORTHO_RAYS[frm]
        else:
            rays = ORTHO_RAYS[frm] + DIAG_RAYS[frm]
        reach = set()
        for ray in rays:
            for t in ray:
                reach.add(t)
                if board[t]:
                    break
        return reach

    def perft(self, depth: int) -> int:
        """The number of leaf positions ``depth`` plies ahead (the last ply counted in bulk)."""
        if depth < 1:
            return 1
        moves = self._gen()
        if depth == 1:
            return len(moves)
        push, pop, perft = self.push, self.pop, self.perft
        nodes = 0
        d = depth - 1
        for m in moves:
            push(m)
            nodes += perft(d)
            pop()
        return nodes

    def _legal_ep_exists(self) -> bool:
        ep = self.ep_square
        if ep is None:
            return False
        board = self._board
        white = self.turn
        pawn = 1 if white else -1
        victim = ep - 8 if white else ep + 8
        ksq = self._kings[white]
        for frm in PAWN_ATTACKS[not white][ep]:
            if board[frm] == pawn:
                board[frm] = 0
                board[victim] = 0
                board[ep] = pawn
                ok = not _attacked(board, ksq, white)
                board[frm] = pawn
                board[victim] = -pawn
                board[ep] = 0
                if ok:
                    return True
        return False

    def _gen(self) -> list[Move]:
        board = self._board
        white = self.turn
        sign = 1 if white else -1
        enemy = _ENEMY[white]
        ksq = self._kings[white]
        moves: list[Move] = []
        append = moves.append

        # Checkers and pins, from the king outward.
        n_checks = 0
        mask: frozenset[int] | None = None
        pins: dict[int, frozenset[int]] = {}
        _, _, straight, diagonal, _ = _ATTACKER_CODES[white]
        for rays, sliders in ((ORTHO_LINES[ksq], straight), (DIAG_LINES[ksq], diagonal)):
            for ray in rays:
                blocker = -1
                for t, line in ray:
                    q = board[t]
                    if q:
                        if enemy[q]:
                            if q in sliders:
                                if blocker < 0:
                                    n_checks += 1
                                    mask = line
                                else:
                                    pins[blocker] = line
                            break
                        if blocker >= 0:
                            break
                        blocker = t
        en = -2 * sign
        for t in KNIGHT_SQUARES[ksq]:
            if board[t] == en:
                n_checks += 1
                mask = SINGLE[t]
        ep_ = -sign
        for t in PAWN_ATTACKS[white][ksq]:
            if board[t] == ep_:
                n_checks += 1
                mask = SINGLE[t]

        if n_checks < 2:
            free = not pins and mask is None
            out = moves
            ap = append
            pin = None
            for sq in self._pieces[white]:
                p = board[sq] * sign
                if p == 6:
                    continue
                if not free:
                    # A pinned piece or one that must answer check fills a scratch list.
                    pin = pins.get(sq)
                    out = moves if pin is None and mask is None else []
                    ap = out.append
                if p == 1:
                    to, ms = PAWN_PUSH[white][sq]
                    if not board[to]:
                        out.extend(ms)
                        dbl = PAWN_DOUBLE[white][sq]
                        if dbl is not None and not board[dbl[1].to_square]:
                            ap(dbl[1])
                    for to, ms in PAWN_CAPTURES[white][sq]:
                        if enemy[board[to]]:
                            out.extend(ms)
                elif p == 2:
                    if pin is not None:
                        continue
                    for to, qm, cm in KNIGHT_MOVES[sq]:
                        q = board[to]
                        if not q:
                            ap(qm)
                        elif enemy[q]:
                            ap(cm)
                else:
                    for steps in SLIDER_MOVES[p][sq]:
                        for to, qm, cm in steps:
                            q = board[to]
                            if not q:
                                ap(qm)
                            else:
                                if enemy[q]:
                                    ap(cm)
                                break
                if out is not moves:
                    allowed = mask if pin is None else (pin if mask is None else pin & mask)
                    assert allowed is not None  # a scratch list only for a pin or a check
                    for m in out:
                        if m.to_square in allowed:
                            append(m)

            ep = self.ep_square
            if ep is not None:
                pawn = sign
                victim = ep - 8 * sign
                for frm in PAWN_ATTACKS[not white][ep]:
                    if board[frm] == pawn:
                        board[frm] = 0
                        board[victim] = 0
                        board[ep] = pawn
                        ok = not _attacked(board, ksq, white)
                        board[frm] = pawn
                        board[victim] = -pawn
                        board[ep] = 0
                        if ok:
                            append(EN_PASSANT[frm, ep])

        # King steps: the king is lifted so it cannot hide behind itself from a slider.
        king = 6 * sign
        board[ksq] = 0
        for to, qm, cm in KING_MOVES[ksq]:
            q = board[to]
            if q and not enemy[q]:
                continue
            if not _attacked(board, to, white):
                append(cm if q else qm)
        board[ksq] = king

        castling = self._castling
        if castling and not n_checks:
            if self._chess960:
                self._gen_castling960(castling, append)
            elif white:
                if (
                    castling & WHITE_KINGSIDE
                    and not board[5]
                    and not board[6]
                    and not _attacked(board, 5, True)
                    and not _attacked(board, 6, True)
                ):
                    append(CASTLE_WK)
                if (
                    castling & WHITE_QUEENSIDE
                    and not board[3]
                    and not board[2]
                    and not board[1]
                    and not _attacked(board, 3, True)
                    and not _attacked(board, 2, True)
                ):
                    append(CASTLE_WQ)
            else:
                if (
                    castling & BLACK_KINGSIDE
                    and not board[61]
                    and not board[62]
                    and not _attacked(board, 61, False)
                    and not _attacked(board, 62, False)
                ):
                    append(CASTLE_BK)
                if (
                    castling & BLACK_QUEENSIDE
                    and not board[59]
                    and not board[58]
                    and not board[57]
                    and not _attacked(board, 59, False)
                    and not _attacked(board, 58, False)
                ):
                    append(CASTLE_BQ)
        return moves

    def _gen_castling960(self, castling: int, append: Callable[[Move], None]) -> None:
        """Chess960 castlings (the side to move is not in check): every square between
        the king and its final square and between the rook and its final square empty
        but for those two, no square the king passes or lands on attacked. Its final
        square is judged with the king and rook where the castling leaves them: a rook
        leaving b1 may open the rank to an attack on the king castled to c1."""
        board = self._board
        white = self.turn
        ksq = self._kings[white]
        king = board[ksq]
        rook = 4 if white else -4
        rights = castling & RIGHTS_OF[white]
        back = 0 if white else 56
        for f in range(8):
            if not rights >> (f if white else f + 8) & 1:
                continue
            rsq = back + f
            entry = CASTLING_960[ksq * 64 + rsq]
            if any(board[sq] for sq in entry.empty):
                continue
            move = entry.move
            to, rook_to = move.to_square, move.rook_to
            assert rook_to is not None
            board[ksq] = 0
            ok = not any(_attacked(board, sq, white) for sq in entry.path)
            if ok:
                board[rsq] = 0
                board[rook_to] = rook
                ok = not _attacked(board, to, white)
                board[rook_to] = 0
                board[rsq] = rook
            board[ksq] = king
            if ok:
                append(move)

    # ------------------------------------------------------------------ make / unmake

    def push(self, move: Move) -> None:
        """Play a move, in place. The move must be legal here (see :meth:`is_legal`;
        :class:`rules.Game` checks): what it does is read from the board, so in standard
        chess a bare ``Move.from_uci('e1g1')`` castles. A Chess960 castling must be the
        move itself (from :meth:`legal_moves`, :meth:`parse_uci` or :meth:`legal_move`)."""
        if move.is_castling and self._chess960:
            self._push_castling960(move)
            return
        board = self._board
        frm = move.from_square
        to = move.to_square
        p = board[frm]
        cap = board[to]
        white = self.turn
        ep = self.ep_square
        self._stack.append((move, p, cap, self._castling, ep, self.halfmove_clock))
        self._legal_cache = None
        pieces = self._pieces
        us = pieces[white]
        us.remove(frm)
        us.add(to)
        board[frm] = 0
        self.ep_square = None
        if cap:
            pieces[not white].remove(to)
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        if p == 1 or p == -1:
            self.halfmove_clock = 0
            d = to - frm
            if d == 16 or d == -16:
                self.ep_square = (frm + to) >> 1
            elif to == ep:
                victim = to - 8 if white else to + 8
                board[victim] = 0
                pieces[not white].remove(victim)
            elif move.promotion:
                p = move.promotion * p
        elif p == 6 or p == -6:
            self._kings[white] = to
            d = to - frm
            if d == 2 or d == -2:
                rf, rt = (frm + 3, frm + 1) if d == 2 else (frm - 4, frm - 1)
                board[rt] = board[rf]
                board[rf] = 0
                us.remove(rf)
                us.add(rt)
        board[to] = p
        if self._castling:
            kept = self._kept
            self._castling &= kept[frm] & kept[to]
        if not white:
            self.fullmove_number += 1
        self.turn = not white

    def pop(self) -> Move:
        """Take back the last move pushed, restoring everything; returns it.

        Raises :class:`IndexError` when no move was pushed.
        """
        if not self._stack:
            raise IndexError("pop from a position with no moves pushed")
        move, p, cap, castling, ep, half = self._stack.pop()
        if move.is_castling and self._chess960:
            self._pop_castling960(move, castling, ep, half)
            return move
        self._legal_cache = None
        board = self._board
        white = not self.turn
        self.turn = white
        frm = move.from_square
        to = move.to_square
        pieces = self._pieces
        us = pieces[white]
        us.remove(to)
        us.add(frm)
        board[frm] = p
        board[to] = cap
        if cap:
            pieces[not white].add(to)
        if p == 1 or p == -1:
            if to == ep:
                victim = to - 8 if white else to + 8
                board[victim] = -p
                pieces[not white].add(victim)
        elif p == 6 or p == -6:
            self._kings[white] = frm
            d = to - frm
            if d == 2 or d == -2:
                rf, rt = (frm + 3, frm + 1) if d == 2 else (frm - 4, frm - 1)
                board[rf] = board[rt]
                board[rt] = 0
                us.remove(rt)
                us.add(rf)
        self._castling = castling
        self.ep_square = ep
        self.halfmove_clock = half
        if not white:
            self.fullmove_number -= 1
        return move

    def _push_castling960(self, move: Move) -> None:
        """A Chess960 castling: king and rook to their squares (see :meth:`_shift`)."""
        white = self.turn
        rook_from, rook_to = move.rook_from, move.rook_to
        assert rook_from is not None and rook_to is not None
        self._stack.append((move, 0, 0, self._castling, self.ep_square, self.halfmove_clock))
        self._legal_cache = None
        self._shift(white, move.from_square, move.to_square, rook_from, rook_to)
        self._castling &= RIGHTS_OF[not white]
        self.ep_square = None
        self.halfmove_clock += 1
        if not white:
            self.fullmove_number += 1
        self.turn = not white

    def _pop_castling960(self, move: Move, castling: int, ep: int | None, half: int) -> None:
        self._legal_cache = None
        white = not self.turn
        self.turn = white
        rook_from, rook_to = move.rook_from, move.rook_to
        assert rook_from is not None and rook_to is not None
        self._shift(white, move.to_square, move.from_square, rook_to, rook_from)
        self._castling = castling
        self.ep_square = ep
        self.halfmove_clock = half
        if not white:
            self.fullmove_number -= 1

    def _shift(
        self, white: Color, king_from: int, king_to: int, rook_from: int, rook_to: int
    ) -> None:
        """Move ``white``'s king and rook: both are lifted before either is placed, for in
        Chess960 each may land where the other stood, or stay where it is."""
        board = self._board
        us = self._pieces[white]
        king, rook = board[king_from], board[rook_from]
        board[king_from] = board[rook_from] = 0
        us.discard(king_from)
        us.discard(rook_from)
        board[king_to] = king
        board[rook_to] = rook
        us.add(king_to)
        us.add(rook_to)
        self._kings[white] = king_to

    def peek(self) -> Move | None:
        """The last move pushed, or ``None``."""
        return self._stack[-1][0] if self._stack else None

    # ------------------------------------------------------------------ notation

    def san(self, move: Move) -> str:
        """The SAN of a legal move: ``'Nf3'``, ``'exd6'``, ``'O-O'``, ``'e8=Q+'``, ``'Qh4#'``."""
        return move_to_san(self, move)

    def parse_san(self, text: str) -> Move:
        """The legal move a SAN text names, read leniently (``0-0``, ``e8Q``, ``exd6e.p.``,
        trailing ``+#!?``); :class:`rules.SanError` when it names none or several."""
        return parse_san(self, text)


def _is_chess960(variant: str) -> bool:
    if variant == "standard":
        return False
    if variant == "chess960":
        return True
    raise VariantError(
        f"unknown variant {variant!r}: the rules know {' and '.join(map(repr, VARIANTS))}"
    )


def _kept_table(chess960: bool, kings: list[int], castling: int) -> tuple[int, ...]:
    """The rights kept after a move from or to each square (see ``ROOK_KEPT``): in
    Chess960 a king with rights may start on any square of its back rank."""
    if not chess960:
        return CASTLING_KEPT
    kept = list(ROOK_KEPT)
    for white in (False, True):
        if castling & RIGHTS_OF[white]:
            kept[kings[white]] &= ~RIGHTS_OF[white]
    return tuple(kept)


def _validate(
    board: list[int], turn: bool, castling: int, ep: int | None, chess960: bool = False
) -> None:
    """Raise FenError naming every reason the position cannot arise (field of the first)."""
    problems = _problems(board, turn, castling, ep, chess960)
    if problems:
        raise FenError(problems[0][0], "; ".join(text for _, text in problems), problems)


def _problems(
    board: list[int], turn: bool, castling: int, ep: int | None, chess960: bool
) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    kings_ok = True
    for color, name in ((True, "White"), (False, "Black")):
        n = board.count(6 if color else -6)
        if n != 1:
            kings_ok = False
            count = "no king" if n == 0 else f"{n} kings"
            found.append(("placement", f"FEN placement: {name} has {count}, needs exactly one"))
        if board.count(1 if color else -1) > 8:
            found.append(("placement", f"FEN placement: {name} has more than 8 pawns"))
        if sum(1 for p in board if (p > 0 if color else p < 0)) > 16:
            found.append(("placement", f"FEN placement: {name} has more than 16 pieces"))
    for sq in (*range(8), *range(56, 64)):
        if board[sq] in (1, -1):
            found.append(
                (
                    "placement",
                    f"FEN placement: a pawn on {SQUARE_NAMES[sq]} "
                    "(pawns never stand on rank 1 or 8)",
                )
            )
    if kings_ok and _attacked(board, board.index(-6 if turn else 6), not turn):
        side, mover = ("Black", "White") if turn else ("White", "Black")
        found.append(
            (
                "side",
                f"FEN side: {side} is in check with {mover} to move "
                "(the side not to move cannot be in check)",
            )
        )
    needs: tuple[tuple[int, str, int, int, int, int], ...] = (
        (WHITE_KINGSIDE, "K", 4, 6, 7, 4),
        (WHITE_QUEENSIDE, "Q", 4, 6, 0, 4),
        (BLACK_KINGSIDE, "k", 60, -6, 63, -4),
        (BLACK_QUEENSIDE, "q", 60, -6, 56, -4),
    )
    if chess960:
        found += _castling_problems960(board, castling)
        needs = ()
    for bit, letter, ksq, king, rsq, rook in needs:
        if not castling & bit:
            continue
        colour = "white" if king > 0 else "black"
        if board[ksq] != king:
            found.append(
                ("castling", f"FEN castling {letter!r}: no {colour} king on {SQUARE_NAMES[ksq]}")
            )
        if board[rsq] != rook:
            found.append(
                ("castling", f"FEN castling {letter!r}: no {colour} rook on {SQUARE_NAMES[rsq]}")
            )
    if ep is not None:
        name = SQUARE_NAMES[ep]
        step = -8 if turn else 8  # from the e.p. square toward the pawn that moved
        if board[ep]:
            found.append(("en passant", f"FEN en passant {name}: the square is not empty"))
        if board[ep + step] != (-1 if turn else 1):
            found.append(
                (
                    "en passant",
                    f"FEN en passant {name}: no {'black' if turn else 'white'} pawn on "
                    f"{SQUARE_NAMES[ep + step]} that could just have moved two squares",
                )
            )
        if board[ep - step]:
            found.append(
                (
                    "en passant",
                    f"FEN en passant {name}: {SQUARE_NAMES[ep - step]} is occupied, so no pawn "
                    "can just have moved two squares from it",
                )
            )
    return found


def _castling_problems960(board: list[int], castling: int) -> list[tuple[str, str]]:
    """Chess960 rights: the king on its back rank, a rook on each square named, at most
    one on each side of the king."""
    found = []
    for white in (True, False):
        rooks = castling_squares(castling & RIGHTS_OF[white])
        if not rooks:
            continue
        colour, side, rank = ("white", "White", "first") if white else ("black", "Black", "eighth")
        back = 0 if white else 56
        king_files = [f for f in range(8) if board[back + f] == (6 if white else -6)]
        for sq in rooks:
            if board[sq] != (4 if white else -4):
                letter = SQUARE_NAMES[sq][0]
                letter = letter.upper() if white else letter
                found.append(
                    ("castling", f"FEN castling {letter!r}: no {colour} rook on {SQUARE_NAMES[sq]}")
                )
        if not king_files:
            found.append(
                (
                    "castling",
                    f"FEN castling: {side} keeps a right to castle but its king is not on the "
                    f"{rank} rank (a king that has left it cannot castle)",
                )
            )
            continue
        king_file = king_files[0]
        for name, group in (
            ("h", [sq for sq in rooks if sq & 7 > king_file]),
            ("a", [sq for sq in rooks if sq & 7 < king_file]),
        ):
            if len(group) > 1:
                names = " and ".join(SQUARE_NAMES[sq] for sq in group)
                found.append(
                    (
                        "castling",
                        f"FEN castling: {side} has {len(group)} rights on the {name} side of its "
                        f"king ({names}): a king castles with one rook on each side",
                    )
                )
    return found


#: What repetition compares (see :meth:`Position.repetition_key`).
RepetitionKey = tuple[tuple[int, ...], bool, int, "int | None"]

__all__ = ["VARIANTS", "Position"]
