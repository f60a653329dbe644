"""``magboard run --sim`` as a real process, for the daemon's end-to-end tests.

Each :class:`DaemonProcess` gets its own config, store, simulated-board state file and
LED file under a temporary directory, listens on its own ``$NOTIFY_SOCKET`` as systemd
would, and collects the daemon's log lines as they come.

No test daemon ever listens where a user's ``make run`` does (the page's 8080, a broker's
1883): :func:`write_config` gives ``[web]`` a free port unless the test gave one, and
every ``run`` started here (:class:`DaemonProcess`, :func:`run_magboard`) is refused by
:func:`check_test_config` when its config would take a fixed port.
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
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Every daemon started and not yet ended, so that a failed test leaves none running.
RUNNING: list[DaemonProcess] = []
#: Every daemon started by the test running now (see :func:`check_daemons_of_a_test`).
STARTED: list[DaemonProcess] = []
#: The ports a user's daemons take (``make run``'s page, a broker): no test daemon may
#: even try them (``tests/test_beside_make_run.py`` holds them while tests run).
USER_PORTS = (8080, 1883)
MOVE_LINE = re.compile(r"(?:ply|move) (\d+): (\S+) \((\w+)\) stored in game (\d+)")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the kernel's choice, never a fixed one)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_config(directory: Path, extra: str = "") -> Path:
    """A config for a simulated board kept entirely under ``directory``; ``[web]`` on a
    free port unless ``extra`` has a ``[web]`` of its own (which must name its port, or
    turn the page off: :func:`check_test_config`)."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "config.toml"
    text = f"""
[store]
path = "{directory / "games.sqlite"}"
[sim]
state_file = "{directory / "sim-board.json"}"
leds_file = "{directory / "leds.json"}"
{extra}
"""
    try:
        has_web = "web" in tomllib.loads(text)
    except tomllib.TOMLDecodeError:  # a test of a broken file: the daemon never starts
        has_web = True
    if not has_web:
        text += f"\n[web]\nport = {free_port()}\n"
    config.write_text(text)
    check_test_config(config)
    return config


class FixedPortConfig(AssertionError):
    """A test config that would have a daemon listen on a fixed port."""


