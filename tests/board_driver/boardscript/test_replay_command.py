"""``magboard replay``: the command as users and bug reports run it."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from board_driver.boardscript.replay import replay_script
from board_driver.boardscript.script import parse_script
from board_driver.commands import main
from tests.conftest import SCHOLARS_MATE, SCHOLARS_MATE_MOVES

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def scholar(tmp_path: Path) -> Path:
    path = tmp_path / "scholar.script"
    path.write_text(SCHOLARS_MATE)
    return path


def run(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_for_the_spec_example(capsys, scholar):
    code, out, err = run(capsys, str(scholar), "--json")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["moves"] == SCHOLARS_MATE_MOVES
    assert data["fen"] == "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
    assert (data["result"], data["termination"], data["in_sync"]) == ("1-0", "checkmate", True)
    types = [e["type"] for e in data["events"]]
    assert types.count("move") == 7
    assert types[-3:] == ["move", "check", "game_over"]  # mate: a check that ends the game
    last_move = [e for e in data["events"] if e["type"] == "move"][-1]
    assert last_move["san"] == "Qxf7#" and last_move["uci"] == "h5f7"
    assert all(isinstance(e["t"], int) for e in data["events"])
    times = [e["t"] for e in data["events"]]
    assert times == sorted(times)
    assert all("leds" not in e for e in data["events"])


def test_several_scripts_give_one_object_per_line_in_order(capsys, scholar, tmp_path):
    short = tmp_path / "short.script"
    short.write_text("lift d2\nplace d4\n")
    code, out, _ = run(capsys, str(short), str(scholar), str(short), "--json")
    assert code == 0
    objects = [json.loads(line) for line in out.splitlines()]
    assert [o["moves"] for o in objects] == [["d4"], SCHOLARS_MATE_MOVES, ["d4"]]
    assert objects[1]["result"] == "1-0"


def test_frames_add_the_steady_led_frame_to_every_event(capsys, scholar):
    code, out, _ = run(capsys, str(scholar), "--json", "--frames")
    assert code == 0
    events = json.loads(out)["events"]
    for event in events:
        rows = event["leds"]
        assert len(rows) == 8
        assert all(re.fullmatch(r"[.roygbcwROYGBCW]{8}", row) for row in rows)
    # Mate: the winner's king (White, e1) green, the loser's (Black, e8) red.
    final = events[-1]["leds"]
    assert final[7][4].lower() == "g" and final[0][4].lower() == "r"


def test_pgn_prints_the_game(capsys, scholar):
    code, out, _ = run(capsys, str(scholar), "--pgn")
    assert code == 0
    assert '[Result "1-0"]' in out
    assert "4. Qxf7# 1-0" in " ".join(out.split())


def test_frames_with_pgn_is_a_usage_error_not_silently_ignored(capsys, scholar):
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(scholar), "--pgn", "--frames"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert "argument --frames: not allowed with argument --pgn" in err
    assert out == ""


def test_the_default_output_is_an_account_for_people(capsys, scholar):
    code, out, _ = run(capsys, str(scholar))
    assert code == 0
    assert "Qxf7#" in out and "1-0 (checkmate)" in out and "in sync: yes" in out


def test_a_dash_reads_the_script_from_stdin(capsys, monkeypatch):
    code, out, _ = run(capsys, "-", "--json", stdin="lift g1\nplace f3\n", monkeypatch=monkeypatch)
    assert code == 0
    data = json.loads(out)
    assert data["moves"] == ["Nf3"] and data["script"] == "<stdin>"


def test_an_unreadable_script_exits_2_naming_the_line_and_prints_nothing(capsys, scholar, tmp_path):
    bad = tmp_path / "bad.script"
    bad.write_text("lift e2\nplace e4\nplace e4\n")
    code, out, err = run(capsys, str(scholar), str(bad), "--json")
    assert code == 2
    assert out == ""
    assert f"{bad}:3: place e4: a piece already stands on e4" in err


def test_an_empty_script_is_a_game_not_yet_begun(capsys, tmp_path):
    empty = tmp_path / "empty.script"
    empty.write_text("# nothing happened\n")
    code, out, _ = run(capsys, str(empty), "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["moves"], data["result"], data["termination"]) == ([], "*", None)
    assert data["in_sync"] is True and data["events"] == []


def test_a_missing_file_exits_2(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nowhere.script"))
    assert code == 2 and out == ""
    assert "nowhere.script: cannot read the script" in err


def test_the_same_game_as_raw_scans_gives_the_same_result(capsys, tmp_path):
    scans = tmp_path / "e4.script"
    scans.write_text(
        "@0 scan ffff00000000ffff\n"
        "@200 scan ffff00000000efff\n"
        "@500 scan ffff00001000efff\n"
        "@501 scan ffff00000000efff\n"
        "@503 scan ffff00001000efff\n"
    )
    code, out, _ = run(capsys, str(scans), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["moves"] == ["e4"]
    move = next(e for e in data["events"] if e["type"] == "move")
    assert move["t"] >= 533  # judged only after the bounce settled and the board stood still


def _doc_scripts() -> list[str]:
    """The fenced blocks of docs/board-script.md that are board scripts."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in (ROOT / "docs" / "board-script.md").read_text().splitlines():
        if line.startswith("```"):
            if current is None:
                current = [] if line == "```" else ["<not a script>"]
            else:
                blocks.append("\n".join(current) + "\n")
                current = None
        elif current is not None:
            current.append(line)
    keyword = re.compile(r"^(@\d+ +)?(lift|scan|fen|gap|option)\b", flags=re.M)
    return [b for b in blocks if "<not a script>" not in b and keyword.search(b)]


def test_every_example_in_the_users_documentation_reads_and_replays_as_it_says():
    blocks = _doc_scripts()
    assert len(blocks) >= 5
    results = [replay_script(parse_script(b, f"doc example {i}")) for i, b in enumerate(blocks)]
    opening, scholar, knight, castling, chess960, scans = results
    assert opening.moves == ["e4", "e5"]
    assert scholar.moves[-1] == "Qxf7#" and scholar.termination == "checkmate"
    assert knight.moves == ["e8=N"]
    assert castling.moves == ["O-O"]
    assert (castling.result, castling.termination) == ("1-0", "resignation")
    assert chess960.moves == ["O-O"] and chess960.game.start.variant == "chess960"
    assert chess960.fen == "r4kr1/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R4RK1 b kq - 1 1"
    assert scans.moves == ["e4"]
    assert all(r.in_sync for r in results)
