"""A game from any position over HTTP against a real ``magboard run --sim`` (issue 35, item
2): from a PGN's position (``POST /api/new_game {"pgn": ...}``), positions the rules refuse,
and endgame practice against the real Stockfish, the engine seated with the position."""

from __future__ import annotations

import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon

KQ_K = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"


def _unchanged(before: dict, after: dict) -> bool:
    return (after["game_id"], after["start_fen"], after["setup_pending"]) == (
        before["game_id"],
        before["start_fen"],
        before["setup_pending"],
    )


def test_a_pgn_s_position_is_set_up_by_the_lights(web_daemon):
    """Its FEN header, then its main line played to the end (comments and variations
    passed over): the game waits for those pieces, that side to move."""
    pgn = (
        '[Event "Lucena practice"]\n[SetUp "1"]\n[FEN "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1"]\n\n'
        "1. Rd1+ {the rook cuts the king off} Ke7 (1... Kc7 2. Rc1+) 2. Rd4 Ra1 *\n"
    )
    status, answer = web_daemon.request("api/new_game", {"pgn": pgn}, token=web_daemon.token)
    assert status == 200, answer
    state = web_daemon.state()
    assert state["start_fen"] == "1K6/1P2k3/8/8/3R4/8/8/r7 w - - 4 3"
    assert state["setup_pending"] and state["turn"] == "white" and state["moves"] == []


def test_a_chess960_pgn_starts_a_chess960_game(web_daemon):
    pgn = (
        '[Variant "Chess960"]\n[SetUp "1"]\n'
        '[FEN "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"]\n\n9. g3 *'
    )
    status, answer = web_daemon.request("api/new_game", {"pgn": pgn}, token=web_daemon.token)
    assert status == 200, answer
    state = web_daemon.state()
    assert state["variant"] == "chess960" and state["turn"] == "black"
    assert state["start_fen"].startswith("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P2P1/NPP1P2P/BQ1BNRKR b")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"pgn": "1. e4 e5 2. Ke3 *"}, "move 2. Ke3: illegal SAN 'Ke3'"),
        ({"pgn": "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 Bxc6 *"}, "move 4... Bxc6"),
        ({"pgn": "1. e4 {never closed"}, "PGN game 1, line 1: cannot read"),
        ({"pgn": "1. f3 e5 2. g4 Qh4# 0-1"}, "the game is over after its last move (checkmate)"),
        ({"pgn": "1. e4 *\n\n1. d4 *"}, "it holds 2 games; give one"),
        ({"pgn": "1. e4 *", "fen": KQ_K}, "give a PGN or a FEN"),
        ({"pgn": '[Variant "Crazyhouse"] 1. e4 *'}, "Variant 'Crazyhouse' is not played"),
        ({"pgn": 42}, "pgn: missing"),
        # What the editor may send that the rules refuse: said, nothing started.
        ({"fen": "8/8/8/8/8/8/8/4K3 w - - 0 1"}, "Black has no king"),
        ({"fen": "4k3/8/8/8/8/8/8/P3K3 w - - 0 1"}, "pawn"),
        ({"fen": "4k3/8/8/8/8/8/8/4RK2 w - - 0 1", "engine": {"side": "black"}}, "check"),
        ({"fen": "4k3/8/8/8/8/8/8/4K3 w K - 0 1"}, "castl"),
    ],
)
def test_a_position_the_rules_refuse_is_said_and_nothing_starts(web_daemon, body, message):
    before = web_daemon.state()
    status, answer = web_daemon.request("api/new_game", body, token=web_daemon.token)
    assert status == 400 and message in answer["error"], answer
    after = web_daemon.state()
    assert _unchanged(before, after)
    assert after["players"] == before["players"]


def test_endgame_practice_the_engine_answers_once_the_position_stands(tmp_path):
    """ "Win this as White": KQ v K with the real Stockfish as Black. The lights guide the
    pieces; once they stand and White moves on the board, the engine's reply is the move
    the board expects."""
    daemon = WebDaemon(tmp_path)
    try:
        token = daemon.token
        body = {"fen": KQ_K, "engine": {"side": "black", "depth": 1}, "options": {"clock": "none"}}
        status, answer = daemon.request("api/new_game", body, token=token)
        assert status == 200, answer
        state = daemon.state()
        assert state["setup_pending"] and state["start_fen"] == KQ_K
        assert state["players"] == {"white": "human", "black": "engine"}
        assert state["engine"]["status"] != "to_play"  # nothing to answer yet

        status, answer = daemon.request("api/setup", {}, token=token)
        assert status == 200, answer
        state = daemon.wait_state(lambda s: not s["setup_pending"] and s["in_sync"])
        assert state["pieces"].count(".") == 61

        steps = [["lift", "d1"], ["place", "d7"]]  # Qd7+: the king must take or run
        status, answer = daemon.request("api/sim", {"steps": steps}, token=token)
        assert status == 200, answer
        state = daemon.wait_state(lambda s: s["engine"]["status"] == "to_play", timeout=20)
        assert state["moves"] == ["Qd7+"]
        reply = state["engine"]["move"]
        assert reply["from"] == "e8" and reply["to"] in ("d7", "f8")
        assert state["engine"]["expected"] == "e8" + reply["to"]
    finally:
        daemon.stop()
