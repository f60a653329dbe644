"""DGT's protocol as the board speaks it: every command an app sends, read back the way an
app reads it (``apps.DgtApp``, written from DGT's ``dgtbrd13.h``)."""

from __future__ import annotations

import pytest

from board_driver.connectors.emulation import dgt
from board_driver.connectors.emulation.dgt import DgtSession
from board_driver.connectors.emulation.view import STARTING_FEN, BoardView
from board_driver.physical.squares import square
from tests.board_driver.connectors.emulation.apps import DgtApp

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def session(fen: str = STARTING_FEN) -> tuple[DgtSession, BoardView, list]:
    view = BoardView(pass_ms=100)
    view.resync(fen, occupancy=_occupancy(fen))
    lights: list = []
    return DgtSession(view, lights.append), view, lights


def _occupancy(fen: str) -> int:
    from board_driver.connectors.emulation.view import placement

    return sum(1 << sq for sq in placement(fen))


def ask(s: DgtSession, *commands: int) -> list[tuple[int, bytes]]:
    app = DgtApp()
    return app.feed(s.receive(bytes(commands)))


def test_the_board_dump_is_the_position_a8_first_with_dgt_piece_codes():
    s, _, _ = session(AFTER_E4)
    app = DgtApp()
    assert app.feed(s.receive(bytes([dgt.SEND_BRD]))) and app.fen() == AFTER_E4.split()[0]
    ((kind, body),) = app.messages
    assert kind == 0x86 and len(body) == 64
    assert body[0] == 0x08 and body[4] == 0x0B and body[60] == 0x05  # a8 rook, e8 king, e1 K


def test_version_serial_number_bus_address_trademark_long_serial_battery():
    s, _, _ = session()
    answers = dict(ask(s, 0x4D, 0x45, 0x46, 0x47, 0x55, 0x4C))
    assert answers[0x93] == bytes([1, 7])
    assert len(answers[0x91]) == 5 and answers[0x91].decode().isdigit()
    assert len(answers[0x90]) == 2
    trademark = answers[0x92].decode()
    assert "DGT protocol emulation" in trademark and "Not a DGT product" in trademark
    assert len(answers[0xA2]) == 10 and answers[0xA2].decode().isdigit()
    battery = answers[0xA0]
    assert len(battery) == 9 and battery[0] == 100 and battery[1] == 0x7F  # full, N/A


def test_the_clock_is_answered_as_no_clock_and_clock_commands_get_no_answer():
    s, _, _ = session()
    ((kind, body),) = ask(s, dgt.SEND_CLK)
    assert kind == 0x8D and len(body) == 7 and body[6] & 0x20  # "no clock connected"
    assert not any(body[:6])
    # PicoChess asks the clock for its version through the board: nothing comes back,
    # as from a board with no clock plugged in, and the next command is read properly.
    assert s.receive(bytes([0x2B, 0x03, 0x03, 0x09, 0x00, dgt.SEND_VERSION])) == dgt.message(
        dgt.MSG_VERSION, dgt.VERSION
    )


def test_field_updates_only_in_an_update_mode_and_reset_stops_them():
    s, view, _ = session()
    view.lift(square("e2"), 0)
    changes = view.advance(100)
    assert s.board_changed(changes) == b""  # idle until told otherwise
    for mode in (dgt.SEND_UPDATE, dgt.SEND_UPDATE_BRD, dgt.SEND_UPDATE_NICE):
        assert s.receive(bytes([mode])) == b""
        app = DgtApp()
        ((kind, body),) = app.feed(s.board_changed(changes))
        assert kind == 0x8E and body == bytes([52, 0])  # e2 is DGT field 52, now empty
    s.receive(bytes([dgt.SEND_RESET]))
    assert s.board_changed(changes) == b""


def test_a_placed_piece_is_sent_as_the_piece_that_was_lifted():
    s, view, _ = session()
    s.receive(bytes([dgt.SEND_UPDATE_NICE]))
    app = DgtApp()
    app.feed(s.receive(bytes([dgt.SEND_BRD])))
    view.lift(square("g1"), 0)
    view.place(square("f3"), 400)
    app.feed(s.board_changed(view.advance(100)) + s.board_changed(view.advance(500)))
    assert app.fen() == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"


def test_commands_split_across_reads_and_noise_between_them():
    s, _, lights = session()
    out = s.receive(bytes([0x60, 0x04]), now_ms=0)
    assert out == b"" and not lights
    s.receive(bytes([0x01, 52, 36, 0x00, 0xFF, 0x13]), now_ms=10)  # then noise: ignored
    assert lights[-1] is not None
    assert s.receive(bytes([dgt.SEND_VERSION])) == dgt.message(dgt.MSG_VERSION, dgt.VERSION)


def test_a_command_whose_data_never_come_is_dropped_after_a_second():
    s, _, lights = session()
    s.receive(bytes([0x60, 0x04, 0x01]), now_ms=0)  # the rest never comes
    late = s.receive(bytes([dgt.SEND_VERSION]), now_ms=5000)
    assert late == dgt.message(dgt.MSG_VERSION, dgt.VERSION) and not lights


def test_the_led_command_lights_the_two_squares_and_off_puts_them_out():
    s, _, lights = session()
    s.receive(bytes([0x60, 0x04, 0x01, dgt.field(square("e2")), dgt.field(square("e4")), 0]))
    frame = lights[-1]
    lit = {sq for sq, c in enumerate(frame.colours) if c != "."}
    assert lit == {square("e2"), square("e4")} and frame.colours[square("e4")] == "c"
    assert not frame.blink
    s.receive(bytes([0x60, 0x04, 0x00, 0x40, 0x40, 0]))  # PicoChess's "all off"
    assert lights[-1] is None


@pytest.mark.parametrize("data", [bytes(range(256)), bytes([0x60, 0x7F]) + bytes(200)])
def test_any_bytes_give_well_formed_messages(data):
    s, _, _ = session()
    app = DgtApp()  # asserts every header and data byte as an app reads them
    app.feed(s.receive(data))
    assert app.buffer == b""


def test_messages_never_put_bit_7_in_data():
    with pytest.raises(ValueError, match="bit 7"):
        dgt.message(dgt.MSG_TRADEMARK, "é".encode())
