"""The tests never read this machine's config or state (issue 32, item 9).

On a Raspberry Pi with the service installed, ``make test`` failed: a test running
``magboard`` without ``--config`` read the installed ``/etc/magboard/config.toml``. The test
harness (``tests/conftest.py``) now gives every process the tests start a config directory
(``$CONFIGURATION_DIRECTORY``, which the daemon reads as systemd sets it for the service)
and a state directory (``$XDG_STATE_HOME``) of their own, and none of the variables the
service is given.
"""

from __future__ import annotations

import os
from pathlib import Path

from board_driver.service.config import default_config_path, state_directory
from tests.board_driver.daemon_process import run_magboard
from tests.conftest import ISOLATED


def test_a_command_without_a_config_reads_the_tests_own_directory_not_the_machines() -> None:
    assert not os.environ.get("MAGBOARD_CONFIG") and not os.environ.get("STATE_DIRECTORY")
    assert default_config_path().is_relative_to(ISOLATED)
    assert state_directory().is_relative_to(ISOLATED)
    checked = run_magboard("config", "check")
    shown = run_magboard("config", "show")
    assert checked.returncode == 0, checked.stderr
    said = checked.stdout + checked.stderr + shown.stdout
    own = str(ISOLATED / "etc" / "magboard" / "config.toml")
    assert own in said, said
    assert "/etc/magboard/config.toml" not in said.replace(own, "(the tests' own)"), said
    assert str(ISOLATED / "state" / "magboard" / "magboard.sqlite") in shown.stdout


def test_the_service_reads_the_config_directory_systemd_gives_it() -> None:
    assert default_config_path({"CONFIGURATION_DIRECTORY": "/etc/magboard"}) == Path(
        "/etc/magboard/config.toml"
    )
    assert default_config_path({}) == Path("/etc/magboard/config.toml")
