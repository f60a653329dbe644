"""Quick games piped into ``magboard run --sim --script -``, each mating move followed 40 ms
later by ``button new_game`` (issue 17, item 1: the attack run lost the last move of 304
of 505 such games, the button being judged before the place still being debounced).
Events are judged in the order they happened: every move is stored, every game ends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.board_driver.daemon_process import DaemonProcess, write_config

SCHOLAR = "lift e2;place e4;lift e7;place e5;lift f1;place c4;lift b8;place c6;lift d1;place h5;lift g8;place f6;lift f7;lift h5;place f7"  # noqa: E501
# After 4. Qxf7#: every piece home again, for the next game.
HOME = "lift f7;place d1;lift c4;place f1;lift e4;place e2;lift e5;place e7;lift c6;place b8;lift f6;place g8;place f7"  # noqa: E501
MATED = re.compile(r"game over: result=1-0, termination=checkmate")


def quick_games(directory: Path, games: int) -> DaemonProcess:
    # A debounce longer than the 40 ms to the button: the button always comes while the
    # mating move's place is being debounced, whatever the machine's load. The hands move at
    # 150 ms a step (quick, not the blitz of issue 15: that is the tracker's own tests').
    write_config(directory, "[web]\nenabled = false\n[sensing]\ndebounce_ms = 60\n")
    daemon = DaemonProcess(directory)
    daemon.wait_ready(timeout=30)
    t = 0
    for _ in range(games):
        lines = []
        for step in SCHOLAR.split(";"):
            t += 150
            lines.append(f"@{t} {step}")
        lines.append(f"@{t + 40} button new_game")  # 40 ms after the mating move's place
        for step in HOME.split(";"):
            t += 150
            lines.append(f"@{t} {step}")
        t += 400  # the pieces set up again, and left still for the new game to start
        daemon.send(*lines)
    return daemon


def check_every_move_stored(daemon: DaemonProcess, games: int) -> None:
    timeout = 30 + 8 * games  # 28 steps of 150 ms a game, and a loaded machine
    assert daemon.wait_for(lambda: len(MATED.findall(daemon.output())) == games, timeout), (
        daemon.output()[-3000:]
    )
    assert daemon.wait_for(lambda: f"new game {games + 1}" in daemon.output(), 15)
    moves = daemon.moves_logged()
    assert len(moves) == 7 * games, [m for m in moves if m[0] == 7]
    assert [san for _ply, san, _uci in moves[:7]] == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6",
                                                      "Qxf7#"]  # fmt: skip
    assert "Traceback" not in daemon.output()


def test_a_button_40_ms_after_the_mating_move_loses_no_move(tmp_path: Path) -> None:
    """3 quick games (the long run, 500 games, is marked slow)."""
    daemon = quick_games(tmp_path, 3)
    try:
        check_every_move_stored(daemon, 3)
    finally:
        daemon.terminate()


@pytest.mark.slow
def test_five_hundred_quick_games_piped_store_every_move(tmp_path: Path) -> None:
    """500 quick games, as the attack run played them."""
    daemon = quick_games(tmp_path, 500)
    try:
        check_every_move_stored(daemon, 500)
    finally:
        daemon.terminate()
