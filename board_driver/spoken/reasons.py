"""Why a board shows no legal move, and how to put it right, as sentences of the table.

The tracker says why in English (:mod:`board_driver.arbiter.words`); a player who listens
in French needs the same reasons in French. The reasons here are the same cases, read from
the same two things (the last position, and the squares standing), each a key of the table
with its fields, so every language says them:

>>> from rules import Position
>>> from board_driver.physical.squares import square
>>> from board_driver.spoken.words import Words
>>> start = Position.from_fen("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1")
>>> board = start.occupancy() & ~(1 << square("a1")) | 1 << square("a4")
>>> key, fields = why_illegal(start, board)
>>> Words("en").say(key, **fields)
'the rook on a1 cannot go to a4'
>>> [(fix, _)] = remedy(start, empty=["a4"], fill=["a1"], named=True)
>>> fr = Words("fr")
>>> fr.say("illegal", why=fr.say(key, **fields), fix=fr.say(fix, **_))
'Illégal : la tour en a1 ne peut pas aller en a4 ; remettez-la en a1.'
"""

from __future__ import annotations

from typing import Any

from board_driver.physical.squares import square, square_name, squares_of
from board_driver.spoken.words import PIECE_KINDS, PieceWords, SideWords
from rules import KING, PAWN, QUEEN, WHITE, IllegalMoveError, Move, Position

#: A sentence of the table and its fields.
Sentence = tuple[str, dict[str, Any]]


def side_of(color: bool) -> str:
    return "white" if color == WHITE else "black"


def piece_on(position: Position, sq: int, *, colour: bool = False) -> PieceWords | None:
    """The piece standing on ``sq`` in ``position`` (with its colour named, ``colour``)."""
    piece = position.piece_at(sq)
    if piece is None:
        return None
    return PieceWords(PIECE_KINDS[piece.piece_type - 1], side_of(piece.color) if colour else None)


def _listed(squares: list[int]) -> list[str]:
    return [square_name(sq) for sq in squares]


def move_reason(position: Position, frm: int, to: int) -> Sentence | None:
    """Why the piece on ``frm`` may not go to ``to`` (None: it may), as the rules core
    judges it: the piece cannot reach the square, the king would be in check there, a check
    not ended, a pin, castling not allowed."""
    piece = position.piece_at(frm)
    if piece is None:
        return "why.unknown", {}
    move = Move(frm, to)
    if piece.piece_type == PAWN and to >> 3 in (0, 7):
        move = Move(frm, to, QUEEN)  # promotions are read as a queen
    try:
        position.legal_move(move)
    except IllegalMoveError as error:
        text = str(error)
    else:
        return None
    mover = PieceWords(PIECE_KINDS[piece.piece_type - 1])
    side = SideWords(side_of(position.turn))
    where = {"piece": mover, "from": square_name(frm), "to": square_name(to), "side": side}
    if piece.color != position.turn:
        return "why.wrong_side", {
            "side": SideWords(side_of(position.turn)),
            "other": SideWords(side_of(not position.turn)),
        }
    if piece.piece_type == KING and abs(to - frm) == 2 and frm >> 3 == to >> 3:
        return "why.castling", {}
    if "cannot go to" in text:  # the rules core's words for a square out of its reach
        return "why.cannot_go", where
    if piece.piece_type == KING:
        return "why.king_in_check", where
    if position.is_check():
        return "why.in_check", where
    return "why.pinned", where


