"""The hall's push of its round to a Lichess broadcast round, against a loopback fake of the
push endpoint written from the official API spec (tests/hall/fake_lichess.py)."""

from __future__ import annotations

import json
import time

from tests.hall.boards import Boards
from tests.hall.fake_lichess import FakeLichess
from tests.hall.hall_process import HallProcess, hall_config, read_games, wait_until

ROUND_ID = "Rnd0Ab12"


def lichess_keys(lichess: FakeLichess, token: str) -> str:
    return (f'lichess_round = "{ROUND_ID}"\nlichess_token = "{token}"\n'
            f'base_url = "{lichess.url}"\n')


def test_the_round_is_pushed_as_it_changes_and_not_again_when_it_does_not(tmp_path, mosquitto):
    tokens = {"arbiter-token": {"study:read", "study:write"}}
    with FakeLichess(rounds={ROUND_ID}, tokens=tokens, delay_s=0.2) as lichess:
        hall = HallProcess(hall_config(tmp_path, mosquitto, round="4",
                                       extra=lichess_keys(lichess, "arbiter-token")))
        try:
            with Boards(mosquitto, 2, round="4", event="League") as boards:
                boards.play(1, "e4", "e5")
                boards.play(2, "d4")
                boards.call(boards.door(2).end_game, "resignation", "1-0")

                def final_push():
                    pushed = lichess.accepted(ROUND_ID)
                    if not pushed:
                        return None
                    games = read_games(pushed[-1].text)
                    if len(games) == 2 and games[1].headers["Result"] == "1-0" and len(
                            list(games[0].mainline_moves())) == 2:
                        return games
                    return None

                games = wait_until(final_push, timeout=20)
                assert games, (lichess.pushes, hall.output())
                assert [g.headers["Board"] for g in games] == ["1", "2"]
                assert all(g.headers["Round"] == "4" and g.headers["Event"] == "League"
                           for g in games)
                assert games[0].headers["Result"] == "*"
                # Nothing changes: nothing more is pushed; never two requests at once.
                count = len(lichess.pushes)
                time.sleep(2.5)
                assert len(lichess.pushes) == count
                assert all(p.status == 200 for p in lichess.pushes), lichess.pushes
                state = json.loads(hall.get("/api/state")[2])["hall"]
                assert state["lichess"]["pushed"] == len(lichess.accepted(ROUND_ID))
                assert state["lichess"]["error"] is None
        finally:
            hall.terminate()
    assert "arbiter-token" not in hall.output()


def test_a_token_without_study_write_is_named_and_the_token_never_shown(tmp_path, mosquitto):
    tokens = {"reader-token": {"study:read"}}
    with FakeLichess(rounds={ROUND_ID}, tokens=tokens) as lichess:
        hall = HallProcess(hall_config(tmp_path, mosquitto,
                                       extra=lichess_keys(lichess, "reader-token")))
        try:
            with Boards(mosquitto, 1) as boards:
                boards.play(1, "e4")
                assert hall.wait_for(lambda: "study:write" in hall.output(), 15), hall.output()
                state = json.loads(hall.get("/api/state")[2])["hall"]
                assert "Missing scope" in state["lichess"]["error"]
        finally:
            hall.terminate()
        assert [p.status for p in lichess.pushes][:1] == [403]
    assert "reader-token" not in hall.output()
