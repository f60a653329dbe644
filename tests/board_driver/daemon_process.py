"""``magboard run --sim`` as a real process, for the daemon's end-to-end tests.

Each :class:`DaemonProcess` gets its own config, store, simulated-board state file and
LED file under a temporary directory, listens on its own ``$NOTIFY_SOCKET`` as systemd
would, and collects the daemon's log lines as they come.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Every daemon started and not yet ended, so that a failed test leaves none running.
RUNNING: list[DaemonProcess] = []
MOVE_LINE = re.compile(r"(?:ply|move) (\d+): (\S+) \((\w+)\) stored in game (\d+)")


def write_config(directory: Path, extra: str = "") -> Path:
    """A config for a simulated board kept entirely under ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "config.toml"
    config.write_text(
        f"""
[store]
path = "{directory / "games.sqlite"}"
[sim]
state_file = "{directory / "sim-board.json"}"
leds_file = "{directory / "leds.json"}"
{extra}
"""
    )
    return config


class DaemonProcess:
    """``python -m board_driver run --sim --script - --config ...``, with its stdin open.

    ``script=None``: ``run --config ...`` only, with the hardware the config names.
    ``max_files``: the process's limit of open files (``ulimit -n``). ``environ``: more
    environment variables (``XDG_STATE_HOME``, for a state directory of the test's own).
    """

    def __init__(
        self,
        directory: Path,
        *args: str,
        watchdog_usec: int | None = None,
        script: str | None = "-",
        max_files: int | None = None,
        environ: dict[str, str] | None = None,
    ) -> None:
        self.directory = directory
        self.config = directory / "config.toml"
        self.lines: list[str] = []
        self.notices: list[str] = []
        self._changed = threading.Condition()
        self._socket_path = directory / f"notify-{time.monotonic_ns()}.sock"
        self._notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._notify.bind(str(self._socket_path))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NOTIFY_", "WATCHDOG_"))}
        env.update(NOTIFY_SOCKET=str(self._socket_path), PYTHONUNBUFFERED="1")
        env.pop("JOURNAL_STREAM", None)
        env.pop("MAGBOARD_CONFIG", None)
        if watchdog_usec:
            env["WATCHDOG_USEC"] = str(watchdog_usec)
        env.update(environ or {})
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "board_driver",
                "run",
                *(["--sim", "--script", script] if script else []),
                "--config",
                str(self.config),
                *args,
            ],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            preexec_fn=None if max_files is None else lambda: _limit_files(max_files),
        )
        RUNNING.append(self)
        threading.Thread(target=self._read_output, daemon=True).start()
        threading.Thread(target=self._read_notices, daemon=True).start()

    def _read_output(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def _read_notices(self) -> None:
        while True:
            try:
                data = self._notify.recv(4096)
            except OSError:
                return
            with self._changed:
                self.notices.extend(data.decode().split("\n"))
                self._changed.notify_all()

    def wait_for(self, predicate, timeout: float = 15.0) -> bool:
        """Wait until ``predicate()`` holds (checked on every log line or notice)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not predicate()):
                    # One last look: the process may have said it just before ending.
                    return predicate()
                self._changed.wait(min(left, 0.1))
        return True

    def wait_ready(self, timeout: float = 15.0) -> None:
        if not self.wait_for(lambda: "READY=1" in self.notices, timeout):
            self.kill()
            raise AssertionError("the daemon never said READY=1:\n" + self.output())

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()

    def moves_logged(self) -> list[tuple[int, str, str]]:
        """(ply, san, uci) of every 'move ... stored' line so far."""
        with self._changed:
            found = [MOVE_LINE.search(line) for line in self.lines]
        return [(int(m[1]), m[2], m[3]) for m in found if m]

    def output(self) -> str:
        with self._changed:
            return "\n".join(self.lines)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._close()

    def terminate(self, timeout: float = 10.0) -> float:
        """SIGTERM; returns the seconds the process took to end."""
        start = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout)
        took = time.monotonic() - start
        # Wait for the reader so that every line is in.
        self.wait_for(lambda: False, timeout=0.2)
        self._close()
        return took

    def _close(self) -> None:
        if self in RUNNING:
            RUNNING.remove(self)
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        self._notify.close()
        try:
            self._socket_path.unlink()
        except OSError:
            pass

    # What the simulated hardware shows, read from the files the daemon keeps.

    def sim_pieces(self) -> int:
        data = json.loads((self.directory / "sim-board.json").read_text())
        return int(data["pieces"], 16)

    def leds(self) -> list[tuple[int, int, int]]:
        data = json.loads((self.directory / "leds.json").read_text())
        return [tuple(c) for c in data["colours"]]


@pytest.fixture(autouse=True)
def no_daemon_left_running():
    """Kill whatever daemon a test started and did not stop (a failed assertion)."""
    yield
    for daemon in list(RUNNING):
        daemon.kill()


def _limit_files(count: int) -> None:
    """In the child: at most ``count`` open file descriptors (``ulimit -n``)."""
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


def run_magboard(*args: str, env: dict | None = None, timeout: float = 60):
    """``python -m board_driver ARGS`` to completion."""
    full_env = {k: v for k, v in os.environ.items() if k != "MAGBOARD_CONFIG"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "board_driver", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        stdin=subprocess.DEVNULL,
    )