def check_test_config(path: Path) -> None:
    """Refuse a config that would have a test daemon listen where a user's daemon does:
    ``[web]`` (on unless turned off) and an enabled ``[broadcast]`` must name their
    ports, and never the defaults (a free one: :func:`free_port`)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # no file, or not one run can read: it stops before listening
    for section, default, on in (("web", 8080, True), ("broadcast", 1883, False)):
        table = data.get(section, {})
        if not isinstance(table, dict) or not table.get("enabled", on):
            continue
        port = table.get("port")
        if port is None or port == default:
            raise FixedPortConfig(
                f"{path}: [{section}] would listen on port {default}, a user's `make run` "
                f"port: give it a free port (free_port()) or enabled = false"
            )


def _checked_run(args: tuple[str, ...] | list[str]) -> None:
    """A ``run`` command line must name a config that passes :func:`check_test_config`
    (without one, run reads /etc/magboard/config.toml or none: port 8080)."""
    if not args or args[0] != "run" or "--help" in args:
        return
    if "--config" not in args:
        raise FixedPortConfig(
            "a test's `magboard run` needs --config with a free [web] port (write_config)"
        )
    check_test_config(Path(args[args.index("--config") + 1]))


class DaemonProcess:
    """``python -m board_driver run --sim --script - --config ...``, with its stdin open.

    ``script=None``: ``run --config ...`` only, with the hardware the config names.
    ``max_files``: the process's limit of open files (``ulimit -n``). ``environ``: more
    environment variables (``XDG_STATE_HOME``, for a state directory of the test's own).
    ``python``: the interpreter (another virtual environment's; default: the tests').
    ``cwd``: the folder it runs in (default: the checkout's root).
    """

    def __init__(
        self,
        directory: Path,
        *args: str,
        watchdog_usec: int | None = None,
        script: str | None = "-",
        max_files: int | None = None,
        environ: dict[str, str] | None = None,
        python: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] = ROOT,
    ) -> None:
        self.directory = directory
        self.config = directory / "config.toml"
        check_test_config(self.config)
        self.lines: list[str] = []
        self.notices: list[str] = []
        self._changed = threading.Condition()
        self._output_read = threading.Event()  # the output's end reached: every line is in
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
                str(python or sys.executable),
                "-m",
                "board_driver",
                "run",
                *(["--sim", "--script", script] if script else []),
                "--config",
                str(self.config),
                *args,
            ],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            preexec_fn=None if max_files is None else lambda: _limit_files(max_files),
        )
        RUNNING.append(self)
        STARTED.append(self)
        threading.Thread(target=self._read_output, daemon=True).start()
        threading.Thread(target=self._read_notices, daemon=True).start()

    def _read_output(self) -> None:
        assert self.proc.stdout is not None
        try:
            for line in self.proc.stdout:
                with self._changed:
                    self.lines.append(line.rstrip("\n"))
                    self._changed.notify_all()
        finally:
            self._output_read.set()
            with self._changed:
                self._changed.notify_all()

    def _read_what_is_left(self) -> None:
        """Once the process has ended: its last lines and notices, read before a last
        look (they may still sit in the pipe and the socket)."""
        self._output_read.wait(10)
        while True:
            try:
                data = self._notify.recv(4096, socket.MSG_DONTWAIT)
            except OSError:  # nothing left (or closed)
                return
            with self._changed:
                self.notices.extend(data.decode().split("\n"))

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
                if left <= 0:
                    return False
                if self.proc.poll() is not None:
                    break
                self._changed.wait(min(left, 0.1))
            else:
                return True
        # The process ended: one last look once all it said is read.
        self._read_what_is_left()
        with self._changed:
            return bool(predicate())

    def wait_ready(self, timeout: float = 60.0) -> None:
        # Generous: a hang is caught, a start slowed by a busy machine's disk is not one
        # (a start beside a VM being built took 15 s, most of it Python's imports).
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
        self._read_what_is_left()  # every line in before the test reads them
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


def check_daemons_of_a_test() -> None:
    """After a test (``tests/conftest.py`` calls this for every test): fail it if one of
    the daemons it started tried a user's port (it found a user's daemon there: ``cannot
    listen on 127.0.0.1:8080``). A module's daemon is the first test's to answer for."""
    tried = [
        line
        for daemon in STARTED
        for line in daemon.output().splitlines()
        if any("cannot listen on" in line and f":{port} " in line for port in USER_PORTS)
    ]
    STARTED.clear()
    if tried:
        pytest.fail("a test daemon tried a user's port:\n" + "\n".join(tried), pytrace=False)


def _limit_files(count: int) -> None:
    """In the child: at most ``count`` open file descriptors (``ulimit -n``)."""
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


def run_magboard(
    *args: str,
    env: dict | None = None,
    timeout: float = 60,
    python: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] = ROOT,
):
    """``python -m board_driver ARGS`` to completion (a ``run`` only with a test config:
    :func:`check_test_config`); ``python``: another interpreter than the tests'."""
    _checked_run(args)
    full_env = {k: v for k, v in os.environ.items() if k != "MAGBOARD_CONFIG"}
    full_env.update(env or {})
    return subprocess.run(
        [str(python or sys.executable), "-m", "board_driver", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        stdin=subprocess.DEVNULL,
    )


def private_network() -> list[str]:
    """A command prefix that runs a command in a network namespace of its own, where
    port 8080 is nobody else's (its loopback starts down); skips the test where this
    machine cannot make one (``unshare --net``: root, or user namespaces)."""
    for prefix in (["unshare", "--net"], ["unshare", "--net", "--map-root-user"]):
        try:
            made = subprocess.run([*prefix, "true"], capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if made.returncode == 0:
            return prefix
    pytest.skip("cannot make a network namespace here (unshare --net): the test needs 8080")
