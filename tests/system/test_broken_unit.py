"""A unit that cannot reach the board or the store must fail the service's check: the
check here is the one the other tests rely on, and a deliberately broken unit fails it.

Each breakage is a drop-in (``systemctl edit``'s way), removed after the test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.system import steps

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "magboard.service"
DROP_IN = "/etc/systemd/system/magboard.service.d/broken.conf"
KNIGHTS_OUT_AND_BACK = "gap 500\n" + "\n".join(
    f"lift {a}\nplace {b}" for a, b in (("g1", "f3"), ("g8", "f6"), ("f3", "g1"), ("f6", "g8"))
)


def service_problems(machine) -> list[str]:
    """Why the running service is not a working board: [] when it is.

    It must become active (READY), read the board (its "ready" line after the start), and
    store the moves of a new game played on the simulated matrix (knights out and back:
    the board ends as it started, so the check can be made again and again).
    """
    cursor = steps.journal_cursor(machine)
    machine.run("systemctl", "reset-failed", "magboard")
    restarted = machine.run("systemctl", "restart", "magboard", timeout=120)
    if not restarted.ok:
        return [f"the service did not start: {restarted.stderr.strip()}"]
    try:
        steps.wait_active(machine, timeout=60)
    except AssertionError as exc:
        return [str(exc)]
    try:
        steps.wait_until(lambda: re.search(r"^ready: game \d+ at ply \d+, board",
                                           steps.journal(machine, cursor), re.M),
                         60, "the daemon's ready line")  # fmt: skip
    except AssertionError as exc:
        return [str(exc)]
    try:
        cursor = steps.journal_cursor(machine)
        steps.play(machine, "gap 500\nbutton new_game\n", timeout=120)
        steps.wait_until(lambda: re.search(r"^new game \d+", steps.journal(machine, cursor),
                                           re.M), 30, "a new game")  # fmt: skip
        steps.play(machine, KNIGHTS_OUT_AND_BACK, timeout=180)
        steps.wait_until(lambda: steps.stored_moves(machine) == ["Nf3", "Nf6", "Ng1", "Ng8"],
                         30, "the four moves stored")  # fmt: skip
    except Exception as exc:  # whatever stopped the game: that is the finding
        return [f"a game could not be played and stored: {exc}"]
    return []


def _device_allow_without(device: str) -> str:
    kept = [line for line in UNIT.read_text().splitlines()
            if line.startswith("DeviceAllow=") and device not in line]  # fmt: skip
    return "[Service]\nDeviceAllow=\n" + "\n".join(kept) + "\n"


#: Each breakage, and what the journal must say of it (the builder's only clue).
BREAKAGES = {
    "no DeviceAllow for the GPIO chips": (
        _device_allow_without("char-gpiochip"),
        "cannot open /dev/gpiochip0: Operation not permitted (a systemd unit must allow the "
        "device: DeviceAllow=char-gpiochip rw)",
    ),
    "a read-only state directory": (
        "[Service]\nReadOnlyPaths=/var/lib/magboard\n",
        "[store] path: /var/lib/magboard/magboard.sqlite cannot be read and written",
    ),
}


@pytest.mark.parametrize("name", list(BREAKAGES))
def test_a_broken_unit_fails_the_check_that_the_installed_unit_passes(service, name):
    assert service_problems(service) == []  # the unit as installed
    drop_in, words = BREAKAGES[name]
    service.write(DROP_IN, drop_in)
    try:
        service.run("systemctl", "daemon-reload", check=True)
        cursor = steps.journal_cursor(service)
        problems = service_problems(service)
        said = steps.journal(service, cursor)
        assert problems, f"{name}: the check passed a broken unit\n{said[-3000:]}"
        assert words in said, said[-3000:]
        print(f"{name}: {problems}")
    finally:
        service.run("rm", "-f", DROP_IN)
        service.run("systemctl", "daemon-reload")
        service.run("systemctl", "reset-failed", "magboard")
        steps.set_board(service, steps.START)
    # Mended: the same check passes again (and the game is where the board is).
    assert service_problems(service) == []
