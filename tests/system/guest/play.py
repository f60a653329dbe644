"""Play a board script on the simulated matrix (``boardsim.py``) inside the test machine.

Each ``lift``/``place`` changes the pieces the simulator shows the daemon's scans, each
``button`` holds that button's line low for a moment; every change waits until the
simulator has shown it to two whole scans before the script's clock moves on (the kernel
gives no event for a row the daemon drives, so the simulator polls, and a change must not
overtake it). Run with the installed venv's python, whose magboard reads the script.

    /opt/magboard/bin/python play.py game.script --state /run/boardsim/state.json

Prints one JSON line: the events played and how long it took.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from board_driver.boardscript.script import ScriptReader
from board_driver.physical.events import Button, Lift, Place
from board_driver.physical.pinmap import DEFAULT_BUTTON_PINS
from board_driver.physical.squares import square_name


class Board:
    """The simulator's state file, written whole; waits for the simulator to show it."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.status = state.with_name("status.json")
        current = json.loads(state.read_text()) if state.exists() else {}
        self.pieces = int(current.get("pieces", "0"), 16)
        self.buttons: list[int] = []
        self.version = int(current.get("version") or 0)

    def show(self, timeout: float = 20.0) -> None:
        self.version += 1
        tmp = self.state.with_name(self.state.name + ".tmp")
        tmp.write_text(json.dumps({"pieces": f"{self.pieces:016x}", "buttons": self.buttons,
                                   "version": self.version}))  # fmt: skip
        os.replace(tmp, self.state)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                status = json.loads(self.status.read_text())
            except (FileNotFoundError, ValueError):
                status = {}
            if status.get("version") == self.version and status.get("seen"):
                return
            time.sleep(0.01)
        raise SystemExit(f"play: the board simulator did not show change {self.version} "
                         f"within {timeout} s (is boardsim running, is the daemon scanning?)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", type=Path)
    parser.add_argument("--state", type=Path, default=Path("/run/boardsim/state.json"))
    parser.add_argument("--press-ms", type=int, default=200, help="how long a button is held")
    args = parser.parse_args(argv)
    board = Board(args.state)
    # Read against the pieces standing now: a script may go on with a game on the board.
    reader = ScriptReader(str(args.script))
    reader.set_standing(board.pieces)
    for line in args.script.read_text().splitlines():
        reader.feed(line)
    script = reader.script
    started = time.monotonic()
    played = []
    for item in script.items:
        delay = started + item.t_ms / 1000 - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        if isinstance(item, Lift | Place):
            bit = 1 << item.square
            if isinstance(item, Lift) == (not board.pieces & bit):
                raise SystemExit(f"play: {item} does not fit the pieces standing")
            board.pieces ^= bit
            board.show()
            word = "lift" if isinstance(item, Lift) else "place"
            played.append(f"{word} {square_name(item.square)}")
        elif isinstance(item, Button):
            pin = DEFAULT_BUTTON_PINS[item.name]
            board.buttons = [pin]
            board.show()
            time.sleep(args.press_ms / 1000)
            board.buttons = []
            board.show()
            played.append(f"button {item.name}")
        else:
            raise SystemExit(f"play: {type(item).__name__} lines are not played on the matrix")
    print(json.dumps({"played": played, "seconds": round(time.monotonic() - started, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
