"""A run of puzzles survives a restart of the daemon (a crash, a power cut, systemd's
restart): killed with SIGKILL in the middle of a puzzle, the daemon comes back with the
same puzzle at the same point, judged as before (only its line's moves, the opponent's
lit), its streak and the run's filters kept, and the result already stored not counted
twice. (It came back with the puzzle's game on the board played by people, no run.)"""

from __future__ import annotations

from pathlib import Path

from board_driver.service.store import Store
from tests.board_driver.connectors.web.daemon import WebDaemon
from tests.board_driver.players.puzzles.test_puzzles_daemon import KNIGHT, LADDER, puzzle_file


def puzzles(state: dict) -> dict:
    return state["player_states"].get("puzzles", {})


def play(daemon: WebDaemon, frm: str, to: str) -> None:
    status, answer = daemon.request(
        "api/sim", {"steps": [["lift", frm], ["place", to]]}, token=daemon.token
    )
    assert status == 200, answer


def lit(state: dict, frm: str, to: str) -> bool:
    """The opponent's move to make by hand is lit (its two squares, as an engine's)."""
    colours = state["leds"]["colours"]
    squares = [(int(name[1]) - 1) * 8 + "abcdefgh".index(name[0]) for name in (frm, to)]
    return puzzles(state).get("status") == "opponent" and all(colours[sq] != "." for sq in squares)


def set_up(daemon: WebDaemon) -> None:
    """The pieces set as the lights ask (the simulated board's own action)."""
    daemon.wait_state(lambda s: s["setup_pending"])
    status, answer = daemon.request("api/setup", {}, token=daemon.token)
    assert status == 200, answer


def start_run(tmp_path: Path, *rows: str, **filters: str) -> WebDaemon:
    """A daemon on ``tmp_path`` with a run started from a file of ``rows``, as the page
    starts one."""
    mine = puzzle_file(tmp_path, *rows)
    daemon = WebDaemon(tmp_path)
    status, answer = daemon.request(
        "api/player/puzzles/start", {"file": str(mine), **filters}, token=daemon.token
    )
    assert status == 200, answer
    return daemon


def test_a_run_goes_on_after_a_kill_at_the_same_puzzle_and_point(tmp_path: Path) -> None:
    daemon = start_run(tmp_path, KNIGHT, LADDER, themes="mate")
    # The first puzzle: set up, the opponent's move made as lit, the mate found.
    set_up(daemon)
    daemon.wait_state(lambda s: lit(s, "a5", "c4"))
    play(daemon, "a5", "c4")
    daemon.wait_state(lambda s: puzzles(s).get("status") == "your_move")
    play(daemon, "b1", "b8")
    # The next: set up, the opponent's move, one right move of the player's; the reply is lit.
    state = daemon.wait_state(lambda s: puzzles(s).get("puzzle", {}).get("id") == "ladder1")
    assert puzzles(state)["progress"]["streak"] == 1
    set_up(daemon)
    daemon.wait_state(lambda s: lit(s, "h8", "g8"))
    play(daemon, "h8", "g8")
    daemon.wait_state(lambda s: puzzles(s).get("status") == "your_move")
    status, answer = daemon.request("api/player/puzzles/hint", {}, token=daemon.token)
    assert status == 200 and answer["answer"]["hints"] == 1, answer
    play(daemon, "a1", "a7")
    before = daemon.wait_state(lambda s: lit(s, "g8", "h8"))
    daemon.kill()

    again = WebDaemon(tmp_path, port=daemon.port)
    try:
        state = again.wait_state(lambda s: puzzles(s).get("active"))
        run = puzzles(state)
        assert run["puzzle"]["id"] == "ladder1" and run["puzzle"]["number"] == 2
        assert run["filters"] == "themes: mate" and run["file"] == "mine.csv"
        assert run["progress"]["streak"] == 1 and run["progress"]["played"] == 1
        assert (run["hints"], run["mistakes"]) == (1, 0)  # the hint taken before is kept
        assert state["game_id"] == before["game_id"] and state["moves"] == ["Kg8", "Ra7"]
        assert state["players"] == {"white": "human", "black": "puzzles"}
        # The opponent's reply is lit again, and only it is taken.
        again.wait_state(lambda s: lit(s, "g8", "h8"))
        play(again, "g8", "h8")
        again.wait_state(lambda s: puzzles(s).get("status") == "your_move")
        play(again, "b2", "b8")  # mate: the puzzle is solved, the run is over
        state = again.wait_state(lambda s: puzzles(s).get("status") == "over", timeout=20)
        last = puzzles(state)["last"]
        # Solved with the hint taken before the kill: helped (the streak neither grows
        # nor breaks), and the first puzzle's result not counted again.
        assert (last["id"], last["result"], last["streak"]) == ("ladder1", "helped", 1)
        assert puzzles(state)["progress"]["played"] == 2
    finally:
        again.stop()
    with Store.open(tmp_path / "games.sqlite") as store:
        kept = store.all_game_data("puzzles")
    results = [(d["id"], d.get("result")) for d in kept.values()]
    assert results == [("knight1", "solved"), ("ladder1", "helped")]


