"""``magboard run --record FILE`` (issue 16, item 5): what hands did, as a board script that
``magboard replay`` plays back to the same game."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import board_driver.boardscript.record
from board_driver.boardscript.record import Recording
from board_driver.boardscript.script import parse_script
from board_driver.physical.frame import Frame
from tests.board_driver.daemon_process import DaemonProcess, run_magboard, write_config

# A game with every way a move can be made by hand: captures in both orders, en passant
# with the victim lifted last, a promotion chosen beforehand, castling king first and rook
# first, j'adoube, and a draw agreed with the buttons.
GAME = """
gap 300
lift e2
place e4
lift d7
place d5
lift d5
lift e4
place d5
lift c7
place c5
lift d5
place c6
lift c5
lift g8
place f6
lift c6
lift b7
place b7
lift c8
place d7
choose n
lift a8
lift b7
place a8
lift e7
place e6
button adjust
lift a8
place a8
lift g1
place f3
lift f8
place e7
lift f1
place c4
lift e8
place g8
lift h8
place f8
lift h1
place f1
lift e1
place g1
button draw_offer
button draw_accept
"""


def replay(path: Path) -> dict:
    result = run_magboard("replay", str(path), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_game_played_into_the_simulator_and_recorded_replays_to_the_same_game(tmp_path):
    config = write_config(tmp_path)
    recording = tmp_path / "bug.script"
    daemon = DaemonProcess(tmp_path, "--record", str(recording))
    daemon.wait_ready()
    daemon.send(*GAME.strip().splitlines())
    assert daemon.wait_for(lambda: "termination=agreement" in daemon.output(), timeout=40), (
        daemon.output()
    )
    daemon.terminate()
    assert daemon.proc.returncode == 0
    by_ply = {ply: san for ply, san, _ in daemon.moves_logged()}  # a rook move became O-O
    played = [by_ply[ply] for ply in sorted(by_ply)]
    original = tmp_path / "original.script"
    original.write_text(GAME)
    expected = replay(original)
    assert played == expected["moves"] and len(played) == 15  # the game the daemon stored

    text = recording.read_text()
    script = parse_script(text, str(recording))  # a board script as the format says
    assert script.options == {"touch_move": "warn", "takeback": True, "hints": False}
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[0].startswith("fen rnbqkbnr/pppppppp/")
    events = [line for line in lines if line.startswith("@")]
    assert len(events) == len([line for line in GAME.splitlines() if line[:1].isalpha()]) - 1
    assert any(line.endswith("choose n") for line in events)
    assert any(line.endswith("button draw_accept") for line in events)

    again = replay(recording)
    assert again["moves"] == played
    assert again["fen"] == expected["fen"]
    assert (again["result"], again["termination"]) == ("1/2-1/2", "agreement")
    stored = run_magboard("pgn", "--config", str(config)).stdout
    assert "bxa8=N" in stored and "1/2-1/2" in stored


def test_a_recording_that_cannot_be_written_stops_run_before_it_starts(tmp_path):
    config = write_config(tmp_path)
    result = run_magboard("run", "--sim", "--config", str(config), "--record", str(tmp_path))
    assert result.returncode == 2
    assert f"--record {tmp_path}: is a directory, not a file" in result.stderr


class FakeSnapshot:
    def __init__(self, fen: str, game_id: int = 1, moves: tuple[str, ...] = ()) -> None:
        self.fen = fen
        self.game_id = game_id
        self.moves = moves
        self.options = {"touch_move": "enforce", "takeback": False, "hints": True}
        self.in_sync = True
        self.empty = self.fill = ()
        self.lights = Frame.off()


class FakeDoor:
    def __init__(self, snapshot: FakeSnapshot) -> None:
        self.snap = snapshot
        self.now = 0

    def snapshot(self) -> FakeSnapshot:
        return self.snap

    def now_ms(self) -> int:
        return self.now


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KINGS = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


def test_each_line_is_on_disk_as_it_happens_and_a_game_from_elsewhere_goes_on_in_a_new_file(
    tmp_path,
):
    door = FakeDoor(FakeSnapshot(START, moves=("e4", "e5")))
    path = tmp_path / "r.script"
    recording = Recording(path)
    recording.begin(door.snapshot(), 1000, "")
    recording.follow({"t": 1300, "type": "lift", "square": "g1"}, door)
    # Written already, before anything is closed: a crash loses nothing recorded.
    assert path.read_text().splitlines()[-1] == "@300 lift g1"
    assert "# game 1, from ply 2 (e4 e5 before)" in path.read_text()
    assert "option touch_move enforce" in path.read_text()
    recording.follow({"t": 1200, "type": "place", "square": "f3"}, door)  # never backwards
    recording.follow({"t": 1500, "type": "move", "san": "Nf3"}, door)
    door.snap, door.now = FakeSnapshot(KINGS, game_id=2), 2000
    recording.follow({"t": 2000, "type": "new_game", "fen": KINGS}, door)
    recording.follow({"t": 2300, "type": "lift", "square": "e1"}, door)
    recording.close()
    first, second = path, tmp_path / "r-2.script"
    assert recording.files == [first, second]
    assert first.read_text().splitlines()[-2:] == [
        "@300 place f3",
        "# the recording goes on in r-2.script: a new game from elsewhere, which a board "
        "script cannot start mid-way",
    ]
    assert parse_script(first.read_text()).items[-1].t_ms == 300
    again = parse_script(second.read_text())
    assert again.fen == KINGS and again.items[0].t_ms == 300


def test_a_new_game_before_any_move_starts_the_script_over(tmp_path):
    door = FakeDoor(FakeSnapshot(START))
    path = tmp_path / "r.script"
    recording = Recording(path)
    recording.begin(door.snapshot(), 0, "")
    recording.follow({"t": 100, "type": "lift", "square": "e2"}, door)  # setting up pieces
    door.snap = FakeSnapshot(KINGS, game_id=2)
    recording.follow({"t": 200, "type": "new_game", "fen": KINGS}, door)
    recording.close()
    assert recording.files == [path]
    assert parse_script(path.read_text()).fen == KINGS
    assert "lift e2" not in path.read_text()


def test_the_new_game_a_button_starts_is_the_scripts_own():
    door = FakeDoor(FakeSnapshot(START))
    recording = Recording(Path("/dev/null"))
    recording._out = open("/dev/null", "w")  # noqa: SIM115
    recording.files.append(Path("/dev/null"))
    recording.follow({"t": 100, "type": "move", "san": "e4"}, door)
    recording.follow({"t": 200, "type": "button", "name": "new_game"}, door)
    recording.follow({"t": 300, "type": "new_game", "fen": START}, door)
    recording.close()
    assert len(recording.files) == 1


def test_the_module_examples_hold():
    assert doctest.testmod(board_driver.boardscript.record).failed == 0
