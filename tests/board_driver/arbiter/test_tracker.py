"""The tracker's public API: options, timing, bad input, restarts, hints, determinism.

The chess cases themselves are proved by the scenario scripts (test_tracker_scenarios.py);
these tests cover what a script cannot say.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rules
from board_driver.arbiter.tracker import GameOptions, Timing, Tracker
from board_driver.boardscript.replay import replay_script
from board_driver.boardscript.script import parse_script
from board_driver.physical.events import Button, Choose, Lift, Place
from board_driver.physical.squares import square


def play(tracker: Tracker, *steps: tuple[int, str, str]) -> list[dict]:
    """Hand ``(t_ms, 'lift'|'place', square)`` steps to the tracker; all events announced."""
    out = []
    for t, kind, name in steps:
        event = Lift(t, square(name)) if kind == "lift" else Place(t, square(name))
        out += tracker.handle(event)
    return out


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def test_bad_options_and_timing_are_named():
    with pytest.raises(ValueError, match="touch_move: 'strict' is not one of off, warn, enforce"):
        GameOptions(touch_move="strict")
    with pytest.raises(ValueError, match="takeback: expected true or false"):
        GameOptions(takeback="yes")
    with pytest.raises(ValueError, match="settle_ms: expected a whole number"):
        Timing(settle_ms=-5)
    with pytest.raises(ValueError, match="settle_ms: must be at least 1"):
        Timing(settle_ms=0)
    with pytest.raises(ValueError, match="board: expected a 64-bit occupancy bitmap"):
        Tracker(board=1 << 64)


def test_impossible_board_events_are_refused_and_change_nothing():
    tracker = Tracker()
    before = tracker.board
    with pytest.raises(ValueError, match="lift e4 at 100 ms: no piece stands there"):
        tracker.handle(Lift(100, square("e4")))
    with pytest.raises(ValueError, match="place e2 at 100 ms: a piece already stands there"):
        tracker.handle(Place(100, square("e2")))
    with pytest.raises(ValueError, match="choose 'k'"):
        tracker.handle(Choose(100, "k"))
    with pytest.raises(ValueError, match="button 'undo'"):
        tracker.handle(Button(100, "undo"))
    assert tracker.board == before and tracker.in_sync
    events = play(tracker, (200, "lift", "e2"), (500, "place", "e4")) + tracker.finish(500)
    assert [e["san"] for e in events] == ["e4"]


def test_a_judgement_due_before_an_event_is_made_first_at_its_own_time():
    tracker = Tracker()
    play(tracker, (0, "lift", "e2"), (100, "place", "e4"))
    assert tracker.game.moves == []  # not still long enough yet
    events = tracker.handle(Lift(1000, square("e7")))
    assert types(events) == ["move"]
    assert events[0]["t"] == 350  # the place at 100 + the 250 ms settle time


def test_the_other_side_lifting_commits_the_move_at_once():
    tracker = Tracker(timing=Timing(settle_ms=2000))
    events = play(tracker, (0, "lift", "e2"), (100, "place", "e4"), (300, "lift", "e7"))
    assert [(e["type"], e["t"], e["san"]) for e in events] == [("move", 300, "e4")]
    events = play(tracker, (400, "place", "e5")) + tracker.finish(400)
    assert [(e["san"], e["t"]) for e in events] == [("e5", 2400)]


def test_tick_commits_once_the_board_is_still_and_finish_judges_what_is_pending():
    tracker = Tracker()
    play(tracker, (0, "lift", "g1"), (100, "place", "f3"))
    assert tracker.tick(349) == []
    assert [e["san"] for e in tracker.tick(350)] == ["Nf3"]
    play(tracker, (1000, "lift", "g8"), (1100, "place", "f6"))
    assert [e["t"] for e in tracker.finish(1100)] == [1350]
    assert tracker.finish(5000) == []


def test_a_board_that_does_not_match_at_start_is_guided_back():
    # After a daemon restart the a1 rook is missing and a piece stands on e4.
    start = rules.Position().occupancy()
    tracker = Tracker(board=start & ~(1 << square("a1")) | 1 << square("e4"))
    assert not tracker.in_sync
    rows = tracker.frame().rows()
    assert (rows[4], rows[7]) == ("....R...", "B.......")  # empty e4 red, fill a1 blue
    events = tracker.handle(Place(50, square("a1"))) + tracker.handle(Lift(90, square("e4")))
    events += tracker.finish(90)
    assert types(events) == ["restored"] and tracker.in_sync


def test_a_restart_with_a_piece_in_the_hand_is_a_move_on_its_way():
    tracker = Tracker(board=rules.Position().occupancy() & ~(1 << square("g1")))
    assert tracker.in_sync and tracker.frame().rows() == ["........"] * 8
    events = tracker.handle(Place(50, square("f3"))) + tracker.finish(50)
    assert [e["san"] for e in events] == ["Nf3"]


def test_a_game_resumed_with_its_moves_can_take_them_back():
    game = rules.Game()
    game.push_san("e4")
    game.push_san("e5")
    tracker = Tracker(game)
    events = play(tracker, (0, "lift", "e5"), (100, "place", "e7")) + tracker.finish(100)
    assert [(e["type"], e["san"]) for e in events] == [("takeback", "e5")]
    assert tracker.game.san_moves() == ["e4"]


def test_hints_light_the_lifted_pieces_destinations():
    tracker = Tracker(options=GameOptions(hints=True))
    play(tracker, (0, "lift", "g1"))
    rows = tracker.frame().rows()
    assert rows[5] == ".....g.g"  # f3 and h3, dim green
    assert rows[6] == "........"
    plain = Tracker()
    play(plain, (0, "lift", "g1"))
    assert plain.frame().rows()[5] == "........"


def test_a_flicker_of_an_own_piece_is_not_a_touch():
    tracker = Tracker()
    # e2's switch opens for 20 ms (no hand), then d4 is played: no touch-move warning.
    events = play(
        tracker,
        (0, "lift", "e2"),
        (20, "place", "e2"),
        (500, "lift", "d2"),
        (600, "place", "d4"),
    )
    events += tracker.finish(600)
    assert types(events) == ["move"]


def test_replays_are_deterministic():
    text = "lift e2\nplace e4\nlift e4\nplace e3\nlift e3\n@1500 place e4\nlift d7\nplace d5\n"
    first = replay_script(parse_script(text), frames=True).to_json()
    second = replay_script(parse_script(text), frames=True).to_json()
    assert first == second
    expected = ["move", "illegal", "illegal", "restored", "move"]
    assert [e["type"] for e in first["events"]] == expected


def test_every_event_is_json_with_time_and_type():
    text = (
        "fen 7k/4P3/8/8/8/8/7p/K7 w - - 0 1\nlift e7\nplace e8\nchoose r\n"
        "button draw_offer\nbutton draw_accept\n"
    )
    events = replay_script(parse_script(text)).events
    expected = ["move", "check", "promotion_amended", "check", "draw_offer", "game_over"]
    assert types(events) == expected
    for event in events:
        assert isinstance(event["t"], int) and isinstance(event["type"], str)


def test_the_users_are_told_what_the_board_cannot_see():
    # Case 12: the design's list, each with what the board does instead.
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    assert "\n## What the board cannot see\n" in readme
    text = readme.split("\n## What the board cannot see\n", 1)[1].split("\n## ", 1)[0]
    for item in (
        "Which piece a pawn became",
        "Who lifted a piece",
        "Two pieces exchanged while both were off the board",
        "promotion button",
        "side to move",
    ):
        assert item in text, item


def test_next_due_says_when_a_still_board_is_judged_and_nothing_when_idle():
    tracker = Tracker(timing=Timing(settle_ms=250, pass_ms=100))
    assert tracker.next_due() is None  # an idle board: no timer needed
    tracker.handle(Lift(1000, square("e2")))
    tracker.handle(Place(1300, square("e4")))
    assert tracker.next_due() == 1550
    assert tracker.tick(1549) == [] and tracker.game.moves == []
    assert [e["type"] for e in tracker.tick(1550)] == ["move"]
    assert tracker.next_due() is None
