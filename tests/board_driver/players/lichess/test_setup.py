"""The Lichess player's config, its token, the login on the page, and finding games."""

from __future__ import annotations

import stat
from urllib.parse import parse_qs, urlparse

import pytest
import requests

from board_driver.players.lichess import LichessConfig
from board_driver.players.lichess.player import LichessPlayer
from board_driver.service.config import ConfigError, parse_config, to_toml
from tests.board_driver.players.lichess.door_fake import FakeDoor
from tests.board_driver.players.lichess.helpers import run, start_player, until


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


def test_log_in_with_lichess_pkce_saves_a_private_token_and_connects(fake, tmp_path):
    token_file = tmp_path / "saved-token"

    async def scenario():
        door = FakeDoor()
        config = LichessConfig(enabled=True, token_file=str(token_file), base_url=fake.base_url)
        player = await LichessPlayer(door, config, state_dir=tmp_path).start()
        assert player.state()["connection"] == "no_token"
        page = "http://magboard.local:8080/"
        answer = await door.command("lichess", "login", {"redirect_uri": page})
        url = answer["url"]
        query = parse_qs(urlparse(url).query)
        assert query["code_challenge_method"] == ["S256"] and query["scope"] == ["board:play"]
        # The browser goes to Lichess, which sends it back to the page with a code.
        back = requests.get(url, allow_redirects=False, timeout=5).headers["Location"]
        assert back.startswith(page)
        returned = {k: v[0] for k, v in parse_qs(urlparse(back).query).items()}
        await door.command("lichess", "authorized", returned)
        await until(lambda: player.connection == "online")
        await until(lambda: player.state()["account"], what="account")
        assert player.state()["account"]["username"] == "Ann"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        saved = token_file.read_text().strip()
        assert saved.startswith("lio_") and saved not in str(player.state())
        await player.stop()

    run(scenario())


def test_a_seek_a_challenge_and_the_ai_each_put_a_game_on_the_board(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        await until(lambda: player.connection == "online")
        with pytest.raises(ValueError, match="rapid, classical or correspondence"):
            await door.command("lichess", "seek", {"minutes": 3, "increment": 2})
        fake.seek_partner = fake.account("Bob")
        await door.command("lichess", "seek", {"minutes": 10, "increment": 0, "rated": True})
        await until(lambda: door.game_data("lichess").get("id"), what="seek paired")
        first = door.game_data("lichess")["id"]
        assert fake.game(first).rated and fake.game(first).speed == "rapid"
        fake.act(first, door.game_data("lichess")["color"], "abort")
        await until(lambda: door.snapshot().termination == "aborted")

        fake.account("Bob").answers_challenges = "accept"
        answer = await door.command(
            "lichess", "challenge", {"username": "Bob", "minutes": 3, "increment": 2}
        )
        await until(lambda: door.game_data("lichess").get("id") == answer["challenge"])
        assert fake.game(answer["challenge"]).speed == "blitz"
        fake.act(answer["challenge"], "white", "abort")
        await until(lambda: door.snapshot().termination == "aborted")

        ai = await door.command(
            "lichess", "ai", {"level": 2, "color": "black", "minutes": 5, "increment": 3}
        )
        await until(lambda: door.game_data("lichess").get("id") == ai["game"])
        await until(lambda: door.snapshot().expected is not None, what="the AI's move lit")
        assert door.snapshot().players == {"white": "lichess", "black": "human"}
        await player.stop()

    run(scenario())


def test_an_incoming_challenge_shows_and_is_accepted_from_the_page(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        await until(lambda: player.connection == "online")
        challenge_id = fake.challenge("Bob", "Ann", clock=(900, 10), color="white")
        await until(lambda: player.state()["challenges"], what="the challenge shown")
        shown = player.state()["challenges"][0]
        assert (shown["id"], shown["from"], shown["time_control"]) == (challenge_id, "Bob", "15+10")
        await door.command("lichess", "accept", {"id": challenge_id})
        await until(lambda: door.game_data("lichess").get("id") == challenge_id)
        assert door.game_data("lichess")["color"] == "black"
        await player.stop()

    run(scenario())


def test_a_restart_with_a_move_pending_sends_it_and_goes_on(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Ann", "Bob")
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        fake.go_down()
        await door.move("d2d4")
        await until(lambda: door.game_data("lichess").get("pending") == "d2d4")
        await player.stop()  # the daemon dies with the move stored, not sent
        fake.come_back()
        assert fake.game(game_id).ucis == []
        again = await LichessPlayer(
            door, player.config, state_dir=tmp_path, read_timeout_s=3.0, first_pause_s=0.1
        ).start()
        await until(lambda: fake.game(game_id).ucis == ["d2d4"], timeout=10, what="resent")
        fake.play(game_id, "g8f6")
        await until(lambda: door.snapshot().expected == "g8f6")
        await again.stop()

    run(scenario())
