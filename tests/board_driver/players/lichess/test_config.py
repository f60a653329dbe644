"""The ``[lichess]`` section (the token masked, bad values named) and a token file others
may read. The login on the page, finding games and playing them are proven through the
real daemon (``test_daemon_*.py``, ``test_page.py``)."""

from __future__ import annotations

import pytest

from board_driver.players.lichess import LichessConfig
from board_driver.players.lichess.player import LichessPlayer
from board_driver.service.config import ConfigError, parse_config, to_toml
from tests.board_driver.players.lichess.door_fake import FakeDoor
from tests.board_driver.players.lichess.helpers import run


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
