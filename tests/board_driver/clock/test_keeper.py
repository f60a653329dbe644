"""The clock of a game kept from the tracker's events (board_driver.clock.keeper), driven
as the daemon and ``magboard replay`` drive it: what it stores, and how it comes back from
what it stored (a restart), who pays for an illegal move, what an arbiter may do."""

from __future__ import annotations

import pytest

from board_driver.boardscript.replay import drive, tracker_for
from board_driver.boardscript.script import parse_script
from board_driver.clock.control import parse_time_control
from board_driver.clock.keeper import Timekeeper, timekeeper_for
from rules import BLACK, WHITE

OPENING = """
option clock 3+2
option illegal_move fide
@500 lift e2
@800 place e4
@3000 lift e7
@3300 place e3
@4000 lift e3
@4300 place e7
@5000 lift e7
@5300 place e5
@9000 lift g1
@9300 place f3
"""


def played(text: str = OPENING):
    script = parse_script(text)
    tracker = tracker_for(script)
    keeper = timekeeper_for(tracker.options, tracker.game)
    assert keeper is not None
    events = drive(tracker, script, keeper=keeper)
    return tracker, keeper, events


def test_the_entries_say_every_change_and_are_handed_over_once():
    _, keeper, _ = played()
    entries = keeper.take_entries()
    assert [e.kind for e in entries] == ["set", "move", "penalty", "move", "move"]
    assert entries[0].note == "3+2" and entries[2].note == "black"
    assert [e.ply for e in entries] == [0, 1, 1, 2, 3]
    # Black used 4.5 s (from 800 to 5300), +2; White got 2 minutes for Black's illegal move.
    assert (entries[3].white_ms, entries[3].black_ms) == (300_000, 177_500)
    keeper.stored(3)
    assert [e.kind for e in keeper.take_entries()] == ["move", "move"]


def test_a_restart_brings_the_clock_back_paused_as_stored():
    tracker, keeper, _ = played()
    stored = keeper.take_entries()
    control = parse_time_control("3+2")
    back = Timekeeper.restored(control, stored, game=tracker.game, illegal_move="fide")
    reading = back.reading(50_000)  # however long the daemon was away
    assert reading["state"] == "paused" and reading["reason"] == "restart"
    assert (reading["white_ms"], reading["black_ms"]) == (300_000 - 4_000 + 2_000, 177_500)
    assert reading["turn"] == "black" and reading["clks"] == keeper.clks
    assert back.illegal == {WHITE: 0, BLACK: 1}  # one more illegal move would lose
    assert [e.kind for e in back.take_entries()] == ["restart"]
    assert back.due() is None  # paused: no flag can fall
    # The next move let go starts the clock again (that move is free).
    move = {"t": 60_250, "type": "move", "side": "black", "ply": 4, "released": 60_000}
    tracker.game.push_san("Nc6")
    back.after(None, [move])
    assert move["clk"] == 177_500 and back.reading(61_000)["state"] == "running"
    assert back.reading(61_000)["white_ms"] == 298_000 - 1_000


def test_a_clock_that_never_started_comes_back_waiting_and_a_finished_one_stopped():
    tracker, keeper, _ = played("option clock 1+0\n")
    back = Timekeeper.restored(keeper.control, keeper.take_entries(), game=tracker.game)
    assert back.clock.state == "waiting" and back.reason is None
    tracker, keeper, _ = played("option clock 1+0\n@500 lift e2\n@800 place e4\nwait 70000\n")
    assert tracker.game.outcome() is not None
    back = Timekeeper.restored(keeper.control, keeper.take_entries(), game=tracker.game)
    assert back.clock.state == "stopped" and back.reading(0)["black_ms"] == 0


def test_only_people_at_the_board_pay_for_an_illegal_move():
    script = parse_script(OPENING)
    tracker = tracker_for(script)
    keeper = timekeeper_for(tracker.options, tracker.game)
    keeper.people = {WHITE}  # Black is an engine: its move was only executed wrongly
    events = drive(tracker, script, keeper=keeper)
    assert not [e for e in events if e["type"] == "clock"]
    assert keeper.illegal == {WHITE: 0, BLACK: 0}


def test_an_arbiter_pauses_adjusts_and_resumes():
    _, keeper, _ = played()
    keeper.take_entries()
    keeper.stored(len(keeper.take_entries()))
    t = 10_000
    assert keeper.pause(t, "page")[0]["state"] == "paused"
    with pytest.raises(ValueError, match="not running"):
        keeper.pause(t)
    keeper.adjust(60_000, 61_000, t)
    assert (keeper.reading(t)["white_ms"], keeper.reading(t)["black_ms"]) == (60_000, 61_000)
    assert keeper.due() is None  # paused
    assert keeper.resume(t + 5_000)[0]["action"] == "resume"
    with pytest.raises(ValueError, match="running"):
        keeper.resume(t + 5_000)
    assert keeper.reading(t + 6_000)["black_ms"] == 60_000  # Black's runs again from then
    assert [e.kind for e in keeper.take_entries()] == ["pause", "adjust", "resume"]


def test_a_game_over_clock_cannot_be_adjusted():
    _, keeper, _ = played("option clock 1+0\n@500 lift e2\n@800 place e4\nwait 70000\n")
    with pytest.raises(ValueError, match="over"):
        keeper.adjust(1_000, 1_000, 80_000)
    with pytest.raises(ValueError, match="cannot start"):
        keeper.resume(80_000)
