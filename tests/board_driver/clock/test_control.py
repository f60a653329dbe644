"""Time controls: the names players use and PGN's TimeControl, read and written back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from board_driver.clock.control import (
    MAX_STAGE_MS,
    Stage,
    TimeControl,
    from_pgn,
    parse_time_control,
)


@pytest.mark.parametrize(
    ("text", "stages", "mode", "pgn"),
    [
        ("5+0", [(None, 300_000, 0)], "fischer", "300"),
        ("3+2", [(None, 180_000, 2000)], "fischer", "180+2"),
        ("90+30", [(None, 5_400_000, 30_000)], "fischer", "5400+30"),
        ("0.5+0", [(None, 30_000, 0)], "fischer", "30"),
        ("1", [(None, 60_000, 0)], "fischer", "60"),
        ("45s+1", [(None, 45_000, 1000)], "fischer", "45+1"),
        ("5+3 delay", [(None, 300_000, 3000)], "delay", "300"),
        ("5+3 US", [(None, 300_000, 3000)], "delay", "300"),
        ("5+2 Bronstein", [(None, 300_000, 2000)], "bronstein", "300"),
        ("15 + 10", [(None, 900_000, 10_000)], "fischer", "900+10"),
        (
            "40/5400+30:1800+30",
            [(40, 5_400_000, 30_000), (None, 1_800_000, 30_000)],
            "fischer",
            "40/5400+30:1800+30",
        ),
        (
            "40/7200:20/3600:900",
            [(40, 7_200_000, 0), (20, 3_600_000, 0), (None, 900_000, 0)],
            "fischer",
            "40/7200:20/3600:900",
        ),
        ("40/9000", [(40, 9_000_000, 0)], "fischer", "40/9000"),
    ],
)
def test_the_names_players_use_and_pgn_notation(text, stages, mode, pgn):
    control = parse_time_control(text)
    assert control is not None
    assert [(s.moves, s.time_ms, s.bonus_ms) for s in control.stages] == stages
    assert control.mode == mode
    assert control.pgn() == pgn
    assert parse_time_control(control.name()) == control  # its own name reads back


@pytest.mark.parametrize("text", ["none", "off", "", "  ", "-", "NONE"])
def test_no_clock(text):
    assert parse_time_control(text) is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("3+", "expected minutes+seconds"),
        ("+2", "expected minutes+seconds"),
        ("three", "expected minutes+seconds"),
        ("3+2 turbo", "expected minutes+seconds"),
        ("0+2", "0 s is not a whole number of seconds from 1 s"),
        ("0.01+0", "not a whole number of seconds"),
        ("3+2.5", "expected minutes+seconds"),
        ("700+0", "not a whole number of seconds from 1 s to 35999 s"),
        ("3+900", "a bonus of 900 s"),
        ("40/5400:20/3600:10/1:5/1:4/1:900", "1 to 5 stages"),
        ("0/60:30", "0 moves is not 1 to 200"),
        ("60:40/30", "only the last stage can be for the rest of the game"),
        ("*60", "expected minutes+seconds"),
        ("delay", "expected minutes+seconds"),
    ],
)
def test_a_bad_control_says_what_is_wrong(text, says):
    with pytest.raises(ValueError) as error:
        parse_time_control(text)
    assert says in str(error.value)
    assert repr(text) in str(error.value)  # and names the text


def test_pgn_tags_are_read_in_seconds():
    assert from_pgn("180+2") == parse_time_control("3+2")
    assert from_pgn("40/5400+30:1800+30") == parse_time_control("40/5400+30:1800+30")
    assert from_pgn("-") is None and from_pgn("?") is None
    with pytest.raises(ValueError, match="not PGN's notation"):
        from_pgn("*180")


def test_the_fide_classical_control_changes_stage_after_the_fortieth_move():
    control = parse_time_control("40/5400+30:1800+30")
    assert [control.stage_of(n).time_ms for n in (1, 40, 41, 100)] == [
        5_400_000, 5_400_000, 1_800_000, 1_800_000
    ]  # fmt: skip
    assert [control.added_after(n) for n in (1, 39, 40, 41, 80)] == [0, 0, 1_800_000, 0, 0]
    assert "90 min for 40 moves, then 30 min" in control.describe()


def test_a_last_stage_with_moves_repeats():
    control = parse_time_control("40/7200:20/3600")
    assert [control.added_after(n) for n in (40, 59, 60, 80, 100)] == [
        3_600_000, 0, 3_600_000, 3_600_000, 3_600_000
    ]  # fmt: skip


def test_a_control_checks_its_stages():
    with pytest.raises(ValueError, match="mode"):
        TimeControl((Stage(None, 60_000),), "hourglass")
    with pytest.raises(ValueError, match="stages"):
        TimeControl(())
    assert TimeControl((Stage(None, MAX_STAGE_MS),)).pgn() == str(MAX_STAGE_MS // 1000)


@given(
    st.lists(
        st.tuples(st.integers(1, 200), st.integers(1, 35_999), st.integers(0, 600)),
        min_size=0,
        max_size=3,
    ),
    st.integers(1, 35_999),
    st.integers(0, 600),
    st.sampled_from(["fischer", "bronstein", "delay"]),
)
def test_every_control_is_named_and_read_back(stages, last_s, last_bonus, mode):
    all_stages = tuple(Stage(m, s * 1000, b * 1000) for m, s, b in stages)
    control = TimeControl((*all_stages, Stage(None, last_s * 1000, last_bonus * 1000)), mode)
    assert parse_time_control(control.name()) == control
    if mode == "fischer":
        assert from_pgn(control.pgn()) == control
