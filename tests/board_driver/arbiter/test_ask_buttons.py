"""The buttons that ask the board (``say_*``): an ``ask`` event in its place among the
board's events, whatever the game's state; and a piece lifted and put back to be named
(``say_square``, ``say_rank``, ``say_file``) touches nothing, as after *j'adoube*."""

from __future__ import annotations

import dataclasses

import pytest

from board_driver.arbiter.options import DEFAULT_OPTIONS
from board_driver.arbiter.tracker import Tracker
from board_driver.physical.events import ASK_BUTTONS, Button, Lift, Place
from board_driver.physical.squares import square


def play(tracker: Tracker, *events) -> list[dict]:
    out = []
    for event in events:
        out += tracker.handle(event)
    return out + tracker.finish(events[-1].t_ms + 1000)


def enforced() -> Tracker:
    return Tracker(options=dataclasses.replace(DEFAULT_OPTIONS, touch_move="enforce"))


@pytest.mark.parametrize("button", ["say_square", "say_rank", "say_file"])
def test_a_piece_lifted_and_put_back_to_be_named_is_no_touch(button):
    events = play(enforced(), Button(0, button), Lift(100, square("g1")), Place(400, square("g1")),
                  Lift(1000, square("e2")), Place(1300, square("e4")))  # fmt: skip
    assert [(e["type"], e.get("what"), e.get("san")) for e in events] == [
        ("ask", ASK_BUTTONS[button], None),
        ("move", None, "e4"),
    ]


def test_without_the_button_the_same_lift_binds_the_knight():
    events = play(enforced(), Lift(100, square("g1")), Place(400, square("g1")),
                  Lift(1000, square("e2")), Place(1300, square("e4")))  # fmt: skip
    assert {e["type"] for e in events} == {"illegal"}  # e4 refused: the knight must move
    assert events[-1]["reason"] == "touch_move" and events[-1]["square"] == "g1"


def test_naming_ends_when_a_piece_goes_to_another_square():
    """As j'adoube: the move made after naming counts its touches again."""
    tracker = enforced()
    events = play(tracker, Button(0, "say_square"), Lift(100, square("e2")),
                  Place(400, square("e4")), Lift(1000, square("e7")), Place(1300, square("e7")),
                  Lift(2000, square("d7")), Place(2300, square("d5")))  # fmt: skip
    assert [e["type"] for e in events[:2]] == ["ask", "move"]
    assert {e["type"] for e in events[2:]} == {"illegal"}
    assert events[-1]["reason"] == "touch_move" and events[-1]["square"] == "e7"


@pytest.mark.parametrize("button", sorted(ASK_BUTTONS))
def test_a_question_is_answered_whatever_the_games_state(button):
    tracker = Tracker()
    play(tracker, Lift(0, square("f2")), Place(300, square("f3")), Lift(600, square("e7")),
         Place(900, square("e5")), Lift(1200, square("g2")), Place(1500, square("g4")),
         Lift(1800, square("d8")), Place(2100, square("h4")))  # fmt: skip
    assert tracker.game.outcome() is not None  # fool's mate: the game is over
    events = tracker.handle(Button(5000, button))
    assert events == [{"t": 5000, "type": "ask", "what": ASK_BUTTONS[button]}]


def test_a_question_reads_the_board_first_like_any_button():
    tracker = Tracker()
    tracker.handle(Lift(0, square("e2")))
    events = tracker.handle(Place(300, square("e4"))) + tracker.handle(Button(350, "say_move"))
    assert [(e["type"], e.get("san")) for e in events] == [("move", "e4"), ("ask", None)]
