"""Debounce: what the tracker is told about the board, from raw switch scans."""

from __future__ import annotations

import random

import pytest

from board_driver.physical.debounce import Debouncer
from board_driver.physical.events import Lift, Place
from board_driver.physical.squares import square

START = 0xFFFF00000000FFFF
E2, E4 = square("e2"), square("e4")


def bit(name: str) -> int:
    return 1 << square(name)


def test_a_clean_change_is_reported_when_it_has_held_debounce_ms():
    d = Debouncer(30, initial=START)
    assert d.feed(1000, START & ~bit("e2")) == []
    assert d.tick(1029) == []
    assert d.tick(1030) == [Lift(1030, E2)]
    assert d.stable == START & ~bit("e2")


def test_the_event_time_is_when_the_state_matured_not_when_it_was_noticed():
    d = Debouncer(30, initial=START)
    d.feed(1000, START & ~bit("e2"))
    assert d.tick(5000) == [Lift(1030, E2)]


def test_contact_bounce_of_a_few_ms_gives_one_event_timed_from_the_last_bounce():
    d = Debouncer(30, initial=0)
    events = []
    for t, on in [(100, 1), (101, 0), (102, 1), (103, 0), (104, 1)]:
        events += d.feed(t, bit("e4") if on else 0)
    events += d.tick(200)
    assert events == [Place(134, E4)]


def test_a_single_scan_flicker_produces_nothing():
    d = Debouncer(30, initial=START)
    events = d.feed(100, START | bit("d4"))
    events += d.feed(105, START)
    events += d.feed(110, START & ~bit("a1"))
    events += d.feed(115, START)
    events += d.tick(10_000)
    assert events == []
    assert d.stable == START
    assert d.next_due() is None


def test_a_flicker_that_lasts_the_whole_debounce_time_counts():
    d = Debouncer(30, initial=0)
    d.feed(100, bit("e4"))
    assert d.feed(130, 0) == [Place(130, E4)]
    assert d.tick(200) == [Lift(160, E4)]


def test_a_scan_that_reverts_after_maturing_is_two_events():
    d = Debouncer(30, initial=START)
    d.feed(0, START & ~bit("e2"))
    assert d.feed(50, START) == [Lift(30, E2)]
    assert d.tick(80) == [Place(80, E2)]


def test_squares_are_debounced_independently_and_reported_in_time_order():
    d = Debouncer(30, initial=START)
    d.feed(0, START & ~bit("e2"))
    d.feed(10, START & ~bit("e2") | bit("e4"))
    d.feed(12, START & ~bit("e2"))  # e4 bounces
    d.feed(14, START & ~bit("e2") | bit("e4"))
    assert d.tick(100) == [Lift(30, E2), Place(44, E4)]


def test_at_one_instant_lifts_come_before_places():
    d = Debouncer(30, initial=bit("a1"))
    d.feed(0, bit("h8"))
    assert d.tick(30) == [Lift(30, square("a1")), Place(30, square("h8"))]


def test_next_due_says_when_the_next_event_matures():
    d = Debouncer(30, initial=START)
    assert d.next_due() is None
    d.feed(7, START & ~bit("e2"))
    assert d.next_due() == 37


def test_zero_debounce_reports_at_once():
    d = Debouncer(0, initial=0)
    assert d.feed(5, bit("e4")) == [Place(5, E4)]


def test_time_going_backwards_is_refused():
    d = Debouncer(30, initial=0)
    d.feed(100, bit("e4"))
    with pytest.raises(ValueError, match="backwards"):
        d.tick(99)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="debounce_ms"):
        Debouncer(-1)
    with pytest.raises(ValueError, match="64-bit"):
        Debouncer(30, initial=1 << 64)
    with pytest.raises(ValueError, match="64-bit"):
        Debouncer(30).feed(0, -1)


def test_random_bouncy_traffic_reports_exactly_the_settled_changes():
    """Random settled changes, each with bounces shorter than the debounce time."""
    rng = random.Random(7)
    d = Debouncer(30, initial=0)
    raw = 0
    t = 0
    expected_board = 0
    events: list[Lift | Place] = []
    for _ in range(300):
        sq = rng.randrange(64)
        target = raw ^ (1 << sq)
        for _ in range(rng.randint(0, 3)):  # bounce: flip and flip back within 1-3 ms
            events += d.feed(t, target)
            t += rng.randint(1, 3)
            events += d.feed(t, raw)
            t += rng.randint(1, 3)
        events += d.feed(t, target)
        raw = target
        expected_board = target
        t += rng.randint(31, 200)  # hold well past the debounce time
        events += d.tick(t)
    assert d.stable == expected_board
    assert len(events) == 300
    board = 0
    for event in events:
        was = board >> event.square & 1
        assert was == (1 if isinstance(event, Lift) else 0)
        board ^= 1 << event.square
    assert board == expected_board
    assert [e.t_ms for e in events] == sorted(e.t_ms for e in events)


def test_the_earliest_change_still_maturing_is_known_by_its_edge():
    d = Debouncer(30, initial=START)
    assert d.maturing_since() is None
    d.feed(100, START & ~(1 << E2))
    d.feed(110, (START & ~(1 << E2)) | 1 << E4)
    assert d.maturing_since() == 100
    matured = d.tick(130)
    assert d.at_edges(matured) == [Lift(100, E2)] and d.maturing_since() == 110
    assert d.at_edges(d.tick(140)) == [Place(110, E4)] and d.maturing_since() is None
