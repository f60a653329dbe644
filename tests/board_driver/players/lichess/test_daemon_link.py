"""Never losing an online game, through ``magboard run --sim --script -``: the link drops,
the daemon is killed, the token is revoked."""

from __future__ import annotations

import json

from tests.board_driver.players.lichess.online_daemon import OnlineDaemon, fake_has


def test_both_streams_cut_with_a_move_made_meanwhile_and_one_of_theirs_arriving(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Ann", "Bob")
    daemon.game_on_board()
    daemon.hands("e2e4")
    daemon.their_move(game_id, "e7e5")
    assert fake.wait_for(lambda: fake.open_streams("event") == 1 and fake.open_streams("game"))
    # The link drops; our move is made on the board meanwhile: stored, pending.
    after = daemon.mark()
    fake.go_down()
    daemon.wait_log("lichess: link lost", after=after)
    daemon.hands("g1f3")
    daemon.wait_state(lambda s: s["player_states"]["lichess"]["connection"] == "reconnecting")
    assert fake.game(game_id).ucis == ["e2e4", "e7e5"]
    fake.come_back()
    fake_has(fake, game_id, ["e2e4", "e7e5", "g1f3"], timeout=20)
    daemon.wait_state(lambda s: s["player_states"]["lichess"]["connection"] == "online")
    # It drops again; their move arrives on the server meanwhile: lit once we are back.
    assert fake.wait_for(lambda: fake.open_streams("game") == 1)
    after = daemon.mark()
    fake.go_down()
    daemon.wait_log("lichess: link lost", after=after)
    fake.play(game_id, "b8c6")
    fake.come_back()
    daemon.wait_log("lichess: Bob played Nc6 (b8c6)", timeout=20, after=after)
    daemon.board.push_uci("b8c6")
    daemon.send("lift b8", "place c6")
    daemon.wait_stored(4)
    daemon.hands("f1b5")
    fake_has(fake, game_id, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"])
    # Each of our moves reached the server once.
    sent = [r.path.rsplit("/", 1)[1] for r in fake.moves_posted(game_id) if r.account == "ann"]
    assert sent == ["e2e4", "g1f3", "f1b5"]
    daemon.terminate()


def test_a_daemon_killed_mid_game_resumes_it_from_the_store_and_the_server(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Ann", "Bob")
    daemon.game_on_board()
    daemon.hands("d2d4")
    daemon.their_move(game_id, "g8f6")
    # Our move is stored, the link is down: the daemon is killed before it could send it.
    fake.go_down()
    daemon.hands("c2c4")
    daemon.wait_state(lambda s: s["player_states"]["lichess"]["connection"] == "reconnecting")
    board = daemon.board
    daemon.kill()
    fake.come_back()
    assert fake.game(game_id).ucis == ["d2d4", "g8f6"]

    again = OnlineDaemon(tmp_path, fake)
    again.board = board
    again.wait_log("ready: game 2 at ply 3")  # the online game, from the store
    fake_has(fake, game_id, ["d2d4", "g8f6", "c2c4"], timeout=20)
    # Killed again; the opponent moves while the board is away: lit once it is back.
    again.kill()
    fake.play(game_id, "e7e6")
    third = OnlineDaemon(tmp_path, fake)
    third.board = board
    third.wait_log("ready: game 2 at ply 3")
    third.wait_log("lichess: Bob played e6 (e7e6): play it on the board")
    board.push_uci("e7e6")
    third.send("lift e7", "place e6")
    third.wait_stored(1)
    third.hands("b1c3")
    fake_has(fake, game_id, ["d2d4", "g8f6", "c2c4", "e7e6", "b1c3"])
    assert "1. d4 Nf6 2. c4 e6 3. Nc3 *" in " ".join(third.pgn().split())
    third.terminate()


def test_a_revoked_token_is_said_on_the_page_and_in_the_log_and_the_board_plays_on(
    fake, tmp_path
):
    daemon = OnlineDaemon(tmp_path, fake)
    daemon.wait_state(lambda s: s["player_states"]["lichess"]["connection"] == "online")
    fake.revoke(fake.token)
    line = daemon.wait_log("lichess: Lichess rejected the token")
    assert "the board keeps working offline" in line
    state = daemon.wait_state(
        lambda s: s["player_states"]["lichess"]["connection"] == "token_rejected"
    )
    assert "rejected the token" in state["player_states"]["lichess"]["message"]
    status, answer = daemon.act("seek", minutes=10, increment=0)
    assert status == 409 and "rejected the token" in answer["error"]
    daemon.hands("e2e4")  # the board plays on, offline
    daemon.hands("e7e5")
    daemon.terminate()
    assert fake.token not in daemon.output()
    assert fake.token not in json.dumps(state)
