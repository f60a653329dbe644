"""``magboard run --sim`` as a process: a game stored and lit, clean stops, clear errors."""

from __future__ import annotations

import importlib.util
import io
import os
import signal
import sqlite3
import subprocess
import sys

import chess.pgn
import pytest

from board_driver.physical.leds import Renderer
from board_driver.physical.squares import square
from board_driver.service.config.sections import DEFAULT_COLOURS
from board_driver.service.daemon import gpio_present
from board_driver.service.store_errors import EXIT_STORE_IN_USE
from tests.board_driver.daemon_process import (
    ROOT,
    DaemonProcess,
    no_daemon_left_running,  # noqa: F401 - an autouse fixture
    private_network,
    run_magboard,
    write_config,
)

# The palette at the default brightness and gamma, as the LEDs get it.
RED, GREEN, YELLOW = (Renderer().correct(DEFAULT_COLOURS[c]) for c in ("red", "green", "yellow"))
OFF = (0, 0, 0)

# Hands move quickly within a move; the board is still for the settle time between moves.
SCHOLARS_MATE = [
    "gap 80",
    "lift e2", "place e4", "wait 300", "lift e7", "place e5", "wait 300",
    "lift d1", "place h5", "wait 300", "lift b8", "place c6", "wait 300",
    "lift f1", "place c4", "wait 300", "lift g8", "place f6", "wait 300",
    "lift f7", "lift h5", "place f7",
]  # fmt: skip


def test_a_game_is_stored_lit_and_sigterm_stops_with_the_lights_off(tmp_path):
    write_config(tmp_path)
    daemon = DaemonProcess(tmp_path, watchdog_usec=300_000)
    daemon.wait_ready()
    daemon.send(*SCHOLARS_MATE)
    assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 7), daemon.output()
    assert daemon.wait_for(lambda: "game over" in daemon.output()), daemon.output()
    assert [san for _, san, _ in daemon.moves_logged()] == [
        "e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"
    ]  # fmt: skip

    # Mate: the winner's king green, the loser's red (once the white flash is over).
    assert daemon.wait_for(
        lambda: daemon.leds()[square("e1")] == GREEN and daemon.leds()[square("e8")] == RED
    ), daemon.leds()
    assert "WATCHDOG=1" in daemon.notices  # pinged from the loop

    took = daemon.terminate()
    assert daemon.proc.returncode == 0, daemon.output()
    assert took < 5, f"SIGTERM took {took:.1f} s"
    assert "STOPPING=1" in daemon.notices
    assert daemon.leds() == [OFF] * 64
    assert "Traceback" not in daemon.output()

    pgn = run_magboard("pgn", "--config", str(daemon.config))
    assert pgn.returncode == 0, pgn.stderr
    game = chess.pgn.read_game(io.StringIO(pgn.stdout))
    assert game.headers["Result"] == "1-0"
    assert game.end().board().is_checkmate()
    assert [str(m) for m in game.mainline_moves()][-1] == "h5f7"


def test_an_illegal_position_is_lit_until_put_right(tmp_path):
    write_config(tmp_path)
    daemon = DaemonProcess(tmp_path)
    daemon.wait_ready()
    daemon.send("gap 60", "lift e2", "place e5")  # a pawn cannot go there
    assert daemon.wait_for(lambda: "illegal" in daemon.output()), daemon.output()
    # e5 must be emptied (red) and e2 filled (blue); both blink, so wait for a lit phase.
    assert daemon.wait_for(lambda: daemon.leds()[square("e5")] == RED, timeout=3), daemon.leds()
    daemon.send("lift e5", "place e2")
    assert daemon.wait_for(lambda: "restored" in daemon.output()), daemon.output()
    assert daemon.wait_for(lambda: daemon.leds() == [OFF] * 64, timeout=3)
    daemon.terminate()
    assert daemon.moves_logged() == []


def test_a_script_file_with_a_fen_starts_that_game_and_keeps_amendments(tmp_path):
    write_config(tmp_path)
    script = tmp_path / "promote.script"
    script.write_text(
        "fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 1\ngap 60\nlift a7\nplace a8\nwait 400\nchoose r\n"
    )
    daemon = DaemonProcess(tmp_path, script=str(script))
    daemon.wait_ready()
    assert daemon.wait_for(lambda: "promotion amended" in daemon.output()), daemon.output()
    daemon.terminate()
    with sqlite3.connect(tmp_path / "games.sqlite") as db:
        fen, uci = db.execute(
            "SELECT g.start_fen, m.uci FROM games g JOIN moves m ON m.game_id = g.id "
            "ORDER BY g.id DESC LIMIT 1"
        ).fetchone()
        kinds = db.execute("SELECT kind, old_uci, new_uci FROM corrections").fetchall()
    assert fen == "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    assert uci == "a7a8r"
    assert kinds == [("amend", "a7a8q", "a7a8r")]


