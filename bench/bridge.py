"""Latency of the serial bridge: a square changes on the virtual firmware's matrix -> the host
hears of it.

The real firmware (hardware/firmware/code.py on the fake CircuitPython modules) runs in a
child process, as it runs on its own chip in reality; the real host link
(firmware_bridge.BridgeLink) runs here; a pseudo-terminal pair is the USB cable. The child
toggles one square many times at irregular intervals; both processes stamp times with
``time.perf_counter`` (CLOCK_MONOTONIC, shared by all processes on Linux). Reported, as
p50 / p90 / p99 / max:

- end to end: from the switch changing to the host's ``on_board`` callback. This includes the
  firmware's debounce (a square must read the same for DEBOUNCE_MS) and up to one scan period.
- link: from the firmware writing the BOARD frame to the host's callback (framing, the pty,
  pyserial, the reader thread).

    python bench/bridge.py [--count 400] [--debounce-ms N]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_bridge import BridgeLink  # noqa: E402
from firmware_bridge.packets import Board, StreamDecoder  # noqa: E402

SQUARE = 28  # e4


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def describe(name: str, values: list[float]) -> str:
    parts = [f"p{int(f * 100)} {percentile(values, f):6.2f}" for f in (0.5, 0.9, 0.99)]
    return f"{name:<34} " + "   ".join(parts) + f"   max {max(values):6.2f}  (ms)"


def firmware_process(debounce_ms: int | None) -> int:
    """The child: the board. Reads 'toggle' lines, answers 't_switch t_written board'."""
    from tests.firmware_bridge.rig import Rig

    with tempfile.TemporaryDirectory() as directory, Rig(Path(directory)) as rig:
        from magboard_fw import config

        if debounce_ms is not None:
            config.DEBOUNCE_MS = debounce_ms
        written: dict[int, float] = {}
        got_board = threading.Condition()
        decoder = StreamDecoder()
        write = rig.serial.write

        def timed_write(data: bytes) -> int:
            now = time.perf_counter()  # before the write: the host may answer at once
            for _, packet in decoder.feed(bytes(data)):
                if isinstance(packet, Board):
                    with got_board:
                        written.setdefault(packet.board, now)
                        got_board.notify_all()
            return write(data)

        rig.serial.write = timed_write
        rig.plug()
        rig.power_on()
        print(rig.device_path, config.SCAN_PERIOD_MS, config.DEBOUNCE_MS, flush=True)
        for line in sys.stdin:
            if line.strip() != "toggle":
                break
            with got_board:
                written.clear()
            switched = time.perf_counter()
            if rig.pieces >> SQUARE & 1:
                rig.lift(SQUARE)
            else:
                rig.place(SQUARE)
            target = rig.pieces
            with got_board:
                got_board.wait_for(lambda target=target: target in written, timeout=1.0)
                sent = written.get(target, float("nan"))
            print(switched, sent, target, flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=400, help="square changes to time")
    parser.add_argument("--debounce-ms", type=int, default=None, help="override the firmware's")
    parser.add_argument("--firmware", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.firmware:
        return firmware_process(args.debounce_ms)

    command = [sys.executable, __file__, "--firmware"]
    if args.debounce_ms is not None:
        command += ["--debounce-ms", str(args.debounce_ms)]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    device, scan_period, debounce = child.stdout.readline().split()
    scan_period_ms, debounce_ms = int(scan_period), int(debounce)

    arrived: dict[int, float] = {}
    lock = threading.Condition()

    def on_board(board: int) -> None:
        now = time.perf_counter()
        with lock:
            arrived[board] = now
            lock.notify_all()

    link = BridgeLink(device, on_board=on_board)
    end_to_end: list[float] = []
    over_link: list[float] = []
    try:
        if not link.wait_until_up(5):
            print("the link did not come up", file=sys.stderr)
            return 1
        rng = random.Random(1)
        for _ in range(args.count):
            with lock:
                arrived.clear()
            child.stdin.write("toggle\n")
            child.stdin.flush()
            switched, sent, target = child.stdout.readline().split()
            board = int(target)
            with lock:
                if not lock.wait_for(lambda board=board: board in arrived, timeout=1.0):
                    print(f"lost a change to {board:#018x}", file=sys.stderr)
                    return 1
                seen = arrived[board]
            end_to_end.append((seen - float(switched)) * 1000)
            over_link.append((seen - float(sent)) * 1000)
            time.sleep(rng.uniform(0.02, 0.04))  # out of phase with the scan
        stats = link.stats
    finally:
        link.close()
        child.stdin.close()
        child.wait(timeout=10)

    print(
        f"bridge latency, {args.count} changes; firmware scan period {scan_period_ms} ms, "
        f"debounce {debounce_ms} ms; firmware and host in separate processes"
    )
    print(describe("end to end (switch -> host)", end_to_end))
    overhead = [value - scan_period_ms - debounce_ms for value in end_to_end]
    print(describe("  the same minus scan + debounce", overhead))
    print(describe("link (BOARD written -> host)", over_link))
    print(
        f"bad frames {stats.bad_frames}, sequence gaps {stats.seq_gaps}, "
        f"ping round trip {stats.rtt_ms:.2f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
