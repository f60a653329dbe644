"""The cost of a game's review, and that it does not hold up the board's loop.

Reviews the first games of ``shared/data/selfplay.pgn`` with Stockfish as the daemon's
reviewer does (its own process, one thread, the default budget per position: depth 14 and
500,000 nodes, whichever first), and reports:

- the time per position (median and slowest), and per game;
- the loop's lag (how late a 5 ms timer fires, p50 / p99) with no review and while one
  runs, as a ratio: the review is a child process, so the loop should not notice it.

    python bench/review.py [--games 2] [--depth 14] [--nodes 500000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import chess.pgn  # noqa: E402 (the test oracle reads the corpus)

from board_driver.players.engine.uci import SearchLimit, UciEngine  # noqa: E402
from rules import STARTING_FEN  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "selfplay.pgn"


def games(count: int) -> list[list[str]]:
    found = []
    with CORPUS.open() as text:
        while len(found) < count and (game := chess.pgn.read_game(text)) is not None:
            found.append([move.uci() for move in game.mainline_moves()])
    return found


async def lag(stop: asyncio.Event) -> list[float]:
    late = []
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.005)
        late.append((time.perf_counter() - start - 0.005) * 1000)
    return late


def p(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def main(args: argparse.Namespace) -> None:
    limit = SearchLimit(depth=args.depth or None, nodes=args.nodes or None)
    stop = asyncio.Event()
    quiet = asyncio.create_task(lag(stop))
    await asyncio.sleep(2)
    stop.set()
    idle = await quiet

    stop = asyncio.Event()
    busy = asyncio.create_task(lag(stop))
    engine = await UciEngine.start()
    await engine.configure({"Threads": 1, "Hash": 16})
    per_position, per_game = [], []
    for moves in games(args.games):
        await engine.new_game()
        started = time.perf_counter()
        for ply in range(len(moves) + 1):
            t = time.perf_counter()
            await engine.analyse(STARTING_FEN, moves[:ply], limit)
            per_position.append((time.perf_counter() - t) * 1000)
        per_game.append((time.perf_counter() - started, len(moves) + 1))
    await engine.quit()
    stop.set()
    working = await busy

    print(f"{engine.name}, {limit.describe()} per position, {len(per_position)} positions")
    print(
        f"per position: median {statistics.median(per_position):.0f} ms, "
        f"slowest {max(per_position):.0f} ms"
    )
    for seconds, positions in per_game:
        print(f"a game of {positions} positions: {seconds:.1f} s")
    print(
        f"loop lag p50/p99: idle {p(idle, 0.5):.2f}/{p(idle, 0.99):.2f} ms, "
        f"reviewing {p(working, 0.5):.2f}/{p(working, 0.99):.2f} ms "
        f"(ratio p99 {p(working, 0.99) / max(p(idle, 0.99), 1e-3):.2f})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--depth", type=int, default=14)
    parser.add_argument("--nodes", type=int, default=500_000)
    asyncio.run(main(parser.parse_args()))
