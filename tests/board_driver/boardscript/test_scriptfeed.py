"""Scripts played on the board as it stands: checked against its pieces, errors at their line."""

from __future__ import annotations

import doctest

import pytest

import board_driver.boardscript.feed
from board_driver.boardscript.feed import parse_on_board
from board_driver.boardscript.script import START_OCCUPANCY, ScriptError
from board_driver.physical.events import Lift, Place
from board_driver.physical.squares import square

AFTER_E4 = 0xFFFF00001000EFFF


def test_lifts_and_places_are_checked_against_the_pieces_standing():
    script, skip = parse_on_board("# go on\ngap 50\nlift e4\nplace e5\n", "s", AFTER_E4)
    assert script.items[skip:] == [Lift(50, square("e4")), Place(100, square("e5"))]
    with pytest.raises(ScriptError) as caught:
        parse_on_board("# go on\ngap 50\n\nlift e2\n", "s", AFTER_E4)
    assert str(caught.value) == "s:4: lift e2: no piece stands on e2"


def test_an_error_in_the_header_keeps_its_line():
    with pytest.raises(ScriptError) as caught:
        parse_on_board("gap fast\nlift e4\n", "s", AFTER_E4)
    assert caught.value.line == 1


def test_a_script_with_a_fen_is_its_own_game_and_ignores_the_pieces_standing():
    text = "fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 1\nlift a7\nplace a8\n"
    script, skip = parse_on_board(text, "s", START_OCCUPANCY)
    assert skip == 0 and len(script.items) == 2


def test_the_module_examples_hold():
    assert doctest.testmod(board_driver.boardscript.feed).failed == 0


def test_a_scan_script_goes_on_with_the_game_on_the_pieces_standing():
    text = "@0 scan ffff00001000efff\n@200 scan ffef00001000efff\n@500 scan ffef00101000efff\n"
    script, skip = parse_on_board(text, "s", AFTER_E4)
    assert skip == 0 and len(script.items) == 3


def test_run_plays_a_scan_script_into_an_ongoing_game(tmp_path):
    from tests.board_driver.daemon_process import DaemonProcess, write_config

    write_config(tmp_path)
    first = DaemonProcess(tmp_path)
    try:
        first.wait_ready(timeout=30)
        first.send("gap 150", "lift e2", "place e4")
        assert first.wait_for(lambda: len(first.moves_logged()) == 1, 10), first.output()
    finally:
        first.terminate()
    # Black's reply, recorded as raw scans of the whole board: e7 opens, e5 closes.
    script = tmp_path / "reply.txt"
    script.write_text(
        "@0 scan ffff00001000efff\n@200 scan ffef00001000efff\n@500 scan ffef00101000efff\n"
    )
    second = DaemonProcess(tmp_path, script=str(script))
    try:
        assert second.wait_for(lambda: second.moves_logged() != [], 15), second.output()
        assert second.moves_logged()[0] == (2, "e5", "e7e5")
    finally:
        if second.proc.poll() is None:
            second.terminate()


def test_typed_lines_are_checked_against_the_pieces_as_other_hands_left_them(caplog):
    """Issue 34, item 2: one simulated board, one truth. Lines typed at the terminal are
    checked against its pieces as they stand when each line comes, whoever moved them
    meanwhile (the page, the API): never against the pieces the lines alone have moved."""
    import asyncio

    from board_driver.boardscript.feed import ScriptFeeder
    from board_driver.physical.sensing.sim import SimulatedBoard

    board = SimulatedBoard()
    played: list[str] = []

    class Door:  # only what a lift/place script uses
        def press(self, name: str) -> None:
            played.append(name)

    def page(*steps: str) -> None:  # another hand on the same board
        for step in steps:
            kind, name = step.split()
            (board.lift if kind == "lift" else board.place)(square(name))

    async def typed():
        yield "gap 1"
        yield "lift e2"  # the terminal first...
        yield "place e4"
        page("lift e7", "place e5")  # ...then the page
        yield "lift g1"
        page("place f3")  # a move begun at the terminal, ended on the page
        page("lift d7")  # and the other way round: begun on the page...
        yield "place d6"  # ...ended at the terminal
        yield "lift e5"  # the page's pawn, known to the terminal's lines
        yield "place e5"
        yield "lift d6"  # the terminal's own piece, then a place the page emptied
        yield "place d7"

    async def play() -> None:
        await ScriptFeeder(Door(), board, debounce_ms=1).play(typed(), "<typed>")

    with caplog.at_level("ERROR", logger="magboard"):
        asyncio.run(play())
    assert caplog.records == [], [r.getMessage() for r in caplog.records]
    expected = 0xFFFF00000000FFFF
    for sq in ("e2", "e7", "g1"):
        expected &= ~(1 << square(sq))
    for sq in ("e4", "e5", "f3"):
        expected |= 1 << square(sq)
    assert board.pieces == expected

    # A line the board itself refuses is still refused, naming its line.
    async def wrong():
        yield "lift e2"  # emptied long ago (by the lines above, and so the board)

    with caplog.at_level("ERROR", logger="magboard"):
        asyncio.run(ScriptFeeder(Door(), board, 1).play(wrong(), "<typed>"))
    assert [r.getMessage() for r in caplog.records] == [
        "script <typed>:1: lift e2: no piece stands on e2"
    ]
