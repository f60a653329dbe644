"""Millennium's ChessLink as the board speaks it: every command, sent as apps send it (with
odd parity in bit 7, or plain 7-bit), read back the way an app reads it (``apps``)."""

from __future__ import annotations

import pytest

from board_driver.connectors.emulation.chesslink import (
    ChessLinkSession,
    square_corners,
    squares_lit,
)
from board_driver.connectors.emulation.view import START_OCCUPANCY, STARTING_FEN, BoardView
from board_driver.physical.squares import square
from tests.board_driver.connectors.emulation.apps import ChessLinkApp, chesslink_command

START_STATUS = "rnbqkbnr" + "p" * 8 + "." * 32 + "P" * 8 + "RNBQKBNR"


def session() -> tuple[ChessLinkSession, BoardView, list]:
    view = BoardView(pass_ms=100)
    view.resync(STARTING_FEN, occupancy=START_OCCUPANCY)
    lights: list = []
    return ChessLinkSession(view, lights.append), view, lights


def ask(s: ChessLinkSession, *bodies: str, parity: bool = True, now: int = 0) -> list[str]:
    data = b"".join(chesslink_command(b, parity=parity) for b in bodies)
    return ChessLinkApp().feed(s.receive(data, now))


@pytest.mark.parametrize("parity", [True, False])
def test_version_status_and_the_start_position_a8_first(parity):
    s, _, _ = session()
    version, status = ask(s, "V", "S", parity=parity)
    assert version[0] == "v" and len(version) == 5
    assert status == "s" + START_STATUS


def test_a_bad_block_check_is_neither_acted_on_nor_answered():
    s, _, lights = session()
    bad = bytearray(chesslink_command("X"))
    bad[-1] ^= 0x01
    assert s.receive(bytes(bad) + chesslink_command("V")) and ask(s, "V") == ["v3130"]
    led = "L20" + "FF" * 81
    broken = bytearray(chesslink_command(led))
    broken[10] = broken[10] ^ 0x02  # one code changed on the way: the check no longer fits
    assert ChessLinkApp().feed(s.receive(bytes(broken))) == [] and not lights


def test_registers_are_written_and_read_back():
    s, _, _ = session()
    assert ask(s, "W0207", "R02", "R01", "W0130", "R01") == [
        "w0207",
        "r0207",
        "r0114",  # the hardware's scan time, 20
        "w0130",
        "r0130",
    ]


def test_status_on_change_with_the_piece_named_from_the_game():
    s, view, _ = session()
    ask(s, "W0203")
    view.lift(square("e2"), 0)
    view.place(square("e4"), 250)
    app = ChessLinkApp()
    app.feed(s.board_changed(view.advance(100)))
    app.feed(s.board_changed(view.advance(350)))
    assert app.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
    assert len(app.messages) == 2


def test_reports_disabled_or_timed_by_the_registers():
    s, view, _ = session()
    ask(s, "W0201")  # never on its own
    view.lift(square("e2"), 0)
    assert s.board_changed(view.advance(100)) == b"" and s.next_due() is None
    ask(s, "W0302", "W0202", now=1000)  # every 2 x 4.096 ms
    assert s.next_due() == 1009
    times = []
    t = 1000
    while len(times) < 5:
        t = s.next_due()
        assert ChessLinkApp().feed(s.tick(t))[0][0] == "s"
        times.append(t)
    assert abs((times[-1] - times[0]) - 4 * 2 * 4.096) < 1  # 8.192 ms apart, no drift


def test_by_default_the_board_reports_on_every_scan_as_the_hardware_does():
    s, _, _ = session()
    s.start(0)
    reports = []
    while len(reports) < 25:
        due = s.next_due()
        reports.append((due, ChessLinkApp().feed(s.tick(due))))
    assert all(r == ["s" + START_STATUS] for _, r in reports)
    assert 24 * 40 <= reports[-1][0] - reports[0][0] <= 24 * 42  # 40.96 ms apart, no drift


def test_the_undocumented_i_request_in_both_forms_the_chesscom_app_is_said_to_use():
    s, _, _ = session()
    assert ask(s, "I") == ["i0055mm\n"]
    assert ask(s, "I00") == ["i0055mm\n"]


def test_reset_puts_the_apps_lights_out_and_sends_nothing():
    s, _, lights = session()
    ask(s, "L20" + "".join("FF" if i in square_corners(28) else "00" for i in range(81)))
    assert lights[-1] is not None
    assert s.receive(chesslink_command("T")) == b"" and lights[-1] is None


def test_block_checks_off_by_register_0():
    s, _, _ = session()
    ask(s, "W0001")
    with_parity = bytes(b | (0x80 if bin(b).count("1") % 2 == 0 else 0) for b in b"v3130")
    assert s.receive(b"V") == with_parity  # and no block check after it


def codes_for(*squares_: str, code: int = 0xFF) -> list[int]:
    codes = [0] * 81
    for name in squares_:
        for led in square_corners(square(name)):
            codes[led] |= code
    return codes


def test_leds_at_the_corners_of_a_move_light_its_two_squares_and_nothing_between():
    assert set(squares_lit(codes_for("e2", "e4"))) == {square("e2"), square("e4")}
    assert set(squares_lit(codes_for("e1", "g1"))) == {square("e1"), square("g1")}
    assert set(squares_lit(codes_for("b1", "c3"))) == {square("b1"), square("c3")}
    assert set(squares_lit(codes_for("d4", "d5"))) == {square("d4"), square("d5")}


def test_a_square_blinks_unless_its_corners_are_always_on():
    assert squares_lit(codes_for("a1", code=0x0F)) == {square("a1"): True}
    assert squares_lit(codes_for("h8")) == {square("h8"): False}


def test_a_lone_lit_corner_lights_the_squares_around_it():
    codes = [0] * 81
    shared = set(square_corners(square("d4"))) & set(square_corners(square("e5")))
    codes[shared.pop()] = 0xFF
    assert set(squares_lit(codes)) == {square(n) for n in ("d4", "e4", "d5", "e5")}


def test_led_order_a8_corner_first_as_the_chesslink_document_says():
    # LED 1 in the a8 corner, LED 9 in the a1 corner, 73 in h8's, 81 in h1's.
    assert 0 in square_corners(square("a8")) and 8 in square_corners(square("a1"))
    assert 72 in square_corners(square("h8")) and 80 in square_corners(square("h1"))


def test_the_led_command_lights_our_squares_in_the_apps_colour():
    s, _, lights = session()
    assert ask(s, "L20" + "".join(f"{c:02X}" for c in codes_for("g1", "f3", code=0xCC))) == ["l"]
    frame = lights[-1]
    lit = {sq: frame.colours[sq] for sq in range(64) if frame.colours[sq] != "."}
    assert lit == {square("g1"): "c", square("f3"): "c"}
    assert frame.blink == (1 << square("g1")) | (1 << square("f3"))
    assert ask(s, "X") == ["x"] and lights[-1] is None


@pytest.mark.parametrize("data", [bytes(range(256)) * 2, b"L" + b"F" * 300, b"W0" + b"\xff" * 9])
def test_any_bytes_give_well_formed_answers(data):
    s, _, _ = session()
    app = ChessLinkApp()  # asserts parity, known letters and block checks
    app.feed(s.receive(data))
    assert app.chars == ""
