"""``in_sync`` never claims a board matches when it does not (issue 22; board-script.md,
"Left alone, the board is judged").

At the end of a script the board is left alone for good: ``in_sync`` true must mean that
the pieces sensed are the final position's, or that one move still being made explains
the difference. The pieces sensed and what a move on its way may look like are worked out
without the tracker (:mod:`.honest_sync`, python-chess as the judge). Checked over every
scenario script here, over every corpus script in test_corpus (its ``_problems``), and over
random hands: legal moves made by hand at any pace, then pieces lifted and set down anywhere.
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_driver.boardscript.replay import replay_script
from board_driver.boardscript.script import Script, parse_script
from board_driver.physical.events import Lift, Place
from tests.board_driver.arbiter.honest_sync import sensed_at_end, unexplained
from tests.board_driver.arbiter.test_tracker_scenarios import scenario_paths


@pytest.mark.parametrize("path", scenario_paths(), ids=lambda p: p.stem)
def test_a_scenario_ends_in_sync_only_with_the_board_explained(path: Path) -> None:
    script = parse_script(path.read_text(), path.name)
    result = replay_script(script)
    if result.in_sync:
        chess960 = script.variant == "chess960"
        assert unexplained(sensed_at_end(script), result.fen, chess960=chess960) is None


@st.composite
def hands(draw) -> Script:
    """Some legal moves made by hand (captures in either order, at a pace from very fast
    to careful), then a few pieces lifted or set down anywhere."""
    board = chess.Board()
    occupied = int(board.occupied)
    items: list[Lift | Place] = []
    t = 0

    def at(low: int, high: int) -> int:
        nonlocal t
        t += draw(st.integers(low, high))
        return t

    for _ in range(draw(st.integers(0, 6))):
        moves = [m for m in board.legal_moves if not (board.is_castling(m) or m.promotion)]
        move = draw(st.sampled_from(moves))
        order = [move.from_square]
        if board.is_en_passant(move):
            order.append(move.to_square ^ 8)
        elif board.is_capture(move):
            order.append(move.to_square)
        if draw(st.booleans()):
            order.reverse()  # the victim first
        for square in order:
            items.append(Lift(at(20, 400), square))
        items.append(Place(at(20, 400), move.to_square))
        board.push(move)
    occupied = int(board.occupied)
    for _ in range(draw(st.integers(1, 5))):
        square = draw(st.integers(0, 63))
        if occupied >> square & 1:
            items.append(Lift(at(10, 600), square))
        else:
            items.append(Place(at(10, 600), square))
        occupied ^= 1 << square
    return Script(fen=chess.STARTING_FEN, options={}, gap_ms=300, items=items, name="hands")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_random_hands_end_in_sync_only_with_the_board_explained(script: Script) -> None:
    result = replay_script(script)
    if result.in_sync:
        assert unexplained(sensed_at_end(script), result.fen) is None, (
            result.moves,
            script.to_text(),
        )
