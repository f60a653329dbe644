"""SAN (standard algebraic notation): written exactly, read leniently."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .core import FILE_NAMES, KING, PAWN, PIECE_SYMBOLS, SQUARE_NAMES, Move
from .errors import IllegalMoveError, SanError

if TYPE_CHECKING:  # position.py imports this module: the type only, never at run time
    from .position import Position

_LETTER_OF = " PNBRQK"  # index = piece type


def move_to_san(pos: Position, move: Move) -> str:
    """The SAN of a legal move in ``pos``, with minimal disambiguation and ``+`` / ``#``."""
    legal = pos._legal()
    key = move._key
    for m in legal:
        if m._key == key:
            move = m
            break
    else:
        raise IllegalMoveError(f"cannot write SAN for {move.uci()}: not legal in {pos.fen()}")
    board = pos._board
    frm, to = move.from_square, move.to_square
    kind = abs(board[frm])
    if move.is_castling:
        # By the rook's side: a Chess960 king may stay where it is, or move only a step.
        text = "O-O" if (move.rook_from or 0) > frm else "O-O-O"
    elif kind == PAWN:
        text = FILE_NAMES[frm & 7] + "x" if move.is_capture else ""
        text += SQUARE_NAMES[to]
        if move.promotion:
            text += "=" + _LETTER_OF[move.promotion]
    else:
        text = _LETTER_OF[kind]
        if kind != KING:
            rivals = [
                m.from_square
                for m in legal
                if m.to_square == to and m.from_square != frm and abs(board[m.from_square]) == kind
            ]
            if rivals:
                if all((r & 7) != (frm & 7) for r in rivals):
                    text += FILE_NAMES[frm & 7]
                elif all((r >> 3) != (frm >> 3) for r in rivals):
                    text += SQUARE_NAMES[frm][1]
                else:
                    text += SQUARE_NAMES[frm]
        if move.is_capture:
            text += "x"
        text += SQUARE_NAMES[to]
    pos.push(move)
    try:
        if pos.is_check():
            text += "#" if not pos._gen() else "+"
    finally:
        pos.pop()
        pos._legal_cache = legal  # the position is back: its moves still hold
    return text


_SAN = re.compile(
    r"""^
    (?P<piece>[NBRQKP])?
    (?P<file>[a-h])?
    (?P<rank>[1-8])?
    (?P<capture>[x:-])?
    (?P<to>[a-h][1-8])
    (?:=?\(?(?P<promotion>[NBRQnbrq])\)?)?
    $""",
    re.VERBOSE,
)


def _where(pos: Position) -> str:
    return f"for {'White' if pos.turn else 'Black'} in {pos.fen()}"


_CASTLING = {"O-O": "king", "0-0": "king", "O-O-O": "queen", "0-0-0": "queen"}


def parse_san(pos: Position, text: str) -> Move:
    """The legal move in ``pos`` that a SAN text names. Lenient about ``0-0``, a missing
    ``=`` (``e8Q``), a ``P`` for pawns, ``e.p.`` and trailing ``+ # ! ?``."""
    if not isinstance(text, str):
        raise SanError(f"SAN must be text, not {type(text).__name__}")
    core = text.strip()
    while core and core[-1] in "+#!?":
        core = core[:-1]
    if core.endswith("e.p."):
        core = core[:-4].rstrip()
    legal = pos._legal()
    wing = _CASTLING.get(core)
    if wing is not None:
        for m in legal:
            if m.is_castling and ((m.rook_from or 0) > m.from_square) == (wing == "king"):
                return m
        raise SanError(f"illegal SAN {text!r}: castling {wing}side is not legal {_where(pos)}")
    match = _SAN.match(core)
    if not match:
        raise SanError(
            f"cannot read SAN {text!r}: expected e.g. 'e4', 'Nf3', 'exd5', 'e8=Q', 'O-O' "
            f"({_where(pos)})"
        )
    letter = match["piece"] or "P"
    kind = _LETTER_OF.index(letter)
    to = SQUARE_NAMES.index(match["to"])
    file = match["file"]
    rank = match["rank"]
    promotion = match["promotion"]
    promo = PIECE_SYMBOLS.index(promotion.lower()) if promotion else None
    board = pos._board
    found = []
    for m in legal:
        if m.to_square != to or abs(board[m.from_square]) != kind or m.is_castling:
            continue
        name = SQUARE_NAMES[m.from_square]
        if file and name[0] != file:
            continue
        if rank and name[1] != rank:
            continue
        if m.promotion != promo:
            continue
        found.append(m)
    if len(found) == 1:
        return found[0]
    if found:
        options = ", ".join(sorted(pos.san(m) for m in found))
        raise SanError(f"ambiguous SAN {text!r}: could be {options} ({_where(pos)})")
    if kind == PAWN and promo is None and to >> 3 in (0, 7):
        raise SanError(
            f"illegal SAN {text!r}: a pawn reaching {match['to']} must promote ({_where(pos)})"
        )
    raise SanError(f"illegal SAN {text!r}: no such legal move {_where(pos)}")
