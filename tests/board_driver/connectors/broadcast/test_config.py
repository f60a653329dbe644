"""``[broadcast]`` and ``[hall]`` in the config file: every bad value named by its key,
the secrets masked in ``magboard config show``, and the modules' examples."""

from __future__ import annotations

import doctest

import pytest

import board_driver.connectors.broadcast.broker
import board_driver.connectors.broadcast.ledger
import board_driver.connectors.broadcast.publisher
import board_driver.connectors.broadcast.record
import board_driver.connectors.broadcast.revision
import board_driver.connectors.broadcast.topics
import board_driver.hall.games
import board_driver.hall.legal
from board_driver.service.config import ConfigError, parse_config, to_toml
from tests.board_driver.daemon_process import run_magboard


def problems(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="config.toml")
    return str(caught.value)


def test_broadcast_is_off_by_default_and_read_when_set():
    assert parse_config("").broadcast.enabled is False
    config = parse_config(
        '[broadcast]\nenabled = true\nhost = "hall.local"\nboard = 12\nround = "3"\n'
        'username = "board12"\npassword = "s3cret"\n'
    )
    assert (config.broadcast.host, config.broadcast.board, config.broadcast.round) == (
        "hall.local", 12, "3")


def test_every_bad_broadcast_value_is_named():
    text = problems(
        '[broadcast]\nenabled = true\nport = 0\nprefix = "club/#"\nhost = "a b"\n'
        'tls_ca = "/no/such/ca.pem"\n'
    )
    assert "config.toml: [broadcast] port: 0 is not between 1 and 65535" in text
    assert '[broadcast] prefix: "club/#" holds a wildcard' in text
    assert '[broadcast] host: "a b" is not a host name or address' in text
    # A missing board number and CA file are named too, beside the bad values.
    text = problems('[broadcast]\nenabled = true\ntls_ca = "/no/such/ca.pem"\n')
    assert "[broadcast] board: not set" in text
    assert "[broadcast] tls_ca: /no/such/ca.pem: no such file" in text


def test_a_disabled_broadcast_section_needs_no_board():
    assert parse_config('[broadcast]\nhost = "hall.local"\n').broadcast.board == 0


def test_the_hall_section_is_checked_like_any_other():
    text = problems('[hall]\nround = ""\nlichess_round = "abc"\nbase_url = "lichess.org"\n')
    assert '[hall] round: "" is not a round name' in text
    assert '[hall] lichess_round: "abc" is not a broadcast round id' in text
    assert '[hall] base_url: "lichess.org" is not an http:// or https:// address' in text
    text = problems('[hall]\nlichess_round = "AbCd1234"\n')
    assert "[hall] lichess_token: needed to push to lichess_round" in text


def test_secrets_are_masked_in_config_show(tmp_path):
    config = parse_config(
        '[broadcast]\nenabled = true\nboard = 2\nusername = "b2"\npassword = "pw-board"\n'
        '[hall]\npassword = "pw-hall"\nlichess_round = "AbCd1234"\nlichess_token = "lip_x"\n'
    )
    shown = to_toml(config)
    assert "pw-board" not in shown and "pw-hall" not in shown and "lip_x" not in shown
    path = tmp_path / "config.toml"
    path.write_text(
        '[broadcast]\nenabled = true\nboard = 2\nusername = "b2"\npassword = "pw-board"\n'
    )
    done = run_magboard("config", "show", "--config", str(path))
    assert done.returncode == 0, done.stderr
    assert "pw-board" not in done.stdout and "board = 2" in done.stdout


@pytest.mark.parametrize(
    "module",
    [
        board_driver.connectors.broadcast.broker,
        board_driver.connectors.broadcast.ledger,
        board_driver.connectors.broadcast.publisher,
        board_driver.connectors.broadcast.record,
        board_driver.connectors.broadcast.revision,
        board_driver.connectors.broadcast.topics,
        board_driver.hall.games,
        board_driver.hall.legal,
    ],
)
def test_module_examples_run(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0, module.__name__
