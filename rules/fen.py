"""FEN text: reading each field strictly, and writing.

Only the syntax of each field is checked here (and that the halfmove clock fits the
fullmove number, and which rook a castling letter names); whether the position it
describes could arise in a game (kings, pawns, check, castling and en-passant
consistency) is checked by :meth:`rules.Position.from_fen`.

The castling field is read as FEN (``KQkq``), X-FEN and Shredder-FEN alike. ``K`` and ``Q``
name the outermost rook on the king's h side and a side; a file letter (``H``, ``b``...)
names the rook on that file of the side's back rank, uppercase for White. Standard chess
castles only with the corner rooks (``HAha`` is ``KQkq`` there); Chess960 with any rook.
Written, the field is X-FEN (:func:`castling_text`): ``KQkq`` where it names the rook
unambiguously, the rook's file where another rook stands further out on the same side; or
Shredder-FEN (every right by its file) on request.
"""

from __future__ import annotations

from .core import FILE_NAMES, SQUARE_NAMES
from .errors import FenError
from .tables import RIGHTS_OF, castling_bit, rook_square

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FIELDS = ("placement", "side", "castling", "en passant", "halfmove", "fullmove")
_PIECE_CODES = {"P": 1, "N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}
_PIECE_CODES.update({k.lower(): -v for k, v in _PIECE_CODES.items()})
_LETTERS = {v: k for k, v in _PIECE_CODES.items()}
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}
#: No game reaches move 10,000: the 75-move rule ends the longest possible game on
#: move 8,849 (17,697 plies). A higher fullmove number is not a position of chess.
MAX_FULLMOVE = 10_000
_QUOTE_CHARS = 32  # an error quotes at most this much of the text at fault


def quoted(text: str) -> str:
    """``text`` as an error message quotes it: in full when short, else its first
    characters and its length, so a huge input never floods a log or a terminal.

    >>> quoted("e9")
    "'e9'"
    >>> quoted("9" * 5000)
    "'99999999999999999999999999999999…' (5000 characters)"
    """
    if len(text) <= _QUOTE_CHARS:
        return repr(text)
    shown = repr(text[:_QUOTE_CHARS])
    return f"{shown[:-1]}…{shown[-1]} ({len(text)} characters)"


def parse_fen_fields(
    fen: str, chess960: bool = False
) -> tuple[list[int], bool, int, int | None, int, int]:
    """Split a FEN into (board, white to move, castling bits, e.p. square, halfmove, fullmove).

    The board is a list of 64 signed piece codes (White positive, Black negative, 0 empty);
    the castling bits name rooks (:func:`rules.tables.castling_bit`).
    Raises :class:`FenError` naming the field at fault.
    """
    if not isinstance(fen, str):
        raise FenError("fen", f"FEN must be text, not {type(fen).__name__}")
    parts = fen.split()
    if len(parts) != 6:
        named = ", ".join(FIELDS[len(parts) :]) if len(parts) < 6 else ""
        what = f"missing {named}" if named else "extra text after the fullmove number"
        raise FenError(
            "fen" if len(parts) > 6 or not parts else FIELDS[len(parts)],
            f"FEN {quoted(fen)} has {len(parts)} fields, expected 6 "
            f"(placement side castling en-passant halfmove fullmove): {what}",
        )
    placement, side, castling, ep, half, full = parts
    board = _parse_placement(placement)
    if side not in ("w", "b"):
        raise FenError("side", f"FEN side to move {quoted(side)} must be 'w' or 'b'")
    castling_bits = _parse_castling(castling, board, chess960)
    ep_square = _parse_ep(ep, side == "w")
    halfmove = _parse_counter(half, "halfmove", 0)
    fullmove = _parse_counter(full, "fullmove", 1)
    # The clock counts half-moves already played: at most two a full move (a little
    # slack for FENs written by hand with fullmove 1). Keeps absurd clocks out.
    most = 2 * fullmove + (0 if side == "w" else 1)
    if halfmove > most:
        raise FenError(
            "halfmove",
            f"FEN halfmove clock {halfmove} cannot be: more half-moves than were played by "
            f"move {fullmove} (at most {most})",
        )
    return (board, side == "w", castling_bits, ep_square, halfmove, fullmove)


