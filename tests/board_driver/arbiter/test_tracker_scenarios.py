"""Every scenario script under ``tests/scripts/`` replays to what it says it must.

A scenario is an ordinary board script; its expected result is written in it, in comment
lines starting ``#=`` (so ``magboard replay`` reads the file as it is):

    #= case 4                      the issue's numbered case it proves (15, 22: issues 15, 22)
    #= moves e4 e5                 the committed moves in SAN (none: ``#= moves``)
    #= fen <FEN>                   the position after the last move
    #= result 1-0                  and ``#= termination checkmate`` (``null`` while playing)
    #= in_sync true
    #= events move illegal restored move       every announced event's type, in order
    #= event 1 empty=["e5"] fill=["e2"]         details of one event (index; -1 = last),
                                               values as JSON (bare words are strings;
                                               quote a value with spaces: fen="...")
    #= frame 1 ......../.../........           the steady frame after event 1, rank 8 first
    #= final_frame ......../...                the frame once the script has ended
    #= clks 180000 178000                      with a clock: each ply's %clk, in ms
    #= clock state=running white_ms=177350     with a clock: the clock when the script ended
    #= pgn_has [%clk 0:02:58]                  text the game's PGN holds (one per line)

Scripts run through the daemon's public path, :func:`board_driver.boardscript.replay.replay_script`
(what ``magboard replay --json --frames`` prints), and for ``final_frame`` through
:func:`board_driver.boardscript.replay.drive` into a tracker whose frame is then read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from board_driver.boardscript.replay import drive, replay_script, tracker_for
from board_driver.boardscript.script import parse_script

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
#: The first issue's numbered cases, issue 15 (fast and messy hands), issue 22 (hands at
#: any pace), issue 27 (the clock), issue 32 (item 7: a very fast game read late) and
#: issue 35 (Chess960 castling; item 2: a position set up kind by kind, a wrong kind said).
CASES = (*range(1, 12), 15, 22, 27, 32, 35)
REQUIRED = ("case", "moves", "fen", "result", "termination", "in_sync", "events")


@dataclass
class Expectation:
    values: dict[str, str] = field(default_factory=dict)
    details: list[tuple[int, dict[str, object]]] = field(default_factory=list)
    frames: list[tuple[int, list[str]]] = field(default_factory=list)
    clock: dict[str, object] = field(default_factory=dict)
    pgn_has: list[str] = field(default_factory=list)


def _value(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def read_expectation(path: Path) -> Expectation:
    expect = Expectation()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.startswith("#="):
            continue
        key, _, rest = line[2:].strip().partition(" ")
        rest = rest.strip()
        where = f"{path.name}:{number}"
        if key == "event":
            index, _, pairs = rest.partition(" ")
            details = {}
            for name, value in re.findall(r'(\w+)=("[^"]*"|\S+)', pairs):
                details[name] = _value(value)
            assert details or not pairs.strip(), f"{where}: event details are name=value"
            expect.details.append((int(index), details))
        elif key == "clock":
            for name, value in re.findall(r'(\w+)=("[^"]*"|\S+)', rest):
                expect.clock[name] = _value(value)
        elif key == "pgn_has":
            expect.pgn_has.append(rest)
        elif key == "frame":
            index, rows = rest.split()
            expect.frames.append((int(index), rows.split("/")))
        elif key in (*REQUIRED, "final_frame", "clks"):
            assert key not in expect.values, f"{where}: {key} given twice"
            expect.values[key] = rest
        else:
            raise AssertionError(f"{where}: unknown expectation {key!r}")
    return expect


def scenario_paths() -> list[Path]:
    return sorted(SCRIPTS.glob("*.script"))


@pytest.mark.parametrize("path", scenario_paths(), ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    expect = read_expectation(path)
    missing = [key for key in REQUIRED if key not in expect.values]
    assert not missing, f"{path.name} does not say what it expects for {missing}"
    script = parse_script(path.read_text(), path.name)
    result = replay_script(script, frames=True)
    data = result.to_json()
    json.dumps(data)  # what --json prints

    values = expect.values
    assert data["moves"] == values["moves"].split()
    assert data["fen"] == values["fen"]
    assert data["result"] == values["result"]
    assert data["termination"] == _value(values["termination"])
    assert data["in_sync"] == _value(values["in_sync"])
    events = data["events"]
    assert [e["type"] for e in events] == values["events"].split(), events
    for index, details in expect.details:
        event = events[index]
        for name, value in details.items():
            assert event.get(name) == value, f"event {index} ({event['type']}): {name}"
    for index, rows in expect.frames:
        assert events[index]["leds"] == rows, (
            f"frame after event {index} ({events[index]['type']}):\n"
            + "\n".join(events[index]["leds"])
        )
    if "clks" in values or expect.clock:
        assert "clock" in data, "the script has no clock"
        if "clks" in values:
            assert data["clock"]["clks"] == [_value(v) for v in values["clks"].split()]
        for name, value in expect.clock.items():
            assert data["clock"][name] == value, f"clock {name}"
    pgn = result.pgn()
    for text in expect.pgn_has:
        assert text in pgn, pgn
    if "final_frame" in values:
        tracker = tracker_for(script)
        drive(tracker, script)
        assert tracker.frame().rows() == values["final_frame"].split("/"), "\n" + str(
            tracker.frame()
        )


def test_every_case_of_the_issue_has_several_scenarios() -> None:
    per_case = {case: 0 for case in CASES}
    for path in scenario_paths():
        case = read_expectation(path).values.get("case")
        assert case is not None and int(case) in per_case, f"{path.name}: case {case!r}"
        per_case[int(case)] += 1
    thin = {case: n for case, n in per_case.items() if n < 2}
    assert not thin, f"cases with fewer than two scenarios: {thin}"
