"""What the system tests do inside the machine, as a builder would, in small steps.

The board: ``boardsim.py`` runs as a transient unit and shows the daemon's scans the
pieces in ``/run/boardsim/state.json``. The install: the repository copied where a builder
clones it, the machine's config written (the installer keeps it), then
``systemd/install.sh`` run as it is, as root. The store: read with the installed
``magboard`` command, as a builder reads it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.system.harness.machine import Machine, MachineError, Result

VENV_PYTHON = "/opt/magboard/bin/python"
CHECKS = "/srv/payload/checks"
CLONE = "/root/magboard"
STATE = "/run/boardsim/state.json"
START = 0xFFFF00000000FFFF
#: What the installed service is allowed for READY, from its start: the unit's TimeoutStartSec.
READY_BUDGET_S = int(re.search(r"^TimeoutStartSec=(\d+)s$", (Path(__file__).resolve().parents[2]
                               / "systemd" / "magboard.service").read_text(), re.M)[1])


def wait_until(check: Callable[[], object], timeout: float, what: str, every: float = 0.5):
    """The first true value ``check()`` returns; AssertionError naming ``what`` at ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}; last: {value!r}")
        time.sleep(every)


# ------------------------------------------------------------------ the board


def start_board(machine: Machine, pieces: int = START) -> None:
    """The simulated matrix, showing ``pieces`` (the start position by default)."""
    set_board(machine, pieces)
    machine.run("systemctl", "stop", "magboard-boardsim", timeout=30)
    machine.run(
        "systemd-run", "--unit", "magboard-boardsim", "--property", "Restart=on-failure",
        "--", "python3", f"{CHECKS}/boardsim.py", "--state", STATE, check=True,
    )  # fmt: skip


def set_board(machine: Machine, pieces: int, **faults: list[int]) -> None:
    """Show ``pieces`` (and ``stuck_low=[lines]``) on the simulated board, without waiting."""
    state = {"pieces": f"{pieces:016x}", "buttons": [], "version": int(time.time() * 1000)}
    machine.write(STATE, json.dumps({**state, **faults}))


def set_up_by_hand(machine: Machine, pieces: int = START) -> None:
    """Set ``pieces`` up as a person does after a game: every piece lifted off the board,
    then the position's squares filled. (A jump of the simulated matrix from one position
    to the other would leave squares the board knows hold another kind of piece standing:
    a new game's set-up waits for those to be emptied, as on a real board.)"""

    def names(bits: int) -> list[str]:
        return [f"{'abcdefgh'[sq & 7]}{sq // 8 + 1}" for sq in range(64) if bits >> sq & 1]

    lifts = [f"lift {name}" for name in names(board_pieces(machine))]
    places = [f"place {name}" for name in names(pieces)]
    play(machine, "\n".join(["gap 200", *lifts, *places]) + "\n")


def board_pieces(machine: Machine) -> int:
    """The pieces the simulated board shows now."""
    state = json.loads(machine.run("cat", STATE, check=True).stdout)
    return int(state["pieces"], 16)


def play(machine: Machine, script_text: str, timeout: float = 600) -> dict:
    """Play a board script on the simulated matrix; what ``play.py`` reports."""
    machine.write("/run/boardsim/now.script", script_text)
    return machine.python("play.py", "/run/boardsim/now.script", "--state", STATE,
                          python=VENV_PYTHON, timeout=timeout)  # fmt: skip


# ------------------------------------------------------------------ the install


def machine_config(machine: Machine) -> str:
    """The installer's default config, with what this machine's board needs changed.

    Read from ``install.sh --prefix`` inside the machine, so that it is the installer's own.
    """
    machine.run("rm", "-rf", "/tmp/default-install")
    machine.run("bash", f"{CLONE}/systemd/install.sh", "--prefix", "/tmp/default-install",
                check=True, timeout=120)  # fmt: skip
    text = machine.run("cat", "/tmp/default-install/etc/magboard/config.toml", check=True).stdout
    changes = [
        # The simulator looks at the rows every 2 ms (guest/boardsim.py; a Pi's pull-ups
        # need microseconds): 5 ms between driving a row and reading its columns, and 20
        # scans a second, which is what the emulated machine can spare.
        ('[sensing]\nbackend = "gpiod"\n',
         '[sensing]\nbackend = "gpiod"\nsettle_us = 5000\nrate_hz = 20\n'),
        # No SPI controller in a PC: the LEDs' real library is checked apart (test_leds.py).
        ('backend = "neopixel_spi"', 'backend = "sim"'),
        # The buttons wired as the guide draws them, on the simulated chip.
        ('backend = "none"', 'backend = "gpiod"'),
    ]
    for old, new in changes:
        assert text.count(old) == 1, f"the installer's config no longer has {old!r}:\n{text}"
        text = text.replace(old, new)
    return "# The test machine's board (tests/system/steps.py): the installer's config, with\n" \
           "# a slower settle time, simulated LEDs and the buttons on.\n" + text


