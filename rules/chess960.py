"""Chess960 start positions (FIDE Laws, Guidelines II), numbered as Scharnagl numbers them.

White's pieces stand on the first rank in one of 960 orders, Black's mirror them on the
eighth, the pawns stand where they always do. In every order the bishops stand on squares
of opposite colours and the king between the two rooks. Reinhard Scharnagl's numbering,
the one engines, Lichess and the FIDE handbook's tables use, counts them 0-959 so that
518 is the standard array:

>>> back_rank(518), back_rank(0), back_rank(959)
('RNBQKBNR', 'BBQNNRKR', 'RKRNNQBB')
>>> number_of('RNBQKBNR')
518
>>> start_fen(518) == 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
True

The number is read off the back rank in four steps: the light-squared bishop's file (of
b, d, f, h: the number modulo 4), the dark-squared bishop's (of a, c, e, g: the quotient
modulo 4), the queen's place among the six squares left (the next quotient modulo 6),
and the knights' two places among the five left (the last quotient, 0-9, in the order
01, 02, 03, 04, 12, 13, 14, 23, 24, 34); the rook, the king and the rook fill the last
three squares from the a-file on.

A start position drawn at random takes the random source as an argument, so a test (or
a replay) gives the same draw again:

>>> import random
>>> random_number(random.Random(42)) == random_number(random.Random(42))
True
"""

from __future__ import annotations

from typing import Protocol

from .errors import VariantError

#: How many start positions there are.
COUNT = 960
#: The number of the standard array.
STANDARD_NUMBER = 518

# Knight pairs among the five squares left after the bishops and the queen (Scharnagl's
# "KRN code" order).
_KNIGHT_PLACES = ((0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))


class RandomSource(Protocol):
    """What a random start needs of its source: ``random.Random`` (seeded, for tests and
    replays) or ``random.SystemRandom``."""

    def randrange(self, start: int, /) -> int: ...


def back_rank(number: int) -> str:
    """White's first rank in start position ``number`` (0-959), a to h, as FEN letters.

    >>> back_rank(534)
    'RNBKQBNR'
    >>> back_rank(960)
    Traceback (most recent call last):
    ...
    rules.errors.VariantError: Chess960 start position 960 does not exist: they are numbered ...
    """
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < COUNT:
        raise VariantError(
            f"Chess960 start position {number!r} does not exist: they are numbered 0 to 959"
        )
    rank: list[str | None] = [None] * 8
    n, light = divmod(number, 4)
    rank[2 * light + 1] = "B"  # b, d, f or h: light squares
    n, dark = divmod(n, 4)
    rank[2 * dark] = "B"  # a, c, e or g: dark squares
    knights, queen = divmod(n, 6)
    free = [f for f in range(8) if rank[f] is None]
    rank[free.pop(queen)] = "Q"
    first, second = _KNIGHT_PLACES[knights]
    rank[free[first]] = rank[free[second]] = "N"
    for f, letter in zip([f for f in range(8) if rank[f] is None], "RKR", strict=True):
        rank[f] = letter
    return "".join(letter or "?" for letter in rank)


def number_of(rank: str) -> int:
    """The number of the start position whose first rank is ``rank`` (``'RNBQKBNR'``).

    :class:`VariantError` says why a rank is no Chess960 start:

    >>> number_of('BBQNNRKR')
    0
    >>> number_of('RNBQRBKN')
    Traceback (most recent call last):
    ...
    rules.errors.VariantError: 'RNBQRBKN' is no Chess960 back rank: the king must stand between ...
    """
    text = rank if isinstance(rank, str) else repr(rank)
    if not isinstance(rank, str) or sorted(rank) != sorted("RNBQKBNR"):
        raise VariantError(
            f"{text!r} is no Chess960 back rank: it needs exactly the eight pieces "
            "K, Q, two R, two B, two N (uppercase, a-file first)"
        )
    bishops = [f for f, letter in enumerate(rank) if letter == "B"]
    if bishops[0] % 2 == bishops[1] % 2:
        raise VariantError(
            f"{rank!r} is no Chess960 back rank: the bishops must stand on squares of "
            "opposite colours"
        )
    rooks = [f for f, letter in enumerate(rank) if letter == "R"]
    if not rooks[0] < rank.index("K") < rooks[1]:
        raise VariantError(
            f"{rank!r} is no Chess960 back rank: the king must stand between the two rooks"
        )
    light = next(f for f in bishops if f % 2) // 2
    dark = next(f for f in bishops if not f % 2) // 2
    rest = [letter for f, letter in enumerate(rank) if f not in bishops]
    queen = rest.index("Q")
    del rest[queen]
    knights = _KNIGHT_PLACES.index(tuple(i for i, letter in enumerate(rest) if letter == "N"))
    return light + 4 * (dark + 4 * (queen + 6 * knights))


def start_fen(number: int) -> str:
    """The FEN (X-FEN: ``KQkq``) of start position ``number``.

    >>> start_fen(0)
    'bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1'
    """
    rank = back_rank(number)
    return f"{rank.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{rank} w KQkq - 0 1"


def random_number(rng: RandomSource) -> int:
    """A start position's number drawn from ``rng``, each of the 960 as likely.

    >>> import random
    >>> 0 <= random_number(random.Random()) < 960
    True
    """
    return rng.randrange(COUNT)


__all__ = [
    "COUNT",
    "STANDARD_NUMBER",
    "RandomSource",
    "back_rank",
    "number_of",
    "random_number",
    "start_fen",
]
