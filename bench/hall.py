"""A hall of boards on this machine: how many boards one Mosquitto and one ``magboard hall``
serve, and the latency from a move committed on a board to that move in the hall's
``round-1/games.pgn``.

Run from the project root: ``python bench/hall.py`` (about 8 minutes; ``--quick``: one
step of 25 boards; ``--boards N``: start at N). Needs Debian's ``mosquitto``.

- The broker: a real Mosquitto on a loopback port (``tests/mosquitto.py``).
- The hall: ``magboard hall`` as a real process.
- The boards: the board's real publisher (:class:`Publisher`, the code the daemon runs), each
  with its own MQTT connection, on a light door that replays a game of
  ``../shared/data/selfplay.pgn`` (its snapshots computed beforehand), all on one asyncio
  loop in this process: a daemon per board would not fit in memory past a few dozen. Each
  board commits a move every ``--interval`` seconds (3 s by default, with jitter: several
  times faster than people play), and starts the next game when one ends.
- A relay: polls ``round-1/games.pgn`` every 25 ms (with ``If-None-Match``, as a careful
  poller does) and notes when each board's ply first shows there. Latency = that moment
  minus the moment the move was committed (announced on the board's door).

The number of boards doubles from 25 until the p99 latency passes the target (1 s) or 1600
boards are reached. Printed per step: boards, moves measured (and lost), latency
p50/p99/max, the CPU share of the broker, of the hall and of this process (all the boards'
publishers), and the broker's and the hall's memory.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rules  # noqa: E402
from board_driver.connectors.broadcast import BroadcastConfig  # noqa: E402
from board_driver.connectors.broadcast.publisher import Publisher  # noqa: E402
from board_driver.door import Snapshot  # noqa: E402
from board_driver.physical.frame import Frame  # noqa: E402
from tests.board_driver.connectors.broadcast.fake_door import make_snapshot  # noqa: E402
from tests.conftest import SHARED_DATA  # noqa: E402
from tests.hall.hall_process import HallProcess, hall_config, poll  # noqa: E402
from tests.mosquitto import Mosquitto  # noqa: E402

TARGET_P99_S = 1.0
POLL_S = 0.025
_BOARD = re.compile(r'\[Board "(\d+)"\]')


def load_games(limit: int = 100) -> list[list[tuple[str, str, str]]]:
    """Each game of selfplay.pgn as (san, uci, fen after it) per ply."""
    out = []
    for parsed in rules.read_pgn((SHARED_DATA / "selfplay.pgn").read_text())[:limit]:
        game = rules.Game()
        plies = []
        for move in parsed.game.moves:
            san = game.position.san(move)
            game.push(move)
            plies.append((san, move.uci(), game.position.fen()))
        out.append(plies)
    return out


class _Stream:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.lost = 0

    def __aiter__(self):
        return self

    async def __anext__(self) -> dict[str, Any]:
        return await self.queue.get()

    def get_nowait(self) -> dict[str, Any] | None:
        return None if self.queue.empty() else self.queue.get_nowait()

    def close(self) -> None:
        pass


class ReplayDoor:
    """The reading side of the door for a board replaying prepared games."""

    def __init__(self, prepared: list[list[tuple[str, str, str]]], first: int) -> None:
        self.prepared = prepared
        self.index = first
        self.game_id = 1
        self.ply = 0
        self.stream = _Stream()
        self._t0 = time.monotonic()
        self.started = {1: _now_iso()}
        self.committed: dict[tuple[int, int], float] = {}

    def now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def subscribe(self, **_: Any) -> _Stream:
        return self.stream

    def games(self) -> list[dict[str, Any]]:
        return [{"id": g, "started": s, "plies": 0, "result": "*", "termination": None}
                for g, s in self.started.items()]

    def pgn(self, game_id: int | None = None) -> str:
        raise LookupError("not kept")

    def step(self) -> None:
        """Commit the next move (or start the next game after the last)."""
        plies = self.prepared[self.index]
        if self.ply >= len(plies):
            self.index = (self.index + 1) % len(self.prepared)
            self.game_id += 1
            self.ply = 0
            self.started[self.game_id] = _now_iso()
            self.stream.queue.put_nowait({"type": "new_game", "t": self.now_ms()})
            return
        self.ply += 1
        san, uci, _ = plies[self.ply - 1]
        self.committed[(self.game_id, self.ply)] = time.monotonic()
        self.stream.queue.put_nowait({"type": "move", "san": san, "uci": uci,
                                      "t": self.now_ms()})

    def snapshot(self) -> Snapshot:
        plies = self.prepared[self.index][: self.ply]
        return make_snapshot(
            game_id=self.game_id, start_fen=rules.STARTING_FEN,
            fen=plies[-1][2] if plies else rules.STARTING_FEN,
            turn="white" if len(plies) % 2 == 0 else "black",
            moves=tuple(p[0] for p in plies), ucis=tuple(p[1] for p in plies),
            result="*", termination=None, winner=None, check=False, in_sync=True, empty=(),
            fill=(), sensed=0, lights=Frame.off(), board_state="ok", options={},
            players={}, player_states={}, expected=None, hint=None, headers={},
            setup_pending=False, draw_offer=None, sim_pieces=None, timing={},
        )


def _now_iso() -> str:
    import datetime as dt

    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Relay(threading.Thread):
    """Polls games.pgn; notes when each (board, game, ply) first shows."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url.rstrip("/") + "/round-1/games.pgn"
        self.seen: dict[int, int] = {}  # board -> plies shown
        self.first_seen: dict[tuple[int, int], float] = {}  # (board, ply) -> when
        self.stop = threading.Event()
        self.polls = 0

    def run(self) -> None:
        etag = None
        while not self.stop.is_set():
            text, etag = poll(self.url, etag, timeout=5)
            now = time.monotonic()
            self.polls += 1
            if text:
                for chunk in text.split("\n\n[Event ")[0:]:
                    match = _BOARD.search(chunk)
                    if match is None:
                        continue
                    board = int(match[1])
                    plies = _plies(chunk)
                    for ply in range(self.seen.get(board, 0) + 1, plies + 1):
                        self.first_seen.setdefault((board, ply), now)
                    self.seen[board] = plies
            self.stop.wait(POLL_S)


