"""Online games played to their end through ``magboard run --sim --script -``.

Each test runs the real daemon (its Lichess player on the loopback fake of the Board API,
through the real ``berserk``), moves the pieces with board-script lines and plays the
opponent on the fake: the game ends on the board as it ends on the server, and the store
keeps it with the online game's headers.
"""

from __future__ import annotations

import chess

from tests.board_driver.players.lichess.online_daemon import OnlineDaemon, fake_has


def test_a_whole_game_won_by_mate_is_stored_with_the_online_games_headers(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Ann", "Bob", clock=(600, 5), rated=True)
    assert daemon.game_on_board() == game_id
    daemon.hands("e2e4")
    fake_has(fake, game_id, ["e2e4"])
    after = daemon.mark()
    fake.play(game_id, "e7e5")
    daemon.wait_log("lichess: Bob played e5 (e7e5): play it on the board: e7 to e5", after=after)
    assert daemon.lights("e7", "e5", "d7") == "CC."  # blinking cyan: the move to play
    daemon.hands("e7e5")
    for ours, theirs in (("f1c4", "b8c6"), ("d1h5", "g8f6")):
        daemon.hands(ours)
        fake_has(fake, game_id, daemon.server_moves())
        daemon.their_move(game_id, theirs)
    daemon.hands("h5f7")  # Qxf7#
    daemon.wait_log("game over: result=1-0, termination=checkmate")
    fake_has(fake, game_id, daemon.server_moves())
    assert fake.game(game_id).status == "mate" and fake.game(game_id).winner == "white"
    state = daemon.wait_state(lambda s: s["player_states"]["lichess"]["game"]["status"] == "mate")
    assert state["result"] == "1-0" and state["online"]
    pgn = daemon.pgn()
    for header in (
        f'[Site "{fake.base_url}/{game_id}"]',
        '[White "Ann"]',
        '[Black "Bob"]',
        '[WhiteElo "1600"]',
        '[BlackElo "1700"]',
        '[TimeControl "600+5"]',
        '[Result "1-0"]',
        '[Event "Rated rapid game"]',
    ):
        assert header in pgn, pgn
    assert "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0" in " ".join(pgn.split())
    daemon.terminate()



def test_a_game_lost_on_time_lights_the_edge_then_ends_as_the_server_says(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Ann", "Bob", clock_ms=(4000, 0))
    daemon.game_on_board()
    daemon.hands("e2e4")
    daemon.their_move(game_id, "e7e5")  # both have moved: our clock runs
    state = daemon.wait_state(
        lambda s: (s["player_states"]["lichess"]["game"]["clock"] or {}).get("running") == "white"
    )
    # Under 10 s on our clock: the edge blinks orange (low_time_s = 30 by default).
    assert daemon.lights("a1", "h1", "a8", "h8", "d4", state=state) == "OOOO."
    daemon.wait_log("game over: result=0-1, termination=timeout", timeout=20)
    assert fake.game(game_id).status == "outoftime"
    state = daemon.state()
    assert state["result"] == "0-1" and state["termination"] == "timeout"
    assert daemon.lights("a1", "h1", state=state).lower() != "oo"  # the edge let go
    assert '[Result "0-1"]' in daemon.pgn()
    daemon.terminate()


def test_draw_offers_both_ways_one_declined_from_the_page_one_agreed(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Bob", "Ann")  # Ann plays black
    daemon.game_on_board()
    daemon.their_move(game_id, "d2d4")
    daemon.hands("d7d5")
    fake_has(fake, game_id, ["d2d4", "d7d5"])
    after = daemon.mark()
    fake.act(game_id, "white", "draw", "yes")  # Bob offers
    daemon.wait_log("lichess: Bob offers a draw", after=after)
    daemon.wait_state(lambda s: s["player_states"]["lichess"]["game"]["draw_offer"] == "white")
    assert daemon.act("draw", answer="no")[0] == 200  # declined from the page
    assert fake.wait_for(lambda: fake.game(game_id).draw_offer is None)
    daemon.their_move(game_id, "c2c4")
    # Our offer, by the board's own button (Black to move presses it): Bob accepts.
    daemon.send("button draw_offer")
    assert fake.wait_for(lambda: fake.game(game_id).draw_offer == "black"), "never offered"
    fake.act(game_id, "white", "draw", "yes")
    daemon.wait_log("game over: result=1/2-1/2, termination=agreement")
    assert fake.game(game_id).status == "draw"
    assert '[Result "1/2-1/2"]' in daemon.pgn()
    daemon.terminate()


def test_an_abort_from_the_page_ends_the_game_without_a_result(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Ann", "Bob")
    daemon.game_on_board()
    status, answer = daemon.act("abort")
    assert status == 200, answer
    daemon.wait_log("termination=aborted")
    assert fake.game(game_id).status == "aborted"
    state = daemon.state()
    assert (state["result"], state["termination"]) == ("*", "aborted")
    assert daemon.act("abort")[0] == 409  # nothing left to abort
    daemon.terminate()


def test_a_takeback_we_propose_from_the_page_is_accepted_and_put_back_on_the_board(
    fake, tmp_path
):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Ann", "Bob")
    daemon.game_on_board()
    daemon.hands("e2e4")
    daemon.their_move(game_id, "c7c5")
    daemon.hands("g1f3")
    fake_has(fake, game_id, ["e2e4", "c7c5", "g1f3"])
    assert daemon.act("takeback", answer="yes")[0] == 200
    assert fake.wait_for(lambda: fake.game(game_id).takeback_offer == "white")
    after = daemon.mark()
    fake.act(game_id, "black", "takeback", "yes")
    daemon.wait_log("Nf3 taken back on the board (taken back on Lichess)", after=after)
    # Once Nf3's white flash is over: blinking red, empty f3; blinking blue, fill g1.
    state = daemon.wait_state(lambda s: daemon.lights("f3", "g1", state=s) == "RB")
    assert state["moves"] == ["e4", "c5"] and not state["in_sync"]
    daemon.send("lift f3", "place g1")
    daemon.wait_log("board matches the game again", after=after)
    daemon.board.pop()
    daemon.hands("b1c3")
    fake_has(fake, game_id, ["e2e4", "c7c5", "b1c3"])
    daemon.terminate()


def test_a_refused_move_comes_off_the_board_and_the_lights_show_how_to_put_it_right(
    fake, tmp_path
):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Ann", "Bob")
    daemon.game_on_board()
    fake.refuse_moves(game_id, "Not your turn, or game already over")
    after = daemon.mark()
    daemon.hands("e2e4")
    daemon.wait_log("Lichess refused your move e2e4", after=after)
    daemon.wait_log("e4 taken back on the board (Lichess refused it)", after=after)
    state = daemon.wait_state(lambda s: daemon.lights("e4", "e2", state=s) == "RB")
    assert not state["in_sync"] and not state["moves"]
    assert "refused your move e2e4" in state["player_states"]["lichess"]["message"]
    daemon.send("lift e4", "place e2")
    daemon.wait_log("board matches the game again", after=after)
    daemon.board.pop()
    daemon.hands("d2d4")
    fake_has(fake, game_id, ["d2d4"])
    assert "1. d4 *" in " ".join(daemon.pgn().split())  # e4 is not in the store
    daemon.terminate()


def test_rook_first_castling_is_sent_once_as_castling(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake, lichess="amend_ms = 800")
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    game_id = fake.start_game("Ann", "Bob", fen=fen)
    after = daemon.mark()
    daemon.game_on_board()
    # The lights guide the set-up from the pieces standing (the usual start).
    daemon.send(*(f"lift {sq}" for sq in ("b1", "c1", "d1", "f1", "g1", "b8", "c8", "d8")))
    daemon.send("lift f8", "lift g8")
    daemon.wait_log("board matches the game again", after=after)
    daemon.board = chess.Board(fen)
    daemon.send("lift h1", "place f1")  # the rook first: Rf1 ...
    daemon.wait_stored(1)
    daemon.send("lift e1", "place g1")  # ... then the king: castling
    daemon.wait_log("e1g1", after=after)
    fake.wait_for(lambda: fake.game(game_id).ucis)
    assert fake.game(game_id).ucis == ["e1h1"]  # the spec's notation: king to rook
    posted = [r.path.rsplit("/", 1)[1] for r in fake.moves_posted(game_id)]
    assert posted == ["e1g1"]
    daemon.terminate()
