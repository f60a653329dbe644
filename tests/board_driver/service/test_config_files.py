"""``config check`` and ``run`` agree on every file a config names (issue 24, items 4, 5).

Every key whose check is a :class:`~board_driver.door.config_values.FilePath` is walked, in its
section turned on, with files ``run`` cannot use: both commands exit 2 with the same words,
naming the key, and neither reads forever, waits on a FIFO or prints a trace. The default
run tries the nastiest of them on every key, and the attack run's cases; ``-m slow`` all of
them on every key.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from board_driver.door.config_values import FilePath
from board_driver.service.config.sections import SECTIONS
from board_driver.service.discovery import extensions
from tests.board_driver.daemon_process import free_port, run_magboard

#: How a test turns each section with a file key on (a new one fails the walk below until
#: it is added here).
TURN_ON = {
    "store": "",
    "sim": "",
    "lichess": 'enabled = true\nbase_url = "http://127.0.0.1:9"\n',
    "emulation": 'protocol = "dgt"\ndevice = "/nonexistent/tty"\n',
}
#: Files run cannot use, by name; each made under the test's directory where needed.
BAD = ("/dev/zero", "/dev/full", "fifo", "directory", "/sys/kernel/x", "/proc/self/status")


def file_keys() -> list[tuple[str, str, str]]:
    """(section, key, use) of every key that names a file the daemon uses."""
    found = [
        (section, key, check.use)
        for section, (_cls, checks) in SECTIONS.items()
        for key, check in checks.items()
        if isinstance(check, FilePath)
    ]
    for extension in extensions():
        found += [
            (extension.name, key, check.use)
            for key, check in extension.checks.items()
            if isinstance(check, FilePath)
        ]
    return found


def bad_file(directory: Path, name: str) -> Path:
    if name == "fifo":
        path = directory / "fifo"
        if not path.exists():
            os.mkfifo(path)
        return path
    if name == "directory":
        return directory
    return Path(name)


def write(directory: Path, files: dict[tuple[str, str], Path]) -> Path:
    """The config: everything under ``directory``, the page on a free port, each
    ``(section, key)`` of ``files`` naming its path, its section turned on."""
    tables: dict[str, dict[str, object]] = {
        "store": {"path": directory / "g.sqlite"},
        "sim": {"state_file": directory / "sim.json"},
        "web": {"port": free_port()},
    }
    for (section, key), path in files.items():
        tables.setdefault(section, {})[key] = path
    text = ""
    for name, keys in tables.items():
        text += f"[{name}]\n" + TURN_ON.get(name, "")
        text += "".join(
            f"{k} = {json.dumps(str(v)) if isinstance(v, Path) else v}\n" for k, v in keys.items()
        )
    config = directory / "config.toml"
    config.write_text(text)
    return config


def agree(directory: Path, section: str, key: str, path: Path) -> str:
    """``config check --sim`` and ``run --sim`` on the config (at once, side by side): both
    refuse, alike; the problem line."""
    config = write(directory, {(section, key): path})
    with ThreadPoolExecutor(2) as pool:
        check, run = pool.map(
            lambda command: run_magboard(*command, "--sim", "--config", str(config), timeout=30),
            [("config", "check"), ("run",)],
        )
    for result in (check, run):
        assert result.returncode == 2, (section, key, path, result.stderr)
        assert "Traceback" not in result.stderr, result.stderr
    problems = [line for line in check.stderr.splitlines() if f"[{section}] {key}: " in line]
    assert problems, check.stderr
    assert problems[0] in run.stderr.splitlines(), (check.stderr, run.stderr)  # same words
    return problems[0]


def test_every_file_key_is_known_how_to_turn_on():
    keys = file_keys()
    assert {("lichess", "token_file"), ("emulation", "trace"), ("sim", "leds_file")} <= {
        (section, key) for section, key, _use in keys
    }
    for section, key, _use in keys:
        assert section in TURN_ON, f"[{section}] {key}: say in TURN_ON how a test turns it on"


@pytest.mark.parametrize(("section", "key", "use"), file_keys())
def test_check_and_run_refuse_a_fifo_alike_on_every_file_key(tmp_path, section, key, use):
    problem = agree(tmp_path, section, key, bad_file(tmp_path, "fifo"))
    assert problem.endswith("is not a regular file (a named pipe)"), problem


@pytest.mark.parametrize(
    ("section", "key", "content", "mode", "said"),
    [
        ("lichess", "token_file", None, None, "/dev/zero is not a regular file"),
        ("lichess", "token_file", b"lip_\xff\n", 0o600, "is not UTF-8 text (byte 0xff"),
        ("lichess", "token_file", b"lip_abc\n", 0o644, "may be read by others than its owner"),
        ("lichess", "token_file", b"\n", 0o600, "is empty"),
        ("emulation", "trace", None, None, "/dev/full is not a regular file"),
        ("sim", "leds_file", None, None, "/sys/kernel/x cannot be written: /sys/kernel is in /sys"),
    ],
)  # fmt: skip
def test_the_attack_runs_files_are_refused_by_check_and_run_alike(
    tmp_path, section, key, content, mode, said
):
    """What the attack run found `config check` passing and `run` dying on, or hanging."""
    if content is None:
        path = Path({"token_file": "/dev/zero", "trace": "/dev/full"}.get(key, "/sys/kernel/x"))
    else:
        path = tmp_path / "file"
        path.write_bytes(content)
        path.chmod(mode)
    assert said in agree(tmp_path, section, key, path)


@pytest.mark.slow
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize(("section", "key", "use"), file_keys())
def test_check_and_run_agree_on_every_bad_file_on_every_key(tmp_path, section, key, use, bad):
    if use == "secret" and bad == "/sys/kernel/x":
        pytest.skip("a secret's file may be missing (the page's login writes it): not a bad one")
    agree(tmp_path, section, key, bad_file(tmp_path, bad))


def test_good_files_on_every_key_pass_both(tmp_path):
    """The same keys, each naming a file run can use: `config check` says ok, `run` starts."""
    from tests.board_driver.daemon_process import DaemonProcess

    files = {}
    for section, key, use in file_keys():
        path = tmp_path / f"{section}-{key}"
        if use == "secret":
            path.write_text("lip_abc\n")
            path.chmod(0o600)
        files[section, key] = path
    config = write(tmp_path, files)
    check = run_magboard("config", "check", "--sim", "--config", str(config), timeout=30)
    assert check.returncode == 0, check.stderr
    daemon = DaemonProcess(tmp_path, script="-")
    try:
        daemon.wait_ready(timeout=30)
    finally:
        daemon.terminate()
