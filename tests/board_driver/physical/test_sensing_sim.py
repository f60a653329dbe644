"""The simulated board and the electrical model of the matrix."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from board_driver.physical.sensing import SensingConfigError, open_sensing
from board_driver.physical.sensing.matrix import read_matrix
from board_driver.physical.sensing.sim import START, SimStateError, SimulatedBoard
from board_driver.physical.squares import square


def bits(*names: str) -> int:
    out = 0
    for name in names:
        out |= 1 << square(name)
    return out


def test_start_position_and_a_move_read_as_the_board_script_says():
    board = SimulatedBoard()
    assert f"{board.scan():016x}" == "ffff00000000ffff"
    board.lift(square("e2"))
    board.place(square("e4"))
    assert f"{board.scan():016x}" == "ffff00001000efff"


def test_impossible_hands_are_refused_and_the_board_keeps_its_pieces():
    board = SimulatedBoard()
    with pytest.raises(ValueError, match="cannot lift from e4: it holds no piece"):
        board.lift(square("e4"))
    with pytest.raises(ValueError, match="cannot place on e2: it holds a piece"):
        board.place(square("e2"))
    assert board.pieces == START


def test_without_diodes_the_fourth_corner_of_a_rectangle_ghosts():
    with_diodes = SimulatedBoard(bits("a1", "b1", "a2"))
    without = SimulatedBoard(bits("a1", "b1", "a2"), diodes=False)
    assert with_diodes.scan() == bits("a1", "b1", "a2")
    assert without.scan() == bits("a1", "b1", "a2", "b2")


def test_without_diodes_one_pawn_move_fills_its_whole_rank():
    # The reason the guide makes diodes mandatory: after 1. e4 the e-file connects rank 4
    # to the full back ranks, so every square of rank 4 reads a piece.
    board = SimulatedBoard(diodes=False)
    assert board.scan() == START  # full ranks alone make no ghosts
    board.lift(square("e2"))
    board.place(square("e4"))
    assert board.scan() & 0xFF << 24 == 0xFF << 24


@given(st.integers(0, (1 << 64) - 1))
def test_the_matrix_model_with_diodes_is_exact(closed):
    assert read_matrix(closed, diodes=True) == closed


@given(st.integers(0, (1 << 64) - 1))
def test_without_diodes_every_rectangle_of_three_completes(closed):
    seen = read_matrix(closed, diodes=False)
    assert seen & closed == closed
    for r1 in range(8):
        for r2 in range(8):
            for c1 in range(8):
                for c2 in range(8):
                    three = (
                        seen >> (8 * r1 + c1) & 1
                        and seen >> (8 * r1 + c2) & 1
                        and seen >> (8 * r2 + c1) & 1
                    )
                    if three:
                        assert seen >> (8 * r2 + c2) & 1


def test_the_state_file_keeps_the_pieces_across_a_restart(tmp_path):
    state = tmp_path / "sim" / "board.json"
    board = SimulatedBoard(state_file=state)
    board.lift(square("g1"))
    board.place(square("f3"))
    assert json.loads(state.read_text()) == {"pieces": f"{board.pieces:016x}"}
    again = SimulatedBoard(state_file=state)  # START is ignored: the file wins
    assert again.pieces == START & ~bits("g1") | bits("f3")
    assert [p.name for p in state.parent.iterdir()] == ["board.json"]  # no temp files left


def test_a_corrupt_state_file_is_set_aside_named_and_a_new_one_begun(tmp_path):
    """Issue 32: a file the board wrote itself never keeps it from starting. Set aside
    (renamed, never deleted), said, and the pieces unknown: the daemon stands them as the
    game on the board (a device where the file should be is the config's fault: refused)."""
    state = tmp_path / "board.json"
    state.write_text("{not json")
    board = SimulatedBoard(state_file=state)
    assert board.set_aside is not None
    assert "board.json: not a simulated board state file" in board.set_aside
    aside = list(tmp_path.glob("board.json.unreadable-*"))
    assert len(aside) == 1 and aside[0].read_text() == "{not json"
    assert f"set aside as {aside[0]}" in board.set_aside
    board.pieces = START & ~bits("e2")
    assert SimulatedBoard(state_file=state).pieces == START & ~bits("e2")


def test_faults_for_diagnose_stuck_and_flickering_squares():
    board = SimulatedBoard()
    board.stick(square("e2"), False)
    board.stick(square("e4"), True)
    assert board.scan() == START & ~bits("e2") | bits("e4")
    board.stick(square("e2"), None)
    board.stick(square("e4"), None)
    board.flicker(square("d5"))
    readings = {board.scan() & bits("d5") for _ in range(4)}
    assert readings == {0, bits("d5")}


def test_open_sensing_builds_the_simulator_and_rejects_bad_options(tmp_path):
    port = open_sensing("sim", diodes=False, rows=[1] * 8, rate_hz=200)  # Pi keys ignored
    assert port.scan() == START
    with pytest.raises(SensingConfigError, match="'usb' is not one of gpiod, rpigpio, sim"):
        open_sensing("usb")
    with pytest.raises(SensingConfigError, match="unknown option 'rowz'"):
        open_sensing("sim", rowz=[1])


def test_a_state_file_that_is_a_device_or_huge_is_refused_without_reading_it(tmp_path):
    """``[sim] state_file = "/dev/zero"`` once grew the daemon 370 MB a second (issue 17)."""
    huge = tmp_path / "huge.json"
    huge.write_text('{"pieces": "' + "0" * 100_000 + '"}')
    with pytest.raises(SimStateError, match="/dev/zero is not a regular file"):
        SimulatedBoard(state_file=Path("/dev/zero"))
    board = SimulatedBoard(state_file=huge)  # a regular file, far too large: set aside
    assert board.set_aside is not None and "is 97.7 KB, more than such a file can be" in (
        board.set_aside
    )
    assert not huge.exists() and list(tmp_path.glob("huge.json.unreadable-*"))
