"""What one scan of the matrix costs through the real gpiod on the kernel's GPIO chip.

Opens the daemon's own :class:`GpiodMatrix` from the installed config's ``[sensing]``
(the service must be stopped: the lines are its), scans ``--scans`` times as fast as it
can, and prints scans a second and CPU time per scan. Under ``strace -c -f`` the same run
gives the system calls per scan, the number that carries to a Pi (emulation inflates
every time, not the count of calls). ``--backend rpigpio`` scans through RPi.GPIO (here
rpi-lgpio) instead. The readings (each bitmap seen, and how often) come back too.

    /opt/magboard/bin/python scancost.py --scans 2000 [--settle-us 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from board_driver.physical.sensing import open_sensing
from board_driver.service.config import load_config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=2000)
    parser.add_argument("--settle-us", type=float, help="default: the config's")
    parser.add_argument("--backend", choices=("gpiod", "rpigpio"), default="gpiod")
    args = parser.parse_args()
    sensing = load_config("/etc/magboard/config.toml").sensing
    settle_us = sensing.settle_us if args.settle_us is None else args.settle_us
    port = open_sensing(args.backend, rows=list(sensing.rows), columns=list(sensing.columns),
                        chip=sensing.chip, active_low=sensing.active_low, settle_us=settle_us)
    readings: dict[str, int] = {}
    try:
        port.scan()  # the first, apart: caches warm
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(args.scans):
            bitmap = f"{port.scan():016x}"
            readings[bitmap] = readings.get(bitmap, 0) + 1
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        port.close()
    print(json.dumps({"scans": args.scans, "settle_us": settle_us,
                      "scans_per_s": round(args.scans / wall, 1),
                      "cpu_ms_per_scan": round(cpu / args.scans * 1000, 3),
                      "readings": readings}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
