"""The clock's arithmetic: every kind of control, stages, delays that never add time,
increments after the move, pause, adjust, and a move set back. Times are written down:
the clock is told what time it is."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from board_driver.clock.clock import ChessClock
from board_driver.clock.control import parse_time_control
from rules import BLACK, WHITE


def clock_of(text: str, **kwargs) -> ChessClock:
    control = parse_time_control(text)
    assert control is not None
    return ChessClock(control, **kwargs)


def test_sudden_death_counts_down_the_side_on_turn_only():
    clock = clock_of("5+0")
    assert clock.switch(2_000) == 300_000  # White's first move: the clock starts now
    assert clock.remaining(BLACK, 12_000) == 290_000
    assert clock.remaining(WHITE, 12_000) == 300_000
    assert clock.switch(12_000) == 290_000
    assert clock.flag_at() == 12_000 + 300_000


def test_an_increment_comes_after_the_move_and_not_for_the_free_first_move():
    clock = clock_of("3+2")
    assert clock.switch(500) == 180_000  # no increment: the clock had not started
    assert clock.switch(4_500) == 180_000 - 4_000 + 2_000
    assert clock.remaining(WHITE, 4_500) == 180_000  # White's clock runs from the switch
    assert clock.switch(10_500) == 180_000 - 6_000 + 2_000


def test_bronstein_gives_back_what_the_move_took_up_to_the_delay_never_more():
    clock = clock_of("5+3 bronstein")
    clock.switch(0)
    assert clock.switch(1_000) == 300_000  # 1 s used, 1 s back
    assert clock.switch(10_000) == 300_000 - 9_000 + 3_000  # 9 s used, 3 s back
    assert clock.remaining(BLACK, 10_000) == 300_000


def test_a_simple_delay_waits_before_the_clock_counts():
    clock = clock_of("5+3 delay")
    clock.switch(0)
    assert clock.remaining(BLACK, 2_000) == 300_000  # inside the delay: nothing counts
    assert clock.delay_left(2_000) == 1_000
    assert clock.remaining(BLACK, 5_000) == 298_000
    assert clock.flag_at() == 303_000  # the delay, then the whole time
    assert clock.switch(2_500) == 300_000  # a quick move costs nothing, gains nothing
    assert clock.switch(2_500 + 10_000) == 300_000 - 7_000


def test_a_new_stage_adds_its_time_after_the_last_move_of_the_stage():
    clock = clock_of("2/60+1:30+5")
    clock.switch(0)  # White's 1st (free)
    t = 0
    for _ in range(1):
        t += 1_000
        clock.switch(t)  # Black's 1st
        t += 1_000
        clock.switch(t)  # White's 2nd: its stage ends
    assert clock.moves == {WHITE: 2, BLACK: 1}
    assert clock.remaining(WHITE, t) == 60_000 - 1_000 + 1_000 + 30_000
    t += 2_000
    assert clock.switch(t) == 60_000 - 1_000 + 1_000 - 2_000 + 1_000 + 30_000  # Black's 2nd
    t += 10_000
    # White's 3rd move is in the second stage: its bonus is 5 s.
    assert clock.switch(t) == 90_000 - 10_000 + 5_000


def test_pause_stops_the_running_clock_and_resume_goes_on():
    clock = clock_of("5+0")
    clock.switch(0)
    clock.pause(10_000)
    assert clock.flag_at() is None and clock.state == "paused"
    assert clock.remaining(BLACK, 50_000) == 290_000
    clock.start(60_000)
    assert clock.remaining(BLACK, 65_000) == 285_000
    assert clock.flag_at() == 60_000 + 285_000 + 5_000


def test_a_simple_delay_half_used_before_a_pause_is_not_given_again():
    clock = clock_of("5+3 delay")
    clock.switch(0)
    clock.pause(2_000)
    clock.start(100_000)
    assert clock.delay_left(100_000) == 1_000
    assert clock.remaining(BLACK, 103_000) == 298_000


def test_times_set_by_hand_read_as_set_and_a_penalty_adds():
    clock = clock_of("5+0")
    clock.switch(0)
    clock.set_times(60_000, 30_000, 7_000)
    assert (clock.remaining(WHITE, 7_000), clock.remaining(BLACK, 7_000)) == (60_000, 30_000)
    assert clock.remaining(BLACK, 8_000) == 29_000
    clock.add(WHITE, 120_000)
    assert clock.remaining(WHITE, 8_000) == 180_000
    with pytest.raises(ValueError):
        clock.set_times(-1, 0, 9_000)


def test_a_switch_set_back_exactly_or_from_a_later_moment():
    clock = clock_of("3+2")
    clock.switch(0)
    clock.switch(5_000, ply=2)  # Black: 180 - 5 + 2
    assert clock.last_switch() == (2, 5_000)
    clock.unswitch()  # read again: as before the switch
    assert clock.turn == BLACK and clock.remaining(BLACK, 6_000) == 174_000
    clock.switch(6_000, ply=2)
    assert clock.remaining(BLACK, 6_000) == 176_000
    clock.unswitch(resume_at=20_000)  # a take-back at 20 s: Black on turn from then
    assert clock.remaining(BLACK, 20_000) == 174_000
    assert clock.remaining(WHITE, 20_000) == 180_000
    assert clock.remaining(BLACK, 21_000) == 173_000
    with pytest.raises(ValueError):
        ChessClock(clock.control).unswitch()


def test_a_stopped_clock_stands():
    clock = clock_of("1+0")
    clock.switch(0)
    clock.stop(15_000)
    assert clock.remaining(BLACK, 90_000) == 45_000 and clock.flag_at() is None


moves = st.lists(st.integers(0, 30_000), min_size=1, max_size=40)


@pytest.mark.parametrize("mode", ["fischer", "bronstein", "delay"])
@given(used=moves)
def test_each_move_costs_what_the_mode_says(mode, used):
    """Fischer: the time used less the increment; Bronstein: never a gain, at most the
    time used; a simple delay: never a gain, the time used past the delay."""
    clock = clock_of(f"10+3 {mode}")
    clock.switch(0)
    t = 0
    for spent in used:
        mover = clock.turn
        before = clock.remaining(mover, t)
        t += spent
        after = clock.switch(t)
        if mode == "fischer":
            assert after == before - spent + 3_000
        elif mode == "bronstein":
            assert after == before - max(0, spent - 3_000)
            assert after <= before
        else:
            assert after == before - max(0, spent - 3_000)
            assert after <= before


@given(used=moves)
def test_the_flag_falls_exactly_when_the_time_left_reaches_zero(used):
    for mode in ("fischer", "bronstein", "delay"):
        clock = clock_of(f"1+2 {mode}")
        clock.switch(0)
        t = 0
        for spent in used:
            flag = clock.flag_at()
            assert flag is not None
            assert clock.remaining(clock.turn, flag) == 0
            assert clock.remaining(clock.turn, flag - 1) > 0 or flag == t
            if t + spent >= flag:
                break
            t += spent
            clock.switch(t)
