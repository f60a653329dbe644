"""A half-open link (the connection stays open, nothing more arrives) is found by the
streams' read timeout and opened again. On a fake door, with a 3 s read timeout: the
daemon's is 21 s (three of the server's 7 s keep-alives), too long for a test of the real
daemon, whose other link failures are proven in ``test_daemon_link.py``."""

from __future__ import annotations

from tests.board_driver.players.lichess.helpers import run, start_player, until


def test_a_half_open_link_is_noticed_by_the_read_timeout_and_reopened(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Bob", "Ann")
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        await until(lambda: fake.open_streams() == 2)
        fake.hang_streams()  # nothing more arrives, and the connections stay open
        fake.play(game_id, "e2e4")
        # The read timeout (3 s here) finds the dead link; the reopened stream has the move.
        await until(lambda: door.snapshot().expected == "e2e4", timeout=10, what="e2e4 lit")
        await player.stop()

    run(scenario())
