"""Chessnut's eBoard protocol as the board speaks it, read back the way Chessnut's API
document reads it (``apps.ChessnutApp``): the openings of the public drivers, positions named
from the game, LEDs, battery and versions."""

from __future__ import annotations

import asyncio

from board_driver.connectors.emulation.chessnut import ChessnutSession
from board_driver.connectors.emulation.view import START_OCCUPANCY, STARTING_FEN, BoardView
from board_driver.physical.squares import square, square_name
from tests.board_driver.connectors.emulation.apps import ChessnutApp, chessnut_leds
from tests.board_driver.connectors.emulation.rig import Rig

ENABLE = bytes([0x21, 0x01, 0x00])
UPLOAD_MODE = bytes([0x21, 0x01, 0x01])
BATTERY = bytes([0x29, 0x01, 0x00])
#: The start position's 32 bytes, as Graham O'Neill's notes on the Chessnut Air's messages
#: give them (``Docs/Chessnut_communications.pdf`` in staubsauger/ChessnutPy).
START_BYTES = bytes.fromhex("58233185444444440000000000000000000000000000000077777777a6c99b6a")
#: What the official app sends on connecting, beside the enable (Universal-Chess's sniffer,
#: read with Chessnut's SDK): a beep of 1000 Hz for 200 ms, both versions asked.
APP_OPENING = bytes.fromhex("0b0403e800c8" + "270101" + "270100")


def session() -> tuple[ChessnutSession, BoardView, list]:
    view = BoardView(pass_ms=100)
    view.resync(STARTING_FEN, occupancy=START_OCCUPANCY)
    lights: list = []
    return ChessnutSession(view, lights.append), view, lights


def test_the_enable_command_is_acknowledged_and_the_position_follows():
    s, _, _ = session()
    app = ChessnutApp()
    app.feed(s.receive(ENABLE))
    assert app.kinds() == [0x23, 0x01]  # acknowledged (chessnutdriver waits for it)
    assert app.messages[0][1] == b"\x00"
    position = dict(app.messages)[0x01]
    assert position[:32] == START_BYTES and len(position) == 36
    assert app.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def test_nothing_is_reported_before_the_app_asks_or_after_it_asks_for_its_uploads():
    s, view, _ = session()
    view.lift(square("e2"), 0)
    assert s.board_changed(view.advance(100)) == b""
    s.receive(ENABLE)
    view.place(square("e4"), 200)
    assert s.board_changed(view.advance(300))[:2] == b"\x01\x24"
    assert s.receive(UPLOAD_MODE) == bytes([0x23, 0x01, 0x00])  # the upload mode: no report
    view.lift(square("e7"), 400)
    assert s.board_changed(view.advance(500)) == b""


def test_every_change_told_is_the_whole_position_with_pieces_named_from_the_game():
    s, view, _ = session()
    app = ChessnutApp()
    app.feed(s.receive(ENABLE))
    view.lift(square("g1"), 0)
    app.feed(s.board_changed(view.advance(100)))
    assert app.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R"
    view.place(square("f3"), 150)
    app.feed(s.board_changed(view.advance(250)))
    assert app.fen() == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"  # the knight, named
    assert app.kinds() == [0x23, 0x01, 0x01, 0x01]


def test_the_apps_opening_beep_and_version_questions_are_answered_honestly():
    s, _, lights = session()
    app = ChessnutApp()
    app.feed(s.receive(APP_OPENING))
    assert app.kinds() == [0x28, 0x28]  # no buzzer: the beep is not answered
    (mcu, _), (ble, _) = ((body[1:].decode(), body[0]) for _, body in app.messages)
    assert mcu.startswith("magboard ") and "magboard" in ble
    assert app.messages[0][1][0] == 0x01 and app.messages[1][1][0] == 0x00  # which was asked
    assert not lights


def test_the_battery_is_full_and_not_charging_and_no_game_is_stored_offline():
    s, _, _ = session()
    app = ChessnutApp()
    app.feed(s.receive(BATTERY + bytes([0x31, 0x01, 0x00])))
    assert app.battery == (100, False)
    assert app.messages[1] == (0x32, b"\x00")  # ChessnutPy's "OTB count"


def lit(frame) -> dict[str, str]:
    return {square_name(sq): c for sq, c in enumerate(frame.colours) if c != "."}


def test_leds_light_exactly_the_squares_a_command_names_and_an_empty_one_puts_them_out():
    s, _, lights = session()
    assert s.receive(chessnut_leds("e2", "e4")) == bytes([0x23, 0x01, 0x00])
    assert lit(lights[-1]) == {"e2": "c", "e4": "c"}
    assert not lights[-1].blink  # Chessnut's LEDs are on or off; apps blink them themselves
    s.receive(chessnut_leds("a8", "h1"))  # each command says the whole board
    assert lit(lights[-1]) == {"a8": "c", "h1": "c"}
    s.receive(chessnut_leds())
    assert lights[-1] is None and s.lit == set()


def test_a_command_in_pieces_is_put_together_and_a_stale_piece_dropped():
    s, _, lights = session()
    command = chessnut_leds("d4")
    assert s.receive(command[:4], now_ms=0) == b""
    assert s.receive(command[4:], now_ms=50) == bytes([0x23, 0x01, 0x00])
    assert lights[-1] is not None
    assert s.receive(BATTERY[:2], now_ms=100) == b""
    # The rest never came; a second later a whole command is read as it is.
    assert s.receive(BATTERY, now_ms=2000)[:1] == b"\x2a"


def test_an_unknown_command_is_not_answered_and_garbage_does_not_stick():
    s, _, _ = session()
    assert s.receive(bytes([0x39, 0x01, 0x00])) == b""  # delete an offline game: none
    assert s.receive(bytes([0x55, 0xF0, 0x01])) == b""  # no command is 240 bytes long
    assert s.receive(BATTERY)[:1] == b"\x2a"


def test_the_app_leaving_puts_its_lights_out_and_stops_the_report():
    s, view, lights = session()
    s.receive(ENABLE + chessnut_leds("c3"))
    s.close()
    assert lights[-1] is None and not s.reporting
    view.lift(square("b1"), 0)
    assert s.board_changed(view.advance(100)) == b""


def test_on_the_door_a_capture_in_either_order_is_the_capturing_piece():
    async def go() -> None:
        rig = await Rig("chessnut", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1").start()
        await rig.send(ENABLE)
        assert rig.app.fen() == "4k3/8/8/3p4/4P3/8/8/4K3"
        rig.door.lift("d5")  # the victim first
        await rig.until(rig.clock.now + 40)
        rig.door.lift("e4")
        await rig.until(rig.clock.now + 40)
        rig.door.place("d5")
        await rig.until(rig.clock.now + 500)
        rig.read()
        assert rig.app.fen() == "4k3/8/8/3P4/8/8/8/4K3"
        assert rig.door.tracker.game.san_moves() == ["exd5"]
        await rig.send(chessnut_leds("e8"))
        assert rig.layer.lit() == {"e8": "c"}
        await rig.stop()
        assert rig.layer.frame is None

    asyncio.run(go())
