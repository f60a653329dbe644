"""What the page may send is checked before it reaches the tracker, the store or a file."""

from __future__ import annotations

import pytest

from board_driver.connectors.web import inputs
from board_driver.connectors.web.inputs import InputError


@pytest.mark.parametrize("text", ["e9", "i1", "E2", "e22", "", "e2; rm -rf /", None, 28, ["e2"]])
def test_a_square_must_be_named_a1_to_h8(text):
    with pytest.raises(InputError, match="square"):
        inputs.parse_square(text, "square")


def test_square_names_are_a1_zero_to_h8_63():
    assert inputs.parse_square("a1", "s") == 0
    assert inputs.parse_square("h8", "s") == 63


@pytest.mark.parametrize("piece", ["k", "p", "Q", "", "queen", None])
def test_only_q_r_b_n_are_promotion_pieces(piece):
    with pytest.raises(InputError, match="expected q, r, b or n"):
        inputs.parse_piece(piece)


def test_a_bad_fen_is_refused_with_the_rules_cores_reason():
    with pytest.raises(InputError, match=r"fen: .*side to move 'x'"):
        inputs.parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1")
    with pytest.raises(InputError, match="too long"):
        inputs.parse_fen("8/" * 60 + " w - - 0 1")


def test_a_fen_is_normalised():
    assert inputs.parse_fen("  8/P6k/8/8/8/8/8/K7   w - - 0 1 ") == "8/P6k/8/8/8/8/8/K7 w - - 0 1"


@pytest.mark.parametrize("value", ["0", "-1", "1e3", "../1", "1 ", True, 1.5, "9999999999"])
def test_game_numbers_are_positive_whole_numbers(value):
    with pytest.raises(InputError, match="not a game number"):
        inputs.parse_game_id(value)


def test_options_are_checked_one_by_one():
    assert inputs.parse_options({"touch_move": "enforce", "hints": True}) == {
        "touch_move": "enforce",
        "hints": True,
    }
    with pytest.raises(InputError, match="touch_move: 'strict' is not one of"):
        inputs.parse_options({"touch_move": "strict"})
    with pytest.raises(InputError, match="hints: 'yes' is not true or false"):
        inputs.parse_options({"hints": "yes"})
    with pytest.raises(InputError, match="unknown colour"):
        inputs.parse_options({"colour": "red"})


def test_simulator_steps_are_lift_or_place_on_a_square():
    assert inputs.parse_steps([["lift", "e2"], ["place", "e4"]]) == [("lift", 12), ("place", 28)]
    with pytest.raises(InputError, match=r"steps\[1\]"):
        inputs.parse_steps([["lift", "e2"], ["teleport", "e4"]])
    with pytest.raises(InputError, match="at most"):
        inputs.parse_steps([["lift", "e2"]] * 9)
    with pytest.raises(InputError, match="steps"):
        inputs.parse_steps("lift e2")


def test_only_the_pages_controls_are_buttons():
    assert inputs.parse_button("claim_draw") == "claim_draw"
    with pytest.raises(InputError, match="not a control"):
        inputs.parse_button("reboot")


def test_the_clocks_options_are_checked_and_named_in_their_own_words():
    assert inputs.parse_options({"clock": "15 + 10"}) == {"clock": "15+10"}
    assert inputs.parse_options({"clock": "off"}) == {"clock": "none"}
    assert inputs.parse_options({"clock_switch": "buttons"}) == {"clock_switch": "buttons"}
    with pytest.raises(InputError, match=r"clock: time control '3 \+ soon'"):
        inputs.parse_options({"clock": "3 + soon"})
    with pytest.raises(InputError, match="clock: 180 is not a text"):
        inputs.parse_options({"clock": 180})
    with pytest.raises(InputError, match="not a text of up to 64"):
        inputs.parse_options({"clock": "3+2 " * 40})
    with pytest.raises(InputError, match="illegal_move: 'strict' is not one of guide, fide"):
        inputs.parse_options({"illegal_move": "strict"})


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "action: missing"),
        ({"action": "stop"}, "not one of pause, resume, adjust"),
        ({"action": "adjust", "white_ms": 1000}, "black_ms: missing"),
        ({"action": "adjust", "white_ms": -1, "black_ms": 0}, "white_ms: -1 is not"),
        ({"action": "adjust", "white_ms": 1.5, "black_ms": 0}, "white_ms: 1.5 is not"),
        ({"action": "adjust", "white_ms": 36_000_001, "black_ms": 0}, "up to 10 hours"),
        ({"action": "pause", "colour": "red"}, "unknown colour"),
    ],
)
def test_a_clock_action_is_checked(body, says):
    with pytest.raises(InputError, match=says):
        inputs.parse_clock(body)
