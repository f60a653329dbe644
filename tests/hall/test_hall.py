"""``magboard hall`` as a process, against a real Mosquitto and the board's real publisher.

What a relay polling the folder and a spectator on the page see: every board's game in
``round-N/games.pgn`` (python-chess reads it), ``Result "*"`` while live, the board in the
tags; the hall restarted or the broker restarted loses nothing; a record that cannot be
used is skipped with a warning, never served.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.hall.boards import Boards
from tests.hall.hall_process import HallProcess, hall_config, read_games, wait_until
from tests.mosquitto import Mosquitto

OPENINGS = {
    1: ["e4", "e5", "Nf3", "Nc6", "Bb5"],
    2: ["d4", "Nf6", "c4", "e6"],
    3: ["c4", "c5", "g3"],
}


def by_board(text: str) -> dict[int, list]:
    return {int(g.headers["Board"]): g for g in read_games(text)}


def sans(game) -> list[str]:
    board = game.board()
    out = []
    for move in game.mainline_moves():
        out.append(board.san(move))
        board.push(move)
    return out


@pytest.fixture
def hall(tmp_path, mosquitto):
    process = HallProcess(hall_config(tmp_path / "hall", mosquitto))
    yield process
    process.terminate()


def test_games_pgn_has_every_boards_game_live_then_its_result(mosquitto, hall):
    with Boards(mosquitto, 3) as boards:
        for board, moves in OPENINGS.items():
            boards.play(board, *moves)
        games = wait_until(lambda: len(by_board(hall.games_pgn())) == 3 and by_board(
            hall.games_pgn()))
        assert games, hall.games_pgn()
        for board, moves in OPENINGS.items():
            assert sans(games[board]) == moves
            assert games[board].headers["Result"] == "*"
            assert games[board].headers["Round"] == "1"
        boards.play(1, "a6", "Ba4", "Nf6")
        boards.call(boards.door(2).end_game, "resignation", "0-1")
        games = wait_until(lambda: (g := by_board(hall.games_pgn()))[2].headers["Result"] == "0-1"
                           and len(sans(g[1])) == 8 and g)
        assert games, hall.games_pgn()
        assert games[2].headers["Result"] == "0-1"
        assert sans(games[1])[-3:] == ["a6", "Ba4", "Nf6"]
        assert games[3].headers["Result"] == "*"

        # One game per file, numbered as in games.pgn; a missing one says what there is.
        status, _, body = hall.get("/round-1/game-2.pgn")
        assert status == 200 and read_games(body.decode())[0].headers["Board"] == "2"
        status, _, body = hall.get("/round-1/game-9.pgn")
        assert status == 404 and b"has 3 games" in body


def test_a_poller_gets_304_until_a_move_changes_the_round(mosquitto, hall):
    with Boards(mosquitto, 1) as boards:
        boards.play(1, "e4")
        assert wait_until(lambda: "1. e4" in hall.games_pgn())
        status, headers, _ = hall.get("/round-1/games.pgn")
        etag = headers["ETag"]
        status, _, _ = hall.get("/round-1/games.pgn", {"If-None-Match": etag})
        assert status == 304
        boards.play(1, "c5")
        assert wait_until(lambda: "1. e4 c5" in hall.games_pgn())
        status, _, _ = hall.get("/round-1/games.pgn", {"If-None-Match": etag})
        assert status == 200


def test_a_restarted_hall_rebuilds_every_game_from_the_broker(tmp_path, mosquitto):
    config = hall_config(tmp_path / "hall", mosquitto)
    with Boards(mosquitto, 3) as boards:
        for board, moves in OPENINGS.items():
            boards.play(board, *moves)
        first = HallProcess(config)
        assert wait_until(lambda: len(by_board(first.games_pgn())) == 3)
        before = first.games_pgn()
        first.kill()
        second = HallProcess(config)
        try:
            assert wait_until(lambda: second.games_pgn() == before), second.games_pgn()
        finally:
            second.terminate()


def test_the_hall_rides_out_a_broker_restart(tmp_path):
    broker = Mosquitto(tmp_path / "broker").start()
    hall = HallProcess(hall_config(tmp_path / "hall", broker))
    try:
        with Boards(broker, 2) as boards:
            boards.play(1, "e4")
            boards.play(2, "d4")
            assert wait_until(lambda: len(by_board(hall.games_pgn())) == 2)
            broker.kill()
            boards.play(1, "e5", "Nf3")
            boards.play(2, "d5")
            broker.start()
            games = wait_until(lambda: (g := by_board(hall.games_pgn())) and len(sans(g[1])) == 3
                               and len(sans(g[2])) == 2 and g, timeout=20)
            assert games, hall.output()
            assert sans(games[1]) == ["e4", "e5", "Nf3"] and sans(games[2]) == ["d4", "d5"]
            assert "the broker is back" in hall.output()
    finally:
        hall.terminate()
        broker.stop()


def test_a_record_that_cannot_be_used_is_skipped_and_named(mosquitto, hall):
    if shutil.which("mosquitto_pub") is None:
        pytest.skip("mosquitto_pub is not installed (apt-get install mosquitto-clients)")
    with Boards(mosquitto, 1) as boards:
        boards.play(1, "e4")
        assert wait_until(lambda: "1. e4" in hall.games_pgn())
        pub = ["mosquitto_pub", "-h", mosquitto.host, "-p", str(mosquitto.port), "-q", "1", "-r"]
        subprocess.run([*pub, "-t", "club/board/5/game/1", "-m", '{"board": 5, "game": "x"}'],
                       check=True)
        assert hall.wait_for(lambda: "club/board/5/game/1: the record cannot be used" in
                             hall.output())
        assert "Board \"5\"" not in hall.games_pgn()
        assert len(by_board(hall.games_pgn())) == 1


def test_the_page_and_its_state(mosquitto, hall):
    with Boards(mosquitto, 2) as boards:
        boards.play(1, "e4", "e5")
        boards.call(boards.door(2).set_headers, White="Ann", Black="Bob")
        assert wait_until(lambda: len(json.loads(hall.get("/api/state")[2])["games"]) == 2)
        state = json.loads(hall.get("/api/state")[2])
        first, second = state["games"]
        assert first["board"] == 1 and first["last_move"] == "e7e5" and first["last_san"] == "e5"
        assert second["white"] == "Ann" and second["black"] == "Bob"
        assert state["boards"] == {"1": "online", "2": "online"}
        status, headers, body = hall.get("/")
        assert status == 200 and b"magboard hall" in body
        assert "default-src 'self'" in headers["Content-Security-Policy"]
        status, _, body = hall.get(f"/api/game/1/{first['game']}")
        assert json.loads(body)["moves"] == ["e4", "e5"]


def test_games_of_another_round_have_their_own_folder(mosquitto, hall):
    with Boards(mosquitto, 1, round="2") as boards:
        boards.play(1, "f4")
        assert wait_until(lambda: "1. f4" in hall.games_pgn("2"))
        assert hall.games_pgn("1") == ""
        assert json.loads(hall.get("/api/state")[2])["rounds"] == ["1", "2"]


def test_a_bad_hall_section_is_named(tmp_path):
    config = tmp_path / "hall.toml"
    config.write_text('[hall]\nround = "3 b"\nlichess_round = "short"\nprefix = "a/#"\n')
    done = subprocess.run(
        [sys.executable, "-m", "board_driver", "hall", "--config", str(config)],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert '[hall] round: "3 b" is not a round name' in done.stderr
    assert "[hall] lichess_round:" in done.stderr and "[hall] prefix:" in done.stderr


def test_a_refused_password_is_said_as_such_and_shown_on_the_page(tmp_path):
    """The broker is reachable and refuses the hall's password: not "unreachable"; said
    once, shown on the page, and the hall stays up to try again (every 30 s)."""
    broker = Mosquitto(tmp_path / "broker", users={"hall": "right"}).start()
    hall = HallProcess(hall_config(tmp_path / "hall", broker, username="hall",
                                   password="wrong"))
    try:
        assert hall.wait_for(lambda: 'refused user "hall"' in hall.output())
        assert "[hall] username and password" in hall.output()
        assert "unreachable" not in hall.output()
        state = json.loads(hall.get("/api/state")[2])["hall"]
        assert state["broker"] is False and 'refused user "hall"' in state["problem"]
        assert hall.proc.poll() is None
    finally:
        hall.terminate()
        broker.stop()
