import pytest

from board_driver.physical.frame import Frame
from board_driver.physical.squares import square, square_name, squares_of


def test_rows_put_rank_8_first_and_blinking_in_upper_case():
    frame = Frame.off().with_square(square("e2"), "w").with_square(square("e8"), "r", blink=True)
    rows = frame.rows()
    assert rows[0] == "....R..."
    assert rows[6] == "....w..."
    assert Frame.from_rows(rows) == frame


def test_off_phase_darkens_only_blinking_squares():
    frame = Frame.off().with_square(0, "b", blink=True).with_square(1, "g")
    assert frame.at_phase(False).rows()[7] == ".g......"
    assert frame.at_phase(True).rows()[7] == "bg......"


def test_bad_colour_letter_is_named():
    with pytest.raises(ValueError, match="'x' is not a colour letter"):
        Frame.from_rows(["x......."] + ["........"] * 7)


def test_square_names_round_trip_and_bits():
    assert [square_name(i) for i in range(64)][28] == "e4"
    assert all(square(square_name(i)) == i for i in range(64))
    assert squares_of(0xFFFF) == list(range(16))
    with pytest.raises(ValueError, match="not a square: 'i9'"):
        square("i9")
