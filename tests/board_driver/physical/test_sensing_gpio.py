"""The gpiod and RPi.GPIO matrix backends against fakes of their libraries."""

import errno
import os

import pytest

from board_driver.physical.hwlib import MissingLibraryError
from board_driver.physical.pinmap import DEFAULT_COLUMNS, DEFAULT_ROWS, PinConfigError
from board_driver.physical.sensing import open_sensing
from board_driver.physical.sensing.orientation import Orientation
from board_driver.physical.squares import square
from tests.fakes import fake_hw_fixture, no_hw_libs_fixture  # noqa: F401
from tests.fakes.world import World

START = 0xFFFF00000000FFFF


def wire_start(world: World, *, diodes: bool = True) -> None:
    world.wire_matrix(DEFAULT_ROWS, DEFAULT_COLUMNS, diodes=diodes)
    world.closed = START  # rows are ranks and columns files: the default wiring


def open_gpiod(world: World, **options):
    return open_sensing("gpiod", dev_dir=str(world.dev_dir), **options)


@pytest.mark.parametrize("backend", ["gpiod", "rpigpio"])
def test_the_start_position_reads_through_pull_ups_and_active_low_rows(fake_hw, backend):
    wire_start(fake_hw)
    port = open_gpiod(fake_hw) if backend == "gpiod" else open_sensing("rpigpio")
    assert f"{port.scan():016x}" == "ffff00000000ffff"
    # Columns are inputs with pull-ups; after a scan no row is left driven low.
    assert all(fake_hw.pins[c].bias == "up" for c in DEFAULT_COLUMNS)
    assert all(fake_hw.driven(r) != 0 for r in DEFAULT_ROWS)
    assert fake_hw.floating_reads == 0
    port.close()


def test_gpiod_drives_one_row_at_a_time_and_reads_8_columns_in_one_call(fake_hw):
    wire_start(fake_hw)
    port = open_gpiod(fake_hw)
    driven_during_reads = []
    real_level = fake_hw.level

    def level(pin):
        if pin == DEFAULT_COLUMNS[0]:
            driven_during_reads.append([r for r in DEFAULT_ROWS if fake_hw.driven(r) == 0])
        return real_level(pin)

    fake_hw.level = level
    fake_hw.calls.clear()
    port.scan()
    reads = [c for c in fake_hw.calls if c[1] == "get_values"]
    assert [c[2] for c in reads] == [8] * 8  # one call per row, all 8 columns
    assert driven_during_reads == [[row] for row in DEFAULT_ROWS]  # rank 1 first, alone


def test_rpigpio_drives_one_row_at_a_time(fake_hw):
    wire_start(fake_hw)
    port = open_sensing("rpigpio")
    driven = []
    real_level = fake_hw.level

    def level(pin):
        if pin == DEFAULT_COLUMNS[0]:
            driven.append([r for r in DEFAULT_ROWS if fake_hw.pins[r].level == 0])
        return real_level(pin)

    fake_hw.level = level
    port.scan()
    assert driven == [[row] for row in DEFAULT_ROWS]


@pytest.mark.parametrize(
    ("rotation", "mirror", "corner"),
    [(0, False, "a1"), (90, False, "a8"), (180, False, "h8"), (270, False, "h1"),
     (0, True, "h1"), (90, True, "a1"), (180, True, "a8"), (270, True, "h8")],
)  # fmt: skip
def test_orientation_names_the_square_of_the_first_row_and_column(
    fake_hw, rotation, mirror, corner
):
    fake_hw.wire_matrix(DEFAULT_ROWS, DEFAULT_COLUMNS)
    fake_hw.shut(0, 0)  # the switch on the first row wire and the first column wire
    port = open_gpiod(fake_hw, rotation=rotation, mirror=mirror)
    assert port.scan() == 1 << square(corner)


def test_a_turned_board_still_reads_its_start_position_the_right_way_round(fake_hw):
    # Board turned half way round: White's pieces sit over what the wiring calls ranks 7-8.
    fake_hw.wire_matrix(DEFAULT_ROWS, DEFAULT_COLUMNS)
    fake_hw.closed = 0xFFFF << 48 | 1 << (8 * 5 + 4)  # + one piece on row 5, column 4
    port = open_gpiod(fake_hw, rotation=180)
    expected = 0xFFFF | 1 << Orientation(180).square_at(5, 4)
    assert port.scan() == expected
    assert Orientation(180).square_at(5, 4) == square("d3")


def test_without_diodes_gpiod_ghosts_but_never_shorts_two_outputs(fake_hw):
    wire_start(fake_hw, diodes=False)
    fake_hw.closed = 1 << 0 | 1 << 1 | 1 << 8  # a1 b1 a2
    port = open_gpiod(fake_hw)
    assert port.scan() == 1 << 0 | 1 << 1 | 1 << 8 | 1 << 9  # b2 ghosts
    assert fake_hw.shorts == 0  # open-drain rows: undriven rows float


def test_without_diodes_push_pull_rpigpio_fights_itself(fake_hw):
    # Why the guide insists on diodes when using RPi.GPIO (push-pull rows only).
    wire_start(fake_hw, diodes=False)
    fake_hw.closed = 1 << 0 | 1 << 1 | 1 << 8
    open_sensing("rpigpio").scan()
    assert fake_hw.shorts > 0


