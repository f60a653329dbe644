"""Giving a puzzle up, as a player does on the page (*Next*) or with the board's
``new_game`` button: a puzzle begun counts as failed, its solution is said, the streak
ends and the next puzzle is set up; one not begun yet is skipped without a count; *Stop*
ends the run and hands the board back to two people."""

from __future__ import annotations

from pathlib import Path

from board_driver.service.store import Store
from tests.board_driver.players.puzzles.test_puzzles_daemon import (
    KNIGHT,
    LADDER,
    move,
    puzzle_file,
    set_up,
    state,
    step,
)
from tests.board_driver.service.test_door import carry, drain, make_daemon, run, until

# A third puzzle after the two: Qxf7# (the queen and the bishop's battery on f7).
BATTERY = (
    "battery1,r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3,"
    "g8f6 h5f7,600,75,90,100,mate mateIn1 opening,,"
)


def test_a_puzzle_given_up_counts_as_failed_says_its_solution_and_the_next_follows(
    tmp_path: Path,
) -> None:
    puzzles = puzzle_file(tmp_path, KNIGHT, LADDER, BATTERY)
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        events = door.subscribe()
        await door.command("puzzles", "start", {"file": str(puzzles)})
        await set_up(daemon, board)
        await until(lambda: door.snapshot().expected == "a5c4")
        await move(daemon, board, "a5", "c4")  # the opponent's move, made by hand
        await until(lambda: state(daemon)["status"] == "your_move")

        # Given up on the page: failed, the solution said, the next one set up.
        answer = await door.command("puzzles", "next")
        assert answer["puzzle"]["id"] == "ladder1"
        done = next(e for e in drain(events) if e["type"] == "puzzle_done")
        assert (done["id"], done["result"], done["given_up"]) == ("knight1", "failed", True)
        assert done["solution"] == ["Rb8#"] and done["streak"] == 0
        await until(lambda: door.snapshot().setup_pending)

        # Not begun yet (its pieces still being set up): skipped, nothing counted.
        await door.command("puzzles", "next")
        await until(lambda: state(daemon)["puzzle"]["id"] == "battery1")
        assert not [e for e in drain(events) if e["type"] == "puzzle_done"]
        await set_up(daemon, board)
        await until(lambda: door.snapshot().expected == "g8f6")
        await move(daemon, board, "g8", "f6")
        await until(lambda: state(daemon)["status"] == "your_move")
        await step(daemon, board, "lift", "f7")  # Qxf7#: the pawn taken off first
        await carry(board, daemon, "h5", "f7")
        await until(lambda: state(daemon)["status"] == "over")
        done = next(e for e in drain(events) if e["type"] == "puzzle_done")
        assert (done["id"], done["result"], done["streak"]) == ("battery1", "solved", 1)

    run(daemon, scenario)
    with Store.open(tmp_path / "g.sqlite") as store:
        kept = store.all_game_data("puzzles").values()
        # The skipped puzzle's game is kept, with no result: it counts for nothing.
        assert [(d["id"], d.get("result")) for d in kept] == [
            ("knight1", "failed"), ("ladder1", None), ("battery1", "solved"),
        ]  # fmt: skip


def test_stop_ends_the_run_and_the_board_is_two_peoples_again(tmp_path: Path) -> None:
    puzzles = puzzle_file(tmp_path, KNIGHT)
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        events = door.subscribe()
        await door.command("puzzles", "start", {"file": str(puzzles)})
        await set_up(daemon, board)
        await until(lambda: door.snapshot().players["black"] == "puzzles")
        await door.command("puzzles", "stop")
        over = next(e for e in drain(events) if e["type"] == "puzzles_over")
        assert (over["reason"], over["played"], over["solved"]) == ("stopped", 1, 0)
        await until(lambda: door.snapshot().players == {"white": "human", "black": "human"})
        assert state(daemon)["status"] == "over"

    run(daemon, scenario)
