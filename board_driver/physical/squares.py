"""Square numbering shared by every layer: a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63.

Bit *i* of a scan bitmap is square *i*, so ``1 << square("e4")`` is the e4 bit.

>>> square("e4")
28
>>> square_name(63)
'h8'
"""

FILES = "abcdefgh"
RANKS = "12345678"
ALL_SQUARES = range(64)
FULL_BOARD = (1 << 64) - 1


def square(name: str) -> int:
    """The index of a square named like ``"e4"``; ValueError for anything else."""
    if len(name) != 2 or name[0] not in FILES or name[1] not in RANKS:
        raise ValueError(f"not a square: {name!r} (expected a1..h8)")
    return FILES.index(name[0]) + 8 * RANKS.index(name[1])


def square_name(index: int) -> str:
    """The name of square ``index`` (0..63)."""
    if not 0 <= index < 64:
        raise ValueError(f"not a square index: {index!r} (expected 0..63)")
    return FILES[index & 7] + RANKS[index >> 3]


def squares_of(bitmap: int) -> list[int]:
    """The squares whose bits are set in ``bitmap``, lowest first."""
    out = []
    while bitmap:
        low = bitmap & -bitmap
        out.append(low.bit_length() - 1)
        bitmap ^= low
    return out
