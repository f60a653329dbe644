"""A real ``magboard run --sim`` process serving the web page, for the page's tests.

Each :class:`WebDaemon` keeps its config, games, simulated board and token under its own
temporary directory and listens on a free port on 127.0.0.1. Starting the process, its
environment and the collecting of its log are the daemon tests' own harness,
:class:`tests.board_driver.daemon_process.DaemonProcess`; this adds the ``[web]`` section
and the page's HTTP side.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.board_driver.daemon_process import ROOT, DaemonProcess, free_port, write_config

__all__ = ["ROOT", "WebDaemon", "free_port"]


class WebDaemon(DaemonProcess):
    """``python -m board_driver run --sim --config DIR/config.toml``, its log collected.

    ``extra_config`` is written right after the ``[web]`` keys: plain ``key = value`` lines
    belong to ``[web]``, and it may open sections of its own after them.
    """

    def __init__(
        self,
        directory: Path,
        extra_config: str = "",
        host: str = "127.0.0.1",
        port: int | None = None,
        wait_for: str = "web page: ",
        script: str | None = None,
    ) -> None:
        self.port = port or free_port()
        write_config(directory, extra=f'[web]\nhost = "{host}"\nport = {self.port}\n{extra_config}')
        # ``script="-"``: board-script lines sent to its standard input (:meth:`send`), as
        # typed at the terminal of ``make run``.
        super().__init__(directory, *([] if script else ["--sim"]), script=script)
        #: The line that said the daemon is up (by default, the page's address).
        self.started_line = self._wait_for_line(wait_for)
        self.url = f"http://127.0.0.1:{self.port}/"

    def _line_with(self, text: str) -> str | None:
        with self._changed:
            return next((line for line in self.lines if text in line), None)

    def _wait_for_line(self, text: str, timeout: float = 20.0) -> str:
        if not self.wait_for(lambda: self._line_with(text) is not None, timeout):
            self.stop()
            raise AssertionError(f"the daemon never said {text!r}:\n" + self.output())
        return self._line_with(text)

    @property
    def token(self) -> str:
        return (self.directory / "web-token").read_text().strip()

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
        """SIGTERM and wait; SIGKILL if it does not end within 10 s."""
        try:
            self.terminate()
        except subprocess.TimeoutExpired:
            self.kill()
