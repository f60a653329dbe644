"""Hands that do anything at all: the tracker never fails, and what it says stays sound."""

from __future__ import annotations

import json

from hypothesis import event as note_statistic
from hypothesis import given, settings
from hypothesis import strategies as st

import rules
from board_driver.arbiter.tracker import GameOptions, Tracker
from board_driver.physical.events import Button, Choose, Lift, Place

ACTIONS = st.lists(
    st.tuples(
        st.integers(0, 400),  # ms since the last event
        st.sampled_from(["move"] * 8 + ["board", "board", "choose", "button"]),
        st.integers(0, 63),
        st.sampled_from(["q", "r", "b", "n"]),
        st.sampled_from(["adjust", "claim_draw", "draw_offer", "draw_accept", "new_game"]),
    ),
    max_size=80,
)


def hands_for(move: rules.Move, board: int, t: int) -> list:
    """A legal move played by hand from ``board``: what leaves, then what arrives."""
    steps = [Lift(t, move.from_square)]
    if move.is_capture and board >> move.captured_square & 1:
        steps.append(Lift(t + 60, move.captured_square))
    if move.is_castling:
        steps.append(Lift(t + 60, move.rook_from))
        steps.append(Place(t + 180, move.rook_to))
    steps.append(Place(t + 120, move.to_square))
    return sorted(steps, key=lambda e: e.t_ms)


@settings(max_examples=150, deadline=None)
@given(
    actions=ACTIONS,
    touch_move=st.sampled_from(["off", "warn", "enforce"]),
    takeback=st.booleans(),
)
def test_any_sequence_of_hands_is_handled(actions, touch_move, takeback):
    tracker = Tracker(options=GameOptions(touch_move=touch_move, takeback=takeback))
    t = 0
    events = []
    for gap, kind, sq, letter, button in actions:
        t += gap
        batch = []
        if kind == "move":
            events += tracker.tick(t)  # a move still pending is judged before the next one
            legal = tracker.game.position.legal_moves()
            if legal:
                move = legal[sq % len(legal)]
                batch = hands_for(move, tracker.board, t)
                # Only when the board can report it (the squares are as the move needs).
                board = tracker.board
                for step in batch:
                    if (board >> step.square & 1) != isinstance(step, Lift):
                        batch = []
                        break
                    board ^= 1 << step.square
                t += 400  # still long enough to be judged before the next move
        elif kind == "board":
            # Lift what stands, place where nothing stands: what a real board can report.
            batch = [Lift(t, sq) if tracker.board >> sq & 1 else Place(t, sq)]
        elif kind == "choose":
            batch = [Choose(t, letter)]
        else:
            batch = [Button(t, button)]
        for event in batch:
            events += tracker.handle(event)
            frame = tracker.frame()
            if tracker.in_sync:
                blinking = [frame.colours[sq] for sq in range(64) if frame.blink >> sq & 1]
                assert "r" not in blinking and "b" not in blinking, "in sync, yet lit as not"
    events += tracker.finish(t)
    note_statistic(f"moves committed: {min(len(tracker.game.moves), 5)}+")
    json.dumps(events)
    times = [e["t"] for e in events]
    assert times == sorted(times), "events come in time order"
    # The game the tracker holds is a legal one: replaying its moves gives its position.
    replayed = rules.Game(tracker.game.start)
    for move in tracker.game.moves:
        replayed.push(move)
    assert replayed.position.fen() == tracker.game.position.fen()
    # What it announced adds up to the game it holds (moves less take-backs).
    if not any(e["type"] == "new_game" for e in events):
        made = sum(e["type"] == "move" and "replaces" not in e for e in events)
        undone = sum(e["type"] == "takeback" for e in events)
        assert made - undone == len(tracker.game.moves)
