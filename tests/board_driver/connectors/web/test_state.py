"""The page's status names the daemon's own light patterns (its edge squares)."""

from __future__ import annotations

from board_driver.connectors.web.state import PageState, _board_state
from board_driver.frame import Frame
from board_driver.service.daemon import FAULT_FRAME, LINK_LOST_FRAME, STARTING_FRAME


def test_the_daemons_own_patterns_are_named_and_a_game_frame_is_ok():
    assert _board_state(FAULT_FRAME) == "fault"
    assert _board_state(LINK_LOST_FRAME) == "link_lost"
    assert _board_state(STARTING_FRAME) == "starting"
    assert _board_state(Frame.off()) == "ok"
    assert _board_state(Frame.off().with_square(4, "r", blink=True)) == "ok"


def test_a_draw_offer_stands_until_the_other_side_plays_or_the_game_changes():
    page = PageState()
    page.follow([{"type": "draw_offer", "side": "white"}])
    page.follow([{"type": "move", "side": "white", "san": "e4"}])
    assert page.draw_offer == "white"  # offered, then moved: the offer stands
    page.follow([{"type": "move", "side": "black", "san": "e5"}])
    assert page.draw_offer is None  # black played instead of accepting
    page.follow([{"type": "draw_offer", "side": "white"}, {"type": "takeback"}])
    assert page.draw_offer is None
    page.follow([{"type": "new_game_pending"}])
    assert page.setup_pending
    page.follow([{"type": "new_game"}])
    assert not page.setup_pending


def test_an_engine_failure_is_shown_until_the_engine_plays_or_is_set_anew():
    page = PageState()
    page.follow([{"type": "engine_error", "message": "stockfish ended (signal 9)"}])
    assert page.engine_error == "stockfish ended (signal 9)"
    page.follow([{"type": "move", "san": "e4"}])
    assert page.engine_error == "stockfish ended (signal 9)"
    page.follow([{"type": "engine_move", "san": "e5"}])
    assert page.engine_error is None
    page.follow([{"type": "engine_error", "message": "gone"}, {"type": "engine_changed"}])
    assert page.engine_error is None
