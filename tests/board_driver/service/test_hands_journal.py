"""The journal of the hands (issue 24, item 1): its own crash safety, and what a restart
does with a journal that does not fit the store.

The file is written as the daemon would, then damaged the ways a crash or a person damages
it: a line torn by a power cut, stale lines of an older anchor further on, a journal of
another game or store, one older than the store's last move, one of a line a take-back
changed. The daemon in process then replays only what fits, and says why it does not.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import pytest

import rules
from board_driver.physical.events import Button, Choose, Lift, Place
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from board_driver.service.daemon import Daemon
from board_driver.service.hands_journal import (
    CHUNK,
    Anchor,
    Asked,
    Decided,
    Expect,
    HandsJournal,
    journal_path,
    parse,
)
from board_driver.service.store import Store, game_pgn
from tests.board_driver.service.sim_daemon import sim_daemon, start, until
from tests.board_driver.service.stored import store_game
from tests.board_driver.service.test_door import drain
from tests.board_driver.service.test_store_full_disk import SmallDisk

START = rules.STARTING_FEN


def _anchor(moves: tuple[str, ...] = (), game_id: int = 1, started: str = "T1") -> Anchor:
    return Anchor(game_id, started, START, moves)


def _events() -> list:
    return [
        Lift(100, square("e2")),
        Place(400, square("e4")),
        Choose(500, "n"),
        Button(600, "adjust"),
        Expect(700, "e7e5"),
        Decided(800, "takeback 1"),
        # A clock's value holds a space: the line still reads back whole, with what follows.
        Decided(850, "options touch_move=enforce,takeback=false,hints=true,clock=5+3 delay"),
        Asked(900, 0xFFFF00000000FFF7),
        Decided(950, "end timeout white"),
    ]


def test_what_is_written_reads_back_and_each_anchor_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite.hands"
    journal = HandsJournal.open(path)
    assert journal.kept is None and journal.problem is None
    journal.start(_anchor())
    for event in _events():
        journal.add(event)
    journal.close()
    kept = HandsJournal.open(path).kept
    assert kept.events == tuple(_events()) and kept.plies == 0 and kept.game_id == 1
    assert path.stat().st_size == CHUNK  # the room made beforehand
    # A new anchor drops the events: the old lines further on never pass.
    journal = HandsJournal.open(path)
    journal.start(_anchor(("e2e4",)))
    journal.close()
    kept = HandsJournal.open(path).kept
    assert kept.plies == 1 and kept.events == ()


def test_a_whole_line_that_is_no_event_is_skipped_and_the_rest_kept(tmp_path: Path) -> None:
    """A player away chose a move that is no move (the door checks it after keeping it):
    that line is skipped on reading, the events after it are not lost."""
    path = tmp_path / "g.sqlite.hands"
    journal = HandsJournal.open(path)
    journal.start(_anchor())
    journal.add(Expect(100, "e2e4e5x"))
    for event in _events():
        journal.add(event)
    journal.close()
    assert HandsJournal.open(path).kept.events == tuple(_events())


def test_a_start_position_the_rules_refuse_is_one_line_skipped(tmp_path: Path, caplog) -> None:
    """A ``start`` line whose FEN has the shape of one but no king (a bit flipped under its
    CRC, another magboard's mistake): that line is skipped on reading, said, and the events
    after it are kept (it failed the whole journal's replay at the restart)."""
    path = tmp_path / "g.sqlite.hands"
    journal = HandsJournal.open(path)
    journal.start(_anchor())
    journal.add(Decided(50, "start standard 8/8/8/8/8/8/8/8 w - - 0 1"))
    for event in _events():
        journal.add(event)
    journal.close()
    reopened = HandsJournal.open(path)
    assert reopened.kept.events == tuple(_events()) and reopened.kept.skipped == 1
    assert "a start position the rules refuse" in caplog.text


def test_a_torn_line_ends_the_journal_there(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite.hands"
    journal = HandsJournal.open(path)
    journal.start(_anchor())
    for event in _events():
        journal.add(event)
    journal.close()
    data = path.read_bytes()
    text_end = data.index(b"\0")
    lines = data[:text_end].split(b"\n")
    # Cut inside the fourth event's line (a power cut mid-write), and a flipped byte.
    cut = len(b"\n".join(lines[:4])) + 6
    torn = data[:cut] + b"\0" * (len(data) - cut)
    assert parse(torn).events == tuple(_events()[:3])
    flipped = bytearray(data)
    flipped[len(lines[0]) + 3] ^= 0x01  # in the first event's time
    assert parse(bytes(flipped)).events == ()
    # A torn header: nothing kept at all.
    assert parse(data[:10] + b"\0") is None
    assert parse(b"") is None and parse(b"\0" * 100) is None


def test_a_journal_that_is_not_a_regular_file_is_left_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "g.sqlite.hands"
    os.symlink("/dev/zero", path)
    journal = HandsJournal.open(path)  # never read (it would never end)
    assert journal.kept is None and journal.problem
    assert f"cannot keep the hands journal {path}" in caplog.text
    journal.start(_anchor())
    journal.add(Lift(1, 12))
    journal.close()


def test_which_stored_game_a_journal_fits() -> None:
    kept = parse(_written(_anchor(("e2e4", "e7e5"), started="T1")))
    assert kept.fits(1, "T1", START, ["e2e4", "e7e5"]) == ""
    assert kept.fits(1, "T1", START, ["e2e4", "e7e5", "g1f3"]) == ""  # the store went on
    assert "of game 1, not of the game on the board (2)" in kept.fits(2, "T1", START, [])
    assert "another game 1 (started T1, not T2)" in kept.fits(1, "T2", START, [])  # a new store
    # The anchor carries its whole line: a store with fewer moves (a take-back stored while
    # a move was under way) fits; the replay then says whether it leads through them.
    assert kept.fits(1, "T1", START, ["e2e4"]) == ""
    assert kept.line == ("e2e4", "e7e5")
    assert "another position" in kept.fits(1, "T1", "8/8/8/8/8/8/8/K6k w - - 0 1", [])
    # A journal of the format before (version 1) names a digest of a line the store holds.
    old = parse(_version_1(_anchor(("e2e4", "e7e5"), started="T1")))
    assert old.line is None and old.plies == 2
    assert old.fits(1, "T1", START, ["e2e4", "e7e5", "g1f3"]) == ""
    assert "starts at ply 2; the store has 1" in old.fits(1, "T1", START, ["e2e4"])
    assert "not the ones it followed" in old.fits(1, "T1", START, ["d2d4", "d7d5"])


def _version_1(anchor: Anchor, events: list | None = None) -> bytes:
    """A journal as magboard wrote it before its anchors carried their line (format 1)."""
    from board_driver.service.hands_journal import _crc, event_line

    generation = "0123456789abcdef"
    board = "-" if anchor.board is None else f"{anchor.board:016x}"
    header = (
        f"magboard-hands 1 {generation} {anchor.game_id} {anchor.started} "
        f"{len(anchor.moves)} {anchor.digest()} {board}"
    )
    lines = [f"{header} {_crc(generation, header)}"]
    lines += [f"{b} {_crc(generation, b)}" for b in map(event_line, events or [])]
    return ("\n".join(lines) + "\n").encode() + b"\0"


def _written(anchor: Anchor, events: list | None = None) -> bytes:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "j"
    journal = HandsJournal.open(path)
    journal.start(anchor)
    for event in events or []:
        journal.add(event)
    journal.close()
    return path.read_bytes()


def test_the_journal_goes_on_when_the_disk_is_full(tmp_path: Path) -> None:
    """Room made beforehand: a full disk does not stop the events; past the room it stops,
    and what was written stays true."""
    disk = SmallDisk(tmp_path / "disk", 1 << 20)
    try:
        path = disk.path / "g.sqlite.hands"
        journal = HandsJournal.open(path)
        journal.start(_anchor())
        disk.fill()
        events = [Lift(10 * i, 12) if i % 2 == 0 else Place(10 * i, 12) for i in range(4000)]
        for event in events:
            journal.add(event)
        assert journal.problem is not None  # more than the room made: stopped, said
        kept = HandsJournal.open(path).kept
        assert 0 < len(kept.events) < len(events)
        assert kept.events == tuple(events[: len(kept.events)])
        journal.close()
    finally:
        disk.unmount()


# ---------------------------------------------------------------------- a restart


def _start_and_stop(daemon: Daemon) -> tuple[str, ...]:
    async def scenario() -> tuple[str, ...]:
        task = await start(daemon)
        try:
            await asyncio.sleep(0.1)
            return daemon.door.snapshot().moves
        finally:
            daemon.stop()
            assert await task == 0

    return asyncio.run(scenario())


def _store(tmp_path: Path, ucis: list[str]) -> str:
    return store_game(tmp_path / "g.sqlite", ucis)


def _journal(tmp_path: Path, anchor: Anchor, events: list) -> None:
    journal = HandsJournal.open(journal_path(tmp_path / "g.sqlite"))
    journal.start(anchor)
    for event in events:
        journal.add(event)
    journal.close()


def test_a_restart_replays_a_journal_that_fits_and_stores_the_move_it_finishes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="magboard")
    started = _store(tmp_path, ["e2e4"])
    hands = [Lift(5000, square("d7")), Place(5300, square("d5"))]  # killed before judged
    _journal(tmp_path, Anchor(1, started, START, ("e2e4",)), hands)
    after = rules.Game.from_record(rules.Position(), ["e2e4", "d7d5"]).position.occupancy()
    board = SimulatedBoard(pieces=after)
    assert _start_and_stop(sim_daemon(tmp_path, board)) == ("e4", "d5")
    said = "\n".join(r.getMessage() for r in caplog.records)
    assert "the hands journal replayed: 2 events since ply 1" in said
    with Store.open(tmp_path / "g.sqlite", readonly=True) as store:
        assert store.game(1).ucis == ["e2e4", "d7d5"]


@pytest.mark.parametrize(
    ("case", "anchor", "events", "why"),
    [
        ("another game", Anchor(7, "T0", START, ()), [Lift(10, square("d7"))],
         "it is of game 7, not of the game on the board (1)"),
        ("a line a take-back changed", None, [Lift(10, square("d7"))],
         "its 1 events never lead through the stored moves (e2e4 e7e5; they lead to d2d4)"),
        ("older than the store's last move", "older",
         [Lift(10, square("e2")), Place(300, square("e4"))],
         "its 2 events never lead through the stored moves (e2e4 e7e5; they lead to e2e4)"),
    ],
)  # fmt: skip
def test_a_journal_that_does_not_fit_the_store_is_not_replayed_and_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, case: str, anchor, events, why: str
) -> None:
    caplog.set_level(logging.INFO, logger="magboard")
    started = _store(tmp_path, ["e2e4", "e7e5"])
    if anchor is None:  # of a line whose first move the store no longer has
        anchor = Anchor(1, started, START, ("d2d4",))
    elif anchor == "older":  # anchored before e4, the store went on to e5 without it
        anchor = Anchor(1, started, START, ())
    _journal(tmp_path, anchor, events)
    board = SimulatedBoard(
        pieces=rules.Game.from_record(rules.Position(), ["e2e4", "e7e5"]).position.occupancy()
    )
    assert _start_and_stop(sim_daemon(tmp_path, board)) == ("e4", "e5"), case
    said = "\n".join(r.getMessage() for r in caplog.records)
    assert "is not replayed" in said and why in said, said
    # Set aside, never written over: the file keeps its events, its name in the log.
    aside = list(tmp_path.glob("g.sqlite.hands.unreplayed-*"))
    assert len(aside) == 1 and f"set aside as {aside[0]}" in said
    assert len(parse(aside[0].read_bytes()).events) == len(events)
    # The journal starts again from the game as stored.
    kept = HandsJournal.open(journal_path(tmp_path / "g.sqlite")).kept
    assert kept.plies == 2 and kept.events == ()


def test_a_journal_from_before_the_stores_last_move_goes_on_with_the_same_game(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The journal starts again only when nothing is under way: here it began before e5,
    which was stored (black's hand had not let go long enough to be at rest), and White's
    knight was in the hand when the daemon died. Replayed, it leads through e5 to the knight
    in the hand: the game goes on (no new game), e5 once."""
    caplog.set_level(logging.INFO, logger="magboard")
    started = _store(tmp_path, ["e2e4", "e7e5"])
    hands = [Lift(1000, square("e7")), Place(1200, square("e5")), Lift(1400, square("g1"))]
    _journal(tmp_path, Anchor(1, started, START, ("e2e4",)), hands)
    after = rules.Game.from_record(rules.Position(), ["e2e4", "e7e5"]).position.occupancy()
    board = SimulatedBoard(pieces=after & ~(1 << square("g1")))
    daemon = sim_daemon(tmp_path, board)

    async def scenario() -> None:
        task = await start(daemon)
        try:
            assert daemon.door.snapshot().moves == ("e4", "e5")
            assert daemon.door.snapshot().in_sync  # the knight in the hand: on its way
            board.place(square("f3"))
            await until(lambda: daemon.door.snapshot().moves == ("e4", "e5", "Nf3"))
        finally:
            daemon.stop()
            assert await task == 0

    asyncio.run(scenario())
    with Store.open(tmp_path / "g.sqlite", readonly=True) as store:
        assert [g.id for g in store.games()] == [1]
        assert store.game(1).ucis == ["e2e4", "e7e5", "g1f3"]
    said = "\n".join(r.getMessage() for r in caplog.records)
    assert "replayed: 3 events since ply 1" in said


def test_a_replayed_move_and_clock_press_in_a_game_with_a_clock_come_back_paused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A game on a clock, killed after Black's reply and its press of the clock, before the
    reply was judged: the restart stores the reply, and the clock comes back paused after it
    (the press, made before the restart, is not refused as if the game had no clock)."""
    clock = '[clock]\ncontrol = "5+0"\nswitch = "buttons"\n'
    board = SimulatedBoard()

    async def first() -> None:
        daemon = sim_daemon(tmp_path, board, clock)
        task = await start(daemon)
        try:
            board.lift(square("e2"))
            await asyncio.sleep(0.06)
            board.place(square("e4"))
            await until(lambda: daemon.door.snapshot().moves == ("e4",))
        finally:
            daemon.stop()
            assert await task == 0

    asyncio.run(first())
    with Store.open(tmp_path / "g.sqlite", readonly=True) as store:
        started = store.started(1)
    hands = [Lift(5000, square("d7")), Place(5300, square("d5")), Button(5400, "clock")]
    _journal(tmp_path, Anchor(1, started, START, ("e2e4",)), hands)
    board.lift(square("d7"))
    board.place(square("d5"))
    caplog.set_level(logging.INFO, logger="magboard")
    daemon = sim_daemon(tmp_path, board, clock)

    events = daemon.door.subscribe()  # what a page sees from the start on

    async def second() -> dict:
        task = await start(daemon)
        try:
            await asyncio.sleep(0.1)
            return dict(daemon.door.snapshot().clock or {})
        finally:
            daemon.stop()
            assert await task == 0

    reading = asyncio.run(second())
    seen = drain(events)
    assert [e["san"] for e in seen if e["type"] == "move"] == ["d5"]
    assert not [e for e in seen if e["type"] == "refused"], seen
    assert reading["state"] == "paused" and reading["reason"] == "restart", reading
    assert reading["turn"] == "white"
    said = "\n".join(r.getMessage() for r in caplog.records)
    assert "clock: paused at ply 2, as stored before the restart" in said, said
    assert "no clock" not in said, said
    with Store.open(tmp_path / "g.sqlite", readonly=True) as store:
        assert store.game(1).ucis == ["e2e4", "d7d5"]
        pgn = game_pgn(store.game(1))
    # The replayed move has its %clk (issue 32, item 7): Black's time as stored (the time
    # it took while the daemon was away is not known), the press replayed as its switch.
    assert reading["clks"][1] == 300_000, reading  # (e4 was never pressed: none)
    assert "d5 {[%clk 0:05:00]}" in pgn, pgn


def test_the_modules_examples_run() -> None:
    import doctest

    from board_driver.service import hands_journal, journal_lines, replay

    for module in (hands_journal, journal_lines, replay):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_a_journal_set_aside_is_said_on_the_page(tmp_path: Path) -> None:
    """Issue 32, item 2: the journal's name and why, in the log and on the page (the
    snapshot's ``notices``, the page's state)."""
    from board_driver.connectors.web.state import PageState, snapshot

    _store(tmp_path, ["e2e4"])
    path = journal_path(tmp_path / "g.sqlite")
    path.write_bytes(b"magboard-hands 9 from a newer magboard\n\0")
    board = SimulatedBoard(
        pieces=rules.Game.from_record(rules.Position(), ["e2e4"]).position.occupancy()
    )
    daemon = sim_daemon(tmp_path, board)

    async def scenario() -> tuple:
        task = await start(daemon)
        try:
            snap = daemon.door.snapshot()
            return snap.notices, snapshot(snap, PageState())["notices"]
        finally:
            daemon.stop()
            assert await task == 0

    notices, page = asyncio.run(scenario())
    aside = next(tmp_path.glob("g.sqlite.hands.unreplayed-*"))
    assert aside.read_bytes().startswith(b"magboard-hands 9")  # kept as it was
    assert len(notices) == 1 and str(path) in notices[0] and f"set aside as {aside}" in notices[0]
    assert "written by another magboard (format 9" in notices[0]
    assert page == list(notices)


def test_a_new_game_set_up_by_the_lights_is_still_being_set_up_after_a_replay() -> None:
    """A position set from beside the board (the page's FEN) while the last game's pieces
    stood: live, the lights guide it kind by kind and nothing is read as a move until it
    stands. Replayed from the hands journal after a crash, it is the same set-up, not a
    board out of sync whose half-made set-up could be read as a move."""
    import rules
    from board_driver.arbiter.tracker import Timing
    from board_driver.service.hands_journal import Decided, Kept
    from board_driver.service.journal_lines import newgame_line
    from board_driver.service.replay import replay_journal

    endgame = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    kept = Kept(1, "T", 0, "", None, (Decided(100, newgame_line(endgame, [], False, {})),),
                start_fen=rules.STARTING_FEN, line=())  # fmt: skip
    done = replay_journal(kept, rules.Game(), timing=Timing())
    assert done.tracker.game.start.fen() == endgame
    assert done.tracker.setting_up
    setup = [e for e in done.events if e["type"] == "setup"]
    assert setup and setup[-1]["fen"] == endgame and setup[-1]["extra"]


def test_only_a_set_up_of_the_game_on_the_board_is_kept_as_one() -> None:
    """The journal's ``setup`` line means "this game waits for its pieces". A set-up the
    ``new_game`` button began mid-game is of a game still to be made: were it kept as a
    ``setup`` line, a restart would make the unfinished game wait for its own position."""
    import rules
    from board_driver.arbiter.tracker import Tracker
    from board_driver.physical.events import Button

    played = rules.Game.from_record(rules.Position(), ["e2e4", "e7e5"])
    tracker = Tracker(played, board=played.position.occupancy() & ~(1 << square("a1")))
    tracker.handle(Button(100, "new_game"))
    assert tracker.setting_up and not tracker.setting_up_its_game
    tracker.wait_for_pieces(200)  # the page's way: this game set up from the pieces standing
    assert tracker.setting_up_its_game
