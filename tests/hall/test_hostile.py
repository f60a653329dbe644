"""A hostile board against a running ``magboard hall`` on a real Mosquitto, with the
accounts and access rules of docs/hall/aclfile: board 3's account publishes, on its own
topics only (the broker refuses the rest), every record of issue 23's attack and hundreds
of fuzzed ones, retained. The hall stays up (and comes back up after a restart, when the
broker hands every one of them over again), the honest boards' games stay exact (python-
chess reads them), nothing forged reaches games.pgn, board 3 shows "bad data" and the log
names it once.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import aiomqtt

from tests.hall.boards import Boards
from tests.hall.daemons import HALL_PASSWORD, hall_broker, password
from tests.hall.hall_process import HallProcess, hall_config, read_games, wait_until
from tests.hall.hostile import HOSTILE, mutated, record_of
from tests.mosquitto import Mosquitto

FUZZED = 300
OPENINGS = {1: ["e4", "e5", "Nf3"], 2: ["d4", "Nf6"]}
MORE = {1: ["Nc6", "Bb5"], 2: ["c4", "e6"]}


def hostile_messages() -> list[tuple[str, bytes]]:
    """Board 3's attack: (topic, payload), each record a game of its own (all retained)."""
    rng = random.Random(23)
    out: list[tuple[str, bytes]] = []
    game = 100
    for payload, _ in HOSTILE.values():
        game += 1
        out.append((f"magboard/board/3/game/{game}",
                    payload if isinstance(payload, bytes) else payload.encode()))
    good = record_of(3, 1, ["c4", "e5", "Nc3"]).to_json()
    for _ in range(FUZZED):
        game += 1
        data = json.loads(good)
        data["game"] = game
        out.append((f"magboard/board/3/game/{game}", mutated(json.dumps(data), rng)))
    out += [
        ("magboard/board/3/status", b"x" * 1_000_000),
        ("magboard/board/3/status", b"online\n[Event"),
        ("magboard/board/2/game/1", record_of(2, 1, ["h4"]).to_json().encode()),  # refused
        ("magboard/board/3/game/01", good.encode()),  # a number no board writes
        ("magboard/board/3/game/1/../../2/game/1", good.encode()),
    ]
    return out


async def publish_as(broker: Mosquitto, user: str, messages: list[tuple[str, bytes]]) -> None:
    async with aiomqtt.Client(broker.host, broker.port, username=user,
                              password=password(int(user)), timeout=60) as client:
        for topic, payload in messages:
            await client.publish(topic, payload, qos=1, retain=True)


def by_board(hall: HallProcess) -> dict[str, list[list[str]]]:
    """Board -> the moves of each of its games in games.pgn (python-chess reads them: a
    move it finds illegal is an error). A fuzzed record that is still a legal game of
    board 3 may be among them: board 3's account may publish its own games."""
    out: dict[str, list[list[str]]] = {}
    for game in read_games(hall.games_pgn()):
        position = game.board()
        sans = []
        for move in game.mainline_moves():
            sans.append(position.san(move))
            position.push(move)
        out.setdefault(game.headers["Board"], []).append(sans)
    return out


def shows(hall: HallProcess, expected: dict[str, list[str]]) -> bool:
    """The honest boards' games exactly, and board 3's good game among its own."""
    served = by_board(hall)
    return (set(served) == {"1", "2", "3"} and served["1"] == [expected["1"]]
            and served["2"] == [expected["2"]] and expected["3"] in served["3"])


def warnings_for_board_3(hall: HallProcess) -> list[str]:
    return [line for line in hall.output().splitlines() if "board 3 shows bad data" in line]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def test_a_hostile_board_cannot_harm_the_hall(tmp_path):
    broker = hall_broker(tmp_path / "broker", 3)
    config = hall_config(tmp_path / "hall", broker, username="hall", password=HALL_PASSWORD,
                         prefix="magboard")
    hall = HallProcess(config)

    def accounts(board: int) -> dict[str, str]:
        return {"username": str(board), "password": password(board), "prefix": "magboard"}

    try:
        with Boards(broker, 2, accounts=accounts, event="Open") as boards:
            for board, sans in OPENINGS.items():
                boards.play(board, *sans)
            assert wait_until(lambda: by_board(hall) == {"1": [OPENINGS[1]], "2": [OPENINGS[2]]}
                              ), hall.output()
            asyncio.run(publish_as(broker, "3", hostile_messages()))
            # Board 3's own good game, published last, shows once the hall took it all.
            asyncio.run(publish_as(broker, "3", [("magboard/board/3/game/1", record_of(
                3, 1, ["c4", "e5", "Nc3"], revision=9).to_json().encode())]))
            for board, sans in MORE.items():
                boards.play(board, *sans)
            expected = {"1": OPENINGS[1] + MORE[1], "2": OPENINGS[2] + MORE[2],
                        "3": ["c4", "e5", "Nc3"]}
            assert wait_until(lambda: shows(hall, expected), 30), (
                hall.games_pgn() + hall.output()[-3000:])
            assert hall.proc.poll() is None
            text = hall.games_pgn()
            assert "Forged" not in text and "Mallory" not in text and "h4" not in text
            state = json.loads(hall.get("/api/state")[2])
            assert set(state["bad"]) == {"3"}
            assert state["boards"]["1"] == state["boards"]["2"] == "online"
            assert len(warnings_for_board_3(hall)) == 1, warnings_for_board_3(hall)
            assert len(text) < 10_000 and rss_mb(hall.proc.pid) < 200

            # Every retained record again, to a hall started afresh: it stays up.
            hall.kill()
            hall = HallProcess(config)
            assert wait_until(lambda: shows(hall, expected), 30), hall.output()[-3000:]
            assert hall.wait_for(lambda: len(warnings_for_board_3(hall)) == 1)
            boards.play(1, "a6")
            expected["1"] = [*expected["1"], "a6"]
            assert wait_until(lambda: shows(hall, expected)), hall.output()[-3000:]
            assert hall.proc.poll() is None and len(warnings_for_board_3(hall)) == 1
            assert set(json.loads(hall.get("/api/state")[2])["bad"]) == {"3"}
    finally:
        hall.terminate()
        broker.stop()