def why_illegal(position: Position, board: int) -> Sentence:
    """Why ``board`` shows no legal move from ``position`` (the cases of
    :func:`board_driver.arbiter.words.why_illegal`)."""
    before = position.occupancy()
    gone, new = squares_of(before & ~board), squares_of(board & ~before)
    turn = position.turn
    movers = [sq for sq in gone if (p := position.piece_at(sq)) is not None and p.color == turn]
    others = [sq for sq in gone if (p := position.piece_at(sq)) is not None and p.color != turn]
    if others and not movers:
        if new:
            return "why.wrong_side", {
                "side": SideWords(side_of(turn)),
                "other": SideWords(side_of(not turn)),
            }
        victim = piece_on(position, others[0], colour=True)
        return "why.cannot_capture", {"piece": victim, "square": square_name(others[0])}
    if len(movers) == 1 and len(new) == 1 and not others:
        reason = move_reason(position, movers[0], new[0])
        if reason is not None:
            return reason
        promotion = _queen_if(position, movers[0], new[0])
        move = position.legal_move(Move(movers[0], new[0], promotion))
        victim_square = move.captured_square
        if move.is_en_passant and victim_square is not None:  # its victim set back
            victim = piece_on(position, victim_square, colour=True)
            return "why.en_passant_back", {"piece": victim, "square": square_name(victim_square)}
    king = next(
        (sq for sq in movers if (p := position.piece_at(sq)) is not None and p.piece_type == KING),
        None,
    )
    if king is not None and any(abs(sq - king) == 2 and sq >> 3 == king >> 3 for sq in new):
        target = next(sq for sq in new if abs(sq - king) == 2)
        reason = move_reason(position, king, target)
        if reason is not None:
            return reason
        move = position.legal_move(Move(king, target))
        rook = move.rook_from
        if rook is not None and board & (1 << rook):
            return "why.castling_unfinished", {"square": square_name(rook)}
    if len(movers) == 1 and not new:
        return "why.no_legal_move", {
            "piece": piece_on(position, movers[0]),
            "square": square_name(movers[0]),
        }
    if len(movers) > 1 and not new and not others:
        return "why.several_off", {"squares": _listed(movers)}
    if len(gone) + len(new) > 2:
        return "why.several_moves", {}
    if new and not gone:
        return "why.extra", {"squares": _listed(new)}
    return "why.unknown", {}


def _queen_if(position: Position, frm: int, to: int) -> int | None:
    piece = position.piece_at(frm)
    return QUEEN if piece is not None and piece.piece_type == PAWN and to >> 3 in (0, 7) else None


def why_touch_move(position: Position, owed: str | None) -> Sentence:
    """Why a move was refused under touch-move: the piece on ``owed`` was touched."""
    if owed is None:
        return "why.touch_move", {}
    sq = square(owed)
    piece = position.piece_at(sq)
    if piece is None:
        return "why.touch_move", {}
    if piece.color == position.turn:
        return "why.touch_move_own", {"piece": piece_on(position, sq), "square": owed}
    return "why.touch_move_capture", {"piece": piece_on(position, sq, colour=True), "square": owed}


def remedy(
    position: Position, empty: list[str], fill: list[str], *, named: bool = False
) -> list[Sentence]:
    """How to put the board right: what to take off ``empty`` and put back on ``fill`` (the
    pieces of ``position`` named). ``named``: the reason already named the one piece out of
    place, so *put it back on a1* says enough."""
    if len(empty) == 1 and len(fill) == 1:
        piece = piece_on(position, square(fill[0]))
        if piece is not None:
            if named:
                return [("fix.back", {"piece": piece, "square": fill[0]})]
            return [("fix.move_back", {"piece": piece, "from": empty[0], "to": fill[0]})]
    out: list[Sentence] = []
    if len(empty) == 1:
        out.append(("fix.take_off", {"square": empty[0]}))
    elif empty:
        out.append(("fix.take_off_many", {"squares": empty}))
    unnamed = []
    by_piece: dict[PieceWords, list[str]] = {}
    for name in fill:
        piece = piece_on(position, square(name))
        if piece is None:
            unnamed.append(name)
        else:
            by_piece.setdefault(piece, []).append(name)
    for piece, names in by_piece.items():
        if len(names) == 1:
            out.append(("fix.put", {"piece": piece, "square": names[0]}))
        else:
            out.append(("fix.put_many", {"piece": piece, "squares": names}))
    if unnamed:
        out.append(("fix.fill", {"squares": unnamed}))
    return out
