"""Colours, piece types, squares, :class:`Piece` and :class:`Move`.

Squares are numbered a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63, the bit order
of a board scan.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import IllegalMoveError

Color = bool
WHITE: Color = True
BLACK: Color = False

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
PIECE_TYPES = (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING)
PIECE_SYMBOLS = "?pnbrqk"  # index = piece type
PIECE_NAMES = (None, "pawn", "knight", "bishop", "rook", "queen", "king")

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}


def square_name(square: int) -> str:
    """The name of a square: ``square_name(28) == 'e4'``."""
    return SQUARE_NAMES[square]


def parse_square(name: str) -> int:
    """The number of a named square: ``parse_square('e4') == 28``.

    Raises :class:`ValueError` for anything but a file ``a``-``h`` and a rank ``1``-``8``.
    """
    try:
        return _SQUARE_INDEX[name]
    except (KeyError, TypeError):
        raise ValueError(f"not a square: {name!r} (expected a file a-h and a rank 1-8)") from None


def square_file(square: int) -> int:
    """0 for the a-file ... 7 for the h-file."""
    return square & 7


def square_rank(square: int) -> int:
    """0 for the first rank ... 7 for the eighth."""
    return square >> 3


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece: its type (:data:`PAWN` ... :data:`KING`) and colour.

    >>> Piece(KNIGHT, BLACK).symbol()
    'n'
    >>> Piece.from_symbol('Q')
    Piece(piece_type=5, color=True)
    """

    piece_type: int
    color: Color

    def symbol(self) -> str:
        """``'P'``, ``'N'`` ... for White, ``'p'``, ``'n'`` ... for Black."""
        s = PIECE_SYMBOLS[self.piece_type]
        return s.upper() if self.color else s

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        """The piece a FEN letter stands for; :class:`ValueError` for any other text."""
        if len(symbol) != 1 or symbol.lower() not in PIECE_SYMBOLS[1:]:
            raise ValueError(f"not a piece letter: {symbol!r} (expected one of PNBRQK or pnbrqk)")
        return cls(PIECE_SYMBOLS.index(symbol.lower()), symbol.isupper())

    def __str__(self) -> str:
        return self.symbol()


