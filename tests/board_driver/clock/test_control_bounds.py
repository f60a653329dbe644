"""Numbers too large for a float, in a time control (issue 32, item 4): bounded before any
arithmetic, wherever a control comes from.

A number of 309 digits or more in ``[clock] control`` or a script's ``option clock`` made
``config check``, ``run`` and ``replay`` end in an OverflowError and a traceback (a float of
it is infinite). Now each says which value and why, as for any other bad value (exit 2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from board_driver.clock.control import from_pgn, parse_time_control
from tests.board_driver.daemon_process import run_magboard, write_config

HUGE = [
    "9" * 400 + "+0",
    "1" * 309 + "s+0",
    "40/" + "9" * 30 + "+30",
    "5+" + "9" * 50,
    "0." + "5" * 400 + "+0",
    "9" * 5000,
    "40/5400+30:" + "9" * 320 + "+30 delay",
]


@pytest.mark.parametrize("text", HUGE, ids=range(len(HUGE)))
def test_a_number_past_any_clock_is_a_value_error_that_says_so(text: str) -> None:
    with pytest.raises(ValueError, match="no time a clock can hold"):
        parse_time_control(text)


def test_a_pgn_time_control_past_any_clock_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="a number far past any clock"):
        from_pgn("9" * 400 + "+2")
    assert from_pgn("40/5400+30:1800+30").initial_ms == 5_400_000


@pytest.mark.parametrize("text", [HUGE[0], HUGE[6]], ids=["400 digits", "a stage of 320"])
def test_config_check_run_and_replay_name_the_value_and_exit_2(tmp_path: Path, text: str) -> None:
    config = write_config(tmp_path, f'[clock]\ncontrol = "{text}"\n')
    checked = run_magboard("config", "check", "--config", str(config))
    ran = run_magboard("run", "--sim", "--config", str(config))
    script = tmp_path / "game.script"
    script.write_text(f"option clock {text}\nlift e2\nplace e4\n")
    replayed = run_magboard("replay", str(script))
    for result in (checked, ran, replayed):
        said = result.stdout + result.stderr
        assert result.returncode == 2, said
        assert "no time a clock can hold" in said and "Traceback" not in said, said
    assert "[clock] control" in checked.stdout + checked.stderr
    assert f"{script}:1: option clock" in replayed.stderr
