"""Issue 27: the board's clock in the hall: ``TimeControl`` and a ``%clk`` after every move
in ``games.pgn`` and in its push to a Lichess broadcast, the clocks on the page's state
(the board's real publisher, ``magboard hall`` as a process, a real Mosquitto)."""

from __future__ import annotations

import json

from tests.hall.boards import Boards
from tests.hall.fake_lichess import FakeLichess
from tests.hall.hall_process import HallProcess, hall_config, read_games, wait_until

ROUND_ID = "Clk0Ab12"


def clocks_of(game) -> list[float]:
    return [node.clock() for node in game.mainline()]


def test_the_halls_pgn_and_its_push_carry_the_boards_clock(tmp_path, mosquitto):
    tokens = {"arbiter-token": {"study:read", "study:write"}}
    with FakeLichess(rounds={ROUND_ID}, tokens=tokens) as lichess:
        keys = (
            f'lichess_round = "{ROUND_ID}"\nlichess_token = "arbiter-token"\n'
            f'base_url = "{lichess.url}"\n'
        )
        hall = HallProcess(hall_config(tmp_path, mosquitto, extra=keys))
        try:
            with Boards(mosquitto, 2) as boards:
                boards.play(1, "e4", "e5", "Nf3")
                boards.call(
                    boards.door(1).set_clock, "3+2", [180_000, 178_500, 177_250], 177_250, 178_500
                )
                boards.play(2, "d4")  # a board without a clock

                def clocked():
                    games = {int(g.headers["Board"]): g for g in read_games(hall.games_pgn())}
                    return games if len(games) == 2 and clocks_of(games[1])[-1:] else None

                games = wait_until(clocked)
                assert games, hall.games_pgn()
                assert games[1].headers["TimeControl"] == "180+2"
                assert clocks_of(games[1]) == [180.0, 178.5, 177.2]  # tenths, never more
                assert "TimeControl" not in games[2].headers
                assert clocks_of(games[2]) == [None]
                state = json.loads(hall.get("/api/state")[2])
                board_one = next(g for g in state["games"] if g["board"] == 1)
                assert board_one["clocks"] == {"white": 177_250, "black": 178_500}
                assert board_one["time_control"] == "180+2"

                def pushed():
                    for push in reversed(lichess.accepted(ROUND_ID)):
                        found = read_games(push.text)
                        if found and clocks_of(found[0])[-1:] == [177.2]:
                            return found
                    return None

                pushed_games = wait_until(pushed, timeout=20)
                assert pushed_games, (lichess.pushes, hall.output())
                assert pushed_games[0].headers["TimeControl"] == "180+2"
        finally:
            hall.terminate()
