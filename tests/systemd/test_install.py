"""systemd/install.sh against a temporary root prefix, and the unit checked by systemd's tools.

Under --prefix the script stages files only: apt-get, groupadd/useradd, systemctl, udevadm
and raspi-config are listed as "skipped (prefix)" and not run (they would change this
machine), and so is the virtual environment unless --with-venv is given.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from board_driver.service.config import parse_config

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "systemd" / "install.sh"
UNIT = ROOT / "systemd" / "magboard.service"


def install(prefix: Path, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        ["bash", str(INSTALL), "--prefix", str(prefix), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def tree(prefix: Path) -> dict[str, bytes]:
    """Every file and symlink under the prefix (a link as b"-> target")."""
    found = {}
    for p in sorted(prefix.rglob("*")):
        if p.is_symlink():
            found[str(p.relative_to(prefix))] = b"-> " + os.readlink(p).encode()
        elif p.is_file():
            found[str(p.relative_to(prefix))] = p.read_bytes()
    return found


def unit_settings(text: str) -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).append(value)
    return settings


def test_install_stages_unit_rules_and_config_and_lists_skipped_system_steps(tmp_path):
    result = install(tmp_path)
    files = tree(tmp_path)
    assert files["etc/systemd/system/magboard.service"] == UNIT.read_bytes()
    assert b"magboard-bridge" in files["etc/udev/rules.d/99-magboard.rules"]
    config = parse_config(files["etc/magboard/config.toml"].decode())
    assert config.store.path == "/var/lib/magboard/magboard.sqlite"
    assert (tmp_path / "var/lib/magboard").is_dir()
    assert files["usr/local/bin/magboard"] == b"-> /opt/magboard/bin/magboard"
    skipped = re.findall(r"skipped \(prefix\): (\S+)", result.stdout)
    for tool in ("apt-get", "useradd", "systemctl", "udevadm"):
        assert tool in skipped
    assert "--groups gpio,spi,dialout,bluetooth,audio magboard" in result.stdout


def test_install_twice_changes_nothing_and_keeps_an_edited_config(tmp_path):
    install(tmp_path)
    config = tmp_path / "etc/magboard/config.toml"
    config.write_text("[leds]\nbrightness = 0.1\n")
    before = tree(tmp_path)
    second = install(tmp_path)
    assert tree(tmp_path) == before
    assert "unchanged: /etc/systemd/system/magboard.service" in second.stdout
    assert "daemon-reload" not in second.stdout  # nothing to reload


def test_uninstall_keeps_games_and_config_unless_purged_and_is_idempotent(tmp_path):
    install(tmp_path)
    (tmp_path / "var/lib/magboard/magboard.sqlite").write_bytes(b"games")
    install(tmp_path, "--uninstall")
    left = tree(tmp_path)
    assert "etc/systemd/system/magboard.service" not in left
    assert "etc/udev/rules.d/99-magboard.rules" not in left
    assert "var/lib/magboard/magboard.sqlite" in left and "etc/magboard/config.toml" in left
    install(tmp_path, "--uninstall")  # again: fine
    install(tmp_path, "--uninstall", "--purge")
    assert tree(tmp_path) == {}


def test_unknown_option_is_refused(tmp_path):
    result = subprocess.run(
        ["bash", str(INSTALL), "--prefix", str(tmp_path), "--frobnicate"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "unknown option --frobnicate" in result.stderr


def test_purge_without_uninstall_is_refused(tmp_path):
    result = subprocess.run(
        ["bash", str(INSTALL), "--prefix", str(tmp_path), "--purge"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "--purge goes with --uninstall" in result.stderr
    assert tree(tmp_path) == {}  # nothing installed, nothing removed


def test_a_unit_that_cannot_be_written_stops_the_install(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/systemd").write_text("a file where a directory must go")
    result = subprocess.run(
        ["bash", str(INSTALL), "--prefix", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0
    assert "done." not in result.stdout


def test_with_engine_installs_stockfish_too(tmp_path):
    plain = install(tmp_path / "plain")
    assert "stockfish" not in plain.stdout
    result = install(tmp_path / "engine", "--with-engine")
    apt = [line for line in result.stdout.splitlines() if "apt-get install" in line]
    assert apt and apt[0].endswith(" stockfish")


def test_with_speech_installs_espeak_ng_too(tmp_path):
    assert "espeak-ng" not in install(tmp_path / "plain").stdout
    result = install(tmp_path / "speech", "--with-engine", "--with-speech")
    apt = [line for line in result.stdout.splitlines() if "apt-get install" in line]
    assert apt and apt[0].endswith(" stockfish espeak-ng")


def test_unit_is_a_notify_service_with_watchdog_user_and_device_allow_list():
    s = unit_settings(UNIT.read_text())
    assert s["Type"] == ["notify"]
    assert s["Restart"] == ["on-failure"]
    assert s["WatchdogSec"] and s["User"] == ["magboard"]
    assert s["SupplementaryGroups"] == ["gpio spi dialout bluetooth audio"]
    assert s["StateDirectory"] == ["magboard"] and s["ConfigurationDirectory"] == ["magboard"]
    assert s["DevicePolicy"] == ["closed"]
    allowed = " ".join(s["DeviceAllow"])
    for device in ("gpiochip", "spi", "ttyACM", "ttyGS", "rfcomm", "alsa"):
        assert f"char-{device} rw" in allowed
    assert s["ExecStart"] == ["/opt/magboard/bin/magboard run"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not here")
def test_systemd_analyze_verify_finds_nothing_to_complain_about(tmp_path):
    # verify insists that ExecStart exists: point it at a stand-in executable.
    stand_in = tmp_path / "magboard"
    stand_in.write_text("#!/bin/sh\n")
    stand_in.chmod(0o755)
    unit = tmp_path / "magboard.service"
    unit.write_text(UNIT.read_text().replace("/opt/magboard/bin/magboard", str(stand_in)))
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not here")
def test_systemd_analyze_security_rates_the_unit_at_most_1_5(tmp_path):
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", str(UNIT)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    if "--offline" in result.stderr and "unrecognized" in result.stderr:
        pytest.skip("this systemd-analyze cannot rate a unit file offline (needs systemd >= 250)")
    match = re.search(r"Overall exposure level for magboard.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 1.5


def test_default_config_written_by_install_is_valid_toml(tmp_path):
    install(tmp_path)
    data = tomllib.loads((tmp_path / "etc/magboard/config.toml").read_text())
    assert data["web"]["host"] == "0.0.0.0"


@pytest.mark.slow
def test_with_venv_installs_magboard_with_the_pi_extra_into_the_prefix(tmp_path):
    # Needs PyPI (pip downloads the `pi` extra's packages): run by hand with -m slow.
    install(tmp_path, "--with-venv")
    magboard = tmp_path / "opt/magboard/bin/magboard"
    result = subprocess.run(
        [str(magboard), "config", "check", "--config", str(tmp_path / "etc/magboard/config.toml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    python = tmp_path / "opt/magboard/bin/python"
    for module in ("gpiod", "neopixel_spi", "serial"):
        found = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True)
        assert found.returncode == 0, f"{module}: {found.stderr.decode()}"
    second = install(tmp_path, "--with-venv")  # again: the venv is kept, only updated
    assert "created venv" not in second.stdout


# ---------------------------------------------------------------- issue 16: the builder's path

GUIDE = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_guide_gives_one_path_to_the_pi_clone_then_install_sh(tmp_path):
    """Item 13: the guide's way onto the Pi is the installer's: the repository copied onto
    the Pi, then `sudo systemd/install.sh`, which installs that copy (magboard is not on
    PyPI), with python3-venv among its packages."""
    steps = _section(GUIDE, "Setting up the Pi")
    assert "git clone" in steps and "sudo systemd/install.sh" in steps
    assert "pip install 'magboard" not in GUIDE and "not on PyPI" in steps
    result = install(tmp_path)
    apt = next(line for line in result.stdout.splitlines() if "apt-get install" in line)
    for package in ("python3-venv", "python3"):
        assert f" {package}" in apt
    for package in re.findall(r"`(python3[\w-]*|gcc|sqlite3)`", steps):
        assert f" {package}" in apt, package
    # The clone it sits in is what it installs, and the way to update is said.
    assert f"pip install '{ROOT}[pi]'" in result.stdout
    assert f"git -C {ROOT} pull" in result.stdout


def test_the_installed_config_and_the_guide_agree_buttons_are_off_until_wired(tmp_path):
    """Item 2: the guide's 'no config needed' no longer covers buttons, which are off until
    configured, and the installed config says so and how to turn them on."""
    install(tmp_path)
    text = (tmp_path / "etc/magboard/config.toml").read_text()
    config = parse_config(text)
    assert config.buttons.backend == "none"
    assert '#   backend = "gpiod"' in text
    assert 'backend = "gpiod"' in _section(GUIDE, "Buttons")
    assert "off until the config" in GUIDE


def test_the_installer_frees_gpio_7_to_9_for_the_buttons_once(tmp_path):
    from board_driver.physical.pinmap import SPI_OVERLAY

    boot = tmp_path / "boot/firmware/config.txt"
    boot.parent.mkdir(parents=True)
    boot.write_text("dtparam=spi=on\n")
    first = install(tmp_path)
    assert boot.read_text().splitlines()[-1] == SPI_OVERLAY
    assert "reboot" in first.stdout
    install(tmp_path)  # again: the line is there once
    assert boot.read_text().count(SPI_OVERLAY) == 1
    assert SPI_OVERLAY in GUIDE
    # A boot config that chose SPI0's chip selects already is left as it is.
    other = tmp_path / "other"
    (other / "boot/firmware").mkdir(parents=True)
    (other / "boot/firmware/config.txt").write_text("dtoverlay=spi0-2cs\n")
    install(other)
    assert (other / "boot/firmware/config.txt").read_text() == "dtoverlay=spi0-2cs\n"


# ---------------------------------------------------------------- issue 24, item 12


def test_the_installed_config_says_what_the_unit_does_about_addresses(tmp_path):
    """The config once said the unit allows private addresses only; the unit has no IP
    filter. Whatever the unit does, the config's words follow it."""
    install(tmp_path)
    text = (tmp_path / "etc/magboard/config.toml").read_text()
    unit = unit_settings(UNIT.read_text())
    filtered = "IPAddressDeny" in unit or "IPAddressAllow" in unit
    assert ("no IP address filter" in text) is not filtered, text
    if not filtered:
        assert "private addresses" not in text and "allows" not in text
    assert filtered or "no ip address filter" in UNIT.read_text().lower()  # it says so too