def _parse_placement(placement: str) -> list[int]:
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise FenError(
            "placement",
            f"FEN placement {quoted(placement)} has {len(ranks)} ranks separated by '/', "
            "expected 8",
        )
    board = [0] * 64
    for i, text in enumerate(ranks):
        rank = 7 - i
        file = 0
        last_digit = False
        for ch in text:
            if ch in "12345678":
                if last_digit:
                    raise FenError(
                        "placement",
                        f"FEN placement rank {rank + 1} ({quoted(text)}): two digits in a row",
                    )
                file += int(ch)
                last_digit = True
            elif ch in _PIECE_CODES:
                if file < 8:
                    board[rank * 8 + file] = _PIECE_CODES[ch]
                file += 1
                last_digit = False
            else:
                raise FenError(
                    "placement",
                    f"FEN placement rank {rank + 1} ({quoted(text)}): {ch!r} is neither a piece "
                    "letter (PNBRQK/pnbrqk) nor a count of empty squares (1-8)",
                )
        if file != 8:
            raise FenError(
                "placement",
                f"FEN placement rank {rank + 1} ({quoted(text)}) describes {file} squares, "
                "expected 8",
            )
    return board


def _parse_castling(text: str, board: list[int], chess960: bool) -> int:
    if text == "-":
        return 0
    bits = 0
    named: dict[int, str] = {}  # bit -> the letter that named it
    for ch in text:
        white = ch.isupper()
        back = 0 if white else 56
        if ch in "KQkq":
            kingside = ch in "Kk"
            sq = (
                _outermost_rook(text, ch, board, back, white, kingside)
                if chess960
                else back + (7 if kingside else 0)
            )
        elif ch.lower() in FILE_NAMES and ch.isascii():
            sq = back + FILE_NAMES.index(ch.lower())
            if not chess960 and sq & 7 not in (0, 7):
                raise FenError(
                    "castling",
                    f"FEN castling {quoted(text)}: {ch!r} names the rook on {SQUARE_NAMES[sq]}: "
                    "standard chess castles only with the rooks of the a- and h-files "
                    "(a Chess960 position? read it with variant 'chess960')",
                )
        else:
            raise FenError(
                "castling",
                f"FEN castling {quoted(text)}: {ch!r} is not one of K, Q, k, q, a file letter "
                "(A-H for White, a-h for Black) or '-' for none",
            )
        bit = castling_bit(sq)
        if bits & bit:
            first = named[bit]
            if first == ch:
                raise FenError("castling", f"FEN castling {quoted(text)}: {ch!r} appears twice")
            raise FenError(
                "castling",
                f"FEN castling {quoted(text)}: {first!r} and {ch!r} both name the rook on "
                f"{SQUARE_NAMES[sq]}",
            )
        bits |= bit
        named[bit] = ch
    return bits


def _outermost_rook(
    text: str, letter: str, board: list[int], back: int, white: bool, kingside: bool
) -> int:
    """The square X-FEN's ``K``/``Q`` (``k``/``q``) names: the rook furthest from the king
    on that side of it, on the side's back rank."""
    colour, rank = ("white", "first") if white else ("black", "eighth")
    king, rook = (6, 4) if white else (-6, -4)
    files = [f for f in range(8) if board[back + f] == king]
    if not files:
        raise FenError(
            "castling",
            f"FEN castling {quoted(text)}: {letter!r} needs the {colour} king on the {rank} "
            "rank (a king that has left it cannot castle)",
        )
    king_file = files[0]
    outward = range(7, king_file, -1) if kingside else range(king_file)
    for f in outward:
        if board[back + f] == rook:
            return back + f
    side = "h" if kingside else "a"
    raise FenError(
        "castling",
        f"FEN castling {quoted(text)}: {letter!r} names no rook: no {colour} rook on the "
        f"{rank} rank on the {side} side of the king on {SQUARE_NAMES[back + king_file]}",
    )


