"""A move to execute for the other side (an engine, later the web page).

When the other side is an engine, the person at the board moves its pieces for it. The
tracker then accepts only the move the engine chose; until the engine has chosen, no
move at all (a move made while the engine thinks is out of sync, not a second move).
The lights show the move to play: its squares blinking cyan, from and to, both rook
squares when castling, the victim's square for a capture or en passant.

>>> from rules import Position
>>> from board_driver.squares import square_name, squares_of
>>> pos = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
>>> [square_name(sq) for sq in squares_of(execute_squares(pos.parse_uci("e8c8")))]
['a8', 'c8', 'd8', 'e8']
>>> describe_move(pos, pos.parse_uci("e8c8"))["san"]
'O-O-O'
"""

from __future__ import annotations

from typing import Any

from board_driver.arbiter.touch import TouchMove
from board_driver.squares import square_name
from rules import BISHOP, BLACK, KNIGHT, QUEEN, ROOK, WHITE, Color, Move, Piece, Position

PIECE_NAMES = {QUEEN: "queen", ROOK: "rook", BISHOP: "bishop", KNIGHT: "knight"}


def execute_squares(move: Move) -> int:
    """The squares a person touches to play ``move``, as a 64-bit mask."""
    mask = (1 << move.from_square) | (1 << move.to_square)
    if move.is_castling:
        mask |= (1 << move.rook_from) | (1 << move.rook_to)
    if move.is_capture:
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
    if move.is_capture:
        details["captured"] = square_name(move.captured_square)
    if move.is_en_passant:
        details["en_passant"] = True
    if move.is_castling:
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
    """A take-back in a game against the other side undoes the pair.

    ``depth``: how many moves back the board is (0: not a take-back position);
    ``other_to_move``: the engine's turn now. Returns the moves to take back, 0 for
    none, or -1 when only half of the pair is set back (the engine's reply undone but
    not yet the person's move: wait quietly for the rest).

    >>> paired_takeback(2, other_to_move=False), paired_takeback(1, other_to_move=False)
    (2, -1)
    >>> paired_takeback(1, other_to_move=True), paired_takeback(2, other_to_move=True)
    (1, 0)
    """
    if depth == 0:
        return 0
    if other_to_move:
        # The engine has not replied yet (or its reply is not played): the person's
        # move alone is the pair.
        return 1 if depth == 1 else 0
    return 2 if depth == 2 else -1