def test_a_set_up_position_that_is_already_mate_is_announced_at_once(tmp_path):
    write_config(tmp_path)
    daemon = DaemonProcess(tmp_path)
    daemon.wait_ready()
    daemon.send("fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "wait 100")
    assert daemon.wait_for(lambda: "checkmate" in daemon.output(), timeout=10), daemon.output()
    daemon.terminate()
    games = run_magboard("games", "--config", str(daemon.config)).stdout
    assert "1-0" in games, games


def test_a_bad_script_line_is_named_and_the_rest_goes_on(tmp_path):
    write_config(tmp_path)
    daemon = DaemonProcess(tmp_path)
    daemon.wait_ready()
    daemon.send("gap 60", "lift e9", "lift e2", "place e4")
    assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 1), daemon.output()
    daemon.terminate()
    assert "script <stdin>:2: bad square 'e9'" in daemon.output()


def test_a_corrupt_database_is_a_clear_error(tmp_path):
    config = write_config(tmp_path)
    (tmp_path / "games.sqlite").write_bytes(b"not a database at all " * 300)
    result = run_magboard("run", "--sim", "--config", str(config))
    assert result.returncode == 65  # EXIT_STORE_REFUSED: the unit does not restart it
    assert "games database is damaged" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_a_store_that_cannot_be_created_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    config = tmp_path / "config.toml"
    config.write_text(
        f'[store]\npath = "{blocker / "sub" / "g.sqlite"}"\n'
        f'[sim]\nstate_file = "{tmp_path / "sim.json"}"\n[web]\nenabled = false\n'
    )
    result = run_magboard("run", "--sim", "--config", str(config))
    # The config names a place no store can be made: a config error, as `config check` says.
    assert result.returncode == 2
    assert f"cannot be made: {blocker} is not a directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_or_unreadable_config_is_a_clear_error(tmp_path):
    config = write_config(tmp_path, "[leds]\nbrightness = 1.7")
    result = run_magboard("run", "--sim", "--config", str(config))
    assert result.returncode == 2
    assert "[leds] brightness: 1.7 is not between 0 and 1" in result.stderr
    result = run_magboard("run", "--config", str(tmp_path / "nowhere.toml"))
    assert result.returncode == 2 and "no such file" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(gpio_present(), reason="this machine has GPIO chips")
def test_missing_hardware_is_a_clear_error(tmp_path):
    config = write_config(tmp_path, '[sensing]\nbackend = "gpiod"')
    # With the gpiod library (the tests' fake of it) but no GPIO chip on this machine.
    fakes = str(ROOT / "tests" / "fakes" / "modules")
    result = run_magboard("run", "--config", str(config), env={"PYTHONPATH": fakes})
    assert result.returncode == 1, result.stderr
    assert "[sensing] backend 'gpiod': cannot open: no Raspberry Pi GPIO chip" in result.stderr
    assert "Traceback" not in result.stderr
    if importlib.util.find_spec("gpiod") is not None:
        return  # the library is installed here: nothing more to see
    # Without the library at all.
    result = run_magboard("run", "--config", str(config), env={"PYTHONPATH": ""})
    assert result.returncode == 1, result.stderr
    assert "needs the Python module 'gpiod'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_bridge_device_is_a_clear_error(tmp_path):
    config = write_config(
        tmp_path,
        '[sensing]\nbackend = "bridge"\n[leds]\nbackend = "bridge"\n'
        f'[bridge]\ndevice = "{tmp_path / "ttyNothing"}"',
    )
    result = run_magboard("run", "--config", str(config))
    assert result.returncode == 1, result.stderr
    assert "ttyNothing" in result.stderr and "Traceback" not in result.stderr


def test_a_bad_script_file_is_refused_before_starting(tmp_path):
    config = write_config(tmp_path)
    script = tmp_path / "bad.script"
    script.write_text("lift e2\nplace e4\nlift e2\n")
    result = run_magboard("run", "--sim", "--config", str(config), "--script", str(script))
    assert result.returncode == 2
    assert "bad.script:3: lift e2: no piece stands on e2" in result.stderr


