"""A script's ``fen`` header that the rules refuse is a script error naming the line,
however absurd the FEN (counters thousands of digits long came from an abuse report)."""

from __future__ import annotations

from pathlib import Path

import pytest

from board_driver.boardscript.script import ScriptError, parse_script
from board_driver.commands import main

HUGE = "7" * 5000


@pytest.mark.parametrize(
    ("counters", "field"),
    [(f"0 {HUGE}", "fullmove number"), (f"{HUGE} 1", "halfmove clock")],
)
def test_replay_exits_2_naming_the_line_and_the_field(capsys, tmp_path: Path, counters, field):
    script = tmp_path / "abuse.script"
    script.write_text(f"# counters no game can reach\nfen 4k3/8/8/8/8/8/8/4K3 w - - {counters}\n")
    code = main(["replay", str(script), "--json"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"magboard replay: {script}:2: bad FEN: FEN {field} '7777")
    assert "(5000 characters) cannot be" in err
    assert HUGE[:100] not in err and len(err) < 300 + len(str(script))  # not echoed back
    with pytest.raises(ScriptError, match=r"abuse:2: bad FEN"):
        parse_script(script.read_text(), "abuse")
