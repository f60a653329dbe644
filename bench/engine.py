"""How long the engine keeps a person waiting: start, restart, and one move per level.

Starts Stockfish through our UCI client (``EnginePlayer``) and times, in wall time:

- the first start (process, ``uci`` handshake, options, ``isready``: the NNUE net loads);
- a restart after SIGKILL (what a crash costs the person at the board);
- one move at a few levels, over a short game's positions (p50 and max).

    python bench/engine.py [--path PATH] [--moves N]

Exits 0 with a note when no engine is installed (``apt-get install stockfish``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_driver.players.engine import EngineLevel, EngineNotFound, EnginePlayer  # noqa: E402
from rules import STARTING_FEN  # noqa: E402

#: The Ruy Lopez, Morphy defence: positions the engine is asked about.
LINE = [
    "e2e4",
    "e7e5",
    "g1f3",
    "b8c6",
    "f1b5",
    "a7a6",
    "b5a4",
    "g8f6",
    "e1g1",
    "f8e7",
    "f1e1",
    "b7b5",
    "a4b3",
    "d7d6",
]
LEVELS = {
    "skill 0, depth 1": EngineLevel(skill=0, depth=1, movetime_ms=None),
    "skill 5, depth 6": EngineLevel(skill=5, depth=6, movetime_ms=None),
    "skill 20, 200 ms": EngineLevel(skill=20, depth=None, movetime_ms=200),
    "elo 1500, 500 ms": EngineLevel(elo=1500, depth=None, movetime_ms=500),
}


async def main(path: str, moves: int) -> int:
    try:
        player = EnginePlayer(path, EngineLevel(skill=0, depth=1, movetime_ms=None))
    except EngineNotFound as exc:
        print(f"bench/engine.py: skipped: {exc}")
        return 0
    try:
        began = time.perf_counter()
        await player.start()
        print(f"{player.name}: first start {1000 * (time.perf_counter() - began):.0f} ms")
        pid = player.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.1)
        began = time.perf_counter()
        await player.best_move(STARTING_FEN, [])
        print(f"restart after SIGKILL + one move: {1000 * (time.perf_counter() - began):.0f} ms")
        for name, level in LEVELS.items():
            player.set_level(level)
            times = []
            for ply in range(min(moves, len(LINE))):
                began = time.perf_counter()
                await player.best_move(STARTING_FEN, LINE[:ply])
                times.append(1000 * (time.perf_counter() - began))
            print(
                f"{name:>18}: move p50 {statistics.median(times):6.0f} ms, "
                f"max {max(times):6.0f} ms over {len(times)} positions"
            )
    finally:
        await player.close()
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default="", help="engine program (default: Stockfish)")
    parser.add_argument("--moves", type=int, default=8, help="positions per level")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.path, args.moves)))
