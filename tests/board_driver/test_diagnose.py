"""``magboard diagnose`` on the simulator and on the fake Pi."""

from board_driver.cli import build_parser, main
from board_driver.pinmap import DEFAULT_COLUMNS, DEFAULT_ROWS
from tests.fakes import fake_hw_fixture, no_hw_libs_fixture  # noqa: F401

START_VIEW = """\
8  # # # # # # # #
7  # # # # # # # #
6  . . . . . . . .
5  . . . . . . . .
4  . . . . . . . .
3  . . . . . . . .
2  # # # # # # # #
1  # # # # # # # #
   a b c d e f g h"""


def run(capsys, *argv):
    code = main(["diagnose", *argv])
    return code, capsys.readouterr().out


def test_diagnose_is_a_magboard_command():
    assert "diagnose" in build_parser().format_help()


def test_a_healthy_simulated_board_passes_and_the_walk_names_each_leds_square(capsys):
    code, out = run(capsys, "--sim", "--once", "--walk-ms", "0")
    assert code == 0, out
    assert START_VIEW in out
    assert "LED  0 -> a1\n" in out and "LED  8 -> h2\n" in out and "LED 63 -> a8\n" in out
    assert out.count(" -> ") == 64
    assert out.rstrip().endswith("no problems found")


def test_a_board_without_diodes_fails_the_ghost_test(capsys):
    code, out = run(capsys, "--sim", "--no-diodes", "--once", "--no-walk")
    assert code == 1
    assert "ghosting: with pieces on a1, b1, a2 only, b2 reads closed too" in out


def test_stuck_squares_show_against_the_expected_board(capsys):
    code, out = run(
        capsys, "--sim", "--once", "--no-walk", "--expect", "start",
        "--fault", "stuck_open:e2", "--fault", "stuck_closed:e5",
    )  # fmt: skip
    assert code == 1
    assert "no piece is sensed on e2" in out
    assert "a piece is sensed on e5" in out
    assert "5  . . . . X . . ." in out and "2  # # # # ? # # #" in out


def test_a_flickering_square_is_found_while_watching(capsys):
    code, out = run(capsys, "--sim", "--seconds", "0.3", "--no-walk", "--fault", "flicker:d5")
    assert code == 1
    assert "flickering faster than any hand: d5" in out


def test_on_the_fake_pi_the_view_applies_the_orientation(capsys, fake_hw):
    fake_hw.wire_matrix(DEFAULT_ROWS, DEFAULT_COLUMNS)
    fake_hw.shut(0, 0)  # the first row and column: a8 when the board is turned 90 degrees
    code, out = run(
        capsys, "--dev-dir", str(fake_hw.dev_dir), "--rotation", "90", "--once",
        "--no-ghost-test", "--walk-ms", "0",
    )  # fmt: skip
    assert "8  # . . . . . . ." in out
    assert "1  . . . . . . . ." in out
    # The walk went through the real (fake) strip: one write per LED, one to turn the last
    # one off, one more when closing; and left it dark.
    assert fake_hw.strip.writes == 66
    assert fake_hw.strip.shown == [(0, 0, 0)] * 64
    assert code == 0, out


def test_without_the_gpio_library_it_says_what_to_install_not_a_traceback(capsys, no_hw_libs):
    code = main(["diagnose", "--once", "--no-walk"])
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot open the matrix: the 'gpiod' backend needs" in err
    assert "magboard diagnose --sim" in err
