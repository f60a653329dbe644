"""Puzzles on the board (issue 35): the Lichess puzzle database's CSV and PGN files
(:mod:`.source`), the trainer that plays them on the real pieces (:mod:`.trainer`), and
its seat in the daemon (:mod:`.seat`). ``docs/puzzles.md`` tells a player how.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from board_driver.door.config_values import Bad, Check, boolean, quote, text
from board_driver.door.extension import Extension


@dataclass(frozen=True)
class PuzzlesConfig:
    """``[puzzles]``: ``file`` (a Lichess puzzle CSV or a PGN file; ``""``: the sample
    shipped with magboard), ``rating`` (``"1200-1800"``, ``"1500-"``, ``"-1200"``, ``""``:
    any), ``themes`` (any of them, space separated; ``""``: any) and ``start`` (begin a
    run when the board starts; else a page starts one)."""

    file: str = ""
    rating: str = ""
    themes: str = ""
    start: bool = False


def _rating(_key: str, value: Any) -> str:
    from board_driver.players.puzzles.source import parse_rating_range

    if not isinstance(value, str):
        raise Bad(f"{quote(value)} is not a rating range such as \"1200-1800\"")
    if value.strip():
        try:
            parse_rating_range(value)
        except ValueError as exc:
            raise Bad(str(exc)) from None
    return value


class PuzzlesExtension(Extension):
    """The puzzle trainer: always there, so that a page can start a run."""

    name = "puzzles"
    config_class = PuzzlesConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "file": text,
        "rating": _rating,
        "themes": text,
        "start": boolean,
    }

    def enabled(self, section: Any, config: Any) -> bool:
        return True

    async def start(self, door: Any, section: Any) -> Any:
        from board_driver.players.puzzles.seat import start_seat

        return await start_seat(door, section)


extension = PuzzlesExtension()
