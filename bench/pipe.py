"""A long board script piped into ``magboard run --sim --script -``: what a line costs at
the end of the pipe against its start (issue 11: it once re-read the whole script on every
line, 244 ms a line at 100,000 lines).

Two measures:

- the feeder alone (``ScriptFeeder``, the code ``run --script -`` uses), in this process,
  with the simulated board and a door that only counts: CPU time per line for each block
  of 1,000 lines, first block against last;
- the real daemon: ``magboard run --sim --script -`` with the lines written to its
  standard input as fast as it reads them (the pipe's back-pressure paces the writer): the
  time a block of 1,000 lines takes once the pipe is full, early and at the end.

    python bench/pipe.py [--lines 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_driver.boardscript.feed import ScriptFeeder  # noqa: E402
from board_driver.physical.sensing.sim import SimulatedBoard  # noqa: E402

BLOCK = 1000


def script_lines(count: int) -> list[str]:
    """A knight going out and back, all at time 0 (``gap 0``): nothing waits."""
    lines = ["gap 0"]
    moves = ["lift g1", "place f3", "lift f3", "place g1"]
    while len(lines) < count:
        lines.extend(moves)
    return lines[:count]


class CountingDoor:
    def __init__(self) -> None:
        self.calls = 0

    def press(self, name: str) -> list:
        self.calls += 1
        return []

    def choose(self, piece: str) -> list:
        self.calls += 1
        return []

    def new_game(self, *args, **kwargs) -> list:
        return []


def feeder_alone(count: int) -> list[float]:
    """CPU ms per line, for each block of lines."""
    lines = script_lines(count)
    blocks: list[float] = []

    async def timed() -> None:
        stamps = []

        async def source():
            for i, line in enumerate(lines):
                if i % BLOCK == 0:
                    stamps.append(time.thread_time())
                yield line
            stamps.append(time.thread_time())

        feeder = ScriptFeeder(CountingDoor(), SimulatedBoard(), debounce_ms=30)
        await feeder.play(source(), "bench")
        blocks.extend((b - a) * 1000 / BLOCK for a, b in itertools.pairwise(stamps))

    asyncio.run(timed())
    return blocks


def daemon_pipe(count: int) -> list[float]:
    """Seconds for each block of lines to be taken by the daemon (the first blocks only
    fill the pipe's buffer: they cost nothing)."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        config = directory / "config.toml"
        config.write_text(
            f'[store]\npath = "{directory / "g.sqlite"}"\n'
            f'[sim]\nstate_file = "{directory / "sim.json"}"\n[web]\nenabled = false\n'
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "board_driver", "run", "--sim", "--script", "-",
             "--config", str(config)],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert proc.stdin is not None
        lines = script_lines(count)
        times = []
        try:
            for start in range(0, count, BLOCK):
                began = time.perf_counter()
                proc.stdin.write("".join(line + "\n" for line in lines[start : start + BLOCK]))
                proc.stdin.flush()
                times.append(time.perf_counter() - began)
        finally:
            proc.stdin.close()
            proc.terminate()
            proc.wait(10)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    args = parser.parse_args()
    blocks = feeder_alone(args.lines)
    first, last = blocks[0], blocks[-1]
    print(f"feeder alone, {args.lines} lines: first {BLOCK}: {first:.3f} ms/line, "
          f"last {BLOCK}: {last:.3f} ms/line (ratio {last / first:.2f})")  # fmt: skip
    times = daemon_pipe(args.lines)
    steady = [t for t in times if t > 0.05]  # past the pipe's buffer: the daemon's pace
    early, late = statistics.median(steady[1:4]), statistics.median(steady[-3:])
    print(f"magboard run --script -, {args.lines} lines, s per {BLOCK} lines, pipe full: "
          f"early {early:.3f}, at the end {late:.3f} (ratio {late / early:.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
