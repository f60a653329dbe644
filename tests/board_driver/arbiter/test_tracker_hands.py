"""Fast and messy hands (issue 15) through the tracker's public API, where a scenario
script cannot say it: a restart, the tracker's timer, what the lights ask in words, and
why a position is illegal, said once.
"""

from __future__ import annotations

import rules
from board_driver.arbiter.tracker import GameOptions, Timing, Tracker
from board_driver.physical.events import Choose, Lift, Place
from board_driver.physical.squares import square


def play(tracker: Tracker, *steps: tuple[int, str, str]) -> list[dict]:
    out = []
    for t, kind, name in steps:
        event = Lift(t, square(name)) if kind == "lift" else Place(t, square(name))
        out += tracker.handle(event)
    return out


def sans(events: list[dict]) -> list[str]:
    return [e["san"] for e in events if e["type"] == "move"]


def game_from(fen: str, *moves: str) -> rules.Game:
    game = rules.Game(rules.Position.from_fen(fen))
    for san in moves:
        game.push_san(san)
    return game


TWO_CAPTURES = "r2qkb1r/ppp1nppp/8/3N4/8/8/PPP2PPP/R1BQKB1R w KQkq - 0 1"


def test_a_capture_made_while_the_daemon_was_down_is_read_from_the_reply_after():
    # The d5 knight took on e7 (it could also take c7) while the daemon was down: after
    # the restart only d5 is seen empty, as if the knight were in the hand.
    start = rules.Position.from_fen(TWO_CAPTURES).occupancy()
    tracker = Tracker(game_from(TWO_CAPTURES), board=start & ~(1 << square("d5")))
    assert tracker.in_sync  # a move on its way: no complaint
    events = play(tracker, (100, "lift", "e7"), (200, "lift", "d8"), (300, "place", "e7"))
    events += tracker.finish(300)
    assert sans(events) == ["Nxe7", "Qxe7+"]
    assert tracker.in_sync and tracker.game.san_moves() == ["Nxe7", "Qxe7+"]


def test_the_same_restart_then_a_reply_on_the_other_square_reads_the_other_capture():
    start = rules.Position.from_fen(TWO_CAPTURES).occupancy()
    tracker = Tracker(game_from(TWO_CAPTURES), board=start & ~(1 << square("d5")))
    events = play(tracker, (100, "lift", "c7"), (200, "lift", "d8"), (300, "place", "c7"))
    events += tracker.finish(300)
    assert sans(events) == ["Nxc7+", "Qxc7"]


def test_a_take_back_is_judged_once_the_pieces_rested_the_pass_time_not_the_settle_time():
    tracker = Tracker(timing=Timing(settle_ms=250, pass_ms=100))
    play(tracker, (0, "lift", "e2"), (100, "place", "e4"))
    tracker.tick(1000)
    play(tracker, (2000, "lift", "e4"))
    play(tracker, (2080, "place", "e2"))
    assert tracker.next_due() == 2180  # the pass time, not 2330
    events = tracker.tick(2180)
    assert [(e["type"], e["san"], e["t"]) for e in events] == [("takeback", "e4", 2180)]


def test_a_move_is_not_committed_by_a_lift_before_its_piece_rested_the_pass_time():
    # The e4 pawn lands at 100; Black's hand lifts e7 at 150 (50 ms later): the pawn is
    # not released yet, so nothing is committed at that lift; it is, once the pawn rested.
    tracker = Tracker(timing=Timing(settle_ms=2000, pass_ms=100))
    assert play(tracker, (0, "lift", "e2"), (100, "place", "e4"), (150, "lift", "e7")) == []
    events = play(tracker, (400, "place", "e5"))  # Black's piece lands elsewhere: its move
    assert [(e["san"], e["t"]) for e in events] == [("e4", 400)]
    assert [(e["san"], e["t"]) for e in tracker.finish(400)] == [("e5", 2400)]


def test_the_lights_ask_in_words_for_a_castling_rook_an_en_passant_victim_a_touched_piece():
    castle = Tracker(game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"))
    play(castle, (0, "lift", "e1"), (100, "place", "g1"))
    assert castle.asks() == ["Castling: move the rook from h1 to f1."]

    passant = Tracker(game_from(rules.STARTING_FEN, "e4", "a6", "e5", "d5"))
    play(passant, (0, "lift", "e5"), (100, "place", "d6"))
    assert passant.asks() == ["En passant: take the pawn on d5 off the board."]

    touched = Tracker(options=GameOptions(touch_move="enforce"))
    play(touched, (0, "lift", "g1"), (100, "place", "g1"))
    touched.tick(1000)
    assert touched.asks() == ["Touch-move: the knight on g1 was touched and must move."]
    assert Tracker().asks() == []


def test_an_illegal_position_says_why_once_while_it_stays_illegal_for_that_reason():
    tracker = Tracker()
    events = play(tracker, (0, "lift", "e2"), (100, "place", "e5")) + tracker.tick(400)
    assert [(e["type"], e["why"]) for e in events] == [
        ("illegal", "the pawn on e2 cannot go to e5")
    ]
    assert tracker.asks() == [
        "Illegal: the pawn on e2 cannot go to e5.",
        "Take the piece off e5; put one back on e2.",
    ]
    # The pawn lifted again is on its way: still out of sync (the lights stay), no new word.
    events = play(tracker, (500, "lift", "e5")) + tracker.tick(800)
    assert events == [] and not tracker.in_sync
    # Set on e6, still illegal for a reason of its own; then on e5 again: said before.
    events = play(tracker, (900, "place", "e6")) + tracker.tick(1200)
    assert [e.get("why") for e in events] == ["the pawn on e2 cannot go to e6"]
    events = play(tracker, (1300, "lift", "e6"), (1400, "place", "e5")) + tracker.tick(1700)
    assert [(e["type"], e.get("why")) for e in events] == [("illegal", None)]
    # Put right: restored, and a later illegal position says why again.
    events = play(tracker, (1800, "lift", "e5"), (1900, "place", "e2")) + tracker.tick(2200)
    assert [e["type"] for e in events] == ["restored"] and tracker.in_sync


def test_a_promotion_choice_while_the_new_queen_is_off_its_square_waits_for_what_follows():
    # White swaps the pawn on e8 for a rook: the choice made meanwhile amends e8=Q.
    fen = "3r3k/4P3/8/8/8/8/6p1/K7 w - - 0 1"
    swap = Tracker(game_from(fen))
    play(swap, (0, "lift", "e7"), (100, "place", "e8"), (250, "lift", "e8"))
    assert swap.handle(Choose(300, "r")) == []  # not yet: swapped, or taken?
    events = play(swap, (400, "place", "e8"))
    assert [(e["type"], e["san"]) for e in events if "san" in e] == [
        ("promotion_amended", "e8=R+")
    ]
