"""Dead positions: the time ``Position.is_dead()`` and ``Position.unwinnable()`` take.

Two sets from ``../shared/data/selfplay.pgn`` (100 games): the final position of every
game, and every position of every game (what the arbiter asks after each move). For
each position: ``is_dead()`` (asked after every move), and ``unwinnable(side)`` for the
side that just moved (what a flag fall of the side to move asks, FIDE 6.9). Each figure
is the best of ``--repeat`` runs of that position (a busy machine only slows some runs);
reported are the mean, the median, the 99th percentile and the worst, with its FEN.

``--fens FILE`` measures the positions of a file instead (one FEN a line; the first six
fields are read), e.g. final positions of games lost on time.

Run from the project root: ``python bench/dead.py`` (``--quick``: every tenth game).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules import Position, read_pgn  # noqa: E402


def _shared_data() -> Path:
    for candidate in (ROOT / ".." / "shared" / "data", Path("/work/shared/data")):
        if candidate.is_dir():
            return candidate.resolve()
    return (ROOT / ".." / "shared" / "data").resolve()


def selfplay_positions(quick: bool) -> tuple[list[str], list[str]]:
    """(final positions, every position) of the self-play games, as FENs."""
    games = read_pgn((_shared_data() / "selfplay.pgn").read_text())
    if quick:
        games = games[::10]
    finals, every = [], []
    for pgn_game in games:
        game = pgn_game.game
        pos = game.start.copy()
        every.append(pos.fen())
        for move in game.moves:
            pos.push(move)
            every.append(pos.fen())
        finals.append(pos.fen())
    return finals, every


def best_time(call, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter_ns()
        call()
        best = min(best, time.perf_counter_ns() - start)
    return best / 1000  # microseconds


def measure(label: str, fens: list[str], repeat: int) -> None:
    dead_times, unwinnable_times = [], []
    dead = unwinnable = 0
    worst = {"is_dead": (0.0, ""), "unwinnable": (0.0, "")}
    for fen in fens:
        pos = Position.from_fen(fen)
        mover = not pos.turn
        t = best_time(pos.is_dead, repeat)
        dead_times.append(t)
        worst["is_dead"] = max(worst["is_dead"], (t, fen))
        t = best_time(lambda pos=pos, mover=mover: pos.unwinnable(mover), repeat)
        unwinnable_times.append(t)
        worst["unwinnable"] = max(worst["unwinnable"], (t, fen))
        dead += pos.is_dead()
        unwinnable += pos.unwinnable(mover)
    print(f"\n{label}: {len(fens)} positions, {dead} dead, {unwinnable} unwinnable for the mover")
    print(f"{'':<12} {'mean':>9} {'median':>9} {'p99':>9} {'worst':>9}  (microseconds)")
    for name, times in (("is_dead", dead_times), ("unwinnable", unwinnable_times)):
        ordered = sorted(times)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        print(
            f"{name:<12} {statistics.mean(times):>9.1f} {statistics.median(times):>9.1f} "
            f"{p99:>9.1f} {ordered[-1]:>9.1f}  worst: {worst[name][1]}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every tenth self-play game")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument("--fens", type=Path, help="a file of FENs to measure instead")
    args = parser.parse_args()
    repeat = max(1, args.repeat)
    print(f"Python {sys.version.split()[0]}, best of {repeat} runs per position")
    if args.fens:
        lines = args.fens.read_text().splitlines()
        fens = [" ".join(line.split()[:6]) for line in lines if line.strip()]
        measure(str(args.fens), fens, repeat)
        return 0
    finals, every = selfplay_positions(args.quick)
    measure("selfplay.pgn, final positions", finals, repeat)
    measure("selfplay.pgn, every position", every, repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
