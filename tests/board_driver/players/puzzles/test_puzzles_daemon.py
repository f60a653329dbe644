"""Puzzles through the daemon, as a player meets them: a run started as the page starts
it (the ``puzzles`` player's ``start``), each position set up by the lights kind by kind
on the simulated board, the opponent's move lit and made by hand, a wrong move refused
and put back, a hint, a right move bringing the reply, a mate other than the line's
counted, and the results kept in the store and read again after a restart."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from board_driver.door import ActionRefused
from board_driver.physical.leds import Renderer, SimulatedLeds
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from board_driver.players.puzzles.seat import PuzzleSeat
from board_driver.players.puzzles.source import COLUMNS
from board_driver.service.config import ConfigError, parse_config
from board_driver.service.daemon import Daemon, Hardware
from board_driver.service.notify import Notifier
from board_driver.service.store import Store
from tests.board_driver.service.test_door import carry, drain, make_daemon, run, until

# A ladder: Black's king steps into it (Kg8), Ra7 (Rb8+?! lets it out), Kh8, Rb8#.
LADDER = (
    "ladder1,7k/8/8/8/8/8/1R6/R1K5 b - - 0 1,h8g8 a1a7 g8h8 b2b8,900,80,90,100,"
    "mate mateIn2 endgame,,"
)
# Na5-c4 leaves the back rank to two rooks: Rb8# is the line's mate, Ra8# mates as well.
KNIGHT = (
    "knight1,6k1/5ppp/8/n7/8/8/5PPP/RR4K1 b - - 0 1,a5c4 b1b8,700,75,90,100,"
    "mate mateIn1 backRankMate,,"
)


def puzzle_file(folder: Path, *rows: str) -> Path:
    """A puzzle file of the user's own, ``mine.csv`` in ``folder``: the Lichess database's
    header and ``rows``."""
    path = folder / "mine.csv"
    path.write_text(f"{','.join(COLUMNS)}\n" + "".join(f"{row}\n" for row in rows))
    return path


async def step(daemon: Daemon, board: SimulatedBoard, kind: str, name: str) -> None:
    """One hand on the board, taken by the daemon (debounced) before the next."""
    sq = square(name)
    getattr(board, kind)(sq)
    want = 0 if kind == "lift" else 1
    await until(lambda: daemon.intake.debouncer.stable >> sq & 1 == want)


async def set_up(daemon: Daemon, board: SimulatedBoard) -> list[str]:
    """Follow the lights until the position stands: the squares to empty emptied, then
    each group's squares filled, kind by kind. Returns the groups as they were lit."""
    door = daemon.door
    lit = []
    while door.snapshot().setup_pending:
        setup = door.snapshot().setup
        assert setup is not None
        wrong = [w["square"] for w in setup["wrong"]]
        if setup["extra"] or wrong:
            for name in [*setup["extra"], *wrong]:
                await step(daemon, board, "lift", name)
        elif setup["group"] is None:  # all stand: the game begins once the board is still
            await until(lambda: not door.snapshot().setup_pending)
        else:
            group = setup["group"]
            lit.append(f"{group['side']} {group['piece']}")
            for name in group["missing"]:
                await step(daemon, board, "place", name)
        await until(lambda s=setup: door.snapshot().setup != s or not door.snapshot().setup_pending)
    return lit


async def move(daemon: Daemon, board: SimulatedBoard, from_: str, to: str) -> None:
    """A move made by hand and committed."""
    before = len(daemon.door.snapshot().ucis)
    if daemon.intake.debouncer.stable >> square(to) & 1:
        await step(daemon, board, "lift", to)
    await carry(board, daemon, from_, to)
    await until(lambda: len(daemon.door.snapshot().ucis) == before + 1)


def state(daemon: Daemon) -> dict[str, Any]:
    return dict(daemon.door.snapshot().player_states["puzzles"])


