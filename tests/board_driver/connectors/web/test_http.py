"""The page's HTTP side against a real ``magboard run --sim``: views, token, validation."""

from __future__ import annotations

import re
import stat
import urllib.request

import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon

START = "ffff00000000ffff"


def get(url: str) -> tuple[int, str, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def test_read_only_views_need_no_token(web_daemon):
    status, page, headers = get(web_daemon.url)
    assert status == 200 and "<title>magboard</title>" in page
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    status, _script, headers = get(web_daemon.url + "static/board.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    state = web_daemon.state()
    assert state["sim"] is True and state["sensed"] == START
    assert state["board_state"] == "ok"
    assert len(state["pieces"]) == 64 and state["pieces"].startswith("RNBQKBNR")


@pytest.mark.parametrize(
    "path", ["static/server.py", "static/..%2Fserver.py", "static/%2e%2e/token.py", "etc/passwd"]
)
def test_only_the_packages_page_files_are_served(web_daemon, path):
    status, _body, _headers = get(web_daemon.url + path)
    assert status == 404


def test_the_token_is_generated_once_kept_private_and_logged(web_daemon):
    path = web_daemon.directory / "web-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert f"token for actions: {web_daemon.token}" in web_daemon.output()


def test_an_action_without_the_token_is_refused_and_changes_nothing(web_daemon):
    before = web_daemon.state()
    status, answer = web_daemon.request("api/button", {"button": "resign"})
    assert status == 401 and "needs the board's token" in answer["error"]
    status, answer = web_daemon.request("api/button", {"button": "resign"}, token="guess")
    assert status == 403 and "wrong token" in answer["error"]
    status, answer = web_daemon.request("api/sim", {"steps": [["lift", "e2"]]})
    assert status == 401
    after = web_daemon.state()
    assert after["result"] == "*" and after["sim_pieces"] == before["sim_pieces"]


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("api/sim", {"steps": [["lift", "e9"]]}, "not a square"),
        ("api/sim", {"steps": [["lift", "e2; reboot"]]}, "not a square"),
        ("api/choose", {"piece": "k"}, "expected q, r, b or n"),
        ("api/button", {"button": "shutdown"}, "not a control"),
        ("api/new_game", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "White has no king"),
        ("api/options", {"touch_move": "always"}, "is not one of"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(web_daemon, path, body, message):
    before = web_daemon.state()
    status, answer = web_daemon.request(path, body, token=web_daemon.token)
    assert status == 400 and message in answer["error"]
    after = web_daemon.state()
    assert (after["fen"], after["sim_pieces"], after["options"]) == (
        before["fen"],
        before["sim_pieces"],
        before["options"],
    )


def test_malformed_requests_are_refused(web_daemon):
    request = urllib.request.Request(
        web_daemon.url + "api/button", data=b"{not json", method="POST"
    )
    request.add_header("Authorization", f"Bearer {web_daemon.token}")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 400
    status, _answer = web_daemon.request("api/format_disk", {}, token=web_daemon.token)
    assert status == 404


def test_stored_games_as_pgn_by_number_only(web_daemon):
    status, text, headers = get(web_daemon.url + "games/1.pgn")
    assert status == 200 and '[Event "magboard game 1"]' in text
    assert "attachment" in headers["Content-Disposition"]
    assert get(web_daemon.url + "games/999.pgn")[0] == 404
    assert get(web_daemon.url + "games/0.pgn")[0] == 400
    assert get(web_daemon.url + "games/..%2Fgames.pgn")[0] in (400, 404)


def test_a_move_through_the_simulated_board_and_its_take_back(web_daemon):
    token = web_daemon.token
    status, _ = web_daemon.request(
        "api/sim", {"steps": [["lift", "g1"], ["place", "f3"]]}, token=token
    )
    assert status == 200
    state = web_daemon.wait_state(lambda s: s["moves"][-1:] == ["Nf3"])
    assert state["can_take_back"] is True and state["turn"] == "black"
    status, _ = web_daemon.request("api/takeback", {}, token=token)
    assert status == 200
    state = web_daemon.wait_state(lambda s: s["moves"] == [])
    assert state["sensed"] == START and state["in_sync"]
    status, answer = web_daemon.request("api/takeback", {}, token=token)
    assert status == 409 and "no move" in answer["error"]


def test_options_change_the_game_and_are_stored(web_daemon):
    token = web_daemon.token
    status, _ = web_daemon.request("api/options", {"hints": True, "touch_move": "off"}, token=token)
    assert status == 200
    state = web_daemon.state()
    assert state["options"] == {
        "touch_move": "off",
        "takeback": True,
        "hints": True,
        "clock": "none",
        "clock_switch": "board",
        "illegal_move": "guide",
    }
    # Hints: a lifted knight's destinations light green.
    web_daemon.request("api/sim", {"steps": [["lift", "b1"]]}, token=token)
    state = web_daemon.wait_state(lambda s: s["sensed"] != START)
    state = web_daemon.wait_state(lambda s: "g" in s["leds"]["colours"])
    lit = {i for i, c in enumerate(state["leds"]["colours"]) if c == "g"}
    assert lit == {16, 18}  # a3, c3
    web_daemon.request("api/sim", {"steps": [["place", "b1"]]}, token=token)
    web_daemon.wait_state(lambda s: s["sensed"] == START)
    web_daemon.request("api/options", {"hints": False, "touch_move": "warn"}, token=token)


def test_a_token_from_the_config_is_the_one_that_counts(tmp_path):
    daemon = WebDaemon(tmp_path, 'token = "configured-token-123"')
    try:
        assert not (tmp_path / "web-token").exists()
        status, _ = daemon.request("api/button", {"button": "adjust"}, token="configured-token-123")
        assert status == 200
        # The line follows "web page: ..." (what WebDaemon waited for): wait for it too.
        said = r"token for actions: configured-token-123 \(from the config\)"
        assert daemon.wait_for(lambda: re.search(said, daemon.output())), daemon.output()
    finally:
        daemon.stop()


def test_draw_offer_accept_and_a_refused_claim(tmp_path):
    daemon = WebDaemon(tmp_path)
    token = daemon.token
    try:
        status, answer = daemon.request("api/button", {"button": "claim_draw"}, token=token)
        assert status == 200
        refused = [e for e in answer["events"] if e["type"] == "claim_refused"]
        assert refused and refused[0]["reason"]
        assert daemon.state()["result"] == "*"

        status, answer = daemon.request("api/button", {"button": "draw_offer"}, token=token)
        assert [e["side"] for e in answer["events"] if e["type"] == "draw_offer"] == ["white"]
        assert daemon.state()["draw_offer"] == "white"
        status, answer = daemon.request("api/button", {"button": "draw_accept"}, token=token)
        state = daemon.state()
        assert (state["result"], state["termination"]) == ("1/2-1/2", "agreement")
        assert state["draw_offer"] is None
        status, text = daemon.request(f"games/{state['game_id']}.pgn", method="GET")
        assert '[Result "1/2-1/2"]' in text
    finally:
        daemon.stop()


def test_a_port_in_use_leaves_the_board_working_and_says_so(web_daemon, tmp_path):
    second = WebDaemon(tmp_path, port=web_daemon.port, wait_for="web page not served")
    try:
        assert f"cannot listen on 127.0.0.1:{web_daemon.port}" in second.started_line
        assert second.proc.poll() is None
        # The first daemon's page is the one answering, untouched.
        assert web_daemon.state()["game_id"] == 1
    finally:
        second.stop()
    assert second.proc.returncode == 0


def test_the_games_headers_are_set_from_the_page_and_in_its_pgn(web_daemon):
    token = web_daemon.token
    status, answer = web_daemon.request("api/headers", {"White": "Ann", "Black": "Bob"},
                                        token=token)  # fmt: skip
    assert status == 200, answer
    changed = [e for e in answer["events"] if e["type"] == "headers"]
    assert changed and changed[0]["headers"]["White"] == "Ann"
    assert web_daemon.state()["headers"]["Black"] == "Bob"
    status, pgn, _headers = get(web_daemon.url + "games/current.pgn")
    assert status == 200 and '[White "Ann"]' in pgn and '[Black "Bob"]' in pgn
    for bad, message in (({"Wh ite": "x"}, "not a PGN tag name"),
                         ({"White": "a\nb"}, "not one line of text"),
                         ({"Result": "1-0"}, "set by the game itself")):  # fmt: skip
        status, answer = web_daemon.request("api/headers", bad, token=token)
        assert status == 400 and message in answer["error"], answer
    status, answer = web_daemon.request("api/headers", {"White": ""}, token=token)
    assert status == 200 and "White" not in web_daemon.state()["headers"]


def test_the_page_sets_only_the_headers_that_describe_the_game(web_daemon):
    """Issue 24, item 7: Variant (the game then read as atomic chess elsewhere), a
    Termination on a game in progress, a date that is not one: each a 400 saying why."""
    token = web_daemon.token
    for bad, message in (({"Variant": "Atomic"}, "Variant: set by the game itself"),
                         ({"Termination": "abandoned"}, "Termination: set by the game itself"),
                         ({"PlyCount": "3"}, "set by the game itself"),
                         ({"Mood": "good"}, "Mood: not a header the page sets"),
                         ({"Date": "2099.99.99"}, "has no month 99"),
                         ({"Date": "2026.02.30"}, "is not a day of the calendar"),
                         ({"Date": "26/11/2026"}, "is not a PGN date like 2026.11.26"),
                         ({"Round": "final"}, 'is not a round like "3"'),
                         ({"WhiteElo": "9999"}, "is not a rating"),
                         ({"BlackTitle": "Sir"}, "is not a title")):  # fmt: skip
        status, answer = web_daemon.request("api/headers", bad, token=token)
        assert status == 400 and message in answer["error"], (bad, answer)
        assert not set(bad) & set(web_daemon.state()["headers"])  # nothing was set
    good = {"Date": "2026.11.??", "Round": "3.1", "WhiteElo": "1500", "BlackTitle": "FM",
            "Event": "Club night", "Site": "Lyon FRA"}  # fmt: skip
    status, answer = web_daemon.request("api/headers", good, token=token)
    assert status == 200, answer
    status, pgn, _headers = get(web_daemon.url + "games/current.pgn")
    assert '[Date "2026.11.??"]' in pgn and '[Round "3.1"]' in pgn and "Variant" not in pgn
    web_daemon.request("api/headers", dict.fromkeys(good, ""), token=token)


def test_an_adjourned_game_is_resumed_from_the_page_and_stays_after_a_restart(tmp_path):
    from tests.board_driver.daemon_process import run_magboard

    daemon = WebDaemon(tmp_path)
    try:
        token = daemon.token
        daemon.request("api/sim", {"steps": [["lift", "e2"], ["place", "e4"]]}, token=token)
        daemon.wait_state(lambda s: s["moves"] == ["e4"])
        status, answer = daemon.request(
            "api/new_game", {"fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}, token=token
        )
        assert status == 200, answer
        assert daemon.state()["game_id"] == 2
        _status, games = daemon.request("api/games", method="GET")
        listed = {g["id"]: (g["result"], g["on_board"]) for g in games}
        assert listed == {1: ("*", False), 2: ("*", True)}

        status, answer = daemon.request("api/resume", {"game": 1}, token=token)
        assert status == 200, answer
        assert [e["game_id"] for e in answer["events"] if e["type"] == "game_resumed"] == [1]
        state = daemon.state()
        assert (state["game_id"], state["moves"]) == (1, ["e4"])
        for body, code, words in (({"game": 1}, 409, "already on the board"),
                                  ({"game": 99}, 404, "no game 99"),
                                  ({"game": "x"}, 400, "not a game number"),
                                  ({}, 400, "game")):  # fmt: skip
            status, answer = daemon.request("api/resume", body, token=token)
            assert status == code and words in answer["error"], (body, answer)
        assert daemon.request("api/resume", {"game": 2})[0] == 401  # no token
    finally:
        daemon.stop()
    listed = run_magboard("games", "--config", str(tmp_path / "config.toml")).stdout
    assert re.search(r"\n\s+1 .* 1  \* \(on the board\)", listed), listed
    assert re.search(r"\n\s+2 .* 0  \* \(adjourned\)", listed), listed

    again = WebDaemon(tmp_path)
    try:  # the board comes back with the game it had, not the newest one
        state = again.state()
        assert (state["game_id"], state["moves"]) == (1, ["e4"])
    finally:
        again.stop()


def test_the_clock_is_set_paused_adjusted_and_refused_with_reasons(web_daemon):
    token = web_daemon.token
    status, answer = web_daemon.request("api/clock", {"action": "pause"}, token=token)
    assert status == 409 and "no clock" in answer["error"]
    status, answer = web_daemon.request("api/options", {"clock": "3 + soon"}, token=token)
    assert status == 400 and "time control" in answer["error"]
    status, _ = web_daemon.request("api/options", {"clock": "5+3 delay"}, token=token)
    assert status == 200
    clock = web_daemon.wait_state(lambda s: s["clock"] is not None)["clock"]
    assert (clock["control"], clock["state"]) == ("5+3 delay", "waiting")
    assert clock["white_ms"] == clock["black_ms"] == 300_000
    status, answer = web_daemon.request("api/clock", {"action": "pause"}, token=token)
    assert status == 409 and "not running" in answer["error"]
    adjust = {"action": "adjust", "white_ms": 61_000, "black_ms": 62_000}
    status, _ = web_daemon.request("api/clock", adjust, token=token)
    assert status == 200
    state = web_daemon.wait_state(lambda s: s["clock"]["white_ms"] == 61_000)
    assert state["clock"]["black_ms"] == 62_000
    status, _ = web_daemon.request("api/clock", {"action": "resume"}, token=token)
    state = web_daemon.wait_state(lambda s: s["clock"]["state"] == "running")
    assert state["clock"]["turn"] == "white"
    status, _ = web_daemon.request("api/clock", {"action": "pause"}, token=token)
    assert web_daemon.request("api/clock", {"action": "resume"})[0] == 401  # no token
    web_daemon.request("api/options", {"clock": "none"}, token=token)
    assert web_daemon.wait_state(lambda s: s["clock"] is None)["options"]["clock"] == "none"


def test_a_chess960_game_is_started_played_and_exported_through_the_api(tmp_path):
    """Issue 35: the page's API starts a Chess960 game by number, at random or from a
    Shredder-FEN; the state says its variant and number; a castling that swaps king and
    rook, made on the simulated board as FIDE recommends, is O-O; its PGN says Chess960."""
    position_3 = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"
    daemon = WebDaemon(tmp_path)
    try:
        token = daemon.token
        for body, words in (
            ({"variant": "chess960", "chess960": 960}, "not a start position"),
            ({"variant": "chess960", "chess960": "7x"}, "not a start position"),
            ({"variant": "crazyhouse"}, "not a variant"),
            ({"variant": "standard", "chess960": 3}, 'for variant "chess960"'),
            ({"fen": position_3.replace("KQkq", "GEge")}, "castling"),  # no standard FEN
        ):
            status, answer = daemon.request("api/new_game", body, token=token)
            assert status in (400, 409) and words in answer["error"], (body, answer)
        assert daemon.state()["variant"] == "standard"
        status, answer = daemon.request(
            "api/new_game", {"variant": "chess960", "chess960": "random"}, token=token
        )
        assert status == 200, answer
        state = daemon.wait_state(lambda s: s["variant"] == "chess960")
        assert 0 <= state["chess960"] <= 959
        status, answer = daemon.request(
            "api/new_game",
            {"variant": "chess960", "fen": position_3.replace("KQkq", "GEge")},
            token=token,
        )
        assert status == 200, answer
        state = daemon.wait_state(lambda s: s["chess960"] == 3)
        assert state["start_fen"] == position_3 and state["pieces"].startswith("BQNNRKRB")
        # The last game's standard array stands: its back ranks are set up kind by kind
        # (the simulator's Set up the pieces), and nothing is read as a move before.
        assert state["setup_pending"]
        status, answer = daemon.request("api/setup", {}, token=token)
        assert status == 200, answer
        daemon.wait_state(lambda s: not s["setup_pending"])
        steps = [["lift", "d1"], ["place", "e3"], ["lift", "d8"], ["place", "e6"],
                 ["lift", "c1"], ["place", "d3"], ["lift", "c8"], ["place", "d6"]]  # fmt: skip
        for from_to in zip(steps[::2], steps[1::2], strict=True):
            moves = len(daemon.state()["moves"])
            daemon.request("api/sim", {"steps": list(from_to)}, token=token)
            daemon.wait_state(lambda s, n=moves: len(s["moves"]) == n + 1)
        # The king lifted first and held, the rook onto its square, the king onto the rook's.
        daemon.request(
            "api/sim",
            {"steps": [["lift", "f1"], ["lift", "g1"], ["place", "f1"], ["place", "g1"]]},
            token=token,
        )
        state = daemon.wait_state(lambda s: len(s["moves"]) == 5)
        assert state["moves"][-1] == "O-O" and state["in_sync"]
        status, text, _headers = get(daemon.url + f"games/{state['game_id']}.pgn")
        assert status == 200 and '[Variant "Chess960"]' in text
        assert f'[FEN "{position_3}"]' in text and "3. O-O" in text
    finally:
        daemon.stop()


def test_resign_for_a_side_the_last_move_and_a_new_game_set_up_with_its_clock(tmp_path):
    """Issue 34: a resignation for the side chosen (whoever is to move), the last move's
    squares, the coming game's clock while its pieces are set up (not the last game's
    stopped one), and no empty game put aside in the list."""
    daemon = WebDaemon(tmp_path)
    token = daemon.token
    try:
        status, answer = daemon.request("api/new_game", {}, token=token)  # an untouched board
        assert status == 200
        state = daemon.wait_state(lambda s: s["game_id"] == 2)
        status, games = daemon.request("api/games", method="GET")
        assert [g["id"] for g in games] == [2]  # game 1, empty, is not listed

        status, _ = daemon.request("api/options", {"clock": "3+2"}, token=token)
        steps = {"steps": [["lift", "e2"], ["place", "e4"]]}
        daemon.request("api/sim", steps, token=token)
        state = daemon.wait_state(lambda s: s["moves"] == ["e4"])
        assert state["last_move"] == ["e2", "e4"]
        status, answer = daemon.request("api/resign", {"side": "none"}, token=token)
        assert status == 400 and "side: 'none' is not white or black" in answer["error"]
        # Black is to move; White resigns all the same (FIDE 5.1.2).
        status, answer = daemon.request("api/resign", {"side": "white"}, token=token)
        assert status == 200, answer
        state = daemon.state()
        assert (state["result"], state["winner"]) == ("0-1", "black")
        assert state["clock"]["state"] == "stopped"

        daemon.request("api/button", {"button": "new_game"}, token=token)
        state = daemon.wait_state(lambda s: s["setup_pending"])
        clock = state["clock"]
        assert (clock["state"], clock["reason"], clock["white_ms"], clock["black_ms"]) == (
            "waiting",
            "setup",
            180_000,
            180_000,
        )
        assert clock["describe"] == "3 min for the game; 2 s added after every move"
        daemon.request("api/setup", {}, token=token)
        state = daemon.wait_state(lambda s: not s["setup_pending"])
        assert state["clock"]["white_ms"] == 180_000 and state["last_move"] is None
        status, games = daemon.request("api/games", method="GET")
        assert [(g["id"], g["result"]) for g in games] == [(3, "*"), (2, "0-1")]

        # A position with Black to move: the coming clock waits on Black's side.
        black_to_move = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"
        status, answer = daemon.request("api/new_game", {"fen": black_to_move}, token=token)
        assert status == 200, answer
        state = daemon.wait_state(lambda s: s["setup_pending"] and s["game_id"] == 4)
        assert (state["clock"]["turn"], state["clock"]["reason"]) == ("black", "setup")
        daemon.request("api/setup", {}, token=token)
        state = daemon.wait_state(lambda s: not s["setup_pending"])
        assert state["clock"]["turn"] == "black"
    finally:
        daemon.stop()


def test_the_page_is_sent_compressed_to_a_browser_that_accepts_it(web_daemon):
    """Issue 34: a phone loads a third of the bytes; the same page either way."""
    import gzip

    for path in ("", "static/board.js", "static/board.css"):
        plain = urllib.request.urlopen(web_daemon.url + path, timeout=5)
        body = plain.read()
        assert "Content-Encoding" not in plain.headers
        asked = urllib.request.Request(web_daemon.url + path, headers={"Accept-Encoding": "gzip"})
        packed = urllib.request.urlopen(asked, timeout=5)
        assert packed.headers["Content-Encoding"] == "gzip"
        assert packed.headers["Vary"] == "Accept-Encoding"
        squeezed = packed.read()
        assert gzip.decompress(squeezed) == body and len(squeezed) < len(body) / 2


def test_the_boards_answers_in_words_need_no_token_and_a_bad_question_is_named(web_daemon):
    status, answer = web_daemon.request("api/describe?what=square&square=g1", method="GET")
    assert status == 200 and answer == {"what": "square", "text": "White knight g1."}
    status, answer = web_daemon.request("api/describe?what=pieces&piece=r", method="GET")
    assert answer["text"] == "Black's rooks: a8 and h8."
    status, answer = web_daemon.request("api/describe?what=piece_moves&square=b8", method="GET")
    assert answer["text"] == "The black knight on b8 can go to a6 and c6."
    status, answer = web_daemon.request("api/describe?what=moves&count=3", method="GET")
    assert status == 200 and answer["text"].startswith(("No move yet.", "Last moves: move 1"))
    for query, error in [
        ("what=weather", "'weather' is not a question the board answers"),
        ("what=square&square=z9", "square: 'z9' is not a square (a1..h8)"),
        ("what=rank&rank=9", "rank: '9' is not a rank (1..8)"),
        ("what=pieces&piece=x", "piece: 'x' is not a piece letter"),
        ("what=clocks&square=e4", "clocks takes no 'square'"),
        ("what=moves&count=many", "count: 'many' is not a number"),
    ]:
        status, answer = web_daemon.request(f"api/describe?{query}", method="GET")
        assert status == 400 and answer["error"].startswith(error), (query, answer)
