"""``make test`` beside ``make run``, in a network namespace of its own (issue 24, item 9).

Run as ``unshare --net python -m tests.beside_make_run PYTEST-ARGS...`` (see
``tests/test_beside_make_run.py``): inside a private network, where port 8080 belongs to
nobody else, it brings the loopback up, starts what ``make run`` starts (``magboard run
--sim``, no config, its state in a temporary home) so that it holds 127.0.0.1:8080, runs
pytest on the given tests, and then checks that the ``make run`` daemon is still there
and its page still answers. It exits 0 only if all of that holds; what it saw is printed.

A test daemon that tried port 8080 here finds it taken and says so in its log, which
fails its test (``tests/conftest.py``), so the tests pass here only if none tries it.
"""

from __future__ import annotations

import fcntl
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = "http://127.0.0.1:8080/api/state"
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    """``ip link set lo up`` without iproute2: a new namespace's loopback starts down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))


def page_answers(timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(PAGE, timeout=2) as response:
                return response.status == 200
        except OSError:
            time.sleep(0.1)
    return False


def main(pytest_args: list[str]) -> int:
    loopback_up()
    home = Path(tempfile.mkdtemp(prefix="magboard-make-run-"))
    env = {k: v for k, v in os.environ.items() if k not in ("MAGBOARD_CONFIG", "STATE_DIRECTORY")}
    env.update(HOME=str(home), XDG_STATE_HOME=str(home / "state"))
    make_run = subprocess.Popen(
        [sys.executable, "-m", "board_driver", "run", "--sim"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        if not page_answers(60):
            print("beside make run: `magboard run --sim` never served 127.0.0.1:8080")
            return 3
        print("beside make run: `magboard run --sim` holds 127.0.0.1:8080", flush=True)
        tests = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *pytest_args],
            cwd=ROOT,
        )
        still = make_run.poll() is None and page_answers(10)
        print(f"beside make run: tests exit {tests.returncode}; make run still serving: {still}")
        return tests.returncode if still else 4
    finally:
        make_run.terminate()
        try:
            output, _ = make_run.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            make_run.kill()
            output, _ = make_run.communicate()
        print("beside make run: its log:\n" + output)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
