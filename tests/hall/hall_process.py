"""``magboard hall`` as a real process for the tests, and HTTP reads of what it serves."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import chess.pgn

from tests.mosquitto import Mosquitto, free_port

ROOT = Path(__file__).resolve().parents[2]
RUNNING: list[HallProcess] = []


def hall_config(directory: Path, broker: Mosquitto, *, round: str = "1", extra: str = "",
                prefix: str = "club", **broker_keys: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "hall.toml"
    path.write_text(
        f"""[hall]
{broker.section(prefix=prefix, **broker_keys)}
http_host = "127.0.0.1"
http_port = {free_port()}
round = "{round}"
{extra}
"""
    )
    return path


class HallProcess:
    def __init__(self, config: Path) -> None:
        self.config = config
        self.lines: list[str] = []
        self._lock = threading.Condition()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "board_driver", "hall", "--config", str(config)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        RUNNING.append(self)
        threading.Thread(target=self._read, daemon=True).start()
        self.url = ""
        if not self.wait_for(lambda: any("hall: round" in line for line in self.lines), 20):
            self.kill()
            raise AssertionError("the hall never said where it serves:\n" + self.output())
        line = next(line for line in self.lines if "hall: round" in line)
        self.url = line.split(" at ", 1)[1].split(" ", 1)[0]

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._lock:
                self.lines.append(line.rstrip("\n"))
                self._lock.notify_all()

    def wait_for(self, predicate, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return predicate()
                self._lock.wait(min(left, 0.1))
        return True

    def output(self) -> str:
        with self._lock:
            return "\n".join(self.lines)

    def get(self, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
        request = urllib.request.Request(self.url.rstrip("/") + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def games_pgn(self, round: str = "1") -> str:
        status, _, body = self.get(f"/round-{round}/games.pgn")
        assert status == 200, (status, body)
        return body.decode()

    def terminate(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        if self in RUNNING:
            RUNNING.remove(self)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self in RUNNING:
            RUNNING.remove(self)


def poll(url: str, etag: str | None, timeout: float = 10.0) -> tuple[str | None, str | None]:
    """One poll of a PGN address as a careful relay makes it (``If-None-Match``): the text,
    or None when it has not changed (304); and the ETag to send next time."""
    request = urllib.request.Request(url, headers={"If-None-Match": etag} if etag else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.read().decode(), answer.headers.get("ETag")
    except urllib.error.HTTPError as error:
        if error.code != 304:
            raise
        return None, etag


def read_games(text: str) -> list[chess.pgn.Game]:
    """Every game of a PGN text, read by python-chess; each must read without errors."""
    stream = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors, (game.errors, text)
        games.append(game)
    return games


def wait_until(predicate, timeout: float = 15.0, interval: float = 0.1):
    """Poll ``predicate()`` until it returns something true; that value, else the last."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)
