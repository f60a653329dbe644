"""Games played through the Lichess player, against the fake Board API, on a fake door."""

from __future__ import annotations

import rules
from tests.board_driver.players.lichess.helpers import run, start_player, until

SCHOLAR = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]


def test_a_whole_game_won_our_moves_sent_theirs_lit_and_played(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Ann", "Bob", clock=(600, 0))
        await until(lambda: door.game_data("lichess").get("id") == game_id, what="on board")
        snap = door.snapshot()
        assert snap.players == {"white": "human", "black": "lichess"}
        assert snap.options["hints"] is False and snap.options["takeback"] is False
        assert snap.headers["Site"] == f"{fake.base_url}/{game_id}"
        assert snap.headers["White"] == "Ann" and snap.headers["BlackElo"] == "1700"
        for ply, uci in enumerate(SCHOLAR):
            if ply % 2 == 0:
                await door.move(uci)
                await until(lambda n=ply: len(fake.game(game_id).ucis) == n + 1, what=uci)
            else:
                fake.play(game_id, uci)
                await until(lambda u=uci: door.snapshot().expected == u, what=f"{uci} lit")
                await door.move(uci)
                await until(lambda n=ply: len(door.snapshot().ucis) == n + 1)
        await until(lambda: door.snapshot().result == "1-0", what="mate on the board")
        assert fake.game(game_id).status == "mate"
        assert [r.path.rsplit("/", 1)[1] for r in fake.moves_posted(game_id)] == SCHOLAR[::2]
        assert door.snapshot().termination == "checkmate"
        await player.stop()

    run(scenario())


def test_a_game_lost_on_time_ends_on_the_board_as_timeout(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Ann", "Bob", clock_ms=(1500, 0))
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        await door.move("e2e4")
        await until(lambda: len(fake.game(game_id).ucis) == 1)
        fake.play(game_id, "e7e5")
        await until(lambda: door.snapshot().expected == "e7e5")
        await door.move("e7e5")
        # Our clock runs now, and we do not move: the server's flag falls.
        await until(lambda: door.snapshot().result == "0-1", timeout=5, what="flag")
        snap = door.snapshot()
        assert (snap.termination, snap.winner) == ("timeout", "black")
        assert fake.game(game_id).status == "outoftime"
        await player.stop()

    run(scenario())


def test_a_draw_offered_by_the_opponent_and_accepted_from_the_page(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Bob", "Ann", clock=(600, 5))
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        assert door.snapshot().players == {"white": "lichess", "black": "human"}
        fake.play(game_id, "d2d4")
        await until(lambda: door.snapshot().expected == "d2d4")
        await door.move("d2d4")
        await door.move("d7d5")
        await until(lambda: len(fake.game(game_id).ucis) == 2)
        fake.act(game_id, "white", "draw", "yes")
        await until(lambda: (player.state()["game"] or {}).get("draw_offer") == "white")
        assert any("offers a draw" in e["message"] for e in door.events("online_note"))
        await door.command("lichess", "draw", {"answer": "yes"})
        await until(lambda: door.snapshot().result == "1/2-1/2")
        assert door.snapshot().termination == "agreement"
        await player.stop()

    run(scenario())


def test_an_abort_from_the_page_ends_the_game_without_a_result(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Ann", "Bob")
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        await door.command("lichess", "abort", {})
        await until(lambda: door.snapshot().termination == "aborted")
        assert door.snapshot().result == "*" and fake.game(game_id).status == "aborted"
        await player.stop()

    run(scenario())


def test_a_takeback_we_propose_accepted_by_the_opponent_goes_back_on_the_board(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Ann", "Bob")
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        await door.move("e2e4")
        await until(lambda: len(fake.game(game_id).ucis) == 1)
        fake.play(game_id, "c7c5")
        await until(lambda: door.snapshot().expected == "c7c5")
        await door.move("c7c5")
        await door.move("g1f3")
        await until(lambda: len(fake.game(game_id).ucis) == 3)
        await door.command("lichess", "takeback", {"answer": "yes"})
        await until(lambda: fake.game(game_id).takeback_offer == "white")
        fake.act(game_id, "black", "takeback", "yes")
        await until(lambda: door.snapshot().ucis == ("e2e4", "c7c5"), what="taken back")
        snap = door.snapshot()
        assert not snap.in_sync and snap.empty == ("f3",) and snap.fill == ("g1",)
        door.lift("f3")
        door.place("g1")
        await until(lambda: door.snapshot().in_sync)
        await door.move("b1c3")
        await until(lambda: fake.game(game_id).ucis == ["e2e4", "c7c5", "b1c3"])
        await player.stop()

    run(scenario())


def test_both_streams_cut_with_a_move_made_meanwhile_and_one_of_theirs_arriving(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Ann", "Bob")
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        await until(lambda: fake.open_streams("game") == 1)
        fake.go_down()
        await door.move("e2e4")
        await door.wait_settled()
        await until(lambda: door.snapshot().ucis == ("e2e4",))
        await until(lambda: player.connection == "reconnecting")
        assert fake.game(game_id).ucis == []
        assert door.game_data("lichess")["pending"] == "e2e4"
        fake.come_back()
        await until(lambda: fake.game(game_id).ucis == ["e2e4"], timeout=10, what="resent")
        await until(lambda: player.connection == "online")
        # Cut again; the opponent moves while we are away: it is lit once we are back.
        await until(lambda: fake.open_streams("game") == 1)
        fake.go_down()
        fake.play(game_id, "e7e5")
        await until(lambda: player.connection == "reconnecting")
        fake.come_back()
        await until(lambda: door.snapshot().expected == "e7e5", timeout=10)
        assert len(fake.moves_posted(game_id)) >= 1
        assert [r.path for r in fake.moves_posted(game_id) if r.account] == [
            f"/api/board/game/{game_id}/move/e2e4"
        ]
        await player.stop()

    run(scenario())


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


def test_a_refused_move_is_taken_off_the_board_and_said(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        game_id = fake.start_game("Ann", "Bob")
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        fake.refuse_moves(game_id, "Not your turn, or game already over")
        await door.move("e2e4")
        await until(lambda: door.snapshot().ucis == (), what="taken back")
        messages = [e["message"] for e in door.events("online_error")]
        assert any("refused your move e2e4" in m for m in messages)
        snap = door.snapshot()
        assert (snap.empty, snap.fill) == (("e4",), ("e2",))
        assert door.game_data("lichess")["pending"] == ""
        await player.stop()

    run(scenario())


def test_a_revoked_token_is_said_and_the_board_keeps_working(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        await until(lambda: player.connection == "online")
        fake.revoke(fake.token)
        await until(lambda: player.connection == "token_rejected", timeout=10)
        assert "rejected the token" in player.state()["message"]
        assert fake.token not in str(player.state())
        await door.move("e2e4")
        await until(lambda: door.snapshot().ucis == ("e2e4",))
        await player.stop()

    run(scenario())


def test_a_rook_move_that_may_become_castling_waits_and_castling_is_sent_once(fake, tmp_path):
    async def scenario():
        fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
        door, player = await start_player(fake, fake.token, tmp_path)
        door.pieces = rules.Position.from_fen(fen).occupancy()  # the pieces set up
        game_id = fake.start_game("Ann", "Bob", fen=fen)
        await until(lambda: door.game_data("lichess").get("id") == game_id)
        door.lift("h1")
        door.place("f1")
        await until(lambda: door.snapshot().ucis == ("h1f1",))
        door.lift("e1")
        door.place("g1")
        await until(lambda: door.snapshot().ucis == ("e1g1",), what="castling")
        await until(lambda: fake.game(game_id).ucis, timeout=3)
        assert [r.path.rsplit("/", 1)[1] for r in fake.moves_posted(game_id)] == ["e1g1"]
        assert fake.game(game_id).ucis == ["e1h1"]  # the spec's king-to-rook notation
        await player.stop()

    run(scenario())


def test_a_variant_game_is_refused_with_a_message(fake, tmp_path):
    async def scenario():
        door, player = await start_player(fake, fake.token, tmp_path)
        await until(lambda: player.connection == "online")
        fake.start_game("Ann", "Bob", variant="chess960")
        await until(lambda: door.events("online_error"))
        assert "standard chess only" in door.events("online_error")[0]["message"]
        assert door.game_data("lichess") == {}
        await player.stop()

    run(scenario())
