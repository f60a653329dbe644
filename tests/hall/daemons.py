"""The hall's boards as real processes for the end-to-end tests: ``magboard run --sim
--script -`` daemons publishing to a real Mosquitto with the accounts and access rules of
docs/hall/aclfile, and the hands that play their games (:class:`Hands`).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import chess.pgn

from tests.board_driver.daemon_process import DaemonProcess, run_magboard, write_config
from tests.hall.hall_process import read_games
from tests.hall.scripts import header_lines, move_lines
from tests.mosquitto import Mosquitto

ROOT = Path(__file__).resolve().parents[2]
ACL = ROOT / "docs" / "hall" / "aclfile"
HALL_PASSWORD = "hall-secret"
SEEN = re.compile(r"magboard: event (lift|place) ")


def password(board: int) -> str:
    return f"board-{board}-secret"


def hall_broker(directory: Path, count: int, *, extra: tuple[str, ...] = ()) -> Mosquitto:
    """A broker with an account per board (1..count) and the hall's, and the docs' ACL."""
    users = {str(b): password(b) for b in range(1, count + 1)} | {"hall": HALL_PASSWORD}
    return Mosquitto(directory, users=users, acl=ACL.read_text(), extra=extra).start()


def board_config(directory: Path, broker: Mosquitto, board: int) -> Path:
    return write_config(
        directory,
        f"""
[web]
enabled = false
[broadcast]
enabled = true
host = "{broker.host}"
port = {broker.port}
username = "{board}"
password = "{password(board)}"
board = {board}
round = "1"
event = "Hall test"
white = "White {board}"
black = "Black {board}"
""",
    )


def start_board(directory: Path, broker: Mosquitto, board: int) -> DaemonProcess:
    board_config(directory, broker, board)
    daemon = DaemonProcess(directory, "--verbose")  # it logs each lift and place it sees
    daemon.wait_ready(30)
    return daemon


def seen_events(daemon: DaemonProcess) -> int:
    """The lifts and places the daemon's tracker has seen (after debouncing)."""
    with daemon._changed:
        return sum(1 for line in daemon.lines if SEEN.search(line))


class Hands(threading.Thread):
    """Plays one board's game as a person would, only faster: each lift or place once the
    board has seen the one before (so that a machine starved for a second cannot fold two
    of them into one scan), each move once the one before is stored. ``pause_at``: the
    numbers of moves after which it stops (``paused`` is set) until :meth:`resume` (with
    a restarted board's new process, or the same one)."""

    def __init__(self, daemon: DaemonProcess, moves: list[chess.Move],
                 pause_at: int | tuple[int, ...] = ()):
        super().__init__(daemon=True)
        self.daemon_process = daemon
        self.lines = move_lines(moves)
        self.pause_at = {pause_at} if isinstance(pause_at, int) else set(pause_at)
        self.stored = 0  # moves stored so far, over every life of the board
        self.paused = threading.Event()
        self._resumed = threading.Event()
        self.error: str | None = None

    def resume(self, daemon: DaemonProcess | None = None) -> None:
        self.paused.clear()
        if daemon is not None:
            self.daemon_process = daemon
        self._resumed.set()

    def run(self) -> None:
        try:
            self._play()
        except AssertionError as exc:
            self.error = str(exc)

    def _play(self) -> None:
        daemon, before, sent = self.daemon_process, 0, 0
        daemon.send(*header_lines())
        for ply, events in enumerate(self.lines):
            if ply in self.pause_at:
                self._resumed.clear()
                self.paused.set()
                assert self._resumed.wait(180), "never resumed"
                if self.daemon_process is not daemon:  # a new process: its log starts anew
                    daemon, before, sent = self.daemon_process, ply, 0
                    daemon.send(*header_lines(new_game=False))
            for line in events:
                daemon.send(line)
                if line.startswith(("lift", "place")):
                    sent += 1
                    assert daemon.wait_for(lambda d=daemon, n=sent: seen_events(d) >= n, 20), (
                        f"the board never saw {line!r}:\n" + daemon.output()[-3000:])
            assert daemon.wait_for(lambda d=daemon, n=ply + 1 - before: len(
                d.moves_logged()) >= n, 20), daemon.output()[-3000:]
            self.stored = ply + 1


def stored_games(directory: Path) -> list[chess.pgn.Game]:
    """The board's own stored games that have moves (``magboard pgn all``)."""
    done = run_magboard("pgn", "all", "--config", str(directory / "config.toml"))
    assert done.returncode == 0, done.stderr
    return [g for g in read_games(done.stdout) if list(g.mainline_moves())]
