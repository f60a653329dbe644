"""The hall of boards end to end: boards as separate ``magboard run --sim --script -``
processes publishing to a real Mosquitto (with the access rules of docs/hall/aclfile),
``magboard hall`` serving ``games.pgn``.

Games of ../shared/data/selfplay.pgn are played at once, 4 in the default run and 16 under
``-m slow``. During the round the broker is killed and restarted, one board is SIGKILLed
and restarted in the middle of its game, and the hall is restarted. At the end every game
in ``games.pgn`` has the board's own stored moves and result (python-chess reads both),
once: nothing lost, nothing doubled.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.board_driver.daemon_process import no_daemon_left_running  # noqa: F401
from tests.hall.daemons import (
    ACL,
    HALL_PASSWORD,
    Hands,
    hall_broker,
    password,
    start_board,
    stored_games,
)
from tests.hall.hall_process import HallProcess, hall_config, read_games, wait_until
from tests.hall.scripts import sans, shortest_games
from tests.mosquitto import Mosquitto


def play_round(tmp_path: Path, count: int) -> None:
    """``count`` boards play their games at once (each by its own :class:`Hands`). On the
    way: the broker killed once board 1 has stored 3 moves and back at 6, board 2 killed
    and restarted halfway through its game, the hall restarted two moves after that."""
    games = shortest_games(count)
    broker = hall_broker(tmp_path / "broker", count)
    config = hall_config(tmp_path / "hall", broker, username="hall", password=HALL_PASSWORD,
                         prefix="magboard")
    hall = HallProcess(config)
    boards = {b: start_board(tmp_path / f"board{b}", broker, b) for b in range(1, count + 1)}
    moves = {b: list(games[b - 1].mainline_moves()) for b in boards}
    half = len(moves[2]) // 2
    hands = {b: Hands(boards[b], moves[b], pause_at=half if b == 2 else ()) for b in boards}
    try:
        start = time.monotonic()
        for player in hands.values():
            player.start()

        def until(predicate, what: str) -> None:
            errors = [h.error for h in hands.values() if h.error]
            assert not errors, errors[0]
            assert wait_until(lambda: predicate() or any(h.error for h in hands.values()),
                              120), what
            errors = [h.error for h in hands.values() if h.error]
            assert not errors, errors[0]

        until(lambda: hands[1].stored >= 3, "board 1 never stored 3 moves")
        broker.kill()  # no last save: it comes back without the retained games
        until(lambda: hands[1].stored >= 6, "board 1 never stored 6 moves")
        broker.start()
        until(hands[2].paused.is_set, "board 2 never got halfway")
        boards[2].kill()
        until(lambda: json.loads(hall.get("/api/state")[2])["boards"].get("2") == "offline",
              "the broker never announced board 2 offline")
        boards[2] = start_board(tmp_path / "board2", broker, 2)
        hands[2].resume(boards[2])
        until(lambda: hands[2].stored >= half + 2, "board 2 never went on after its restart")
        hall.kill()
        hall = HallProcess(config)
        for b, player in hands.items():
            player.join(180)
            assert player.error is None, player.error
            assert player.stored == len(moves[b]), f"board {b} stopped at {player.stored}"
        played_s = time.monotonic() - start

        def complete():
            served = read_games(hall.games_pgn())
            return served if len(served) == count and all(
                g.headers["Result"] != "*" for g in served) else None

        served = wait_until(complete, timeout=30)
        assert served, hall.games_pgn() + "\n" + hall.output()
        by_board = {}
        for game in served:
            assert game.headers["Board"] not in by_board, "a board's game came twice"
            by_board[game.headers["Board"]] = game
        for b in boards:
            stored = stored_games(tmp_path / f"board{b}")
            assert len(stored) == 1, [g.headers for g in stored]
            mine, hall_game = stored[0], by_board[str(b)]
            assert sans(list(hall_game.mainline_moves())) == sans(list(mine.mainline_moves()))
            assert sans(list(mine.mainline_moves())) == sans(moves[b])
            assert hall_game.headers["Result"] == mine.headers["Result"]
            assert hall_game.headers["Result"] == games[b - 1].headers["Result"]
            assert hall_game.headers["White"] == f"White {b}"
            assert hall_game.headers["Round"] == "1" and hall_game.headers["Event"] == (
                "Hall test")
        assert json.loads(hall.get("/api/state")[2])["boards"]["2"] == "online"
        # The boards lived through the broker's loss (board 2's first life's log is gone).
        for b in (1, 3, 4):
            log = boards[b].output()
            assert "unreachable" in log and "the broker is back" in log, log
        print(f"{count} boards played their games in {played_s:.1f} s")
    finally:
        hall.terminate()
        for daemon in boards.values():
            if daemon.proc.poll() is None:
                daemon.terminate()
        broker.stop()


def test_four_boards_a_round_through_broker_board_and_hall_restarts(tmp_path):
    play_round(tmp_path, 4)


@pytest.mark.slow
def test_sixteen_boards_a_round_through_broker_board_and_hall_restarts(tmp_path):
    play_round(tmp_path, 16)


def test_a_board_cannot_publish_another_boards_game(tmp_path):
    """The access rules of docs/hall/aclfile: board 1's account writing board 2's topic is
    refused by the broker, and the hall never shows it."""
    if shutil.which("mosquitto_pub") is None:
        pytest.skip("mosquitto_pub is not installed (apt-get install mosquitto-clients)")
    users = {"1": password(1), "2": password(2), "hall": HALL_PASSWORD}
    broker = Mosquitto(tmp_path / "broker", users=users, acl=ACL.read_text()).start()
    hall = HallProcess(hall_config(tmp_path / "hall", broker, username="hall",
                                   password=HALL_PASSWORD, prefix="magboard"))
    try:
        after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        record = ('{"board":%d,"game":1,"moves":["e4"],"ucis":["e2e4"],"result":"*",'
                  f'"fen":"{after_e4}"}}')
        pub = ["mosquitto_pub", "-h", broker.host, "-p", str(broker.port), "-q", "1", "-r"]
        subprocess.run([*pub, "-u", "1", "-P", password(1), "-t", "magboard/board/2/game/1",
                        "-m", record % 2], check=True)
        subprocess.run([*pub, "-u", "1", "-P", password(1), "-t", "magboard/board/1/game/1",
                        "-m", record % 1], check=True)
        # Board 1's own game arrives (after the refused one: the broker keeps their order).
        assert wait_until(lambda: read_games(hall.games_pgn()))
        time.sleep(0.5)
        assert [g.headers["Board"] for g in read_games(hall.games_pgn())] == ["1"]
    finally:
        hall.terminate()
        broker.stop()