class Move:
    """A move, as the laws see it: from a square to a square, maybe promoting.

    Two moves are equal when they have the same ``from_square``, ``to_square`` and
    ``promotion`` (a Chess960 castling: the same king and rook squares); the flags
    describe what the move does in the position it was generated for, so SAN and the
    tracker need no look-ups:

    >>> from rules import Position
    >>> m = Position().parse_uci('e2e4')
    >>> str(m), m.is_capture, m.is_castling
    ('e2e4', False, False)

    Castling is the king's move: ``from_square`` and ``to_square`` are the king's squares
    (``e1`` to ``g1``), ``rook_from`` and ``rook_to`` the rook's. ``captured_square`` is
    the victim's square (differs from ``to_square`` only for en passant). Moves are
    immutable and hashable.

    A Chess960 castling (FIDE Guidelines II) has the same four squares, which may
    overlap: the king can land where its rook stood, or stay where it is. Such a move
    is written and compared as the king taking its own rook (UCI_Chess960, as engines
    and Lichess write it), so it never equals a king's step to the same square:

    >>> b1 = Position.from_fen('rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1', variant='chess960')
    >>> long = b1.parse_san('O-O-O')
    >>> [square_name(s) for s in (long.from_square, long.to_square, long.rook_from, long.rook_to)]
    ['b1', 'c1', 'a1', 'd1']
    >>> long.uci(), long == Move.from_uci('b1c1'), long == Move.castling(1, 0)
    ('b1a1', False, True)
    """

    __slots__ = (
        "_key",
        "captured_square",
        "from_square",
        "is_capture",
        "is_castling",
        "is_en_passant",
        "promotion",
        "rook_from",
        "rook_to",
        "to_square",
    )

    from_square: int
    to_square: int
    promotion: int | None
    is_capture: bool
    is_en_passant: bool
    is_castling: bool
    captured_square: int | None
    rook_from: int | None
    rook_to: int | None
    _key: int

    def __init__(
        self,
        from_square: int,
        to_square: int,
        promotion: int | None = None,
        *,
        is_capture: bool = False,
        is_en_passant: bool = False,
        is_castling: bool = False,
    ) -> None:
        if not (0 <= from_square < 64 and 0 <= to_square < 64):
            raise ValueError(f"squares must be 0..63, got {from_square} and {to_square}")
        if promotion is not None and promotion not in (KNIGHT, BISHOP, ROOK, QUEEN):
            raise ValueError(f"a pawn promotes to a knight, bishop, rook or queen, not {promotion}")
        setattr_ = object.__setattr__
        setattr_(self, "from_square", from_square)
        setattr_(self, "to_square", to_square)
        setattr_(self, "promotion", promotion)
        is_capture = is_capture or is_en_passant
        setattr_(self, "is_capture", is_capture)
        setattr_(self, "is_en_passant", is_en_passant)
        setattr_(self, "is_castling", is_castling)
        captured: int | None
        if is_en_passant:
            captured = (from_square & 0o70) | (to_square & 7)
        elif is_capture:
            captured = to_square
        else:
            captured = None
        setattr_(self, "captured_square", captured)
        rook_from: int | None
        rook_to: int | None
        if is_castling:
            back = from_square & 0o70
            if to_square > from_square:
                rook_from, rook_to = back + 7, back + 5
            else:
                rook_from, rook_to = back, back + 3
        else:
            rook_from = rook_to = None
        setattr_(self, "rook_from", rook_from)
        setattr_(self, "rook_to", rook_to)
        setattr_(self, "_key", from_square | to_square << 6 | (promotion or 0) << 12)

    @classmethod
    def castling(cls, king_square: int, rook_square: int) -> Move:
        """A Chess960 castling of the king on ``king_square`` with its rook on
        ``rook_square`` (both on the first or both on the last rank): the king goes to
        the g-file and the rook to the f-file when the rook stands on the king's h side,
        else to the c- and d-files.

        >>> m = Move.castling(5, 6)                    # king f1, rook g1: O-O
        >>> square_name(m.to_square), square_name(m.rook_to), m.uci()
        ('g1', 'f1', 'f1g1')
        >>> Move.castling(60, 4)
        Traceback (most recent call last):
        ...
        ValueError: a castling king and rook stand on one back rank: e8 and e1 do not
        """
        back = king_square & 0o70
        if (
            not (0 <= king_square < 64 and 0 <= rook_square < 64)
            or back not in (0, 56)
            or rook_square & 0o70 != back
            or rook_square == king_square
        ):
            names = (
                f"{SQUARE_NAMES[king_square]} and {SQUARE_NAMES[rook_square]}"
                if 0 <= king_square < 64 and 0 <= rook_square < 64
                else f"{king_square} and {rook_square}"
            )
            raise ValueError(f"a castling king and rook stand on one back rank: {names} do not")
        kingside = rook_square > king_square
        move = cls.__new__(cls)
        setattr_ = object.__setattr__
        setattr_(move, "from_square", king_square)
        setattr_(move, "to_square", back + (6 if kingside else 2))
        setattr_(move, "promotion", None)
        setattr_(move, "is_capture", False)
        setattr_(move, "is_en_passant", False)
        setattr_(move, "is_castling", True)
        setattr_(move, "captured_square", None)
        setattr_(move, "rook_from", rook_square)
        setattr_(move, "rook_to", back + (5 if kingside else 3))
        # The king takes its own rook, marked apart from any move a piece can make.
        setattr_(move, "_key", king_square | rook_square << 6 | _CHESS960_CASTLING)
        return move

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Move is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._key == other._key
        return NotImplemented

    def __hash__(self) -> int:
        return self._key

    def __str__(self) -> str:
        return self.uci()

    def __repr__(self) -> str:
        if self._key & _CHESS960_CASTLING:
            return f"Move.castling({self.from_square}, {self.rook_from})"
        return f"Move.from_uci({self.uci()!r})"

    def __reduce__(self) -> tuple[object, ...]:
        # copy/pickle through the constructors (the attributes are read-only)
        if self._key & _CHESS960_CASTLING:
            return (Move.castling, (self.from_square, self.rook_from))
        return (
            _rebuild_move,
            (
                self.from_square,
                self.to_square,
                self.promotion,
                self.is_capture,
                self.is_en_passant,
                self.is_castling,
            ),
        )

    def uci(self) -> str:
        """The UCI text of the move: ``'e2e4'``, ``'e7e8q'``, ``'e1g1'`` for castling in
        standard chess; in Chess960 (UCI_Chess960) the king takes its own rook: ``'e1h1'``.
        """
        if self._key & _CHESS960_CASTLING:
            return SQUARE_NAMES[self.from_square] + SQUARE_NAMES[self._key >> 6 & 63]
        text = SQUARE_NAMES[self.from_square] + SQUARE_NAMES[self.to_square]
        if self.promotion:
            text += PIECE_SYMBOLS[self.promotion]
        return text

    @classmethod
    def from_uci(cls, text: str) -> Move:
        """A bare move from UCI text (no flags: use ``Position.parse_uci`` for the full move,
        which also reads a castling written either way, ``e1g1`` or ``e1h1``).

        Raises :class:`IllegalMoveError` when the text is not UCI move syntax.
        """
        if not isinstance(text, str) or len(text) not in (4, 5):
            raise IllegalMoveError(f"not a UCI move: {text!r} (expected e.g. 'e2e4' or 'e7e8q')")
        frm = _SQUARE_INDEX.get(text[:2])
        to = _SQUARE_INDEX.get(text[2:4])
        if frm is None or to is None:
            raise IllegalMoveError(f"not a UCI move: {text!r} (squares must be a1..h8)")
        promotion = None
        if len(text) == 5:
            promotion = "..nbrq".find(text[4])
            if promotion < KNIGHT:
                raise IllegalMoveError(
                    f"not a UCI move: {text!r} (promotion letter must be one of n, b, r, q)"
                )
        if frm == to:
            raise IllegalMoveError(f"not a UCI move: {text!r} (from and to are the same square)")
        return cls(frm, to, promotion)

    @property
    def is_chess960_castling(self) -> bool:
        """Is this a Chess960 castling (written and compared as the king taking its rook)?"""
        return bool(self._key & _CHESS960_CASTLING)


#: The key bit of a Chess960 castling: above the squares (12 bits) and promotion (3 bits).
_CHESS960_CASTLING = 1 << 15


def _rebuild_move(
    frm: int,
    to: int,
    promotion: int | None,
    is_capture: bool,
    is_en_passant: bool,
    is_castling: bool,
) -> Move:
    return Move(
        frm,
        to,
        promotion,
        is_capture=is_capture,
        is_en_passant=is_en_passant,
        is_castling=is_castling,
    )