def test_active_high_wiring_with_pull_downs(fake_hw):
    fake_hw.wire_matrix(DEFAULT_ROWS, DEFAULT_COLUMNS, cathode="column")
    fake_hw.closed = START
    for backend in ("gpiod", "rpigpio"):
        port = (
            open_gpiod(fake_hw, active_low=False)
            if backend == "gpiod"
            else open_sensing("rpigpio", active_low=False)
        )
        assert port.scan() == START, backend
        assert all(fake_hw.pins[c].bias == "down" for c in DEFAULT_COLUMNS)
        port.close()


def test_the_pi_5_chip_is_found_by_label_not_by_number(fake_hw):
    wire_start(fake_hw)
    port = open_gpiod(fake_hw)
    assert port.chip_path.endswith("gpiochip4")  # pinctrl-rp1 is not chip 0 on a Pi 5


def test_a_pi_4_is_found_too_although_gpio4_is_named_gpio_gclk(tmp_path, fake_hw):
    from tests.fakes import world as world_module

    pi4 = World(tmp_path / "pi4", model=4)
    world_module.set_current(pi4)
    wire_start(pi4)
    port = open_gpiod(pi4)
    assert port.chip_path.endswith("gpiochip0")
    assert port.scan() == START


def test_chip_by_label_by_path_and_lines_by_name(fake_hw):
    wire_start(fake_hw)
    by_label = open_gpiod(fake_hw, chip="pinctrl-rp1")
    assert by_label.scan() == START
    by_label.close()
    path = str(fake_hw.dev_dir / "gpiochip4")
    by_path = open_gpiod(fake_hw, chip=path)
    assert by_path.scan() == START
    by_path.close()
    names = open_gpiod(
        fake_hw,
        rows=[f"GPIO{n}" for n in DEFAULT_ROWS],
        columns=[f"GPIO{n}" for n in DEFAULT_COLUMNS],
    )
    assert names.scan() == START


def test_an_unknown_chip_label_lists_the_chips_there_are(fake_hw):
    with pytest.raises(ValueError, match=r"no GPIO chip is labelled 'pinctrl-x'.*'pinctrl-rp1'"):
        open_gpiod(fake_hw, chip="pinctrl-x")


def test_lines_held_by_another_program_give_a_clear_error(fake_hw):
    wire_start(fake_hw)
    open_gpiod(fake_hw)
    with pytest.raises(OSError, match="another program holds them") as caught:
        open_gpiod(fake_hw)
    assert caught.value.errno == errno.EBUSY


def test_closing_leaves_rows_undriven_and_frees_the_lines(fake_hw):
    wire_start(fake_hw)
    port = open_gpiod(fake_hw)
    port.scan()
    port.close()
    assert all(fake_hw.driven(r) is None for r in DEFAULT_ROWS)
    open_gpiod(fake_hw).close()  # the lines can be claimed again


def test_bad_pin_lists_are_named(fake_hw):
    with pytest.raises(PinConfigError, match="rows must list 8 GPIO numbers, got 7"):
        open_gpiod(fake_hw, rows=[4, 17, 27, 22, 5, 6, 13])
    with pytest.raises(PinConfigError, match="GPIO 23 is used twice: in rows and in columns"):
        open_gpiod(fake_hw, rows=[23, 17, 27, 22, 5, 6, 13, 26])
    with pytest.raises(ValueError, match="rotation must be one of 0, 90, 180, 270"):
        open_gpiod(fake_hw, rotation=45)


def test_a_missing_library_names_the_package_and_the_pi_extra(no_hw_libs):
    with pytest.raises(MissingLibraryError, match=r"pip install 'gpiod'.*magboard\[pi\]"):
        open_sensing("gpiod")
    with pytest.raises(MissingLibraryError, match=r"pip install 'RPi.GPIO'.*rpi-lgpio \(Pi 5\)"):
        open_sensing("rpigpio")


@pytest.mark.parametrize("backend", ["gpiod", "rpigpio"])
def test_any_board_reads_exactly_through_a_diode_matrix_in_any_orientation(fake_hw, backend):
    import random

    rng = random.Random(4)
    fake_hw.wire_matrix(DEFAULT_ROWS, DEFAULT_COLUMNS)
    for rotation in (0, 90, 180, 270):
        for mirror in (False, True):
            options = {"rotation": rotation, "mirror": mirror}
            port = (
                open_gpiod(fake_hw, **options)
                if backend == "gpiod"
                else open_sensing(backend, **options)
            )
            orientation = Orientation(rotation, mirror)
            for _ in range(5):
                fake_hw.closed = rng.getrandbits(64)
                expected = 0
                for row in range(8):
                    for column in range(8):
                        if fake_hw.closed >> (8 * row + column) & 1:
                            expected |= 1 << orientation.square_at(row, column)
                assert port.scan() == expected
            port.close()
    assert fake_hw.shorts == 0 and fake_hw.floating_reads == 0


@pytest.mark.parametrize(
    ("code", "hint"),
    [(errno.EPERM, "DeviceAllow=char-gpiochip rw"), (errno.EACCES, "'gpio' group")],
)
def test_a_chip_the_process_may_not_open_is_named_with_what_usually_denies_it(
    fake_hw, monkeypatch, code, hint
):
    """Under systemd without DeviceAllow for the chips, libgpiod says only "[Errno 1]
    Operation not permitted" (found in the system tests' machine): the error must name the
    device and the likely cause."""
    import gpiod

    def denied(path):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(gpiod, "Chip", denied)
    with pytest.raises(OSError) as caught:
        open_gpiod(fake_hw)
    message = str(caught.value)
    assert "/dev/gpiochip0" in message and hint in message
    assert caught.value.errno == code
