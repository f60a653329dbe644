"""The ``[lichess]`` section (the token masked, bad values named) and a token file others
may read. The login on the page, finding games and playing them are proven through the
real daemon (``test_daemon_*.py``, ``test_page.py``)."""

from __future__ import annotations

import pytest

from board_driver.players.lichess import LichessConfig
from board_driver.players.lichess.player import LichessPlayer
from board_driver.service.config import ConfigError, parse_config, to_toml
from tests.board_driver.players.lichess.door_fake import FakeDoor
from tests.board_driver.players.lichess.helpers import run, until


def test_config_show_masks_the_token_and_check_names_bad_values():
    config = parse_config('[lichess]\nenabled = true\ntoken = "lip_abcdef123"\n')
    assert config.section("lichess").token == "lip_abcdef123"
    shown = to_toml(config)
    assert "lip_abcdef123" not in shown
    assert 'token = "(secret: 13 characters)"' in shown
    with pytest.raises(ConfigError) as bad:
        parse_config('[lichess]\nbase_url = "lichess.org"\ntoken = "lip x"\n')
    text = str(bad.value)
    assert "[lichess] base_url" in text and "[lichess] token" in text
    assert "lip x" not in text


def test_a_token_file_others_may_read_is_refused_and_the_board_plays_on(fake, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(fake.token + "\n")
    token_file.chmod(0o644)

    async def scenario():
        door = FakeDoor()
        config = LichessConfig(enabled=True, token_file=str(token_file), base_url=fake.base_url)
        player = await LichessPlayer(door, config, state_dir=tmp_path).start()
        assert player.connection == "token_rejected"
        assert "chmod 600" in player.state()["message"]
        await door.move("e2e4")
        assert door.snapshot().ucis == ("e2e4",)
        await player.stop()

    run(scenario())


# ---------------------------------------------------------------- issue 24, item 11


def test_without_a_token_the_message_names_the_file_looked_for(tmp_path):
    async def message(config: LichessConfig) -> str:
        door = FakeDoor()
        player = await LichessPlayer(door, config, state_dir=tmp_path).start()
        try:
            assert player.connection == "no_token"
            return player.state()["message"]
        finally:
            await player.stop()

    missing = tmp_path / "lichess-token-file"
    said = run(message(LichessConfig(enabled=True, token_file=str(missing))))
    assert f"[lichess] token_file {missing} does not exist" in said, said
    assert "log in with Lichess on the page" in said
    said = run(message(LichessConfig(enabled=True)))
    assert str(tmp_path / "lichess-token") in said and "[lichess] token_file" in said, said


def test_a_server_that_cannot_be_reached_is_one_line_what_where_what_to_do(tmp_path, caplog):
    import logging

    from board_driver.players.lichess.api import BoardApi, Unreachable
    from tests.board_driver.daemon_process import free_port

    address = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with pytest.raises(Unreachable) as failed:
        BoardApi("lip_abc", address, read_timeout_s=5).account()
    said = str(failed.value)
    assert said == (
        f"cannot reach Lichess at {address} (connection refused): check the network and "
        "[lichess] base_url"
    )

    async def scenario():
        door = FakeDoor()
        config = LichessConfig(enabled=True, token="lip_abc", base_url=address)
        player = await LichessPlayer(door, config, state_dir=tmp_path, first_pause_s=0.1).start()
        await until(lambda: "cannot reach Lichess" in caplog.text, what="the log's line")
        await player.stop()

    with caplog.at_level(logging.INFO, logger="magboard"):
        run(scenario())
    lines = [r.getMessage() for r in caplog.records if "cannot reach" in r.getMessage()]
    assert lines and all("\n" not in line for line in lines), lines
    assert f"cannot reach Lichess at {address} (connection refused)" in lines[0]
    for raw in ("HTTPConnectionPool", "Max retries", "NewConnectionError", "object at 0x"):
        assert raw not in caplog.text, caplog.text