def test_a_run_of_puzzles_on_the_board(tmp_path: Path) -> None:
    puzzles = puzzle_file(tmp_path, LADDER, KNIGHT)
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        events = door.subscribe()
        answer = await door.command("puzzles", "start", {"file": str(puzzles)})
        assert answer["status"] == "setup" and answer["puzzle"]["id"] == "ladder1"
        assert "moves" not in str(answer["puzzle"].get("solution", ""))
        # The start position's pieces off, then the ladder's kind by kind; the board knows
        # c1 holds the bishop, not the king the puzzle wants there, and says so.
        await until(lambda: door.snapshot().setup is not None)
        asks = door.snapshot().asks
        assert "c1 holds the white bishop, not the white king: take it off." in asks
        lit = await set_up(daemon, board)
        assert lit == ["white king", "white rook", "black king"]
        await until(lambda: door.snapshot().expected == "h8g8")  # the opponent's move lit
        puzzle = state(daemon)
        assert (puzzle["status"], puzzle["puzzle"]["rating"]) == ("opponent", 900)
        assert puzzle["puzzle"]["themes"] == ["mate", "mateIn2", "endgame"]
        await move(daemon, board, "h8", "g8")
        await until(lambda: state(daemon)["status"] == "your_move")
        assert door.snapshot().players == {"white": "human", "black": "puzzles"}

        # A wrong move: refused, said, lit to be put back; the game has not moved on.
        await carry(board, daemon, "b2", "b7")
        await until(lambda: state(daemon)["status"] == "wrong")
        snap = door.snapshot()
        assert not snap.in_sync and snap.ucis == ("h8g8",) and snap.fill == ("b2",)
        seen = drain(events)
        refused = next(e for e in seen if e["type"] == "illegal")
        assert (refused["reason"], refused["san"]) == ("refused", "Rb7")
        assert any(e["type"] == "puzzle_wrong" and e["san"] == "Rb7" for e in seen)
        await carry(board, daemon, "b7", "b2")
        await until(lambda: door.snapshot().in_sync and state(daemon)["status"] == "your_move")

        # A hint: the piece first, then the move.
        await door.command("puzzles", "hint")
        await door.command("puzzles", "hint")
        hints = [e for e in drain(events) if e["type"] == "puzzle_hint"]
        assert [(h["level"], h["square"]) for h in hints] == [(1, "a1"), (2, "a1")]
        assert hints[1]["san"] == "Ra7" and door.snapshot().hint == "a1a7"

        # The right move brings the reply, lit; then the mate ends the puzzle.
        await move(daemon, board, "a1", "a7")
        await until(lambda: door.snapshot().expected == "g8h8")
        await move(daemon, board, "g8", "h8")
        await carry(board, daemon, "b2", "b8")  # mate: the next puzzle follows at once
        await until(lambda: state(daemon)["puzzle"]["id"] == "knight1")
        done = next(e for e in drain(events) if e["type"] == "puzzle_done")
        assert (done["id"], done["result"], done["mistakes"], done["hints"]) == (
            "ladder1", "failed", 1, 2,
        )  # fmt: skip

        # The next puzzle, set up on the last one's pieces: a mate not the line's counts.
        await set_up(daemon, board)
        await until(lambda: door.snapshot().expected == "a5c4")
        await move(daemon, board, "a5", "c4")
        await until(lambda: state(daemon)["status"] == "your_move")
        await carry(board, daemon, "a1", "a8")  # Ra8#, where the line has Rb8#
        await until(lambda: state(daemon)["status"] == "over")
        seen = drain(events)
        done = next(e for e in seen if e["type"] == "puzzle_done")
        assert (done["id"], done["result"], done["streak"]) == ("knight1", "solved", 1)
        over = next(e for e in seen if e["type"] == "puzzles_over")
        assert (over["reason"], over["played"], over["solved"]) == ("no puzzle left", 2, 1)
        assert door.snapshot().players == {"white": "human", "black": "human"}
        await asyncio.sleep(0)

    run(daemon, scenario)
    with Store.open(tmp_path / "g.sqlite") as store:
        kept = store.all_game_data("puzzles")
        assert [(d["id"], d["result"]) for d in kept.values()] == [
            ("ladder1", "failed"), ("knight1", "solved"),
        ]  # fmt: skip
        game = store.game(next(iter(kept)))
        assert game.headers["Event"] == "Puzzle ladder1"

    # After a restart, the player's record is read again from the store.
    daemon, board = make_daemon(tmp_path)

    async def again() -> None:
        await until(lambda: "puzzles" in daemon.door.snapshot().player_states)
        progress = state(daemon)["progress"]
        assert (progress["played"], progress["solved"], progress["failed"]) == (2, 1, 1)
        assert progress["streak"] == 1

    run(daemon, again)


