"""A real ``magboard run --sim`` process serving the web page, for the page's tests.

Each :class:`WebDaemon` keeps its config, games, simulated board and token under its own
temporary directory and listens on a free port on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebDaemon:
    """``python -m board_driver run --sim --config DIR/config.toml``, its log collected."""

    def __init__(
        self,
        directory: Path,
        extra_config: str = "",
        host: str = "127.0.0.1",
        port: int | None = None,
        wait_for: str = "web page: ",
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.port = port or free_port()
        config = directory / "config.toml"
        config.write_text(
            f"""
[store]
path = "{directory / "games.sqlite"}"
[sim]
state_file = "{directory / "sim-board.json"}"
[web]
host = "{host}"
port = {self.port}
{extra_config}
"""
        )
        env = {k: v for k, v in os.environ.items() if k not in ("MAGBOARD_CONFIG", "NOTIFY_SOCKET")}
        env["PYTHONUNBUFFERED"] = "1"
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "board_driver", "run", "--sim", "--config", str(config)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        threading.Thread(target=self._read, daemon=True).start()
        #: The line that said the daemon is up (by default, the page's address).
        self.started_line = self._wait_for_line(wait_for)
        self.url = f"http://127.0.0.1:{self.port}/"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def _wait_for_line(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines:
                    if text in line:
                        return line
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise AssertionError(f"the daemon never said {text!r}:\n" + self.output())
                self._changed.wait(0.1)

    @property
    def token(self) -> str:
        return (self.directory / "web-token").read_text().strip()

    def output(self) -> str:
        with self._changed:
            return "\n".join(self.lines)

    def state(self) -> dict:
        with urllib.request.urlopen(self.url + "api/state", timeout=5) as response:
            return json.load(response)

    def request(
        self, path: str, body: object = None, *, token: str | None = None, method: str = "POST"
    ) -> tuple[int, dict | str]:
        """(status, JSON or text) of one request; no exception for 4xx answers."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path.lstrip("/"), data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def wait_state(self, predicate, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            state = self.state()
            if predicate(state):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"state never matched; last: {state}\n{self.output()}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