def _parse_ep(text: str, white: bool) -> int | None:
    if text == "-":
        return None
    sq = _SQUARE_INDEX.get(text)
    if sq is None:
        raise FenError(
            "en passant", f"FEN en passant {quoted(text)} must be '-' or a square like e3"
        )
    want = 5 if white else 2
    if sq >> 3 != want:
        raise FenError(
            "en passant",
            f"FEN en passant {quoted(text)} must be on rank {want + 1} when "
            f"{'White' if white else 'Black'} is to move",
        )
    return sq


def _parse_counter(text: str, field: str, minimum: int) -> int:
    what = "halfmove clock" if field == "halfmove" else "fullmove number"
    if not text.isdigit() or not text.isascii():
        raise FenError(field, f"FEN {what} {quoted(text)} must be a whole number >= {minimum}")
    if field == "halfmove":
        most, why = 2 * MAX_FULLMOVE, "more half-moves than any game can play"
    else:
        most, why = MAX_FULLMOVE, "no game lasts that long"
    # The length first: a number thousands of digits long is refused before int()
    # spends time on it (or refuses it with an error of its own).
    if len(text.lstrip("0")) > len(str(most)) or int(text) > most:
        raise FenError(
            field,
            f"FEN {what} {quoted(text)} cannot be: {why} (the 75-move rule ends the "
            "longest possible game on move 8849)",
        )
    value = int(text)
    if value < minimum:
        raise FenError(field, f"FEN {what} {quoted(text)} must be >= {minimum}")
    return value


def piece_letters(fen: str) -> dict[int, str]:
    """The pieces of a FEN's placement field, as FEN letters by square (a1 = 0); only the
    first field is read. FenError (a ValueError) names what is wrong in it.

    >>> piece_letters("8/8/8/8/8/8/8/K6k w - - 0 1")
    {0: 'K', 7: 'k'}
    """
    fields = fen.split()
    board = _parse_placement(fields[0] if fields else "")
    return {sq: _LETTERS[code] for sq, code in enumerate(board) if code}


def placement_text(board: list[int]) -> str:
    """The placement field for a board of signed piece codes."""
    rows = []
    for rank in range(7, -1, -1):
        row = []
        empty = 0
        for sq in range(rank * 8, rank * 8 + 8):
            p = board[sq]
            if p:
                if empty:
                    row.append(str(empty))
                    empty = 0
                row.append(_LETTERS[p])
            else:
                empty += 1
        if empty:
            row.append(str(empty))
        rows.append("".join(row))
    return "/".join(rows)


def castling_text(board: list[int], bits: int, *, shredder: bool = False) -> str:
    """The castling field for these rights on this board: X-FEN, or Shredder-FEN.

    X-FEN writes ``K``/``Q`` (``k``/``q``) for a right of the outermost rook on its side
    of the king, and the rook's file where another rook of that side stands further out;
    Shredder-FEN writes every right by its rook's file. White first, h side first.

    >>> board = [0] * 64
    >>> board[1], board[4], board[6], board[7] = 4, 6, 4, 4   # rooks b1, g1, h1; king e1
    >>> bits = 1 << 1 | 1 << 6                                  # the b1 and g1 rooks
    >>> castling_text(board, bits), castling_text(board, bits, shredder=True)
    ('GQ', 'GB')
    """
    out = []
    for white in (True, False):
        back = 0 if white else 56
        own = bits & RIGHTS_OF[white]
        if not own:
            continue
        rook = 4 if white else -4
        king_files = [f for f in range(8) if board[back + f] == (6 if white else -6)]
        king_file = king_files[0] if king_files else -1
        for f in range(7, -1, -1):
            sq = back + f
            if not own & castling_bit(sq):
                continue
            if shredder or king_file < 0:
                letter = FILE_NAMES[f]
            else:
                kingside = f > king_file
                beyond = range(f + 1, 8) if kingside else range(f)
                outer = any(board[back + g] == rook for g in beyond)
                letter = FILE_NAMES[f] if outer else "k" if kingside else "q"
            out.append(letter.upper() if white else letter)
    return "".join(out) or "-"


def castling_squares(bits: int) -> list[int]:
    """The squares of the rooks these rights name, ascending.

    >>> [SQUARE_NAMES[sq] for sq in castling_squares(0x8181)]
    ['a1', 'h1', 'a8', 'h8']
    """
    return [rook_square(i) for i in range(16) if bits >> i & 1]