def test_the_board_is_not_held_while_the_next_puzzle_is_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A puzzle solved before the next one is found (a filter few of the database's
    lines pass): the board goes on meanwhile, the page says the next is being looked for,
    and it begins when found."""
    puzzles = puzzle_file(tmp_path, KNIGHT, LADDER)
    found = threading.Event()
    looked_for = PuzzleSeat._next_unsolved
    calls = []

    def slow_after_the_first(source: Any, done: set[str]) -> Any:
        calls.append(1)
        if len(calls) > 1:
            found.wait(10)  # the look-ahead: far down a long file
        return looked_for(source, done)

    monkeypatch.setattr(PuzzleSeat, "_next_unsolved", staticmethod(slow_after_the_first))
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        await door.command("puzzles", "start", {"file": str(puzzles)})
        await set_up(daemon, board)
        await until(lambda: door.snapshot().expected == "a5c4")
        await move(daemon, board, "a5", "c4")
        await until(lambda: state(daemon)["status"] == "your_move")
        await carry(board, daemon, "b1", "b8")  # mate: the next one is not found yet
        await until(lambda: state(daemon)["status"] == "looking", timeout=3)
        # The board is its own meanwhile: a lift is read (its square lit to be put back).
        await step(daemon, board, "lift", "h2")
        await step(daemon, board, "place", "h2")
        assert state(daemon)["last"]["result"] == "solved"
        found.set()
        await until(lambda: state(daemon).get("puzzle", {}).get("id") == "ladder1")
        assert state(daemon)["status"] == "setup"

    try:
        run(daemon, scenario)
    finally:
        found.set()


def test_a_puzzle_left_by_a_stopped_daemon_goes_on_after_its_restart(tmp_path: Path) -> None:
    """The daemon stopped mid-puzzle (systemd's restart): after its restart the run goes
    on with the same puzzle, its opponent's move lit again, and no result counted yet.
    (See test_puzzles_restart.py for a kill through the real process.)"""
    puzzles = tmp_path / "mine.csv"
    puzzles.write_text(f"{KNIGHT}\n")
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        await daemon.door.command("puzzles", "start", {"file": str(puzzles)})
        await set_up(daemon, board)
        await until(lambda: daemon.door.snapshot().expected == "a5c4")
        assert daemon.door.snapshot().players["black"] == "puzzles"

    run(daemon, scenario)
    daemon, board = make_daemon(tmp_path)

    async def again() -> None:
        door = daemon.door
        await until(lambda: state(daemon).get("active"))
        snap = door.snapshot()
        assert snap.players == {"white": "human", "black": "puzzles"}
        assert snap.start_fen == "6k1/5ppp/8/n7/8/8/5PPP/RR4K1 b - - 0 1"
        puzzle = state(daemon)
        assert puzzle["puzzle"]["id"] == "knight1" and puzzle["progress"]["played"] == 0
        await until(lambda: door.snapshot().expected == "a5c4")

    run(daemon, again)


def test_a_puzzle_whose_record_cannot_be_read_is_an_ordinary_game_after_a_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A puzzle's record another version wrote, or damaged: said in the log, and the game
    stays on the board played by people (nobody waits for the puzzle's opponent)."""
    puzzles = tmp_path / "mine.csv"
    puzzles.write_text(f"{KNIGHT}\n")
    daemon, _board = make_daemon(tmp_path)

    async def scenario() -> None:
        await daemon.door.command("puzzles", "start", {"file": str(puzzles)})
        await until(lambda: daemon.door.snapshot().players["black"] == "puzzles")

    run(daemon, scenario)
    with Store.open(tmp_path / "g.sqlite") as store:
        game_id = max(store.all_game_data("puzzles"))
        store.set_game_data(game_id, "puzzles", {"moves": "a5c4 zz99", "number": "two"})
    # The journal's copy of the record (it is replayed over the store's) gone too.
    (tmp_path / "g.sqlite.hands").unlink()
    daemon, _board = make_daemon(tmp_path)

    async def again() -> None:
        door = daemon.door
        await until(lambda: "puzzles" in door.snapshot().player_states)
        snap = door.snapshot()
        assert snap.players == {"white": "human", "black": "human"} and snap.awaiting is None
        assert snap.game_id == game_id and state(daemon)["status"] == "idle"

    run(daemon, again)
    said = [r.getMessage() for r in caplog.records if "cannot go on" in r.getMessage()]
    assert said and f"game {game_id}" in said[0], said


def test_the_config_starts_a_run_filtered_and_names_a_bad_value(tmp_path: Path) -> None:
    config = (
        f'[sensing]\nbackend = "sim"\n[leds]\nbackend = "sim"\n'
        f'[store]\npath = "{tmp_path / "g.sqlite"}"\n[engine]\npath = "/nonexistent/engine"\n'
        '[puzzles]\nstart = true\nrating = "1300-1500"\nthemes = "mateIn2"\n'
    )
    board = SimulatedBoard()
    hardware = Hardware(board, SimulatedLeds(), Renderer().render, sim_board=board)
    daemon = Daemon(parse_config(config), hardware, notifier=Notifier(environ={}))

    async def scenario() -> None:
        await until(lambda: state(daemon).get("status") == "setup")
        puzzle = state(daemon)["puzzle"]
        assert 1300 <= puzzle["rating"] <= 1500 and "mateIn2" in puzzle["themes"]
        assert state(daemon)["file"] == "sample.csv"
        assert state(daemon)["filters"] == "rated 1300 to 1500, themes: mateIn2"

    run(daemon, scenario)
    with pytest.raises(ConfigError, match=r"\[puzzles\] rating: .*LOW-HIGH"):
        parse_config('[puzzles]\nrating = "hard ones"\n')


def test_a_pgn_puzzle_the_solver_moves_first_and_a_second_run_skips_what_was_solved(
    tmp_path: Path,
) -> None:
    """A PGN puzzle as books set it (the side to move solves): no opponent's move first.
    A second run of the same file leaves out the puzzle solved in the first."""
    pgn = tmp_path / "book.pgn"
    pgn.write_text(
        '[Event "?"]\n[SetUp "1"]\n[FEN "1R1r2k1/p4ppp/2r5/3p4/P2P4/6nP/6PK/R7 w - - 1 30"]\n'
        '[PuzzleId "book1"]\n\n30. Rxd8# *\n'
    )
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        await door.command("puzzles", "start", {"file": str(pgn)})
        await set_up(daemon, board)
        await until(lambda: state(daemon)["status"] == "your_move")
        assert door.snapshot().players == {"white": "human", "black": "puzzles"}
        assert door.snapshot().expected is None  # no opponent's move: the solver's turn
        await step(daemon, board, "lift", "d8")  # the rook taken first, then Rxd8#
        await carry(board, daemon, "b8", "d8")
        await until(lambda: state(daemon)["status"] == "over")
        last = state(daemon)["last"]
        assert (last["id"], last["result"], last["streak"]) == ("book1", "solved", 1)
        with pytest.raises(ActionRefused, match=r"no puzzle to play in book\.pgn"):
            await door.command("puzzles", "start", {"file": str(pgn)})

    run(daemon, scenario)
