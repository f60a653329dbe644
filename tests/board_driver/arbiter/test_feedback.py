"""Feedback: the tracker's state as one steady LED frame, with the design's colours."""

from __future__ import annotations

import pytest

from board_driver.arbiter.feedback import BoardView, Colours, flash, render
from board_driver.physical.squares import square


def bits(*names: str) -> int:
    return sum(1 << square(name) for name in names)


def letter(frame, name: str) -> str:
    """The square as ``--frames`` writes it: upper case when blinking."""
    sq = square(name)
    text = frame.colours[sq]
    return text.upper() if frame.blink >> sq & 1 else text


def test_out_of_sync_outranks_check_outranks_half_done_outranks_hints():
    view = BoardView(
        hints=bits("e1", "f1", "g1", "h1"),
        half_done=bits("f1", "g1", "h1"),
        check_king=square("g1"),
        checkers=bits("b6"),
        empty=bits("h1"),
    )
    frame = render(view)
    assert [letter(frame, n) for n in ("e1", "f1", "g1", "h1", "b6")] == ["g", "Y", "r", "R", "o"]


def test_out_of_sync_blinks_red_to_empty_and_blue_to_fill():
    frame = render(BoardView(empty=bits("e5"), fill=bits("e2")))
    assert letter(frame, "e5") == "R" and letter(frame, "e2") == "B"
    assert frame.at_phase(False).colours[square("e5")] == "."


def test_game_over_kings_and_setup_guidance():
    mate = render(BoardView(winner_king=square("e1"), loser_king=square("e8")))
    assert (letter(mate, "e1"), letter(mate, "e8")) == ("g", "r")
    draw = render(BoardView(draw_kings=bits("a1", "h8")))
    assert (letter(draw, "a1"), letter(draw, "h8")) == ("y", "y")
    setup = render(BoardView(setup_missing=bits("e2"), setup_extra=bits("e4")))
    assert (letter(setup, "e2"), letter(setup, "e4")) == ("b", "r")


def test_touched_piece_blinks_yellow_and_a_move_to_execute_blinks_cyan():
    frame = render(BoardView(touched=bits("e2"), to_execute=bits("g8", "f6")))
    assert [letter(frame, n) for n in ("e2", "g8", "f6")] == ["Y", "C", "C"]


def test_colours_are_configurable_and_checked():
    frame = render(BoardView(fill=bits("e2")), Colours(fill="c"))
    assert letter(frame, "e2") == "C"
    with pytest.raises(ValueError, match="colour for 'fill': 'x' is not one of"):
        Colours(fill="x")
    with pytest.raises(ValueError, match="colour for 'hint'"):
        Colours(hint=".")


def test_the_committed_flash_is_white_and_not_blinking():
    frame = flash(square("e2"), square("e4"))
    assert letter(frame, "e2") == "w" and letter(frame, "e4") == "w" and frame.blink == 0
    assert sum(c != "." for c in frame.colours) == 2


def test_an_empty_view_is_dark():
    assert render(BoardView()).rows() == ["........"] * 8
