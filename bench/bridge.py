"""Latency of the serial bridge: a square changes on the virtual firmware's matrix -> the host
hears of it.

Runs the real firmware (hardware/firmware/code.py) on the fake CircuitPython modules and the
real host link (firmware_bridge.BridgeLink) over a pseudo-terminal pair, toggles one square
many times at irregular intervals, and reports two latencies, p50 / p99 / max:

- end to end: from the switch changing to the host's ``on_board`` callback. This includes the
  firmware's debounce (a square must read the same for DEBOUNCE_MS) and up to one scan period.
- link: from the firmware writing the BOARD frame to the host's callback (framing, the pty,
  pyserial, the reader thread).

    python bench/bridge.py [--count 400] [--debounce-ms N]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_bridge import BridgeLink  # noqa: E402
from firmware_bridge.packets import Board, StreamDecoder  # noqa: E402
from tests.firmware_bridge.rig import Rig  # noqa: E402


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def describe(name: str, values: list[float]) -> str:
    return (
        f"{name:<32} p50 {percentile(values, 0.5):6.2f} ms   p99 {percentile(values, 0.99):6.2f} ms"
        f"   p90 {percentile(values, 0.9):6.2f} ms   max {max(values):6.2f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=400, help="square changes to time")
    parser.add_argument("--debounce-ms", type=int, default=None, help="override the firmware's")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory, Rig(Path(directory)) as rig:
        from magboard_fw import config

        if args.debounce_ms is not None:
            config.DEBOUNCE_MS = args.debounce_ms
        # Note when the firmware writes each BOARD frame (the link's starting line).
        emitted: dict[int, float] = {}
        decoder = StreamDecoder()
        write = rig.serial.write

        def timed_write(data: bytes) -> int:
            now = time.perf_counter()  # before the write: the host may answer at once
            for _, packet in decoder.feed(bytes(data)):
                if isinstance(packet, Board) and packet.board not in emitted:
                    emitted[packet.board] = now
            return write(data)

        rig.serial.write = timed_write
        rig.plug()
        rig.power_on()

        arrived: dict[int, float] = {}
        changed = threading.Event()

        def on_board(board: int) -> None:
            arrived[board] = time.perf_counter()
            changed.set()

        link = BridgeLink(rig.device_path, on_board=on_board)
        try:
            if not link.wait_until_up(5):
                print("the link did not come up", file=sys.stderr)
                return 1
            rng = random.Random(1)
            end_to_end: list[float] = []
            over_link: list[float] = []
            square = 28  # e4
            for _ in range(args.count):
                emitted.clear()
                arrived.clear()
                changed.clear()
                started = time.perf_counter()
                if rig.pieces >> square & 1:
                    rig.lift(square)
                else:
                    rig.place(square)
                target = rig.pieces
                if not changed.wait(1.0) or target not in arrived:
                    print(f"lost a change to {target:#018x}", file=sys.stderr)
                    return 1
                end_to_end.append((arrived[target] - started) * 1000)
                over_link.append((arrived[target] - emitted[target]) * 1000)
                time.sleep(rng.uniform(0.02, 0.04))  # out of phase with the scan
            stats = link.stats
        finally:
            link.close()

    print(
        f"bridge latency, {args.count} changes; firmware scan period {config.SCAN_PERIOD_MS} ms, "
        f"debounce {config.DEBOUNCE_MS} ms"
    )
    print(describe("end to end (switch -> host)", end_to_end))
    overhead = [value - config.SCAN_PERIOD_MS - config.DEBOUNCE_MS for value in end_to_end]
    print(describe("  minus scan period and debounce", overhead))
    print(describe("link (BOARD written -> host)", over_link))
    print(f"bad frames {stats.bad_frames}, sequence gaps {stats.seq_gaps}, rtt {stats.rtt_ms} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
