"""How a script's items reach a tracker: times, debouncing of raw scans, ticks, frames."""

from __future__ import annotations

import pytest

from board_driver.boardscript.replay import drive
from board_driver.boardscript.script import Scan, Script, parse_script
from board_driver.physical.events import Button, Choose, Lift, Place
from board_driver.physical.frame import Frame
from board_driver.physical.squares import square

START = 0xFFFF00000000FFFF


class RecordingTracker:
    """Stands in for the tracker: records what it is handed and announces each event."""

    def __init__(self, board: int = START) -> None:
        self.board = board
        self.calls: list[tuple[str, object]] = []

    def handle(self, event):
        self.calls.append(("handle", event))
        return [{"t": event.t_ms, "type": "seen", "what": type(event).__name__}]

    def tick(self, t_ms):
        self.calls.append(("tick", t_ms))
        return []

    def finish(self, t_ms):
        self.calls.append(("finish", t_ms))
        return [{"t": t_ms, "type": "finished"}]

    def frame(self):
        return Frame.off().with_square(len(self.calls) % 64, "w")

    def handled(self):
        return [arg for name, arg in self.calls if name == "handle"]


def test_lift_place_events_reach_the_tracker_as_written_with_time_passing_first():
    tracker = RecordingTracker()
    events = drive(tracker, parse_script("lift e2\n@450 place e4\nwait 1000\nchoose q\n"))
    assert tracker.handled() == [
        Lift(300, square("e2")),
        Place(450, square("e4")),
        Choose(1750, "q"),
    ]
    assert tracker.calls[0] == ("tick", 300)
    assert ("tick", 1450) in tracker.calls  # the end of the wait
    assert tracker.calls[-1] == ("finish", 1750)
    assert [e["type"] for e in events] == ["seen", "seen", "seen", "finished"]


def test_raw_scans_are_debounced_with_bounce_and_flicker_removed():
    tracker = RecordingTracker()
    script = parse_script(
        "@1000 scan ffff00000000efff\n"  # e2 opens
        "@1002 scan ffff00000000ffff\n"  # bounce
        "@1003 scan ffff00000000efff\n"
        "@1300 scan ffff00001000efff\n"  # e4 closes
        "@1301 scan ffff00000000efff\n"  # bounce
        "@1303 scan ffff00001000efff\n"
        "@2000 scan ffff00001000efff\n"
        "@2100 scan ffff00001001efff\n"  # a3 flickers for one scan
        "@2105 scan ffff00001000efff\n"
        "@2200 button claim_draw\n"
    )
    drive(tracker, script)
    # Each change at its last edge (when the hand let go), as the daemon's intake hands it.
    assert tracker.handled() == [
        Lift(1003, square("e2")),
        Place(1303, square("e4")),
        Button(2200, "claim_draw"),
    ]
    assert tracker.calls[-1] == ("finish", 2200)


def test_a_change_in_the_last_scan_still_matures_after_the_script_ends():
    tracker = RecordingTracker()
    drive(tracker, parse_script("@500 scan ffff00000000efff\n"))
    assert tracker.handled() == [Lift(500, square("e2"))]
    assert tracker.calls[-1] == ("finish", 530)


def test_the_debouncer_starts_from_the_pieces_the_tracker_has_standing():
    tracker = RecordingTracker(board=1 << square("e1"))
    drive(tracker, parse_script("fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1\n@100 scan 0000000000000010\n"))
    assert tracker.handled() == []


def test_frames_attach_the_steady_frame_after_each_announcement():
    tracker = RecordingTracker()
    events = drive(tracker, parse_script("lift e2\nplace e4\n"), frames=True)
    assert all(len(e["leds"]) == 8 and all(len(r) == 8 for r in e["leds"]) for e in events)
    assert "w" in "".join(events[0]["leds"])


def test_ticks_never_go_backwards():
    tracker = RecordingTracker()
    script = parse_script(
        "@100 scan ffff00000000efff\n@110 choose n\n@120 scan ffff00001000efff\n@120 button hint\n"
    )
    drive(tracker, script)
    times = [arg if name in ("tick", "finish") else arg.t_ms for name, arg in tracker.calls]
    assert times == sorted(times)
    # The choice and the button came while e2 and then e4 were maturing: they happened
    # after those changes, and are judged once both are known (as in the daemon).
    assert tracker.handled() == [
        Lift(100, square("e2")),
        Place(120, square("e4")),
        Choose(150, "n"),
        Button(150, "hint"),
    ]


def test_a_script_built_in_code_may_not_mix_scans_and_lifts_either():
    script = Script(items=[Scan(100, START & ~(1 << square("e2"))), Place(400, square("e4"))])
    with pytest.raises(ValueError, match="not both"):
        drive(RecordingTracker(), script)
