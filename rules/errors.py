"""The errors of the rules core: every one is a :class:`ValueError` about bad input."""

from __future__ import annotations


class FenError(ValueError):
    """A FEN that cannot be read, or that describes an impossible position.

    ``field`` names the part at fault: ``'placement'``, ``'side'``, ``'castling'``,
    ``'en passant'``, ``'halfmove'``, ``'fullmove'`` (or ``'fen'`` for the whole text,
    e.g. a wrong number of fields). For an impossible position the message names every
    problem found, and ``problems`` lists them as ``(field, message)`` pairs.
    """

    def __init__(
        self, field: str, message: str, problems: list[tuple[str, str]] | None = None
    ) -> None:
        super().__init__(message)
        self.field = field
        self.problems = problems if problems is not None else [(field, message)]


class VariantError(ValueError):
    """A variant the rules do not know, or a Chess960 start position that does not exist
    (a number outside 0-959, a back rank that breaks the Chess960 rules)."""


class IllegalMoveError(ValueError):
    """A move that is not legal in the position (or UCI text that is no move at all)."""


class SanError(ValueError):
    """SAN text that names no legal move, or more than one."""


class PgnError(ValueError):
    """PGN text that cannot be read; the message gives the game and the move."""


class ClaimRefused(ValueError):
    """A draw claim that the laws do not allow in the current position; the message says why."""
