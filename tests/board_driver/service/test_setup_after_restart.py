"""A new game's set-up under way when the daemon dies (a power cut, a crash) is a set-up
again after the restart: the lights go on guiding the position kind by kind, and nothing
is read as a move until it stands. (It came back as a board out of sync: "Illegal: the
board shows more than one move", the half-made set-up open to be read as a move.)"""

from __future__ import annotations

import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon

ENDGAME = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"


def test_a_set_up_under_way_is_a_set_up_again_after_a_kill(tmp_path):
    daemon = WebDaemon(tmp_path)
    token = daemon.token
    status, answer = daemon.request("api/new_game", {"fen": ENDGAME}, token=token)
    assert status == 200, answer
    # The store has taken the new game (its number on the page), its pieces not set up.
    daemon.wait_state(lambda s: s["setup_pending"] and s["game_id"] == 2)
    daemon.request("api/sim", {"steps": [["lift", "a1"], ["lift", "b1"]]}, token=token)
    state = daemon.wait_state(lambda s: "a1" not in " ".join(s["asks"]))
    assert state["setup_pending"]
    daemon.kill()

    again = WebDaemon(tmp_path, port=daemon.port)
    try:
        state = again.wait_state(lambda s: s["game_id"] == 2)
        assert state["setup_pending"], state["asks"]
        assert state["start_fen"] == ENDGAME and not state["moves"]
        assert not any(ask.startswith("Illegal") for ask in state["asks"]), state["asks"]
        assert any("c1" in ask for ask in state["asks"])  # still to be emptied
        # Set up as the lights ask: the game begins, White to move in the endgame.
        again.request("api/setup", {}, token=again.token)
        state = again.wait_state(lambda s: not s["setup_pending"])
        assert state["in_sync"] and state["fen"] == ENDGAME
    finally:
        again.stop()


@pytest.mark.parametrize("how", ["button", "page"])
def test_a_chess960_array_drawn_at_random_is_the_same_after_a_kill(tmp_path, how):
    """A Chess960 game at random (the ``new_game`` button where the config plays Chess960
    at random, or the page's POST /api/new_game): the daemon killed while its back ranks
    are being arranged, the restart guides the same array, asking for the same squares.
    (The button's came back drawn again, the back ranks asked to change; the page's came
    back as a game already begun, the standard array taken for the Chess960 one, since
    both stand on the same squares.)"""
    config = '[game]\nvariant = "chess960"\nchess960_position = "random"\n'
    daemon = WebDaemon(tmp_path, config)
    token = daemon.token
    daemon.wait_state(lambda s: s["game_id"] == 1 and s["in_sync"])
    if how == "button":
        status, answer = daemon.request("api/button", {"button": "new_game"}, token=token)
        kind = "new_game_pending"
    else:
        body = {"variant": "chess960", "chess960": "random"}
        status, answer = daemon.request("api/new_game", body, token=token)
        kind = "new_game"
    assert status == 200, answer
    drawn = next(e["fen"] for e in answer["events"] if e["type"] == kind)
    state = daemon.wait_state(lambda s: s["setup_pending"] and s["asks"])
    asks = state["asks"]
    daemon.kill()

    again = WebDaemon(tmp_path, config, port=daemon.port)
    try:
        state = again.wait_state(lambda s: s["game_id"] is not None)
        assert state["setup_pending"] and state["asks"] == asks  # the same squares, said so
        # Set up as the lights ask: the game begins from the array drawn before the kill.
        again.request("api/setup", {}, token=again.token)
        state = again.wait_state(lambda s: not s["setup_pending"] and s["game_id"] == 2)
        assert state["start_fen"] == drawn and state["in_sync"] and not state["moves"]
    finally:
        again.stop()
