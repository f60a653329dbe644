"""After a restart: what the pieces alone can tell, and what the board asks instead of
guessing (issue 24, item 1). The readings against python-chess, and the daemon in process
on the simulated board: the question on the page and the lights, the board's events held
until the answer, the answer through the page's action.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
from pathlib import Path

import chess
import pytest

import rules
from board_driver.connectors.web.actions import Actions
from board_driver.door import ActionRefused
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from board_driver.service.hands_journal import journal_path
from board_driver.service.resumption import readings
from board_driver.service.store import Store
from tests.board_driver.service.sim_daemon import sim_daemon, start, until
from tests.conftest import SHARED_DATA

ISSUE_FEN = "6Q1/4k1p1/2n4r/4p3/4p3/p5Pp/PP2NP1P/1R4K1 w - - 2 32"


def _bits(*names: str) -> int:
    return sum(1 << square(n) for n in names)


def _words(fen: str, standing: int) -> list[str]:
    position = rules.Position.from_fen(fen)
    return [r.words(position, standing) for r in readings(position, standing)]


def test_the_readings_of_the_issues_boards() -> None:
    before = rules.Position.from_fen(ISSUE_FEN).occupancy()
    # g8 emptied, g7 full before and after: the capture, or the queen in the hand.
    assert _words(ISSUE_FEN, before & ~_bits("g8")) == [
        "nothing yet: the piece from g8 is in the hand",
        "Qxg7+",
    ]
    # Then the black king on e8: Qxg7+ Ke8, or Qe8+ and the king taking it (two readings
    # of the same squares), or the king in the hand after Qe8+.
    after = before & ~_bits("g8", "e7") | _bits("e8")
    assert _words(ISSUE_FEN, after) == [
        "Qxg7+ Ke8",
        "Qe8+, the piece from e7 is in the hand",
        "Qe8+ Kxe8",
    ]
    # The queen and the king both off: only Qxg7+ explains it (the king in the hand).
    assert _words(ISSUE_FEN, before & ~_bits("g8", "e7")) == [
        "Qxg7+, the piece from e7 is in the hand"
    ]
    # The same pieces as stored: nothing to read.
    assert _words(ISSUE_FEN, before) == []


def test_a_quiet_move_castling_and_en_passant_read_one_way() -> None:
    assert _words(rules.STARTING_FEN, 0xFFFF00001000EFFF) == ["e4"]
    castle = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    occupancy = rules.Position.from_fen(castle).occupancy()
    assert _words(castle, occupancy & ~_bits("e1", "h1") | _bits("g1", "f1")) == ["O-O"]
    passant = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"
    occupancy = rules.Position.from_fen(passant).occupancy()
    assert _words(passant, occupancy & ~_bits("e5", "d5") | _bits("d6")) == ["exd6"]


def test_every_move_of_real_games_is_among_the_readings_of_the_board_it_leaves() -> None:
    """A differential check against python-chess over the first 20 games of the corpus: the
    move played is always a reading of the occupancy it leaves, and a capture whose square
    stays full is asked about (the capturing piece could be in the hand) unless that piece
    had no other move."""
    import chess.pgn

    checked = asked = 0
    with open(SHARED_DATA / "selfplay.pgn") as pgn:
        for _ in range(20):
            game = chess.pgn.read_game(pgn)
            board = game.board()
            for move in game.mainline_moves():
                position = rules.Position.from_fen(board.fen())
                after = board.copy()
                after.push(move)
                found = readings(position, int(after.occupied))
                lines = [tuple(map(str, r.moves)) for r in found if not r.in_hand]
                uci = move.uci() if not move.promotion else move.uci()[:4] + "q"
                assert (uci,) in lines, (board.fen(), move.uci(), lines)
                if len(found) > 1:
                    asked += 1
                checked += 1
                board.push(move)
    assert checked > 1000 and asked > 50


# ---------------------------------------------------------------------- in the daemon


def _stored_game(tmp_path: Path, fen: str = ISSUE_FEN) -> None:
    with Store.open(tmp_path / "g.sqlite") as store:
        store.new_game(fen)


def test_the_question_is_asked_the_board_held_and_the_pages_answer_stores_the_reading(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="magboard")
    _stored_game(tmp_path)
    stored = rules.Position.from_fen(ISSUE_FEN).occupancy()
    board = SimulatedBoard(pieces=stored & ~_bits("g8"))  # the daemon died mid-capture
    assert not journal_path(tmp_path / "g.sqlite").exists()
    daemon = sim_daemon(tmp_path, board)

    async def scenario() -> None:
        task = await start(daemon)
        try:
            door = daemon.door
            snap = door.snapshot()
            assert snap.question == ("nothing yet: the piece from g8 is in the hand", "Qxg7+")
            assert "cannot tell what happened on g8" in snap.asks[0]
            assert snap.moves == () and snap.sensed == stored & ~_bits("g8")
            lit = {sq for sq in range(64) if snap.lights.colours[sq] == "y"}
            assert lit == {square("g8"), square("g7")} and snap.lights.blink >> square("g8") & 1
            # Black plays on: held, nothing read or stored from it meanwhile.
            board.lift(square("e7"))
            await asyncio.sleep(0.08)
            board.place(square("e8"))
            await asyncio.sleep(0.5)
            assert door.snapshot().moves == () and door.snapshot().question
            with pytest.raises(ActionRefused, match=r"reading: 2 is not one of 0\.\.1"):
                door.answer(2)
            await Actions(door).do_answer({"reading": 1})  # the page: "Qxg7+"
            assert door.snapshot().question == ()
            await until(lambda: door.snapshot().moves == ("Qxg7+", "Ke8"))
            assert door.snapshot().in_sync
            with Store.open(tmp_path / "g.sqlite", readonly=True) as store:
                assert store.game(1).ucis == ["g8g7", "e7e8"]
            with pytest.raises(ActionRefused, match="asks nothing"):
                door.answer(0)
        finally:
            daemon.stop()
            assert await task == 0

    asyncio.run(scenario())
    said = [r.getMessage() for r in caplog.records]
    assert any("answered: Qxg7+" in line for line in said)


def test_one_reading_is_taken_as_it_is_and_none_is_put_right(tmp_path: Path) -> None:
    """A quiet move made while the daemon was away is stored; pieces no move explains are
    out of sync and lit to be put right, as before: neither asks."""
    _stored_game(tmp_path, rules.STARTING_FEN)
    board = SimulatedBoard(pieces=0xFFFF00001000EFFF)
    daemon = sim_daemon(tmp_path, board)

    async def scenario() -> None:
        task = await start(daemon)
        try:
            door = daemon.door
            await until(lambda: door.snapshot().moves == ("e4",))
            assert door.snapshot().question == () and door.snapshot().in_sync
            board.lift(square("a7"))
            await asyncio.sleep(0.06)
            board.place(square("a4"))  # no legal move: out of sync, not a question
            await until(lambda: not door.snapshot().in_sync)
            assert door.snapshot().question == ()
        finally:
            daemon.stop()
            assert await task == 0

    asyncio.run(scenario())


def test_readings_stay_small_for_random_boards() -> None:
    """However the pieces stand, reading them is quick and every reading is legal."""
    rng = random.Random(24)
    for _ in range(200):
        board = chess.Board()
        for _ in range(rng.randrange(0, 40)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        position = rules.Position.from_fen(board.fen())
        standing = int(board.occupied)
        for sq in rng.sample(range(64), 2):
            standing ^= 1 << sq
        for reading in readings(position, standing):
            replay = board.copy()
            for move in reading.moves:
                replay.push(chess.Move.from_uci(str(move)))
            off = int(replay.occupied) & ~standing
            assert all(replay.color_at(sq) == replay.turn for sq in chess.SquareSet(off))
            assert not reading.in_hand or off
            assert reading.in_hand or int(replay.occupied) == standing
    assert list(itertools.islice(readings(rules.Position(), 0), 1)) == []


TWO_CAPTURES_FEN = "4k3/8/8/3p3p/8/8/8/3QK3 w - - 0 1"


def test_the_hands_that_follow_answer_the_question(tmp_path: Path) -> None:
    """Killed right after the queen was lifted, before the daemon saw it: in the hand, or
    Qxd5, or Qxh5+? The queen then set down on d3 can only have been in the hand."""
    _stored_game(tmp_path, TWO_CAPTURES_FEN)
    stored = rules.Position.from_fen(TWO_CAPTURES_FEN).occupancy()
    board = SimulatedBoard(pieces=stored & ~_bits("d1"))
    daemon = sim_daemon(tmp_path, board)

    async def scenario() -> None:
        task = await start(daemon)
        try:
            door = daemon.door
            assert door.snapshot().question == (
                "nothing yet: the piece from d1 is in the hand",
                "Qxd5",
                "Qxh5+",
            )
            board.place(square("d3"))
            await until(lambda: door.snapshot().moves == ("Qd3",))
            assert door.snapshot().question == () and door.snapshot().in_sync
        finally:
            daemon.stop()
            assert await task == 0

    asyncio.run(scenario())
    with Store.open(tmp_path / "g.sqlite", readonly=True) as store:
        assert store.game(1).ucis == ["d1d3"]


def test_a_question_outlives_a_restart_with_the_hands_held_meanwhile(tmp_path: Path) -> None:
    """Asked, Black's king lifted meanwhile, the daemon stopped: the next start asks the
    same, with the king still held; the page's answer then stores the capture and the
    king's move."""
    _stored_game(tmp_path)
    stored = rules.Position.from_fen(ISSUE_FEN).occupancy()
    board = SimulatedBoard(pieces=stored & ~_bits("g8"))

    async def first() -> None:
        daemon = sim_daemon(tmp_path, board)
        task = await start(daemon)
        try:
            assert daemon.door.snapshot().question
            board.lift(square("e7"))
            await until(lambda: daemon.door.snapshot().sensed == stored & ~_bits("g8", "e7"))
        finally:
            daemon.stop()
            assert await task == 0

    async def second() -> None:
        daemon = sim_daemon(tmp_path, board)
        task = await start(daemon)
        try:
            door = daemon.door
            assert door.snapshot().question == (
                "nothing yet: the piece from g8 is in the hand",
                "Qxg7+",
            )
            assert door.snapshot().sensed == stored & ~_bits("g8", "e7")
            board.place(square("e8"))
            await asyncio.sleep(0.4)
            assert door.snapshot().moves == ()
            door.answer(1)
            await until(lambda: door.snapshot().moves == ("Qxg7+", "Ke8"))
        finally:
            daemon.stop()
            assert await task == 0

    asyncio.run(first())
    asyncio.run(second())
    with Store.open(tmp_path / "g.sqlite", readonly=True) as store:
        assert store.game(1).ucis == ["g8g7", "e7e8"]


def test_decisions_from_outside_the_board_replay_as_they_were_made() -> None:
    from board_driver.arbiter.tracker import Timing
    from board_driver.physical.events import Lift, Place
    from board_driver.service.hands_journal import Decided, Kept
    from board_driver.service.replay import replay_journal

    events = (
        Lift(100, square("e2")),
        Place(300, square("e4")),
        Decided(900, "options touch_move=enforce,takeback=false,hints=true"),
        Decided(1000, "takeback 1"),
        Decided(1100, "end abandoned black"),
    )
    kept = Kept(1, "T", 0, "", None, events, start_fen=rules.STARTING_FEN, line=())
    stored = rules.Game.from_record(rules.Position(), ["e2e4"])  # the store took e4
    done = replay_journal(kept, stored, timing=Timing())
    # What the store lacks, after e4: the take-back and the end.
    types = [e["type"] for e in done.events]
    assert [t for t in types if t in ("move", "takeback", "game_over")] == [
        "takeback", "game_over",
    ]  # fmt: skip
    tracker = done.tracker
    assert tracker.options.touch_move == "enforce" and tracker.options.hints
    assert not tracker.options.takeback
    assert tracker.game.moves == [] and tracker.game.outcome().winner is rules.BLACK