def test_under_a_prefix_there_is_no_warning_about_the_system(tmp_path):
    result = install(tmp_path)
    assert "warning" not in result.stdout and "unknown" not in result.stdout, result.stdout
    assert "system: not checked (staging under" in result.stdout
    # A prefix that holds a system (an image being built) has it checked.
    image = tmp_path / "image"
    (image / "etc").mkdir(parents=True)
    (image / "etc/os-release").write_text("ID=debian\nVERSION_CODENAME=trixie\n")
    assert "system: trixie" in install(image).stdout


def test_the_prefix_is_documented_where_builders_read(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "install.sh --prefix" in readme
    steps = _section(GUIDE, "Setting up the Pi")
    assert "systemd/install.sh --prefix DIR" in steps and "skipped (prefix)" in steps
    # What the guide says it lists is what the script lists.
    listed = re.findall(r"skipped \(prefix\): (\S+)", install(tmp_path).stdout)
    for tool in re.findall(r"`(apt-get|useradd|systemctl|udevadm|raspi-config)`", steps):
        assert tool in listed, tool

def test_lgpio_makes_its_pipes_in_the_state_directory_not_in_the_read_only_root():
    """rpi-lgpio (RPi.GPIO on a Pi 5) makes FIFOs in lgpio's working directory, the current
    one (/) by default, which ProtectSystem=strict makes read-only: the rpigpio backend then
    failed to start (found in tests/system, test_matrix.py)."""
    s = unit_settings(UNIT.read_text())
    assert "ProtectSystem" in s and s["ProtectSystem"] == ["strict"]
    assert "LG_WD=%S/magboard" in s["Environment"]
    assert s["StateDirectory"] == ["magboard"]  # %S/magboard is the service's own


def test_help_prints_the_whole_usage_comment():
    """The usage is the script's first comment, to its end, however long it grows (it was
    cut at a fixed line, and lost its last lines when options were added)."""
    result = subprocess.run(["bash", str(INSTALL), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Install (or remove) magboard as a system service")
    assert lines[-1] == "Running it again is safe: every step checks before it acts."
    for option in ("--uninstall", "--purge", "--with-engine", "--with-speech", "--prefix"):
        assert option in result.stdout
    assert "set -euo" not in result.stdout and "chroot" in result.stdout
