"""The door's snapshot names the daemon's own light patterns, and follows what the board
only announces (a standing draw offer, a new game waiting for its pieces)."""

from __future__ import annotations

from board_driver.physical.frame import Frame
from board_driver.service.doorway import Followed
from board_driver.service.lights import (
    FAULT_FRAME,
    LINK_LOST_FRAME,
    STARTING_FRAME,
    STORE_FAILING_FRAME,
    Lights,
)


def pattern_name(pattern: Frame | None, warning: Frame | None = None) -> str:
    lights = Lights(show=lambda frame, on: None)
    lights.set_pattern(pattern)
    lights.set_warning(warning)
    return lights.pattern_name


def test_the_daemons_own_patterns_are_named_and_a_game_frame_is_ok():
    assert pattern_name(FAULT_FRAME) == "fault"
    assert pattern_name(LINK_LOST_FRAME) == "link_lost"
    assert pattern_name(STARTING_FRAME) == "starting"
    assert pattern_name(None, STORE_FAILING_FRAME) == "store_failing"
    assert pattern_name(None) == "ok"


def test_the_store_failing_pattern_lights_the_edge_over_the_game():
    lights = Lights(show=lambda frame, on: None)
    lights.set_pattern(None)
    lights.set_warning(STORE_FAILING_FRAME)
    game = Frame.off().with_square(28, "r", blink=True)  # e4 to be emptied
    shown = lights.compose(game)
    assert shown.colours[28] == "r" and shown.blink >> 28 & 1  # the guidance stays
    assert shown.colours[0] == "o" and shown.colours[63] == "o"  # the edge warns


def test_a_draw_offer_stands_until_the_other_side_plays_or_the_game_changes():
    page = Followed()
    page.follow([{"type": "draw_offer", "side": "white"}])
    page.follow([{"type": "move", "side": "white", "san": "e4"}])
    assert page.draw_offer == "white"  # offered, then moved: the offer stands
    page.follow([{"type": "move", "side": "black", "san": "e5"}])
    assert page.draw_offer is None  # black played instead of accepting
    page.follow([{"type": "draw_offer", "side": "white"}, {"type": "takeback"}])
    assert page.draw_offer is None
    page.follow([{"type": "draw_offer", "side": "black"}, {"type": "new_game_pending"}])
    assert page.draw_offer is None
