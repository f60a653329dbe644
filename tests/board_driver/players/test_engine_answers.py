"""What an engine says is checked before it is used or stored (issue 32, item 3), through the
real daemon process and a fake UCI engine for each bad answer.

A review engine answering ``bestmove zz99`` had the bad move stored, after which the store's
own check called the whole file damaged: ``magboard pgn`` and ``games`` refused it and the
next ``run`` exited 65 with the fault lights. A score of 30 digits raised OverflowError in
the store, a line of 200 kB without an end was an "unexpected failure" with two tracebacks.
Now each bad answer ends that review with a clear message, nothing of it is stored, and the
store, the page and the next start are as before.

The fake engine answers the first position of each game well and the second badly, the
way its first move says (one daemon, one game a bad answer).
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

import rules
from board_driver.service.store import Store
from tests.board_driver.connectors.web.daemon import WebDaemon
from tests.board_driver.daemon_process import run_magboard

#: A game's first move, the fake engine's answer to the position after it, and what the
#: review must then say (its reason).
BAD_ANSWERS = [
    ("e2e4", ["info depth 9 score cp 12", "bestmove zz99"],
     "answered bestmove 'zz99' at ply 1: not a legal move there"),
    ("d2d4", ["info depth 9 score cp 999999999999999999999999999999", "bestmove d7d5"],
     "not a UCI score: 'cp 999999999999999999999"),
    ("c2c4", ["info depth 9 score mate 1000000000", "bestmove e7e5"],
     "not a UCI score: 'mate 1000000000'"),
    ("g1f3", ["info depth 9 score cp 30", "bestmove e2e5"],
     "answered bestmove 'e2e5' at ply 1: not a legal move there"),
    ("b2b3", ["LONG"], "a line of more than 64 kB"),
    ("g2g3", ["info depth 9 score cp abc", "bestmove e7e5"], "not a UCI score: 'cp abc'"),
    ("h2h3", ["bestmove e7e5"], "gave no score at ply 1"),
    ("b1c3", ["info depth 9 score mate -0", "bestmove e7e5"],
     "score 'mate -0' says the side to move is mated, and it is not"),
    ("a2a3", ["CRASH"], "ended waiting for"),
]  # fmt: skip

FAKE = '''#!{python}
import sys
position = ""
for line in sys.stdin:
    words = line.split()
    command = words[0] if words else ""
    if command == "uci":
        print("id name Fake answers", "uciok", sep="\\n", flush=True)
    elif command == "isready":
        print("readyok", flush=True)
    elif command == "position":
        position = line
    elif command == "go":
        moves = position.split(" moves ")[1].split() if " moves " in position else []
        answer = ["info depth 9 score cp 20", "bestmove e2e4"]
        if len(moves) == 1:
            answer = {answers}.get(moves[0], ["info depth 9 score cp 20", "bestmove e7e5"])
        for said in answer:
            if said == "LONG":
                sys.stdout.write("info string " + "x" * 200_000)
                sys.stdout.flush()
                sys.stdin.readline()
            elif said == "CRASH":
                sys.exit(3)
            else:
                print(said, flush=True)
    elif command == "quit":
        break
'''


def _fake_engine(directory: Path) -> Path:
    answers = {first: said for first, said, _why in BAD_ANSWERS}
    script = directory / "fake-engine.py"
    script.write_text(FAKE.format(python=sys.executable, answers=repr(answers)))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _finished_games(path: Path) -> dict[str, int]:
    """A game per bad answer (its first move, then resigned), the last one on the board."""
    games = {}
    with Store.open(path) as store:
        for first, _said, _why in BAD_ANSWERS:
            game_id = store.new_game()
            san = {"e2e4": "e4", "d2d4": "d4", "c2c4": "c4", "g1f3": "Nf3", "b2b3": "b3",
                   "g2g3": "g3", "h2h3": "h3", "b1c3": "Nc3", "a2a3": "a3"}[first]  # fmt: skip
            store.sync_moves(game_id, [(first, san)])
            store.finish(game_id, "1-0", "resignation")
            games[first] = game_id
    return games


@pytest.fixture(scope="module")
def reviewing(tmp_path_factory):
    directory = tmp_path_factory.mktemp("answers")
    games = _finished_games(directory / "games.sqlite")
    engine = _fake_engine(directory)
    # The pieces as the last game left them: it stays on the board, over.
    last = rules.Game.from_record(rules.Position(), [BAD_ANSWERS[-1][0]])
    (directory / "sim-board.json").write_text(
        json.dumps({"pieces": f"{last.position.occupancy():016x}"})
    )
    daemon = WebDaemon(
        directory,
        f'[engine]\nside = "none"\npath = "{engine}"\nreview = "on_request"\n'
        "review_depth = 9\nreview_nodes = 0\n",
    )
    yield daemon, games
    daemon.stop()


def _review_state(daemon: WebDaemon, game_id: int) -> dict:
    def over(state: dict) -> bool:
        review = state["player_states"]["engine"]["review"]
        return review["game"] == game_id and review["status"] in ("failed", "done")

    return daemon.wait_state(over, timeout=30)["player_states"]["engine"]["review"]


@pytest.mark.parametrize(("first", "said", "why"), BAD_ANSWERS, ids=[b[0] for b in BAD_ANSWERS])
def test_a_bad_engine_answer_ends_the_review_with_its_reason_and_stores_nothing_of_it(
    reviewing, first: str, said: list[str], why: str
) -> None:
    daemon, games = reviewing
    game_id = games[first]
    status, answer = daemon.request(
        "api/player/engine/review", {"game": game_id}, token=daemon.token
    )
    assert status == 200, answer
    review = _review_state(daemon, game_id)
    assert review["status"] == "failed" and why in review["reason"], review
    assert "Traceback" not in daemon.output() and "unexpected failure" not in daemon.output()
    # The start position's good answer is kept; nothing of the bad one.
    with Store.open(daemon.directory / "games.sqlite", readonly=True) as store:
        assert [r.ply for r in store.review(game_id)] == [0]
    status, view = daemon.request(f"api/games/{game_id}/review", method="GET")
    assert status == 200 and view["moves"][0]["score"] is None


def test_after_the_bad_answers_the_store_and_the_next_start_are_as_before(reviewing) -> None:
    daemon, games = reviewing
    for body in ({"game": 10**30}, {"game": -1}, {"game": "1"}, {"game": 2**63}):
        status, answer = daemon.request("api/player/engine/review", body, token=daemon.token)
        assert status == 400 and "is not a game number" in answer["error"], (body, answer)
    config = daemon.directory / "config.toml"
    listed = run_magboard("games", "--config", str(config))
    assert listed.returncode == 0 and "damaged" not in listed.stderr, listed.stderr
    pgn = run_magboard("pgn", str(games["e2e4"]), "--evals", "--config", str(config))
    assert pgn.returncode == 0 and "1. e4" in pgn.stdout, pgn.stderr
    daemon.stop()
    again = WebDaemon(daemon.directory, port=daemon.port)
    try:
        assert again.state()["board_state"] == "ok"
    finally:
        again.stop()


HANGS = '''#!{python}
import sys
for line in sys.stdin:
    command = line.split()[0] if line.split() else ""
    if command == "uci":
        print("id name Thinks forever", "uciok", sep="\\n", flush=True)
    elif command == "isready":
        print("readyok", flush=True)
'''


def test_a_second_cancel_ends_both_engines_before_the_stop_returns(tmp_path: Path) -> None:
    """Issue 32, item 7: a second ``Reviewer.cancel()`` overwrote the task that ends the
    first review's engine; the stop then waited for the second only."""
    import asyncio
    from types import SimpleNamespace

    from board_driver.players.engine.review import Reviewer

    engine = tmp_path / "hangs.py"
    engine.write_text(HANGS.format(python=sys.executable))
    engine.chmod(engine.stat().st_mode | stat.S_IXUSR)
    snapshot = SimpleNamespace(result="1-0", online=False, game_id=9, options={}, ucis=())
    door = SimpleNamespace(
        game=lambda game_id: SimpleNamespace(
            result="1-0", ucis=["e2e4"], start_fen=rules.STARTING_FEN, id=game_id
        ),
        snapshot=lambda: snapshot,
        review=lambda game_id: [],
        set_game_data=lambda *a, **k: None,
        store_review=lambda *a: None,
        announce=lambda event: None,
    )

    async def scenario() -> list:
        reviewer = Reviewer(door, path=str(engine), mode="on_request")
        engines = []
        for game_id in (1, 2):
            reviewer.request(game_id)  # the second stops the first
            while reviewer.engine is None or reviewer.engine in engines:
                await asyncio.sleep(0.01)
            engines.append(reviewer.engine)
        reviewer.cancel("stopped")
        await reviewer.stop()
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        return [*engines, left]

    first, second, left = asyncio.run(scenario())
    assert first.process.returncode is not None and second.process.returncode is not None
    assert left == []
