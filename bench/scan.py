"""What scanning the matrix costs: one full scan per backend, and the scan loop at 200 Hz.

    python bench/scan.py [--seconds 3]

The hardware backends run against the test fakes of their libraries (tests/fakes), so
the figures are our code plus a pure-Python model of the electronics; on a Pi the
libraries' C calls and ioctls replace the model. The scan loop's figure is the one that
matters for the daemon: CPU time per wall-clock second while idle at 200 Hz (target:
the whole idle daemon under 2% of one core).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_driver.physical.pinmap import DEFAULT_COLUMNS, DEFAULT_ROWS  # noqa: E402
from board_driver.physical.sensing import ScanLoop, SquareHealth, open_sensing  # noqa: E402
from tests.fakes import MODULES  # noqa: E402
from tests.fakes import world as world_module  # noqa: E402
from tests.fakes.world import World  # noqa: E402

START = 0xFFFF00000000FFFF


def fake_world() -> World:
    world = World(Path(tempfile.mkdtemp()) / "dev")
    world.wire_matrix(DEFAULT_ROWS, DEFAULT_COLUMNS)
    world.closed = START
    world_module.set_current(world)
    return world


def open_port(backend: str):
    if backend == "sim":
        return open_sensing("sim")
    world = fake_world()
    if backend == "gpiod":
        return open_sensing("gpiod", dev_dir=str(world.dev_dir), settle_us=0)
    return open_sensing("rpigpio", settle_us=0)


def per_scan(backend: str, scans: int = 2000) -> float:
    port = open_port(backend)
    assert port.scan() == START, backend
    started = time.perf_counter()
    for _ in range(scans):
        port.scan()
    elapsed = time.perf_counter() - started
    port.close()
    return elapsed / scans


def own_share(backend: str, scans: int = 500) -> float:
    """Seconds per scan spent in magboard's own code (profiled, so an upper bound),
    the rest being the fake library and its model of the electronics."""
    port = open_port(backend)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(scans):
        port.scan()
    profile.disable()
    port.close()
    stats = pstats.Stats(profile).stats  # (file, line, name) -> (cc, nc, tottime, ...)
    own = sum(v[2] for (path, _, _), v in stats.items() if "/board_driver/" in path)
    return own / scans


def loop_cpu(backend: str, seconds: float, rate_hz: float = 200) -> tuple[float, int]:
    port = open_port(backend)
    handed = []
    health = SquareHealth()
    loop = ScanLoop(port, lambda t, b: handed.append(b), rate_hz=rate_hz, observers=(health.feed,))
    cpu0, wall0 = time.process_time(), time.monotonic()
    loop.start()
    time.sleep(seconds)
    loop.stop()
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    port.close()
    return cpu / wall, loop.scans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    sys.path.insert(0, str(MODULES))
    print("one full scan (8 rows x 8 columns), total / in magboard's own code:")
    own = {}
    for backend in ("sim", "gpiod", "rpigpio"):
        label = backend if backend == "sim" else f"{backend} (fake library)"
        own[backend] = own_share(backend)
        print(f"  {label:<24} {per_scan(backend) * 1e6:8.1f} µs / {own[backend] * 1e6:6.1f} µs")
    print(f"scan loop at 200 Hz, idle board, {args.seconds:g} s each (CPU time / wall time):")
    floor = 0.0
    for backend in ("sim", "gpiod"):
        share, scans = loop_cpu(backend, args.seconds)
        floor = floor or share
        label = backend if backend == "sim" else f"{backend} (fake library)"
        print(f"  {label:<24} {share * 100:6.2f}% of one core ({scans / args.seconds:.0f} scans/s)")
    for backend in ("gpiod", "rpigpio"):
        estimate = floor + 200 * own[backend]
        print(
            f"  {backend} without the fake's model: about {estimate * 100:.2f}% "
            "(loop + our code; add the library's C calls on a Pi)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
