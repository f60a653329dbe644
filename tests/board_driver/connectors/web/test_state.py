"""What the page shows that the board only announces: an engine's failure."""

from __future__ import annotations

from board_driver.connectors.web.state import PageState


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
