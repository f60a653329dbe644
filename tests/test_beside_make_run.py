"""``make test`` runs beside ``make run`` (issue 24, item 9): no test daemon listens on a
user's port, and the harness refuses a config that would have one do so.

The proof runs in a network namespace of its own (``unshare --net``), where a ``magboard
run --sim`` holds 127.0.0.1:8080 as a user's ``make run`` would while tests that start
daemons in every way the suite does run beside it (``tests/beside_make_run.py``).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.board_driver.daemon_process import (
    DaemonProcess,
    FixedPortConfig,
    private_network,
    run_magboard,
    write_config,
)
from tests.conftest import ROOT

#: One test for each way the suite starts a daemon: DaemonProcess on write_config's
#: defaults, run_magboard("run", ...), the page's WebDaemon.
EVERY_WAY = [
    "tests/board_driver/service/test_daemon.py::test_an_illegal_position_is_lit_until_put_right",
    "tests/board_driver/service/test_daemon.py::test_a_corrupt_database_is_a_clear_error",
    "tests/board_driver/connectors/web/test_http.py"
    "::test_a_token_from_the_config_is_the_one_that_counts",
]
#: Every folder whose tests start daemons (the slow proof).
DAEMON_FOLDERS = [
    "tests/board_driver/service",
    "tests/board_driver/connectors/web",
    "tests/board_driver/players",
    "tests/board_driver/boardscript",
    "tests/board_driver/commands",
]


def beside_make_run(tests: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*private_network(), sys.executable, "-m", "tests.beside_make_run", "-q", *tests],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_tests_that_start_daemons_pass_beside_make_run_holding_8080():
    result = beside_make_run([*EVERY_WAY, "-m", "not slow"], timeout=600)
    out = result.stdout + result.stderr
    assert "holds 127.0.0.1:8080" in out, out
    assert result.returncode == 0, out
    assert "make run still serving: True" in out, out


@pytest.mark.slow
def test_every_daemon_test_passes_beside_make_run_holding_8080():
    result = beside_make_run([*DAEMON_FOLDERS, "-m", "not slow"], timeout=3600)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-20000:]
    assert "make run still serving: True" in out


def test_a_test_config_without_a_port_is_refused_by_the_harness(tmp_path):
    config = write_config(tmp_path)  # no [web]: it gets a free port
    assert "port = " in config.read_text()
    for extra in ('[web]\nhost = "127.0.0.1"\n', "[web]\nport = 8080\n"):
        with pytest.raises(FixedPortConfig, match=r"\[web\] would listen on port 8080"):
            write_config(tmp_path / "own-web", extra)
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "config.toml").write_text(f'[store]\npath = "{bare / "g.sqlite"}"\n')
    with pytest.raises(FixedPortConfig):
        run_magboard("run", "--sim", "--config", str(bare / "config.toml"))
    with pytest.raises(FixedPortConfig):
        DaemonProcess(bare)  # refused before any process starts
    with pytest.raises(FixedPortConfig, match="needs --config"):
        run_magboard("run", "--sim")
    broker = "[broadcast]\nenabled = true\nboard = 1\n"
    with pytest.raises(FixedPortConfig, match=r"\[broadcast\] would listen on port 1883"):
        write_config(tmp_path / "broker", broker)
