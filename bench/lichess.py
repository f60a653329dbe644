"""From the hand letting go of the piece to our move's request leaving, on loopback.

Plays our side of online games by hand (simulated lifts and places, through the real
tracker with the daemon's default settle time), with the Lichess player and the real
``berserk`` client against the loopback fake of the Board API, which answers each of our
moves with one of its own at once. For each of our moves it times, on one monotonic
clock, the last ``place`` of the move (the hand lets go) to the moment the fake server
receives ``POST /api/board/game/{id}/move/{uci}``. The target is the settle time plus
50 ms at p99: everything but the settle time is our overhead.

    python bench/lichess.py [--moves N] [--settle-ms MS]

Exits 1 when p99 misses the target.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rules  # noqa: E402
from board_driver.players.lichess import LichessConfig  # noqa: E402
from board_driver.players.lichess.player import LichessPlayer  # noqa: E402
from tests.board_driver.players.lichess.door_fake import FakeDoor  # noqa: E402
from tests.fakes.lichess import FakeLichess  # noqa: E402


def quiet_move(position: rules.Position, rng: random.Random) -> rules.Move | None:
    """A legal move that is neither a capture, castling nor promotion (one hand motion)."""
    moves = [
        m
        for m in position.legal_moves()
        if not m.is_capture and not m.is_castling and m.promotion is None
    ]
    return rng.choice(moves) if moves else None


async def until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the bench's game stalled")
        await asyncio.sleep(0.002)


async def bench(moves: int, settle_ms: int) -> list[float]:
    fake = FakeLichess().start()
    token = fake.add_account("Ann")
    fake.add_account("Bob")
    rng = random.Random(12)
    samples: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            door = FakeDoor(settle_ms=settle_ms)
            config = LichessConfig(enabled=True, token=token, base_url=fake.base_url, amend_ms=0)
            player = await LichessPlayer(door, config, state_dir=Path(tmp)).start()
            while len(samples) < moves:
                door.pieces = rules.Position().occupancy()
                game_id = fake.start_game("Ann", "Bob", clock=(3600, 0))
                await until(lambda g=game_id: door.game_data("lichess").get("id") == g)
                while len(samples) < moves:
                    position = door.tracker.game.position
                    ours = quiet_move(position, rng)
                    if ours is None:
                        break
                    uci = str(ours)
                    posted = len(fake.moves_posted(game_id))
                    door.lift(ours.from_square)
                    await asyncio.sleep(0.03)
                    door.place(ours.to_square)
                    released = time.monotonic()
                    await until(lambda g=game_id, n=posted: len(fake.moves_posted(g)) > n)
                    samples.append((fake.moves_posted(game_id)[-1].at - released) * 1000)
                    await until(lambda g=game_id, u=uci: fake.game(g).ucis[-1:] == [u])
                    after = rules.Position.from_fen(fake.game(game_id).board.fen())
                    theirs = quiet_move(after, rng)
                    if theirs is None:
                        break
                    fake.play(game_id, str(theirs))
                    await until(lambda u=str(theirs): door.snapshot().expected == u)
                    door.lift(theirs.from_square)
                    await asyncio.sleep(0.03)
                    door.place(theirs.to_square)
                    await until(lambda u=str(theirs): door.snapshot().ucis[-1:] == (u,))
                if fake.game(game_id).over is False:
                    fake.act(game_id, "black", "resign")
                    await until(lambda: door.snapshot().result != "*")
            await player.stop()
    finally:
        fake.stop()
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--settle-ms", type=int, default=250)
    args = parser.parse_args()
    samples = sorted(asyncio.run(bench(args.moves, args.settle_ms)))
    p50 = statistics.median(samples)
    p99 = samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))]
    target = args.settle_ms + 50
    print(
        f"lichess: hand released -> move request received, {len(samples)} moves, "
        f"settle {args.settle_ms} ms: p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
        f"max {samples[-1]:.1f} ms (target p99 <= {target} ms): "
        + ("ok" if p99 <= target else "MISSED")
    )
    return 0 if p99 <= target else 1


if __name__ == "__main__":
    sys.exit(main())
