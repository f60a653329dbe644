"""DGT Pegasus's protocol as the board speaks it: the conversations its public clients
open with (DGT's app as Universal-Chess recorded it, dgtdriver's ``DGTBoard.reset``), read
back the way an app reads them (``apps.PegasusApp``)."""

from __future__ import annotations

import asyncio

from board_driver.connectors.emulation import pegasus
from board_driver.connectors.emulation.dgt import field
from board_driver.connectors.emulation.pegasus import PegasusSession
from board_driver.connectors.emulation.view import START_OCCUPANCY, STARTING_FEN, BoardView
from board_driver.physical.squares import square
from tests.board_driver.connectors.emulation.apps import PegasusApp
from tests.board_driver.connectors.emulation.rig import Rig

#: DGT's app, as it opens (Universal-Chess's emulators/pegasus.py, recorded with a sniffer):
#: reset, LEDs off, its developer key, 0x5a, trademark, board dump, update mode.
DGT_APP_OPENING = bytes.fromhex("40600200006307" + "8e87b018b6f400" + "5a474244")
#: dgtdriver's ``DGTBoard.reset`` (mono424/dgtdriver, lib/DGTBoard.dart): reset, serial
#: number, version, then for a Pegasus its developer key, device info, reset, board.
DGTDRIVER_KEY = bytes([0x63, 0x07, 190, 245, 174, 221, 169, 95, 0])


def session() -> tuple[PegasusSession, BoardView, list]:
    view = BoardView(pass_ms=100)
    view.resync(STARTING_FEN, occupancy=START_OCCUPANCY)
    lights: list = []
    return PegasusSession(view, lights.append), view, lights


def leds_on(*names: str, repeat: int = 0) -> bytes:
    """dgtdriver's SetLEDPatternCommand: 0x60, size, 5, speed, repeat, brightness, squares, 0."""
    body = [5, 2, repeat, 2, *(field(square(n)) for n in names), 0]
    return bytes([0x60, len(body), *body])


def test_dgts_app_opening_is_answered_with_the_trademark_and_the_occupancy():
    s, _, lights = session()
    app = PegasusApp()
    answers = app.feed(s.receive(DGT_APP_OPENING))
    assert [kind for kind, _ in answers] == [0x92, 0x86]  # nothing for 40, 60, 63, 5a, 44
    assert answers[0][1].decode().startswith("Digital Game Technology\r\nCopyright (c)")
    assert app.occupancy() == START_OCCUPANCY
    assert lights == [None]  # the LEDs-off command


def test_dgtdrivers_handshake_finds_a_pegasus_and_reads_the_board():
    s, _, _ = session()
    app = PegasusApp()
    for command in (b"\x40", b"\x45", b"\x4d", DGTDRIVER_KEY, b"\x47", b"\x40", b"\x42"):
        app.feed(s.receive(command))  # one write each, as dgtdriver sends them
    kinds = [kind for kind, _ in app.messages]
    assert kinds == [0x91, 0x93, 0x92, 0x86]
    answers = dict(app.messages)
    assert len(answers[0x91]) == 5
    version = answers[0x93]
    assert f"{version[0]}.{version[1]}".startswith("1.")  # dgtdriver's isPegasusBoard
    assert app.occupancy() == START_OCCUPANCY


def test_the_other_questions_long_serial_battery_hardware_version():
    s, _, _ = session()
    answers = dict(PegasusApp().feed(s.receive(bytes([0x55, 0x4C, 0x48]))))
    assert len(answers[0xA2]) == 10
    assert answers[0xA0][0] == 100  # dgtdriver: charge = msg[0] / 100
    assert answers[0x96] == bytes(pegasus.VERSION)


def test_field_updates_say_only_whether_a_square_holds_a_piece():
    s, view, _ = session()
    view.lift(square("e2"), 0)
    view.place(square("e4"), 50)
    app = PegasusApp()
    app.feed(s.board_changed(view.advance(200)))
    assert app.messages == [(0x8E, bytes([field(square("e2")), 0])), (0x8E, bytes([36, 1]))]
    # The move committed: pieces named from the game again, no square changes occupancy.
    after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert s.board_changed(view.resync(after, before=STARTING_FEN)) == b""


def test_the_led_list_lights_its_squares_a8_included_and_off_puts_them_out():
    s, _, lights = session()
    s.receive(leds_on("a8", "e2", "e4"))
    assert lights[-1].colours[square("a8")] == "c"  # field 0: not the closing 0x00
    assert {sq for sq in range(64) if lights[-1].colours[sq] != "."} == {
        square("a8"),
        square("e2"),
        square("e4"),
    }
    assert lights[-1].blink & (1 << square("e4"))
    s.receive(bytes([0x60, 0x02, 0x00, 0x00]))  # DGT's app: all off
    assert lights[-1] is None


def test_a_pattern_of_one_flash_goes_out_by_itself():
    s, _, lights = session()
    s.receive(leds_on("d2", "d4", repeat=1), now_ms=1000)
    assert lights[-1] is not None and s.next_due() == 1000 + pegasus.FLASH_MS
    s.tick(1000 + pegasus.FLASH_MS)
    assert lights[-1] is None and s.next_due() is None


def test_a_command_split_over_writes_is_read_whole_and_a_stale_half_is_dropped():
    s, _, lights = session()
    command = leds_on("g1", "f3")
    assert s.receive(command[:3], now_ms=0) == b"" and lights == []
    s.receive(command[3:], now_ms=20)
    assert lights[-1] is not None
    s.receive(DGTDRIVER_KEY[:4], now_ms=100)  # the rest never comes
    ((kind, _),) = PegasusApp().feed(s.receive(b"\x4d", now_ms=5000))
    assert kind == 0x93


def test_on_the_door_a_reset_in_the_middle_does_not_stop_the_updates():
    async def go() -> None:
        rig = await Rig("pegasus").start()
        await rig.send(bytes([0x42, 0x44]))
        rig.door.lift("g1")
        await rig.until(rig.clock.now + 200)
        await rig.send(b"\x40")  # DGT's app sends it mid-game (DGTCentaurMods' notes)
        rig.door.place("f3")
        await rig.until(rig.clock.now + 200)
        rig.read()
        assert rig.app.occupancy() == START_OCCUPANCY & ~(1 << square("g1")) | 1 << square("f3")
        await rig.send(leds_on("e7", "e5"))
        assert rig.layer.lit() == {"e7": "C", "e5": "C"}  # blinking
        rig.transport.on_link(False, "disconnected")
        await rig.pump()
        assert rig.layer.frame is None  # the app has gone: its lights with it
        await rig.stop()

    asyncio.run(go())
