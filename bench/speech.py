"""What speaking costs the board's own path: the narrator's time per game event, and how late
the daemon's loop runs while the board speaks.

Run from the project root: ``python bench/speech.py [--games 20] [--utterances 60]`` (needs
espeak-ng; about half a minute).

1. The narrator (``board_driver.spoken``) turns a game's events into words on the daemon's
   loop: each move of real games (``shared/data/selfplay.pgn``) is timed through
   ``Narrator.follow`` (p50 / p99 / max, microseconds).
2. The loop's lateness: a probe asks the loop to wake every 2 ms and measures how late it
   does, first with nothing else on the loop, then while the speaker says ``--utterances``
   sentences through espeak-ng (the file sink: a process per sentence writing its WAV, the
   same spawning and waiting as espeak-ng through the sound card). Reported as p50 / p99 /
   max lateness and the ratio of the p99s (speaking / quiet).

Target: the board never waits for its voice: the loop's p99 lateness while speaking within
5 ms (a scan period at 200 Hz), and the narrator well under a millisecond per event.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_driver.connectors.speech.speaker import Speaker  # noqa: E402
from board_driver.connectors.speech.voices import FileSink, espeak_program  # noqa: E402
from board_driver.spoken import Words  # noqa: E402
from board_driver.spoken.narrator import Narrator, Utterance  # noqa: E402
from rules import STARTING_FEN, Game  # noqa: E402
from rules.pgn import read_pgn  # noqa: E402

DATA = next(
    (p for p in (ROOT.parent / "shared" / "data", Path("/work/shared/data")) if p.is_dir()),
    ROOT.parent / "shared" / "data",
)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def narrator_cost(games: int) -> list[float]:
    """Microseconds per move event told, over ``games`` real games, in French."""
    text = (DATA / "selfplay.pgn").read_text(encoding="utf-8")
    times = []
    for record in read_pgn(text)[:games]:
        game = Game()
        narrator = Narrator(Words("fr"))
        for move in record.game.moves:
            san = game.position.san(move)
            game.push(move)
            event = {"type": "move", "san": san, "uci": str(move), "fen": game.position.fen(),
                     "en_passant": move.is_en_passant}  # fmt: skip
            began = time.perf_counter()
            narrator.follow(event)
            times.append((time.perf_counter() - began) * 1e6)
    return times


async def lateness(seconds: float, busy=None) -> list[float]:
    """How late (ms) the loop wakes for a 2 ms sleep: for ``seconds``, or while ``busy``
    runs."""
    task = asyncio.create_task(busy()) if busy is not None else None
    late = []
    end = time.perf_counter() + seconds
    while (task is not None and not task.done()) or (task is None and time.perf_counter() < end):
        asked = time.perf_counter()
        await asyncio.sleep(0.002)
        late.append((time.perf_counter() - asked - 0.002) * 1000)
    if task is not None:
        await task
    return late


class QuietDoor:
    def subscribe(self, **_):
        from board_driver.service.subscriptions import Subscription

        return Subscription(maxsize=8)

    def snapshot(self):
        return SimpleNamespace(fen=STARTING_FEN, result="*", question=(), clock=None)


async def speaking(count: int) -> tuple[list[float], list[float], float]:
    quiet = await lateness(3.0)
    with tempfile.TemporaryDirectory() as folder:
        sink = FileSink(Path(folder), espeak_program(), "en")
        speaker = Speaker(QuietDoor(), Narrator(Words("en"), []), sink)
        await speaker.start()
        sentence = "Black plays bishop to c5: move the bishop from f8 to c5."

        async def talk():
            for n in range(count):
                speaker.submit([Utterance(f"{sentence} {n}", "to_play")])
                await asyncio.sleep(0.01)
            while speaker._pending or speaker._current is not None:
                await asyncio.sleep(0.01)

        began = time.perf_counter()
        loud = await lateness(0, talk)
        took = time.perf_counter() - began
        await speaker.stop()
        written = len(list(Path(folder).glob("*.wav")))
    assert written == count, written
    return quiet, loud, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--utterances", type=int, default=60)
    args = parser.parse_args()
    if espeak_program() is None:
        sys.exit("bench/speech.py: espeak-ng is not installed (apt-get install espeak-ng)")
    cost = narrator_cost(args.games)
    print(f"narrator, {len(cost)} moves of {args.games} games told in French: "
          f"p50 {percentile(cost, 0.5):.0f} us, p99 {percentile(cost, 0.99):.0f} us, "
          f"max {max(cost):.0f} us")  # fmt: skip
    quiet, loud, took = asyncio.run(speaking(args.utterances))
    for name, values in (("quiet", quiet), ("speaking", loud)):
        print(f"loop lateness, {name}: p50 {percentile(values, 0.5):.2f} ms, "
              f"p99 {percentile(values, 0.99):.2f} ms, max {max(values):.2f} ms "
              f"({len(values)} wakes)")  # fmt: skip
    ratio = percentile(loud, 0.99) / max(percentile(quiet, 0.99), 1e-3)
    print(f"{args.utterances} sentences written by espeak-ng in {took:.1f} s; "
          f"p99 lateness speaking / quiet: {ratio:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
