"""A UCI chess engine as one side of the game (issue 8).

- :mod:`board_driver.players.engine.uci`: our small asyncio UCI client (:class:`UciEngine`);
- :mod:`board_driver.players.engine.player`: :class:`EnginePlayer` (levels, restarts after a
  crash) and :class:`EngineLevel`.

The board side of it (the move lit cyan, only that move accepted) is the tracker's
:mod:`board_driver.arbiter.expected`; the daemon runs the engine beside its loop.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from board_driver.door.config_values import Bad, Check, integer, one_of, quote, text
from board_driver.door.extension import Extension
from board_driver.players.engine.player import MAX_HASH_MB, MAX_THREADS, EngineLevel, EnginePlayer
from board_driver.players.engine.review import REVIEW_MODES
from board_driver.players.engine.uci import (
    EngineCrashed,
    EngineError,
    EngineNotFound,
    EngineTimeout,
    SearchLimit,
    UciEngine,
    find_engine,
)

#: The sides an engine can play (``[engine] side``).
SIDE_NAMES = ("none", "white", "black")



@dataclass(frozen=True)
class EngineConfig:
    """``[engine]``: a UCI engine as one side (``docs/engine.md``).

    ``side``: which side the engine plays (``"none"``: nobody; people on both sides);
    ``path``: the engine program (``""``: ``stockfish`` on PATH, else Debian's
    ``/usr/games/stockfish``); ``skill`` 0..20; ``depth`` (plies, 0 = no limit) and
    ``movetime_ms`` (0 = no limit) per move, at least one of them; ``elo``: a limited
    strength instead of ``skill`` (0 = off); ``threads`` and ``hash_mb`` for the engine.
    ``review``: when a finished game is reviewed (``"after_game"``, ``"on_request"``,
    ``"off"``), with ``review_depth`` plies and ``review_nodes`` positions searched per
    position at most (0 = no limit; at least one of them).
    """

    side: str = "none"
    path: str = ""
    skill: int = 10
    depth: int = 0
    movetime_ms: int = 1000
    elo: int = 0
    threads: int = 1
    hash_mb: int = 16
    review: str = "after_game"
    review_depth: int = 14
    review_nodes: int = 500_000


def _elo(_key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Bad(f"{quote(value)} is not a whole number")
    if value != 0 and not 500 <= value <= 4000:
        raise Bad(f"{value} is not an Elo rating between 500 and 4000 (or 0 for off)")
    return value


class EngineExtension(Extension):
    """The engine's seat: always there (for hints and the page's opponent control);
    it plays a side when ``side`` is set, in the config or from the page."""

    name = "engine"
    config_class = EngineConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "side": one_of(*SIDE_NAMES),
        "path": text,
        "skill": integer(0, 20),
        "depth": integer(0, 100),
        "movetime_ms": integer(0, 600_000),
        "elo": _elo,
        "threads": integer(1, MAX_THREADS),
        "hash_mb": integer(1, MAX_HASH_MB),
        "review": one_of(*REVIEW_MODES),
        "review_depth": integer(0, 100),
        "review_nodes": integer(0, 1_000_000_000),
    }

    def enabled(self, section: Any, config: Any) -> bool:
        return True

    def check_across(self, section: Any, config: Any) -> list[str]:
        problems = []
        if section.depth == 0 and section.movetime_ms == 0:
            problems.append(
                "[engine] movetime_ms: 0 (no time limit) needs a depth; set depth or movetime_ms"
            )
        if section.review != "off" and section.review_depth == 0 and section.review_nodes == 0:
            problems.append(
                "[engine] review_nodes: 0 (no limit) needs a review_depth; set one of them"
            )
        return problems

    def validate_environment(self, section: Any) -> None:
        """New games given an engine side while no engine can be found: a config error
        (``config check`` says it as ``run`` does)."""
        from board_driver.players.engine.seat import engine_side_problem

        engine_side_problem(section)

    async def start(self, door: Any, section: Any) -> Any:
        from board_driver.players.engine.seat import start_seat

        return await start_seat(door, section)


extension = EngineExtension()

__all__ = [
    "EngineConfig",
    "EngineCrashed",
    "EngineError",
    "EngineLevel",
    "EngineNotFound",
    "EnginePlayer",
    "EngineTimeout",
    "SearchLimit",
    "UciEngine",
    "find_engine",
]
