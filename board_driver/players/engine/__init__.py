"""A UCI chess engine as one side of the game (issue 8).

- :mod:`board_driver.players.engine.uci`: our small asyncio UCI client (:class:`UciEngine`);
- :mod:`board_driver.players.engine.player`: :class:`EnginePlayer` (levels, restarts after a
  crash) and :class:`EngineLevel`.

The board side of it (the move lit cyan, only that move accepted) is the tracker's
:mod:`board_driver.arbiter.expected`; the daemon runs the engine beside its loop.
"""

from board_driver.players.engine.player import EngineLevel, EnginePlayer
from board_driver.players.engine.uci import (
    EngineCrashed,
    EngineError,
    EngineNotFound,
    EngineTimeout,
    SearchLimit,
    UciEngine,
    find_engine,
)

__all__ = [
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
