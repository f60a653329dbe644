"""``[emulation]``: the section, its checks, and what it costs when it is off."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from board_driver.connectors.emulation import EmulationConfig, extension
from board_driver.service.config import ConfigError, parse_config, to_toml
from board_driver.service.discovery import installed
from tests.board_driver.daemon_process import ROOT


def test_off_by_default_and_on_with_a_protocol():
    config = parse_config("")
    assert config.emulation == EmulationConfig()
    assert not extension.enabled(config.emulation, config)
    on = parse_config('[emulation]\nprotocol = "chesslink"\ndevice = "/dev/rfcomm0"\n')
    assert extension.enabled(on.emulation, on)
    assert on.emulation.device == "/dev/rfcomm0" and on.emulation.colour == "cyan"
    assert installed().owner("emulation").extension is extension


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'protocol = "uci"',
            '[emulation] protocol: "uci" is not one of "none", "dgt", "chesslink", "pegasus", '
            '"chessnut"',
        ),
        (
            'protocol = "chessnut"',
            '[emulation] transport: "serial" is not for protocol "chessnut" (Chessnut\'s boards '
            'use "ble": transport = "ble")',
        ),
        ('transport = "usb"', '[emulation] transport: "usb" is not one of "serial", "ble"'),
        (
            'protocol = "pegasus"',
            '[emulation] transport: "serial" is not for protocol "pegasus" (the Pegasus use',
        ),
        (
            'protocol = "dgt"\ntransport = "ble"',
            '[emulation] transport: "ble" is not for protocol "dgt" (DGT\'s serial boards use',
        ),
        ('name = "' + "x" * 30 + '"', "[emulation] name: "),
        ('name = "échecs"', '[emulation] name: "échecs" is not up to 29 printable ASCII'),
        ('adapter = "wlan0"', '[emulation] adapter: "wlan0" is not a Bluetooth controller'),
        ('protocol = "dgt"\ndevice = ""', '[emulation] device: "" names no device'),
        ('colour = "pink"', '[emulation] colour: "pink" is not one of "red"'),
        ("device = 3", "[emulation] device: 3 is not a string"),
        (
            "baud = 9600",
            "[emulation] baud: unknown key (known: protocol, transport, device, name, adapter,"
            " colour, trace)",
        ),
    ],
)
def test_bad_values_are_named_with_their_key(text, message):
    with pytest.raises(ConfigError) as caught:
        parse_config(f"[emulation]\n{text}\n", source="config.toml")
    assert message in str(caught.value)


def test_config_show_writes_the_section_back_as_valid_toml():
    config = parse_config('[emulation]\nprotocol = "dgt"\n')
    data = tomllib.loads(to_toml(config))
    assert data["emulation"] == {
        "protocol": "dgt",
        "transport": "serial",
        "device": "/dev/ttyGS0",
        "name": "",
        "adapter": "",
        "colour": "cyan",
        "trace": "",
    }


def test_bluetooth_le_needs_no_device_and_takes_a_name_and_an_adapter():
    on = parse_config(
        '[emulation]\nprotocol = "pegasus"\ntransport = "ble"\ndevice = ""\n'
        'name = "PCS-REVII-081500"\nadapter = "hci1"\n'
    )
    assert extension.enabled(on.emulation, on)
    assert (on.emulation.name, on.emulation.adapter) == ("PCS-REVII-081500", "hci1")


def test_pyserial_and_dbus_fast_are_imported_only_when_the_emulation_runs():
    code = (
        "import sys, board_driver.service.config as c; c.parse_config('');"
        "import board_driver.connectors.emulation;"
        "print(sorted(m for m in sys.modules if m in ('serial', 'dbus_fast')"
        " or m.startswith('board_driver.connectors.emulation.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_pyserial_and_dbus_fast_are_in_the_pi_extra_and_dbus_fast_in_ble():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert any(d.startswith("pyserial") for d in extras["pi"])
    assert any(d.startswith("dbus-fast") for d in extras["pi"])
    assert [d.split(">")[0] for d in extras["ble"]] == ["dbus-fast"]
