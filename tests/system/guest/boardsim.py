"""The reed-switch matrix and the buttons, played on a gpio-sim chip inside the test machine.

The daemon drives the matrix's row lines and reads its column lines through the real kernel
GPIO character device; this program is the board on the other side of the pins. It watches
the rows (gpio-sim's ``value`` file of each row line: with the patched module a released
open-drain row reads its pull, which this program sets to pull-up, and a selected row reads
0) and sets each column's ``pull`` for the squares of the selected row that hold a piece: a
closed switch through its diode pulls the column low. Buttons are lines shorted to ground
while held (pull-down) and left to the daemon's pull-up otherwise.

What stands on the board comes from a state file the tests write (atomically) and this
program polls: ``{"pieces": "ffff00000000ffff", "buttons": [7], "stuck_low": [24]}`` (the
pieces as the board-script's 64-bit hex, the BCM lines of the buttons held, and column
lines shorted to ground: a fault for ``magboard diagnose`` to find). It reports in a status
file which state it applies and how many times it answered a row change, so that a test
waits for the board to have taken a change before the next one.

Standard library only: it runs on Debian's python3, as root (sysfs, real-time priority).

    python3 boardsim.py --chip-label pinctrl-bcm2711 --state /run/boardsim/state.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROWS = (4, 17, 27, 22, 5, 6, 13, 26)  # rank 1 first (hardware/README.md's pin map)
COLUMNS = (23, 24, 25, 12, 16, 20, 21, 19)  # file a first
PULL_UP, PULL_DOWN = b"pull-up", b"pull-down"
#: How often the rows are looked at: well inside the daemon's settle time (steps.py).
POLL_S = 0.002


def chip_dir(label: str) -> Path:
    """The sysfs directory of the gpio-sim chip labelled ``label`` (its ``sim_gpioN`` files)."""
    for bank in Path("/sys/kernel/config/gpio-sim").glob("*/gpio-bank*"):
        if (bank / "label").read_text().strip() == label:
            device = (bank.parent / "dev_name").read_text().strip()
            chip = (bank / "chip_name").read_text().strip()
            return Path("/sys/devices/platform") / device / chip
    raise SystemExit(f"boardsim: no gpio-sim chip labelled {label!r}")


class Lines:
    """The ``value`` and ``pull`` files of some lines, kept open."""

    def __init__(self, chip: Path, offsets: tuple[int, ...]) -> None:
        self.values = [os.open(chip / f"sim_gpio{o}" / "value", os.O_RDONLY) for o in offsets]
        self.pulls = [os.open(chip / f"sim_gpio{o}" / "pull", os.O_WRONLY) for o in offsets]
        self.set_to: list[bytes | None] = [None] * len(offsets)

    def levels(self) -> list[int]:
        return [os.pread(fd, 4, 0)[:1] == b"1" for fd in self.values]

    def forget(self) -> None:
        self.set_to = [None] * len(self.set_to)

    def pull(self, index: int, pull: bytes) -> bool:
        """Set one line's pull; True if it changed."""
        if self.set_to[index] == pull:
            return False
        os.write(self.pulls[index], pull)
        self.set_to[index] = pull
        return True


def column_pulls(pieces: int, selected: list[int]) -> list[bytes]:
    """What each column reads through the switches of the selected rows (0 or 1 of them)."""
    closed = 0
    for row in selected:
        closed |= (pieces >> (8 * row)) & 0xFF
    return [PULL_DOWN if closed >> c & 1 else PULL_UP for c in range(8)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chip-label", default="pinctrl-bcm2711")
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--status", type=Path)
    parser.add_argument("--buttons", default="2,3,7,8,9", help="BCM lines of the buttons")
    args = parser.parse_args(argv)
    # Real-time priority on the machine's one CPU: once a row changes, the next look at the
    # rows (at most POLL_S later) runs before the daemon, asleep for its settle time, reads
    # the columns, however the host schedules the emulator. The settle time then only has
    # to be longer than POLL_S, not than whatever the host's load makes of it.
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
    status_path = args.status or args.state.with_name("status.json")
    chip = chip_dir(args.chip_label)
    rows = Lines(chip, ROWS)
    columns = Lines(chip, COLUMNS)
    button_pins = tuple(int(p) for p in args.buttons.split(",") if p)
    buttons = Lines(chip, button_pins)
    for i in range(8):  # an unselected row reads high; nothing closed yet
        rows.pull(i, PULL_UP)
        columns.pull(i, PULL_UP)
    for i in range(len(button_pins)):
        buttons.pull(i, PULL_UP)

    pieces, held, stuck, version = 0, frozenset(), frozenset(), None
    stamp = None
    answered = 0
    answered_at_change = 0.0
    dirty = True
    last_selected: tuple[int, ...] = ()
    next_look = 0.0
    while True:
        now = time.monotonic()
        if now >= next_look:  # the tests' state, a hundred times a second at most
            next_look = now + 0.01
            try:
                st = args.state.stat()
                new_stamp = (st.st_mtime_ns, st.st_ino)
            except FileNotFoundError:
                new_stamp = None
            if new_stamp is not None and new_stamp != stamp:
                stamp = new_stamp
                state = json.loads(args.state.read_text())
                pieces = int(state.get("pieces", "0"), 16)
                held = frozenset(state.get("buttons", ()))
                stuck = frozenset(state.get("stuck_low", ()))
                version = state.get("version")
                dirty = True
                for i, pin in enumerate(button_pins):
                    buttons.pull(i, PULL_DOWN if pin in held else PULL_UP)
                answered_at_change = answered
                _write_status(status_path, version, answered, pieces)
            elif version is not None and answered >= answered_at_change + 16:
                # Two whole scans have seen the new pieces: say so once.
                _write_status(status_path, version, answered, pieces, seen=True)
                answered_at_change = float("inf")
        levels = rows.levels()
        selected = tuple(r for r in range(8) if not levels[r])
        if selected != last_selected or dirty:
            # Every column written again on each step of a scan: a program that requests
            # the lines anew (the daemon restarted, diagnose) resets their pull with its bias.
            columns.forget()
            for c, pull in enumerate(column_pulls(pieces, selected)):
                columns.pull(c, PULL_DOWN if COLUMNS[c] in stuck else pull)
            answered += selected != last_selected and len(selected) == 1
            last_selected, dirty = selected, False
        else:
            time.sleep(POLL_S)


def _write_status(path: Path, version, answered: int, pieces: int, seen: bool = False) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"version": version, "answered": answered,
                               "pieces": f"{pieces:016x}", "seen": seen}))  # fmt: skip
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