@dataclass
class Install:
    result: Result
    seconds: float


#: The one allowance the unit gets in the emulated machine: time to start. Under emulation
#: the daemon starts in 4-10 s on a quiet host but over 30 s (the unit's TimeoutStartSec)
#: on a busy one, and systemd would then kill every restart (test_service.py still holds
#: the first start to the unit's own budget).
EMULATION_DROP_IN = (
    "/etc/systemd/system/magboard.service.d/emulation.conf",
    "# tests/system: the emulated machine is slower than a Pi, more so on a busy host.\n"
    "[Service]\nTimeoutStartSec=300s\n",
)


def install(machine: Machine) -> Install:
    """The repository where a builder clones it, the machine's config, then install.sh."""
    machine.sh(f"rm -rf {CLONE} && cp -a /srv/payload/repo {CLONE}", check=True)
    machine.write("/etc/magboard/config.toml", machine_config(machine))
    machine.write(*EMULATION_DROP_IN)
    started = time.monotonic()
    result = machine.run("systemd/install.sh", cwd=CLONE, timeout=1500)
    return Install(result, time.monotonic() - started)


# ------------------------------------------------------------------ the service


def show(machine: Machine, *properties: str) -> dict[str, str]:
    out = machine.run("systemctl", "show", "magboard", *(f"--property={p}" for p in properties),
                      check=True).stdout  # fmt: skip
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def main_pid(machine: Machine) -> int:
    return int(show(machine, "MainPID")["MainPID"])


def wait_active(machine: Machine, timeout: float = 90) -> dict[str, str]:
    """The service active (READY sent) with a main process; its properties."""

    def active():
        props = show(machine, "ActiveState", "SubState", "MainPID", "NRestarts", "Result")
        return props if props["ActiveState"] == "active" and props["MainPID"] != "0" else None

    return wait_until(active, timeout, "magboard.service to be active (READY)")


def journal(machine: Machine, since_cursor: str | None = None) -> str:
    argv = ["journalctl", "-u", "magboard", "-b", "--no-pager", "-o", "cat"]
    if since_cursor:
        argv += ["--after-cursor", since_cursor]
    return machine.run(*argv, check=True, timeout=60).stdout


def journal_cursor(machine: Machine) -> str:
    out = machine.run("journalctl", "-u", "magboard", "-b", "-n", "1", "--show-cursor",
                      "--no-pager", "-q").stdout  # fmt: skip
    match = re.search(r"-- cursor: (\S+)", out)
    return match.group(1) if match else ""


def restart(machine: Machine) -> None:
    machine.run("systemctl", "restart", "magboard", check=True, timeout=120)
    wait_active(machine)


def stored_moves(machine: Machine, game: int | None = None) -> list[str]:
    """The SAN moves of a stored game (the newest by default), read from the store as a
    builder would: ``sudo magboard pgn``."""
    argv = ["magboard", "pgn", *([str(game)] if game else [])]
    result = machine.run(*argv, timeout=120)
    if not result.ok:
        raise MachineError(f"reading the store failed:\n{result.describe()}")
    return san_moves(result.stdout)


def san_moves(pgn: str) -> list[str]:
    movetext = "\n".join(line for line in pgn.splitlines() if not line.startswith("["))
    movetext = re.sub(r"\{[^}]*\}", " ", movetext)
    tokens = [t for t in movetext.split() if not re.fullmatch(r"\d+\.+|\*|1-0|0-1|1/2-1/2", t)]
    return [re.sub(r"^\d+\.+", "", t) for t in tokens if re.sub(r"^\d+\.+", "", t)]


def games(machine: Machine) -> str:
    return machine.run("magboard", "games", check=True, timeout=120).stdout


def page(machine: Machine, method: str, path: str, body: str | None = None,
         token: str | None = None) -> dict:  # fmt: skip
    args = [method, path, *([body] if body is not None else [])]
    if token:
        args += ["--token", token]
    return machine.python("page.py", *args, timeout=60)  # type: ignore[return-value]


#: rpi-lgpio's RPi.GPIO runs on a chip that is not a Pi's when told which board it is
#: (c03111: a Pi 4 B); it then opens gpiochip0, the machine's simulated chip.
RPI_LGPIO = {"RPI_LGPIO_REVISION": "c03111"}


def install_rpi_lgpio(machine: Machine) -> None:
    """``RPi.GPIO`` for the rpigpio backend, as hardware/README.md tells a Pi 5's builder:
    rpi-lgpio installed by hand into /opt/magboard (here from the wheels passed in)."""
    machine.run("/opt/magboard/bin/pip", "install", "--quiet", "rpi-lgpio", check=True,
                timeout=600)  # fmt: skip
