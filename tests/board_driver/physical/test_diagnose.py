"""``magboard diagnose`` on the simulator and on the fake Pi."""

from io import StringIO

import pytest

from board_driver.commands import build_parser, main
from board_driver.physical import diagnose
from board_driver.physical.leds.layout import StripLayout
from board_driver.physical.leds.sim import SimulatedLeds
from board_driver.physical.pinmap import DEFAULT_COLUMNS, DEFAULT_ROWS
from board_driver.physical.sensing.sim import SimulatedBoard
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


@pytest.fixture(autouse=True)
def no_config_of_this_machine(tmp_path, monkeypatch):
    """The defaults, whatever /etc/magboard/config.toml this machine may have."""
    empty = tmp_path / "empty-config.toml"
    empty.write_text("")
    monkeypatch.setenv("MAGBOARD_CONFIG", str(empty))


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


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--rate-hz", "0", "1..5000"),
        ("--rate-hz", "many", "a number"),
        ("--walk-ms", "-5", "0 or more"),
        ("--brightness", "5", "0.0..1.0"),
        ("--brightness", "-1", "0.0..1.0"),
        ("--seconds", "-1", "more than 0"),
        ("--settle-us", "-3", "0..10000"),
    ],
)
def test_an_option_value_out_of_range_is_a_usage_error_not_a_traceback(capsys, option, value, says):
    when = [] if option == "--seconds" else ["--once"]  # never a run without end
    with pytest.raises(SystemExit) as exit_:
        main(["diagnose", "--sim", *when, option, value])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert f"argument {option}: " in err and says in err, err


def test_a_matrix_that_fails_while_being_read_is_reported_not_a_traceback(capsys, monkeypatch):
    def unplugged(self):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(SimulatedBoard, "scan", unplugged)
    code = main(["diagnose", "--sim", "--once", "--no-walk"])
    captured = capsys.readouterr()
    assert code == 2
    assert "magboard diagnose: cannot read the matrix: [Errno 5] Input/output error" in (
        captured.err
    )


def test_a_matrix_that_fails_while_watched_is_reported_not_a_traceback(capsys, monkeypatch):
    scans = 0
    real_scan = SimulatedBoard.scan

    def fails_later(self):
        nonlocal scans
        scans += 1
        if scans > 5:
            raise OSError(19, "No such device")
        return real_scan(self)

    monkeypatch.setattr(SimulatedBoard, "scan", fails_later)
    code = main(["diagnose", "--sim", "--seconds", "5", "--no-ghost-test", "--no-walk"])
    captured = capsys.readouterr()
    assert code == 2
    assert "cannot read the matrix: [Errno 19] No such device" in captured.err


def test_the_library_functions_refuse_a_negative_time():
    with pytest.raises(ValueError, match=r"seconds must be more than 0, got -1"):
        diagnose.watch(SimulatedBoard(), -1)
    leds = SimulatedLeds()
    with pytest.raises(ValueError, match=r"delay_s must be 0 or more, got -0\.005"):
        diagnose.led_walk(leds, StripLayout(), StringIO(), delay_s=-0.005)
    assert leds.writes == 0  # refused before anything was lit


def test_the_config_file_sets_the_board_the_way_the_daemon_reads_it(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[leds]\norder = "rows"\nfirst = "h8"\n')
    code, out = run(capsys, "--sim", "--once", "--walk-ms", "0", "--config", str(config))
    assert code == 0, out
    assert "rows from h8" in out
    assert "LED  0 -> h8\n" in out and "LED 63 -> a1\n" in out


def test_an_option_on_the_command_line_wins_over_the_config_file(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[leds]\norder = "rows"\nfirst = "h8"\n')
    code, out = run(
        capsys, "--sim", "--once", "--walk-ms", "0", "--config", str(config), "--led-first", "a1"
    )
    assert code == 0, out
    assert "rows from a1" in out and "LED  0 -> a1\n" in out


def test_a_bad_config_file_is_named_with_its_key_and_nothing_runs(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[leds]\nbrightness = 1.7\n")
    code = main(["diagnose", "--sim", "--once", "--config", str(config)])
    captured = capsys.readouterr()
    assert code == 2
    assert "[leds] brightness: 1.7 is not between 0 and 1" in captured.err
    assert "LED walk" not in captured.out


def test_a_bridge_board_is_sent_to_its_firmware_guide(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[sensing]\nbackend = "bridge"\n[leds]\nbackend = "bridge"\n')
    code = main(["diagnose", "--once", "--config", str(config)])
    assert code == 2
    assert "hardware/firmware/README.md" in capsys.readouterr().err


# ---------------------------------------------------------------- issue 16, item 11


def test_the_ghost_test_says_passed_or_failed(capsys):
    code, out = run(capsys, "--sim", "--once", "--no-walk")
    assert code == 0
    assert "ghost test: passed (b2 stayed empty with pieces on a1, b1, a2)" in out
    code, out = run(capsys, "--sim", "--once", "--no-walk", "--no-diodes")
    assert code == 1 and "ghost test: FAILED" in out


def test_a_switch_stuck_closed_on_b2_is_not_blamed_on_a_missing_diode(capsys):
    code, out = run(capsys, "--sim", "--once", "--no-walk", "--fault", "stuck_closed:b2")
    assert code == 1
    problems = out.split("problem(s):", 1)[1]
    assert "a switch stuck closed on b2" in problems
    assert "diode each" not in problems and "ghosting" not in problems
    assert "ghost test: not judged" in out


def test_output_to_a_file_appears_as_it_is_written(tmp_path):
    """A watch to a file shows the board at once, not when the watch ends (buffering)."""
    import os
    import subprocess
    import sys
    import time

    from tests.board_driver.daemon_process import ROOT

    log = tmp_path / "diagnose.log"
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as a user has it
    env["MAGBOARD_CONFIG"] = str(empty)
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "board_driver", "diagnose", "--sim", "--seconds", "120",
             "--no-walk"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT, env=env,
        )  # fmt: skip
        try:
            # Waited for however slow the machine: the watch goes on for two minutes.
            deadline = time.monotonic() + 60
            while "ghost test: passed" not in log.read_text() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert "ghost test: passed" in log.read_text(), log.read_text()
            assert proc.poll() is None  # still watching: the lines came as they were written
        finally:
            proc.terminate()
            proc.wait(10)


def test_the_most_specific_finding_comes_first(capsys):
    """Issue 24, item 13: a flickering e4 was reported as ghosting first, the flicker third.
    The flicker is what was seen; a square closed by chance is no ghost."""
    code, out = run(capsys, "--sim", "--seconds", "0.5", "--no-walk", "--fault", "flicker:e4")
    assert code == 1
    problems = [line.strip() for line in out.split("problem(s):", 1)[1].splitlines() if line]
    assert problems[0].startswith("- flickering faster than any hand: e4"), problems
    assert not any("ghosting" in p for p in problems), problems
    # A matrix without diodes is still called ghosting.
    code, out = run(capsys, "--sim", "--once", "--no-walk", "--no-diodes")
    assert "ghosting" in out.split("problem(s):", 1)[1]
