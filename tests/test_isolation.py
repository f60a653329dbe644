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


#: A machine where the service is installed (issue 32, item 9: a Raspberry Pi), made in a
#: mount namespace of the test's own: ``/etc`` and ``/var/lib`` are overlays on a tmpfs
#: (nothing outside the namespace changes), holding a config no TOML reader takes and a
#: store that is no SQLite file, and ``$HOME`` a home whose own state and config are the
#: same poison. A test that read any of them would fail, naming it.
INSTALLED = r"""
set -euo pipefail
scratch="$1"; shift
mount -t tmpfs tmpfs "$scratch"
for d in etc lib; do mkdir -p "$scratch/$d-up" "$scratch/$d-work"; done
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$scratch/etc-up,workdir=$scratch/etc-work" /etc
mount -t overlay overlay \
    -o "lowerdir=/var/lib,upperdir=$scratch/lib-up,workdir=$scratch/lib-work" /var/lib
home="$scratch/home"
mkdir -p /etc/magboard /var/lib/magboard "$home/.local/state/magboard" "$home/.config/magboard"
for config in /etc/magboard/config.toml "$home/.config/magboard/config.toml"; do
    printf 'POISON = [ # the machine'"'"'s own config, read by a test\n' > "$config"
done
for store in /var/lib/magboard/magboard.sqlite "$home/.local/state/magboard/magboard.sqlite"; do
    printf 'the machine'"'"'s own store, read by a test\n' > "$store"
done
echo "installed: $(env -u CONFIGURATION_DIRECTORY -u XDG_STATE_HOME "$PYTHON" -m board_driver \
    config check 2>&1 | tail -1)"
export HOME="$home"
exec "$PYTHON" -m pytest -p no:cacheprovider -o addopts= -q -m "not slow and not system" "$@"
"""

#: Tests that run ``magboard`` without ``--config`` or read the default paths.
WITHOUT_A_CONFIG = [
    "tests/test_isolation.py::test_a_command_without_a_config_reads_the_tests_own_directory_not_the_machines",
    "tests/board_driver/commands/test_cli.py",
]


def _beside_an_installed_service(tmp_path: Path, tests: list[str]) -> str:
    import shutil
    import subprocess
    import sys

    import pytest

    from tests.conftest import ROOT

    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs root and unshare(1) for a mount namespace of the test's own")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    result = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", INSTALLED, "installed",
         str(scratch), *tests],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PYTHON": sys.executable},
    )  # fmt: skip
    out = result.stdout + result.stderr
    if "mount: " in out and "installed:" not in out:
        pytest.skip(f"cannot make the namespace's mounts here: {out.strip()[-300:]}")
    # The poison is there: a command run as a user runs it reads the machine's config.
    assert "installed: /etc/magboard/config.toml: not valid TOML" in out, out
    assert result.returncode == 0, out
    return out


def test_the_tests_pass_on_a_machine_where_the_service_is_installed(tmp_path: Path) -> None:
    out = _beside_an_installed_service(tmp_path, WITHOUT_A_CONFIG)
    assert "5 passed" in out and "POISON" not in out, out
