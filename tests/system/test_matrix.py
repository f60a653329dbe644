"""The reed matrix on a real kernel GPIO chip: the installed service's ``gpiod`` backend
scans gpio-sim lines that ``boardsim.py`` answers as a board of reed switches would; a
whole game played by a board script is stored move by move, even across a SIGKILL; the
buttons work; ``magboard diagnose`` finds a stuck line."""

from __future__ import annotations

import re
from pathlib import Path

from tests.system import steps

GAME = (Path(__file__).parent / "guest" / "game.script").read_text()
MOVES = ["e4", "Nf6", "e5", "d5", "exd6", "cxd6", "Nf3", "Nc6", "Bb5", "a6", "Bxc6+", "bxc6",
         "O-O", "e6", "d4", "Be7"]  # fmt: skip
HALF = "# cxd6: the mover first"  # where the game is cut for the SIGKILL


def _halves() -> tuple[str, str]:
    first, second = GAME.split(HALF)
    return first, "gap 500\n" + HALF + second


def test_a_whole_game_on_the_gpio_chip_is_stored_move_by_move_even_across_a_sigkill(service):
    games_before = steps.games(service)
    first, second = _halves()
    steps.play(service, first)
    # e4 Nf6 e5 d5 exd6 (en passant): stored before the daemon dies.
    played = steps.wait_until(lambda: (m := steps.stored_moves(service)) == MOVES[:5] and m,
                              30, "the first five moves in the store")  # fmt: skip
    pid = steps.main_pid(service)
    cursor = steps.journal_cursor(service)
    service.run("systemctl", "kill", "--signal=KILL", "magboard", check=True)
    steps.wait_until(lambda: steps.main_pid(service) not in (0, pid), 60, "a restarted daemon")
    steps.wait_active(service)
    assert steps.stored_moves(service) == played  # nothing stored was lost
    said = steps.journal(service, cursor)
    assert re.search(r"resuming game \d+ at ply 5", said), said[-2000:]
    steps.play(service, second)
    steps.wait_until(lambda: steps.stored_moves(service) == MOVES, 30, "the whole game stored")
    assert games_before != steps.games(service)


def test_the_buttons_resign_and_start_a_new_game(service):
    listed = steps.games(service)
    newest = listed.strip().splitlines()[-1].split()
    steps.play(service, "button resign\n")
    steps.wait_until(lambda: re.search(rf"^\s*{newest[0]}\s.*(1-0|0-1) \(resign",
                                       steps.games(service), re.M),
                     30, "the game resigned in the store")  # fmt: skip
    steps.play(service, "button new_game\n")
    steps.set_up_by_hand(service, steps.START)  # the pieces set up for it
    steps.wait_until(lambda: re.search(rf"^\s*{int(newest[0]) + 1}\s", steps.games(service), re.M),
                     30, "a new game in the store")  # fmt: skip


def test_diagnose_reads_the_chip_and_finds_a_stuck_column(service):
    steps.set_board(service, steps.START)
    # While the service runs, the lines are its: diagnose says so instead of failing obscurely.
    busy = service.run("magboard", "diagnose", "--once", "--no-walk", "--no-ghost-test",
                       timeout=120)  # fmt: skip
    assert busy.rc == 2 and "another program holds them" in busy.stderr, busy.describe()
    service.run("systemctl", "stop", "magboard", check=True, timeout=60)
    try:
        clean = service.run("magboard", "diagnose", "--once", "--no-walk", "--no-ghost-test",
                            "--expect", "start", timeout=120)  # fmt: skip
        assert clean.rc == 0 and "no problems found" in clean.stdout, clean.describe()
        # Column b (GPIO24) shorted to ground: every square of the b-file reads a piece.
        steps.set_board(service, steps.START, stuck_low=[24])
        stuck = service.run("magboard", "diagnose", "--once", "--no-walk", "--no-ghost-test",
                            "--expect", "start", timeout=120)  # fmt: skip
        assert stuck.rc == 1, stuck.describe()
        assert "a piece is sensed on b3 b4 b5 b6" in stuck.stdout, stuck.describe()
    finally:
        steps.set_board(service, steps.START)
        service.run("systemctl", "start", "magboard", timeout=120)


def test_the_rpigpio_backend_reads_the_chip_through_rpi_lgpio_and_plays_as_the_service(service):
    """rpi-lgpio's RPi.GPIO (a Pi 5's) drives lgpio, which opens the machine's chip like a
    Pi's once told which board it is; the service then plays with backend = "rpigpio"."""
    steps.install_rpi_lgpio(service)
    service.run("systemctl", "stop", "magboard", check=True, timeout=60)
    config = service.run("cat", "/etc/magboard/config.toml", check=True).stdout
    try:
        seen = service.python("scancost.py", "--backend=rpigpio", "--scans=20",
                              python=steps.VENV_PYTHON, env=steps.RPI_LGPIO, cwd="/tmp",
                              timeout=300)  # fmt: skip
        # Every scan reads the pieces standing, as the gpiod backend does.
        assert seen["readings"] == {f"{steps.board_pieces(service):016x}": 20}, seen
        service.write("/etc/magboard/config.toml",
                      config.replace('backend = "gpiod"', 'backend = "rpigpio"'))
        service.write(RPIGPIO_DROP_IN, "[Service]\nEnvironment=RPI_LGPIO_REVISION=c03111\n")
        service.run("systemctl", "daemon-reload", check=True)
        service.run("systemctl", "start", "magboard", timeout=120)
        steps.wait_active(service)
        before = len(steps.stored_moves(service))
        steps.play(service, "gap 500\nlift g1\nplace f3\nlift g8\nplace f6\n")
        steps.wait_until(lambda: len(steps.stored_moves(service)) == before + 2, 30,
                         "two moves stored through rpigpio")  # fmt: skip
        steps.play(service, "gap 500\nlift f3\nplace g1\nlift f6\nplace g8\n")  # back again
        steps.wait_until(lambda: len(steps.stored_moves(service)) == before + 4, 30,
                         "the knights back")  # fmt: skip
    finally:
        service.write("/etc/magboard/config.toml", config)
        service.run("rm", "-f", RPIGPIO_DROP_IN)
        service.run("systemctl", "daemon-reload")
        service.run("systemctl", "restart", "magboard", timeout=120)


RPIGPIO_DROP_IN = "/etc/systemd/system/magboard.service.d/rpigpio.conf"
