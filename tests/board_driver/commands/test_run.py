"""``magboard run`` as a newcomer meets it (issue 16): where it keeps its state, the terminal
board, and ``--record``."""

from __future__ import annotations

import os

from tests.board_driver.daemon_process import run_magboard


def _env(tmp_path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_STATE_HOME", "STATE_DIRECTORY")}
    env.update(HOME=str(tmp_path / "home"), **extra)
    return env


def test_only_the_service_uses_the_services_state_directory(tmp_path):
    """Item 4: outside systemd, root included (these tests run as root in CI), the state is
    the user's own; the service is told its directory by systemd ($STATE_DIRECTORY)."""
    config = tmp_path / "empty.toml"
    config.write_text("")
    mine = run_magboard("games", "--config", str(config), env=_env(tmp_path))
    assert f"{tmp_path}/home/.local/state/magboard/magboard.sqlite" in mine.stderr
    assert "/var/lib/magboard" not in mine.stderr
    service = run_magboard(
        "games", "--config", str(config), env=_env(tmp_path, STATE_DIRECTORY=str(tmp_path / "s"))
    )
    assert f"{tmp_path}/s/magboard.sqlite" in service.stderr
