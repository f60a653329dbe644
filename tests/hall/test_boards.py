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

import chess
import pytest

from tests.board_driver.daemon_process import (  # noqa: F401
    DaemonProcess,
    no_daemon_left_running,
    run_magboard,
    write_config,
)
from tests.hall.hall_process import HallProcess, hall_config, read_games, wait_until
from tests.hall.scripts import sans, script_lines, shortest_games
from tests.mosquitto import Mosquitto

ROOT = Path(__file__).resolve().parents[2]
ACL = ROOT / "docs" / "hall" / "aclfile"
HALL_PASSWORD = "hall-secret"


def password(board: int) -> str:
    return f"board-{board}-secret"


def board_config(directory: Path, broker: Mosquitto, board: int) -> Path:
    return write_config(
        directory,
        f"""
[web]
enabled = false
[broadcast]
enabled = true
host = "{broker.host}"
port = {broker.port}
username = "{board}"
password = "{password(board)}"
board = {board}
round = "1"
event = "Hall test"
white = "White {board}"
black = "Black {board}"
""",
    )


def start_board(directory: Path, broker: Mosquitto, board: int) -> DaemonProcess:
    board_config(directory, broker, board)
    daemon = DaemonProcess(directory)
    daemon.wait_ready(30)
    return daemon


def stored_games(directory: Path) -> list[chess.pgn.Game]:
    """The board's own stored games that have moves (``magboard pgn all``)."""
    done = run_magboard("pgn", "all", "--config", str(directory / "config.toml"))
    assert done.returncode == 0, done.stderr
    return [g for g in read_games(done.stdout) if list(g.mainline_moves())]


def play_round(tmp_path: Path, count: int) -> None:
    games = shortest_games(count)
    users = {str(b): password(b) for b in range(1, count + 1)} | {"hall": HALL_PASSWORD}
    broker = Mosquitto(tmp_path / "broker", users=users, acl=ACL.read_text()).start()
    config = hall_config(tmp_path / "hall", broker, username="hall", password=HALL_PASSWORD,
                         prefix="magboard")
    hall = HallProcess(config)
    boards = {b: start_board(tmp_path / f"board{b}", broker, b) for b in range(1, count + 1)}
    moves = {b: list(games[b - 1].mainline_moves()) for b in boards}
    try:
        # Board 2 plays the first half of its game, is killed, and plays the rest after.
        half = len(moves[2]) // 2
        for b, daemon in boards.items():
            lines = script_lines(moves[b][:half] if b == 2 else moves[b])
            daemon.send(*lines)
        start = time.monotonic()

        time.sleep(2.5)
        broker.kill()  # no last save: it comes back without the retained games
        time.sleep(2.0)
        broker.start()

        assert boards[2].wait_for(lambda: len(boards[2].moves_logged()) == half, 60), (
            boards[2].output())
        time.sleep(0.6)
        boards[2].kill()
        assert wait_until(lambda: json.loads(hall.get("/api/state")[2])["boards"].get("2")
                          == "offline", 15), "the broker never announced board 2 offline"
        boards[2] = start_board(tmp_path / "board2", broker, 2)
        after_half = chess.Board()
        for move in moves[2][:half]:
            after_half.push(move)
        boards[2].send(*script_lines(moves[2][half:], after_half, new_game=False))

        hall.kill()
        hall = HallProcess(config)

        for b, daemon in boards.items():
            expected = len(moves[b]) - (half if b == 2 else 0)
            assert daemon.wait_for(lambda d=daemon, n=expected: len(d.moves_logged()) >= n,
                                   120), daemon.output()
        played_s = time.monotonic() - start

        def complete():
            text = hall.games_pgn()
            served = read_games(text)
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
        record = '{"board":%d,"game":1,"moves":["e4"],"ucis":["e2e4"],"result":"*"}'
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
