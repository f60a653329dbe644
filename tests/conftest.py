"""Shared test helpers.

``SHARED_DATA`` is the project's read-only test data (``perft.epd``, ``selfplay.pgn``):
``<project root>/../shared/data`` in CI (a clone with ``shared/`` beside it), falling
back to ``/work/shared/data`` in a developer's worktree.

``SCHOLARS_MATE`` is docs/board-script.md's first example script, and
``SCHOLARS_MATE_MOVES`` the moves it replays to.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

# Hypothesis's pytest plugin imports hypothesis at the session's end if no test did, and
# pytest then rewrites its modules with ast.parse while an in-process daemon's thread may
# be formatting a traceback (3.11 parses for the carets). CPython 3.11's conversion of
# parsed trees is not thread-safe ("SystemError: AST constructor recursion depth
# mismatch", seen here on 3.11.7): imported now, before any thread runs.
import hypothesis  # noqa: F401
import pytest

ROOT = Path(__file__).resolve().parents[1]

# Tests never read this machine's config or state (issue 32, item 9: on a Pi with the service
# installed, a test running `magboard` without --config read /etc/magboard/config.toml):
# every process the tests start, and the tests themselves, see a config directory and a
# state directory of their own, empty, and none of the variables systemd gives the service.
ISOLATED = Path(tempfile.mkdtemp(prefix="magboard-tests-"))
atexit.register(shutil.rmtree, ISOLATED, True)
for _name in ("MAGBOARD_CONFIG", "STATE_DIRECTORY", "JOURNAL_STREAM", "NOTIFY_SOCKET",
              "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "INVOCATION_ID"):  # fmt: skip
    os.environ.pop(_name, None)
os.environ["CONFIGURATION_DIRECTORY"] = str(ISOLATED / "etc" / "magboard")
os.environ["XDG_STATE_HOME"] = str(ISOLATED / "state")
os.environ["XDG_CONFIG_HOME"] = str(ISOLATED / "config")


def _find_shared_data() -> Path:
    for candidate in (ROOT / ".." / "shared" / "data", Path("/work/shared/data")):
        if candidate.is_dir():
            return candidate.resolve()
    return (ROOT / ".." / "shared" / "data").resolve()


SHARED_DATA = _find_shared_data()


SCHOLARS_MATE = """\
# Scholar's mate, played the way people do it
gap 300
lift e2
place e4
lift e7
place e5
lift f1
place c4
lift b8
place c6
lift d1
place h5
lift g8
place f6
lift f7        # the queen's victim leaves first
lift h5
place f7       # 4. Qxf7#
"""
SCHOLARS_MATE_MOVES = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


@pytest.fixture(autouse=True)
def test_daemons_keep_off_the_users_ports():
    """Every test: none of the daemons it started tried a user's port."""
    yield
    from tests.board_driver.daemon_process import check_daemons_of_a_test

    check_daemons_of_a_test()
