"""The revision file beside the store never holds the board up (issue 32: no file the board
wrote itself keeps it down), through the real daemon and a real Mosquitto.

``broadcast-revision`` keeps the highest revision the board reserved, read once when it
first publishes. A named pipe there was waited on for ever in a thread: nothing reached the
hall, and the stop never returned (systemd would have killed it); ``/dev/zero`` there was
read without end, the daemon's memory growing until the kernel killed it. Now such a file
is refused in words and revisions start from the clock, as for one that holds no revision.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from board_driver.connectors.broadcast.revision import Revisions
from board_driver.connectors.broadcast.topics import Topics
from tests.board_driver.connectors.broadcast.listener import Listener
from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
    write_config,
)
from tests.mosquitto import Mosquitto

T = Topics("club")


def _plies(got: Listener) -> int:
    record = got.last(T.record(3, 1))
    return len(record.json()["moves"]) if record else 0


def test_a_named_pipe_for_the_revision_file_holds_neither_the_moves_nor_the_stop(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    write_config(
        tmp_path,
        f'[web]\nenabled = false\n[broadcast]\nenabled = true\nhost = "{mosquitto.host}"\n'
        f'port = {mosquitto.port}\nboard = 3\nprefix = "club"\n',
    )
    os.mkfifo(tmp_path / "broadcast-revision")

    async def main() -> DaemonProcess:
        async with Listener(mosquitto, "club/#") as got:
            daemon = DaemonProcess(tmp_path, script="-")
            daemon.wait_ready()
            daemon.send("lift e2", "place e4")
            assert await got.until(lambda g: len(g.on("/game/1/move")) == 1), daemon.output()
            assert await got.until(lambda g: _plies(g) == 1), daemon.output()
            assert got.last(T.record(3, 1)).json()["revision"] > 0
        started = time.monotonic()
        daemon.terminate(timeout=10)
        assert time.monotonic() - started < 10
        return daemon

    daemon = asyncio.run(main())
    out = daemon.output()
    assert daemon.proc.returncode == 0, out
    assert "broadcast-revision is not a regular file (a named pipe); revisions start from the " \
        "clock" in out, out  # fmt: skip
    assert "Traceback" not in out, out


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null"])
def test_a_device_for_the_revision_file_is_refused_not_read(tmp_path: Path, target: str) -> None:
    path = tmp_path / "broadcast-revision"
    path.symlink_to(target)

    async def first() -> int:
        return await Revisions(path, clock_ms=lambda: 5000).next()

    assert asyncio.run(first()) == 5000  # the clock's, at once