def test_a_puzzle_being_set_up_is_set_up_again_after_a_kill(tmp_path: Path) -> None:
    """Killed while the first puzzle's position is being set up: the restart goes on with
    the set-up (the same puzzle), then lights its opponent's move; nothing is counted."""
    daemon = start_run(tmp_path, KNIGHT)
    daemon.wait_state(lambda s: s["setup_pending"] and s["asks"])
    daemon.kill()

    again = WebDaemon(tmp_path, port=daemon.port)
    try:
        state = again.wait_state(lambda s: puzzles(s).get("active"))
        assert puzzles(state)["status"] == "setup" and state["setup_pending"]
        assert puzzles(state)["puzzle"]["id"] == "knight1"
        set_up(again)
        state = again.wait_state(lambda s: lit(s, "a5", "c4"))
        assert puzzles(state)["progress"]["played"] == 0
    finally:
        again.stop()


def test_a_wrong_move_standing_at_a_kill_is_put_back_and_counted_once(tmp_path: Path) -> None:
    """Killed with a wrong move on the board (refused, lit to be put back): after the
    restart it is still to be put back, counted once; the right move then ends the
    puzzle as failed with that one mistake."""
    daemon = start_run(tmp_path, KNIGHT)
    set_up(daemon)
    daemon.wait_state(lambda s: lit(s, "a5", "c4"))
    play(daemon, "a5", "c4")
    daemon.wait_state(lambda s: puzzles(s).get("status") == "your_move")
    play(daemon, "a1", "a7")  # not the move: refused
    state = daemon.wait_state(lambda s: puzzles(s).get("status") == "wrong")
    assert puzzles(state)["mistakes"] == 1
    daemon.kill()

    again = WebDaemon(tmp_path, port=daemon.port)
    try:
        state = again.wait_state(
            lambda s: puzzles(s).get("status") == "wrong" and not s["in_sync"]
        )
        assert puzzles(state)["mistakes"] == 1 and state["moves"] == ["Nc4"]
        assert state["asks"] == ["Take the piece off a7; put one back on a1."]
        play(again, "a7", "a1")  # put back as the lights ask
        again.wait_state(lambda s: s["in_sync"] and puzzles(s).get("status") == "your_move")
        play(again, "b1", "b8")
        state = again.wait_state(lambda s: puzzles(s).get("status") == "over")
        last = puzzles(state)["last"]
        assert (last["id"], last["result"], last["mistakes"]) == ("knight1", "failed", 1)
    finally:
        again.stop()


def test_a_run_stopped_before_a_kill_is_not_taken_up_again(tmp_path: Path) -> None:
    """Stop ends a run for good: its unfinished puzzle's game, left on the board, is the
    two people's after a restart, not the run's again."""
    daemon = start_run(tmp_path, KNIGHT, LADDER)
    set_up(daemon)
    daemon.wait_state(lambda s: lit(s, "a5", "c4"))
    status, answer = daemon.request("api/player/puzzles/stop", {}, token=daemon.token)
    assert status == 200, answer
    daemon.wait_state(lambda s: s["players"] == {"white": "human", "black": "human"})
    daemon.kill()

    again = WebDaemon(tmp_path, port=daemon.port)
    try:
        state = again.wait_state(lambda s: "puzzles" in s["player_states"])
        assert not puzzles(state).get("active"), puzzles(state)
        assert state["players"] == {"white": "human", "black": "human"}
        play(again, "a5", "c4")  # a move by either side, judged as in any game
        again.wait_state(lambda s: s["moves"] == ["Nc4"])
    finally:
        again.stop()