def test_without_config_or_gpio_it_runs_the_simulator_and_says_how_to_reach_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "MAGBOARD_CONFIG"}
    env["STATE_DIRECTORY"] = str(tmp_path)  # keep the simulator's files here
    if gpio_present():
        pytest.skip("this machine has GPIO chips")
    # Without a config the page takes port 8080, a user's `make run`'s: in a network of
    # its own it takes nobody's (its loopback is down there: the page is not served).
    proc = subprocess.Popen(
        [*private_network(), sys.executable, "-m", "board_driver", "run"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "ready" in line:
                break
        text = "".join(lines)
        assert "running against the simulated board" in text, text
        assert "--script -" in text and str(tmp_path / "sim-board.json") in text
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    assert proc.returncode == 0


def test_after_a_crash_a_move_made_but_not_yet_judged_is_judged_on_restart(tmp_path):
    write_config(tmp_path, "[game]\nsettle_ms = 1000")  # time enough to kill before judging
    daemon = DaemonProcess(tmp_path)
    daemon.wait_ready()
    daemon.send("gap 60", "lift e2", "place e4")
    assert daemon.wait_for(lambda: daemon.sim_pieces() == 0xFFFF00001000EFFF, timeout=5)
    daemon.kill()  # within the settle time: the move is on the board, not in the store
    assert daemon.moves_logged() == []

    again = DaemonProcess(tmp_path)
    again.wait_ready()
    assert again.wait_for(lambda: len(again.moves_logged()) == 1), again.output()
    assert "the hands journal replayed: 2 events" in again.output()
    # Half a move when the power went: finished after the restart.
    again.send("gap 60", "wait 1100", "lift e7")
    assert again.wait_for(lambda: again.sim_pieces() == 0xFFEF00001000EFFF, timeout=5)
    again.kill()
    third = DaemonProcess(tmp_path)
    third.wait_ready()
    third.send("gap 60", "place e5")
    assert third.wait_for(lambda: len(third.moves_logged()) == 1), third.output()
    assert third.moves_logged()[0][:2] == (2, "e5")
    third.terminate()


def test_on_the_serial_bridge_moves_are_stored_and_a_pulled_cable_is_lit(tmp_path):
    # The real firmware on fake hardware behind a pty; the daemon's LEDs on the simulator,
    # so that they can show the link lost (the bridge's own LEDs go dark with the link).
    rig = subprocess.Popen(
        [sys.executable, "-m", "tests.board_driver.bridge_board", str(tmp_path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )

    def tell(command: str) -> None:
        rig.stdin.write(command + "\n")
        rig.stdin.flush()
        assert rig.stdout.readline().strip() == "ok"

    try:
        assert rig.stdout.readline().strip() == "ready"
        write_config(
            tmp_path,
            '[sensing]\nbackend = "bridge"\n[leds]\nbackend = "sim"\n'
            f'[bridge]\ndevice = "{tmp_path / "magboard-bridge"}"',
        )
        daemon = DaemonProcess(tmp_path, script=None)
        daemon.wait_ready()
        for command in ("lift e2", "place e4"):
            tell(command)
        assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 1), daemon.output()

        tell("pull")
        assert daemon.wait_for(lambda: "bridge link down" in daemon.output()), daemon.output()
        assert daemon.wait_for(lambda: daemon.leds()[0] == YELLOW, timeout=3), daemon.leds()
        tell("lift e7")  # 1... e5, played while the daemon cannot see
        tell("place e5")
        tell("plug")
        assert daemon.wait_for(lambda: "bridge link up" in daemon.output()), daemon.output()
        assert daemon.output().count("bridge link down") == 1, daemon.output()  # said once
        assert daemon.wait_for(lambda: len(daemon.moves_logged()) == 2), daemon.output()
        assert daemon.moves_logged()[1][:2] == (2, "e5")
        assert daemon.wait_for(lambda: daemon.leds() == [OFF] * 64, timeout=3)
        daemon.terminate()
        assert daemon.proc.returncode == 0
    finally:
        if rig.poll() is None:
            rig.stdin.write("quit\n")
            rig.stdin.flush()
            rig.wait(10)


def test_a_second_daemon_on_the_same_store_is_refused(tmp_path):
    """The same board twice: the second is refused before it touches anything of the
    first's (its pieces, its lights), says why once, and exits with a status the unit does
    not restart (issue 32, item 8: it exited 1, and systemd started it again and again)."""
    config = write_config(tmp_path)
    daemon = DaemonProcess(tmp_path)
    daemon.wait_ready()
    lights = (tmp_path / "leds.json").read_bytes()
    pieces = (tmp_path / "sim-board.json").stat().st_mtime_ns
    second = run_magboard("run", "--sim", "--config", str(config))
    assert (tmp_path / "leds.json").read_bytes() == lights
    assert (tmp_path / "sim-board.json").stat().st_mtime_ns == pieces
    daemon.terminate()
    assert second.returncode == EXIT_STORE_IN_USE
    why = f"another magboard daemon (pid {daemon.proc.pid}) is running with the store"
    assert why in second.stderr
    assert "Traceback" not in second.stderr
    # Issue 16, item 4: said once, and a store that is not the service's does not send the
    # user to systemctl.
    lines = second.stderr.splitlines()
    assert lines == [line for line in lines if why in line], lines
    assert "systemctl" not in second.stderr and "[store] path" in second.stderr
    unit = (ROOT / "systemd" / "magboard.service").read_text()
    prevent = [
        line.split("=", 1)[1].split()
        for line in unit.splitlines()
        if line.startswith("RestartPreventExitStatus=")
    ]
    assert [str(EXIT_STORE_IN_USE) in codes for codes in prevent] == [True]