def _plies(chunk: str) -> int:
    movetext = chunk.split("\n\n", 1)[1] if "\n\n" in chunk else ""
    return sum(1 for t in movetext.split() if not t[0].isdigit() and t != "*")


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def play(doors: list[ReplayDoor], seconds: float, interval: float) -> None:
    rng = random.Random(7)

    async def board(door: ReplayDoor) -> None:
        await asyncio.sleep(rng.uniform(0, interval))
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            door.step()
            await asyncio.sleep(interval * rng.uniform(0.5, 1.5))

    await asyncio.gather(*(board(d) for d in doors))


def run_step(count: int, games, seconds: float, interval: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(Path(tmp) / "broker").start()
        hall = HallProcess(hall_config(Path(tmp) / "hall", broker))
        relay = Relay(hall.url)
        relay.start()
        doors: list[ReplayDoor] = []
        try:
            async def main() -> tuple[float, ...]:
                publishers = []
                for number in range(1, count + 1):
                    door = ReplayDoor(games, number % len(games))
                    doors.append(door)
                    section = BroadcastConfig(enabled=True, host=broker.host, port=broker.port,
                                              board=number, prefix="club", round="1")
                    publishers.append(await Publisher(door, section).start())
                while not all(p.connected for p in publishers):
                    await asyncio.sleep(0.1)
                await asyncio.sleep(1.0)
                cpu0 = (cpu_s(broker.proc.pid), cpu_s(hall.proc.pid), time.monotonic(),
                        time.process_time())
                await play(doors, seconds, interval)
                await asyncio.sleep(2.0)  # the last moves reach the hall
                cpu1 = (cpu_s(broker.proc.pid), cpu_s(hall.proc.pid), time.monotonic(),
                        time.process_time())
                for publisher in publishers:
                    await publisher.stop()
                span = cpu1[2] - cpu0[2]
                return tuple((cpu1[i] - cpu0[i]) / span for i in (0, 1, 3))

            broker_cpu, hall_cpu, boards_cpu = asyncio.run(main())
            hall_rss, broker_rss = rss_mb(hall.proc.pid), rss_mb(broker.proc.pid)
        finally:
            relay.stop.set()
            relay.join(5)
            hall.terminate()
            broker.stop()
    latencies = []
    missing = 0
    for number, door in enumerate(doors, start=1):
        for (game, ply), at in door.committed.items():
            if game != door.game_id:
                continue  # only the game on the board: games.pgn keeps each game apart
            seen = relay.first_seen.get((number, ply))
            if seen is None:
                missing += 1
            else:
                latencies.append(max(0.0, seen - at))
    latencies.sort()
    return {
        "boards": count,
        "moves": len(latencies),
        "missing": missing,
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p99": latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan"),
        "max": latencies[-1] if latencies else float("nan"),
        "broker_cpu": broker_cpu,
        "hall_cpu": hall_cpu,
        "boards_cpu": boards_cpu,
        "broker_mb": broker_rss,
        "hall_mb": hall_rss,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one step of 25 boards")
    parser.add_argument("--seconds", type=float, default=20.0, help="play time per step")
    parser.add_argument("--interval", type=float, default=3.0, help="seconds between a "
                        "board's moves (on average)")
    parser.add_argument("--boards", type=int, default=25, help="boards in the first step")
    parser.add_argument("--max-boards", type=int, default=1600)
    args = parser.parse_args()
    games = load_games()
    print(f"each board: a move every {args.interval:g} s on average, {args.seconds:g} s of "
          "play per step; latency: committed on the board -> in round-1/games.pgn")
    print(f"{'boards':>6} {'moves':>6} {'lost':>4} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
          f"{'broker cpu':>10} {'hall cpu':>8} {'boards cpu':>10} {'broker MB':>9} "
          f"{'hall MB':>7}")
    count = args.boards
    while True:
        r = run_step(count, games, args.seconds, args.interval)
        print(f"{r['boards']:>6} {r['moves']:>6} {r['missing']:>4} {r['p50'] * 1000:>7.0f} "
              f"{r['p99'] * 1000:>7.0f} {r['max'] * 1000:>7.0f} {r['broker_cpu']:>9.1%} "
              f"{r['hall_cpu']:>8.1%} {r['boards_cpu']:>10.1%} {r['broker_mb']:>9.1f} "
              f"{r['hall_mb']:>7.1f}", flush=True)
        if args.quick or r["p99"] > TARGET_P99_S or count * 2 > args.max_boards:
            break
        count *= 2


if __name__ == "__main__":
    main()
