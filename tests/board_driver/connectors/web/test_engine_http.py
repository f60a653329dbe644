"""The page's engine actions over HTTP against a real ``magboard run --sim``: the
opponent (``POST /api/engine``) and the hint (``button hint``), token and validation."""

from __future__ import annotations

import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon


def test_the_opponent_needs_the_token_and_changes_nothing_without_it(web_daemon):
    before = web_daemon.state()["engine"]
    status, answer = web_daemon.request("api/engine", {"side": "black"})
    assert status == 401 and "needs the board's token" in answer["error"]
    status, answer = web_daemon.request("api/engine", {"side": "black"}, token="guess")
    assert status == 403 and "wrong token" in answer["error"]
    status, answer = web_daemon.request("api/button", {"button": "hint"})
    assert status == 401
    assert web_daemon.state()["engine"] == before
    assert before["side"] == "none" and before["status"] == "none"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "side: missing"),
        ({"side": "both"}, "side: 'both' is not one of none, white, black"),
        ({"side": "black", "skill": 25}, "skill: 25 is not between 0 and 20"),
        ({"side": "black", "skill": "5"}, "skill: '5' is not a whole number"),
        ({"side": "black", "skill": True}, "skill: True is not a whole number"),
        ({"side": "black", "depth": 0}, "depth: 0 is not between 1 and 100"),
        ({"side": "black", "movetime_ms": 10**7}, "movetime_ms: 10000000 is not between"),
        (
            {"side": "black", "depth": None, "movetime_ms": None},
            "both without limit; the engine needs one of them",
        ),
        ({"side": "black", "elo": 100}, "elo: 100 is not between 500 and 4000"),
        ({"side": "black", "nodes": 100}, "engine: unknown nodes"),
    ],
)
def test_a_bad_opponent_is_refused_with_a_clear_message(web_daemon, body, message):
    before = web_daemon.state()["engine"]
    status, answer = web_daemon.request("api/engine", body, token=web_daemon.token)
    assert status == 400 and message in answer["error"]
    assert web_daemon.state()["engine"] == before


def test_a_level_is_set_from_the_page_and_shown_in_the_state(web_daemon):
    token = web_daemon.token
    body = {"side": "none", "skill": 3, "depth": 2, "movetime_ms": None}
    status, answer = web_daemon.request("api/engine", body, token=token)
    assert status == 200, answer
    changed = [e for e in answer["events"] if e["type"] == "engine_changed"]
    assert changed and changed[0]["level"] == "skill 3, depth 2"
    engine = web_daemon.state()["engine"]
    assert (engine["skill"], engine["depth"], engine["movetime_ms"]) == (3, 2, None)
    assert engine["status"] == "none"
    # Only a depth given while the level has no time limit: still a valid level.
    status, answer = web_daemon.request(
        "api/engine", {"side": "none", "movetime_ms": None}, token=token
    )
    assert status == 200
    # Taking the depth away too would leave the engine without a limit: refused.
    status, answer = web_daemon.request("api/engine", {"side": "none", "depth": None}, token=token)
    assert status == 400 and "needs a depth or a movetime_ms" in answer["error"]
    assert web_daemon.state()["engine"]["depth"] == 2
    # A strength as players name it (issue 34): Stockfish's UCI_Elo; a skill replaces it.
    status, answer = web_daemon.request(
        "api/engine", {"side": "none", "elo": 1650, "movetime_ms": 500}, token=token
    )
    assert status == 200, answer
    engine = web_daemon.state()["engine"]
    assert (engine["elo"], engine["level"]) == (1650, "elo 1650, depth 2, 500 ms per move")
    assert engine["pace"] == "0.5 s a move or depth 2"  # no clock: its own limit
    status, answer = web_daemon.request("api/engine", {"side": "none", "skill": 3}, token=token)
    assert web_daemon.state()["engine"]["elo"] is None


def test_no_engine_found_is_refused_and_the_game_stays_between_people(tmp_path):
    daemon = WebDaemon(tmp_path, '[engine]\npath = "/nonexistent/uci-engine"')
    try:
        status, answer = daemon.request("api/engine", {"side": "black"}, token=daemon.token)
        assert status == 409
        assert answer["error"].startswith("no engine: ")
        assert "/nonexistent/uci-engine" in answer["error"]
        assert daemon.state()["engine"]["side"] == "none"
        # A hint with no engine: the board says why there is none.
        status, answer = daemon.request("api/button", {"button": "hint"}, token=daemon.token)
        assert status == 200
        refused = [e for e in answer["events"] if e["type"] == "refused"]
        assert refused and refused[0]["button"] == "hint"
        assert "/nonexistent/uci-engine" in refused[0]["reason"]
    finally:
        daemon.stop()
