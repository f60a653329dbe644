"""A puzzle's result, as the door keeps it in the store, and the player's progress from
all of them.

Each puzzle played is one :class:`PuzzleResult`: ``solved`` (every move found, no hint),
``helped`` (solved with a hint) or ``failed`` (a wrong move was made: as on Lichess, the
board puts it back and the player may go on to the end, but the puzzle counts as failed).
:func:`progress` reads the player's record from them, oldest first: how many of each, the
streak (puzzles solved in a row, the last ones; a hint neither adds to it nor breaks it, a
failure breaks it), the best streak, and a rating.

The rating is an Elo estimate, as a coach's would be: it starts at 1500 and each rated
puzzle moves it by ``K × (score − expected)``, ``expected = 1 / (1 + 10^((puzzle −
player) / 400))``, ``K = 40`` for the first 20 puzzles and 20 after, a puzzle rated by its
source's ``Rating`` (one without a rating, or solved with a hint, leaves it where it is).
Lichess's own puzzle rating is Glicko-2 over millions of players; this one is the board's
estimate from the board's puzzles alone.

>>> results = [PuzzleResult("a", "s", 1500, ("fork",), "solved"),
...            PuzzleResult("b", "s", 1500, ("pin",), "failed"),
...            PuzzleResult("c", "s", 1400, (), "solved"),
...            PuzzleResult("d", "s", None, (), "solved")]
>>> p = progress(results)
>>> p["solved"], p["failed"], p["streak"], p["best_streak"], p["rating"]
(3, 1, 2, 2, 1513)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: How a puzzle went (see the module docstring).
RESULTS = ("solved", "helped", "failed")
#: The rating a player starts from.
START_RATING = 1500


@dataclass(frozen=True, slots=True)
class PuzzleResult:
    """One puzzle played: its ``puzzle_id`` in ``source`` (a file's name), its ``rating``
    and ``themes`` there, the ``result``, the wrong moves and hints, and the game it was
    played in."""

    puzzle_id: str
    source: str
    rating: int | None
    themes: tuple[str, ...]
    result: str
    mistakes: int = 0
    hints: int = 0
    game_id: int | None = None

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise ValueError(f"puzzle result {self.result!r} is not one of {', '.join(RESULTS)}")



def rating_change(player: float, puzzle: int, score: float, played: int) -> float:
    """How much a rated puzzle moves the player's rating (see the module docstring).

    >>> round(rating_change(1500, 1500, 1.0, 0), 1), round(rating_change(1500, 1900, 0.0, 30), 1)
    (20.0, -1.8)
    """
    expected = 1 / (1 + 10 ** ((puzzle - player) / 400))
    k = 40 if played < 20 else 20
    return k * (score - expected)


def progress(results: Iterable[PuzzleResult]) -> dict[str, Any]:
    """The player's record from their results, oldest first: ``played``, ``solved``,
    ``helped``, ``failed``, ``streak``, ``best_streak``, ``rating`` (rounded), ``rated``
    (how many puzzles moved it), and per theme ``themes``: ``{theme: [solved, played]}``."""
    counts = dict.fromkeys(RESULTS, 0)
    streak = best = rated = 0
    rating = float(START_RATING)
    themes: dict[str, list[int]] = {}
    for result in results:
        counts[result.result] += 1
        if result.result == "solved":
            streak += 1
            best = max(best, streak)
        elif result.result == "failed":
            streak = 0
        if result.rating is not None and result.result != "helped":
            score = 1.0 if result.result == "solved" else 0.0
            rating += rating_change(rating, result.rating, score, rated)
            rated += 1
        for theme in result.themes:
            entry = themes.setdefault(theme, [0, 0])
            entry[0] += result.result == "solved"
            entry[1] += 1
    return {
        "played": sum(counts.values()),
        **counts,
        "streak": streak,
        "best_streak": best,
        "rating": round(rating),
        "rated": rated,
        "themes": themes,
    }
