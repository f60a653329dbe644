"""FEN text: reading each field strictly, and writing.

Only the syntax of each field is checked here (and that the halfmove clock fits the
fullmove number); whether the position it describes could arise in a game (kings, pawns,
check, castling and en-passant consistency) is checked by :meth:`rules.Position.from_fen`.
"""

from __future__ import annotations

from .core import SQUARE_NAMES
from .errors import FenError
from .tables import CASTLING_LETTERS

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


def parse_fen_fields(fen: str) -> tuple[list[int], bool, int, int | None, int, int]:
    """Split a FEN into (board, white to move, castling bits, e.p. square, halfmove, fullmove).

    The board is a list of 64 signed piece codes (White positive, Black negative, 0 empty).
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
    castling_bits = _parse_castling(castling)
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


def _parse_castling(text: str) -> int:
    if text == "-":
        return 0
    bits = 0
    for ch in text:
        bit = next((b for b, letter in CASTLING_LETTERS if letter == ch), None)
        if bit is None:
            raise FenError(
                "castling",
                f"FEN castling {quoted(text)}: {ch!r} is not one of K, Q, k, q (or '-' for none)",
            )
        if bits & bit:
            raise FenError("castling", f"FEN castling {quoted(text)}: {ch!r} appears twice")
        bits |= bit
    return bits


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


def castling_text(bits: int) -> str:
    return "".join(letter for bit, letter in CASTLING_LETTERS if bits & bit) or "-"
