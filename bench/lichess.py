"""From the hand letting go of the piece to our move's request reaching Lichess, on loopback.

Runs the real daemon (``magboard run --sim --script -``, default timing: 30 ms debounce,
250 ms settle) with its Lichess player, the real ``berserk`` client and the loopback fake
of the Board API, and plays our side of online games by hand: board-script lines on the
daemon's standard input, a ``lift``, 30 ms in the hand, a ``place``. For each of our
moves it times, on the machine's one monotonic clock, the ``place`` written (the hand
lets go) to the moment the fake server receives ``POST /api/board/game/{id}/move/{uci}``.
The fake answers each of our moves with one of its own, which the bench plays on the
board too. The target is the settle time plus 50 ms at p99.

It also says where the time goes: up to the daemon's "move ... stored" log line (the
board's path: sensing, debounce, the settle time, the tracker, the store), and from there
to the request (the player: the pending mark in the store, the thread, the HTTP request).

    python bench/lichess.py [--moves N]

Exits 1 when p99 misses the target.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import chess  # noqa: E402

from tests.board_driver.players.lichess.online_daemon import OnlineDaemon  # noqa: E402
from tests.fakes.lichess import FakeLichess  # noqa: E402

SETTLE_MS = 250  # the daemon's default, which the bench runs with
STORED = " stored in game "


def quiet_move(board: chess.Board, rng: random.Random) -> chess.Move | None:
    """A legal move that is neither a capture, castling nor promotion (one hand motion)."""
    moves = [
        m
        for m in board.legal_moves
        if not board.is_capture(m) and not board.is_castling(m) and m.promotion is None
    ]
    return rng.choice(moves) if moves else None


def hand(daemon: OnlineDaemon, move: chess.Move) -> float:
    """Lift, 30 ms in the hand, place: returns the monotonic time the place was written."""
    daemon.send(f"lift {chess.square_name(move.from_square)}")
    time.sleep(0.03)
    daemon.send(f"place {chess.square_name(move.to_square)}")
    return time.monotonic()


def log_time(line: str, day: dt.date) -> float:
    """The wall-clock time of a daemon log line (``HH:MM:SS.mmm magboard: ...``)."""
    clock = dt.datetime.strptime(line.split(" ", 1)[0], "%H:%M:%S.%f").time()
    return dt.datetime.combine(day, clock).timestamp()


def bench(moves: int) -> list[tuple[float, float]]:
    """(release -> request, release -> stored) in ms, for each of our moves."""
    fake = FakeLichess().start()
    fake.token = fake.add_account("Ann")
    fake.add_account("Bob")
    rng = random.Random(12)
    samples: list[tuple[float, float]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            daemon = OnlineDaemon(Path(tmp), fake, lichess="amend_ms = 0", gap_ms=0)
            try:
                while len(samples) < moves:
                    after = daemon.mark()
                    game_id = fake.start_game("Ann", "Bob", clock=(3600, 0))
                    daemon.game_on_board(after=after)
                    if daemon.board.move_stack:  # the last game's pieces go back
                        daemon.send("gap 20", *set_up_lines(daemon.board), "gap 0")
                        daemon.wait_log("board matches the game again", after=after)
                        daemon.board = chess.Board()
                    play_one_game(daemon, fake, game_id, rng, samples, moves)
            finally:
                daemon.terminate()
    finally:
        fake.stop()
    return samples


def set_up_lines(board: chess.Board) -> list[str]:
    """Lines that take the pieces standing for ``board`` back to the start position."""
    standing = set(board.piece_map())
    start = set(chess.Board().piece_map())
    lifts = [f"lift {chess.square_name(sq)}" for sq in sorted(standing - start)]
    places = [f"place {chess.square_name(sq)}" for sq in sorted(start - standing)]
    return lifts + places


def play_one_game(daemon, fake, game_id, rng, samples, moves) -> None:
    day = dt.date.today()
    while len(samples) < moves:
        ours = quiet_move(daemon.board, rng)
        if ours is None:
            break
        posted = len(fake.moves_posted(game_id))
        stored = len(daemon.moves_logged())
        wall_offset = time.time() - time.monotonic()
        released = hand(daemon, ours)
        daemon.board.push(ours)
        fake.wait_for(lambda n=posted: len(fake.moves_posted(game_id)) > n)
        request = fake.moves_posted(game_id)[posted]
        daemon.wait_stored(stored + 1)
        line = next(line for line in reversed(daemon.lines) if STORED in line)
        stored_at = log_time(line, day) - wall_offset
        samples.append(((request.at - released) * 1000, (stored_at - released) * 1000))
        if not fake.wait_for(lambda: len(fake.game(game_id).ucis) == len(daemon.board.move_stack)):
            raise RuntimeError("the server never had our move")
        theirs = quiet_move(daemon.board, rng)
        if theirs is None:
            break
        daemon.their_move(game_id, theirs.uci())
    if not fake.game(game_id).over:
        fake.act(game_id, "black", "resign")
        daemon.wait_log(f"lichess: game {game_id} over on Lichess")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=60)
    args = parser.parse_args()
    samples = bench(args.moves)
    total = [s[0] for s in samples]
    board = [s[1] for s in samples]
    player = [s[0] - s[1] for s in samples]
    target = SETTLE_MS + 50
    p99 = percentile(total, 0.99)
    print(
        f"lichess: hand released -> move request received, {len(samples)} moves, "
        f"settle {SETTLE_MS} ms: p50 {statistics.median(total):.1f} ms, p99 {p99:.1f} ms, "
        f"max {max(total):.1f} ms (target p99 <= {target} ms): "
        + ("ok" if p99 <= target else "MISSED")
    )
    for name, values in (("released -> stored", board), ("stored -> request", player)):
        print(
            f"  {name}: p50 {statistics.median(values):.1f} ms, "
            f"p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms"
        )
    return 0 if p99 <= target else 1


if __name__ == "__main__":
    sys.exit(main())
