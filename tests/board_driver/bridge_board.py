"""The real bridge firmware on fake hardware, behind a pty, in a process of its own.

Run as ``python -m tests.board_driver.bridge_board DIR``: it plugs the cable (the pty's
path is ``DIR/magboard-bridge``, as udev names the real one), powers the firmware, prints
``ready``, then obeys lines on standard input, answering ``ok`` to each:
``lift e2``, ``place e4``, ``pull`` (the cable), ``plug``, ``quit``.

A process of its own, because the firmware's fake CircuitPython modules (``board``,
``neopixel``, ...) must not meet the Pi backends' fakes in the test process.
"""

from __future__ import annotations

import sys
from pathlib import Path

from board_driver.physical.squares import square
from tests.firmware_bridge.rig import Rig


def main(directory: str) -> None:
    with Rig(Path(directory)) as rig:
        rig.plug()
        rig.power_on()
        print("ready", flush=True)
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "quit":
                break
            if words[0] in ("lift", "place"):
                getattr(rig, words[0])(square(words[1]))
            elif words[0] in ("pull", "plug"):
                getattr(rig, words[0])()
            print("ok", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
