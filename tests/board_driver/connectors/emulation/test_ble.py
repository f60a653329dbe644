"""The Bluetooth LE transport against a stand-in for bluetoothd on a private D-Bus
(``bluez_standin.py``): what it registers and advertises, an app's conversation through
it, one app at a time, disconnects and reconnects, BlueZ going and coming back.

The real bluetoothd on a virtual radio, with a real BLE client library, is the system
test's (``tests/system``)."""

from __future__ import annotations

import asyncio
import logging

import pytest

pytest.importorskip("dbus_fast")

from board_driver.connectors.emulation.ble import BleTransport
from board_driver.connectors.emulation.chesslink import ChessLinkSession
from board_driver.connectors.emulation.chessnut import ChessnutSession
from board_driver.connectors.emulation.connector import Emulation
from board_driver.connectors.emulation.dgt import field
from board_driver.connectors.emulation.gatt import PROFILES
from board_driver.connectors.emulation.pegasus import PegasusSession
from board_driver.connectors.emulation.view import START_OCCUPANCY
from board_driver.physical.squares import square
from tests.board_driver.connectors.emulation.apps import (
    ChessLinkApp,
    ChessnutApp,
    PegasusApp,
    chesslink_command,
    chessnut_leds,
)
from tests.board_driver.connectors.emulation.bluez_standin import (
    Central,
    PrivateBus,
    StandInBlueZ,
    environment_problem,
)
from tests.board_driver.connectors.emulation.fakes import FakeDoor, LoopClock

pytestmark = pytest.mark.skipif(
    environment_problem() is not None, reason=str(environment_problem())
)

AFTER_E4 = START_OCCUPANCY & ~(1 << square("e2")) | 1 << square("e4")
SESSIONS = {"pegasus": PegasusSession, "chesslink": ChessLinkSession, "chessnut": ChessnutSession}
#: Chessnut's characteristics (its API document): the position, the commands, the answers.
CHESSNUT_POSITION = "1b7e8262-2877-41c3-b46e-cf057c562023"
CHESSNUT_COMMANDS = "1b7e8272-2877-41c3-b46e-cf057c562023"
CHESSNUT_ANSWERS = "1b7e8273-2877-41c3-b46e-cf057c562023"


@pytest.fixture
def bus():
    private = PrivateBus()
    yield private
    private.close()


def central_for(bluez: StandInBlueZ, protocol: str, **kwargs) -> Central:
    profile = PROFILES[protocol]
    return Central(bluez, profile.service, profile.write, profile.notify, **kwargs)


class Board:
    """The emulation on a fake door (real time) over the BLE transport."""

    def __init__(self, protocol: str, address: str, **kwargs) -> None:
        self.door = FakeDoor(clock=LoopClock())
        self.transport = BleTransport(PROFILES[protocol], bus_address=address, **kwargs)
        self.emulation = Emulation(self.door, SESSIONS[protocol], self.transport,
                                   call_at=self.door.clock.call_at)  # fmt: skip

    async def start(self) -> Board:
        await self.emulation.start()
        return self

    @property
    def layer(self):
        return self.door.layers["emulation"]

    async def move(self, frm: str, to: str) -> None:
        self.door.lift(frm)
        await asyncio.sleep(0.03)
        self.door.place(to)


def test_the_board_offers_the_service_and_the_name_the_apps_look_for(bus):
    async def go() -> None:
        bluez = await StandInBlueZ(bus.address).start()
        for protocol in ("pegasus", "chesslink"):
            profile = PROFILES[protocol]
            transport = BleTransport(profile, bus_address=bus.address)
            transport.start(lambda data: None, lambda up, reason: None)
            assert await bluez.until(lambda: bluez.applications and bluez.advertisements)
            _, _, write = bluez.characteristic(profile.write)
            _, _, notify = bluez.characteristic(profile.notify)
            assert {"write", "write-without-response"} <= set(write["Flags"])
            assert "notify" in notify["Flags"]
            if protocol == "chesslink":
                assert "read" in notify["Flags"]  # python-mchess reads it between writes
            (advert,) = bluez.advertised()
            assert advert["Type"] == "peripheral" and advert["Discoverable"]
            assert advert["ServiceUUIDs"] == [profile.service]
            assert advert["LocalName"] == profile.default_name
            assert bluez.adapter["Alias"].value == profile.default_name
            assert not bluez.problems
            transport.close()  # leaving the bus: BlueZ drops both
            assert await bluez.until(lambda: not bluez.applications and not bluez.advertisements)
        bluez.stop()

    asyncio.run(go())


def test_a_pegasus_app_plays_leaves_mid_game_and_comes_back_to_the_board_as_it_is(bus):
    async def go() -> None:
        bluez = await StandInBlueZ(bus.address).start()
        board = await Board("pegasus", bus.address).start()
        assert await bluez.until(lambda: bluez.advertisements)
        phone, app = central_for(bluez, "pegasus"), PegasusApp()
        phone.on_notification = app.feed
        await phone.connect()
        assert await bluez.until(lambda: not bluez.advertisements)  # one app at a time
        await phone.subscribe()
        await phone.write(bytes.fromhex("40600200006307" + "8e87b018b6f400" + "5a474244"))
        assert await phone.until(lambda: [k for k, _ in app.messages] == [0x92, 0x86])
        assert app.occupancy() == START_OCCUPANCY
        # Every message starts its own notification (dgtdriver reads one a notification).
        starts = [n[0] for n in phone.notifications if n[0] & 0x80]
        assert starts == [0x92, 0x86] and not phone.too_long

        await board.move("e2", "e4")
        assert await phone.until(lambda: app.occupancy() == AFTER_E4)
        await phone.write(bytes([0x60, 0x07, 0x05, 0x02, 0x00, 0x02,
                                 field(square("e7")), field(square("e5")), 0x00]))  # fmt: skip
        assert await bluez.until(lambda: set(board.layer.lit()) == {"e7", "e5"})

        await phone.disconnect()  # mid-game: the app's lights go, the board shows itself
        assert await bluez.until(lambda: board.layer.frame is None and bluez.advertisements)
        await board.move("e7", "e5")  # played while the phone is away
        await asyncio.sleep(0.3)

        again, app = central_for(bluez, "pegasus"), PegasusApp()
        again.on_notification = app.feed
        await again.connect()
        await again.subscribe()
        await again.write(bytes([0x42, 0x44]))
        after_e5 = AFTER_E4 & ~(1 << square("e7")) | 1 << square("e5")
        assert await again.until(lambda: app.messages and app.occupancy() == after_e5)
        await board.move("g1", "f3")
        after_nf3 = after_e5 & ~(1 << square("g1")) | 1 << square("f3")
        assert await again.until(lambda: app.occupancy() == after_nf3)
        await board.emulation.stop()
        assert await bluez.until(lambda: not bluez.applications)
        bluez.stop()

    asyncio.run(go())


def test_a_chesslink_app_reads_statuses_cut_to_its_mtu_and_lights_squares_by_long_write(bus):
    async def go() -> None:
        bluez = await StandInBlueZ(bus.address).start()
        board = await Board("chesslink", bus.address).start()
        assert await bluez.until(lambda: bluez.advertisements)
        phone, app = central_for(bluez, "chesslink"), ChessLinkApp()
        phone.on_notification = app.feed
        await phone.connect()
        await phone.subscribe()
        for command in ("V", "W0203", "S"):  # one command a write, as python-mchess sends
            await phone.write(chesslink_command(command))
        assert await phone.until(lambda: app.status is not None)
        assert app.messages[0] == "v3130" and not phone.too_long
        assert max(len(n) for n in phone.notifications) == 20  # the 67-byte status, cut
        reply = await phone.read()  # python-mchess reads the characteristic too
        assert reply.message_type.name == "METHOD_RETURN"
        await board.move("d2", "d4")
        assert await phone.until(
            lambda: app.fen() == "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR"
        )
        corners = "".join("FF" if i in (30, 31, 39, 40) else "00" for i in range(81))
        await phone.write(chesslink_command("L32" + corners))  # 167 bytes: 9 pieces
        assert await bluez.until(lambda: board.layer.lit() == {"d5": "c"})
        await phone.disconnect(stop_notify_first=True)
        assert await bluez.until(lambda: board.layer.frame is None)
        await board.emulation.stop()
        bluez.stop()

    asyncio.run(go())


def test_a_larger_mtu_carries_a_whole_board_dump_in_one_notification(bus):
    async def go() -> None:
        bluez = await StandInBlueZ(bus.address).start()
        board = await Board("pegasus", bus.address).start()
        assert await bluez.until(lambda: bluez.advertisements)
        phone = central_for(bluez, "pegasus", mtu=185)
        await phone.connect()
        await phone.subscribe()
        await phone.write(b"\x42")
        assert await phone.until(lambda: phone.notifications)
        assert [len(n) for n in phone.notifications] == [67]
        await board.emulation.stop()
        bluez.stop()

    asyncio.run(go())


def test_a_second_phone_is_refused_while_the_first_plays(bus, caplog):
    async def go() -> None:
        bluez = await StandInBlueZ(bus.address).start()
        board = await Board("pegasus", bus.address).start()
        assert await bluez.until(lambda: bluez.advertisements)
        first, app = central_for(bluez, "pegasus"), PegasusApp()
        first.on_notification = app.feed
        await first.connect()
        await first.subscribe()
        second = central_for(bluez, "pegasus", address="66:55:44:33:22:11")
        await second.connect()
        with caplog.at_level(logging.WARNING, logger="magboard.emulation"):
            (reply,) = await second.write(b"\x42")
        assert reply.message_type.name == "ERROR" and reply.error_name.endswith("NotPermitted")
        assert any("66:55:44:33:22:11 refused" in r.getMessage() for r in caplog.records)
        await first.write(b"\x42")
        assert await first.until(lambda: app.messages)
        await second.disconnect()  # the other one leaving changes nothing for the first
        await board.move("b1", "c3")
        played = START_OCCUPANCY & ~(1 << square("b1")) | 1 << square("c3")
        assert await first.until(lambda: app.occupancy() == played)
        assert not bluez.advertisements
        await board.emulation.stop()
        bluez.stop()

    asyncio.run(go())


def test_bluetoothd_going_and_coming_back_gets_the_board_registered_again(bus, caplog):
    async def go() -> None:
        board = Board("pegasus", bus.address, retry_s=30)
        with caplog.at_level(logging.WARNING, logger="magboard.emulation"):
            await board.start()  # no bluetoothd yet
            await asyncio.sleep(0.2)
            assert "bluetoothd is not running" in caplog.text
            bluez = await StandInBlueZ(bus.address).start()  # it starts: at once, not in 30 s
            assert await bluez.until(lambda: bluez.applications and bluez.advertisements, 5)
            phone, app = central_for(bluez, "pegasus"), PegasusApp()
            phone.on_notification = app.feed
            await phone.connect()
            await phone.subscribe()
            await phone.write(bytes([0x60, 0x06, 0x05, 0x02, 0x00, 0x02, 0x24, 0x00]))
            assert await bluez.until(lambda: board.layer.frame is not None)
            bluez.stop()  # bluetoothd restarts: the app is gone with it
            assert await phone.until(lambda: board.layer.frame is None)
            bluez = await StandInBlueZ(bus.address).start()
            assert await bluez.until(lambda: bluez.applications and bluez.advertisements, 5)
        assert caplog.text.count("bluetoothd is not running") == 1
        await board.emulation.stop()
        bluez.stop()

    asyncio.run(go())


def test_no_bus_at_all_is_said_once_and_nothing_breaks(tmp_path, caplog):
    async def go() -> None:
        address = f"unix:path={tmp_path / 'no-bus'}"
        with caplog.at_level(logging.WARNING, logger="magboard.emulation"):
            board = await Board("chesslink", address, retry_s=0.05).start()
            await asyncio.sleep(0.3)
            board.transport.write(b"anything")  # no app: dropped
            await board.emulation.stop()
        assert caplog.text.count("cannot reach the system D-Bus") == 1

    asyncio.run(go())


def test_a_chessnut_board_offers_its_three_services_and_the_name_chessnuts_apps_look_for(bus):
    async def go() -> None:
        bluez = await StandInBlueZ(bus.address).start()
        transport = BleTransport(PROFILES["chessnut"], bus_address=bus.address)
        transport.start(lambda data: None, lambda up, reason: None)
        assert await bluez.until(lambda: bluez.applications and bluez.advertisements)
        ((_, objects),) = bluez.applications.items()
        services = sorted(
            i["org.bluez.GattService1"]["UUID"].value[4:8]
            for i in objects.values()
            if "org.bluez.GattService1" in i
        )
        assert services == ["8261", "8271", "8281"]  # the third: ChessnutPy subscribes to it
        assert bluez.characteristic(CHESSNUT_POSITION)[2]["Flags"] == ["notify"]
        assert {"write", "write-without-response"} <= set(
            bluez.characteristic(CHESSNUT_COMMANDS)[2]["Flags"]
        )
        assert bluez.characteristic(CHESSNUT_ANSWERS)[2]["Flags"] == ["notify"]
        (advert,) = bluez.advertised()
        assert advert["LocalName"] == "Chessnut Air"  # ChessnutPy: a name with "Chessnut Air"
        assert advert["ServiceUUIDs"] == ["1b7e8261-2877-41c3-b46e-cf057c562023"]
        transport.close()
        bluez.stop()

    asyncio.run(go())


def test_a_chessnut_app_reads_whole_positions_leaves_mid_game_and_comes_back(bus):
    async def go() -> None:
        bluez = await StandInBlueZ(bus.address).start()
        board = await Board("chessnut", bus.address).start()
        assert await bluez.until(lambda: bluez.advertisements)
        # BlueZ as a phone's central negotiates 517; Chessnut's document asks apps for 500.
        phone = central_for(bluez, "chessnut", mtu=517)
        app = ChessnutApp()
        phone.on_notification = app.feed
        await phone.connect()
        await phone.subscribe(CHESSNUT_POSITION)
        await phone.subscribe(CHESSNUT_ANSWERS)
        await phone.subscribe("1b7e8283-2877-41c3-b46e-cf057c562023")  # as ChessnutPy does
        await phone.write(bytes([0x21, 0x01, 0x00]))
        assert await phone.until(lambda: app.board)
        assert app.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        # The position whole in one notification on its own characteristic; the answers on
        # theirs (ChessnutPy reads each notification as one message).
        assert [(u[4:8], len(d)) for u, d in phone.received] == [("8273", 3), ("8262", 38)]

        await board.move("e2", "e4")
        assert await phone.until(
            lambda: app.board == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
        )
        await phone.write(chessnut_leds("e7", "e5"))
        assert await bluez.until(lambda: board.layer.lit() == {"e7": "c", "e5": "c"})
        await phone.write(bytes([0x29, 0x01, 0x00]))
        assert await phone.until(lambda: app.battery == (100, False))
        assert all(len(d) <= phone.mtu - 3 for d in phone.notifications) and not phone.too_long

        await phone.disconnect()  # mid-game: the app's lights go, the board shows itself
        assert await bluez.until(lambda: board.layer.frame is None and bluez.advertisements)
        await board.move("e7", "e5")  # played while the phone is away
        await asyncio.sleep(0.3)

        again, app = central_for(bluez, "chessnut", mtu=517), ChessnutApp()
        again.on_notification = app.feed
        await again.connect()
        await again.subscribe(CHESSNUT_POSITION)
        await again.subscribe(CHESSNUT_ANSWERS)
        assert not app.messages  # nothing until the app asks for the report
        await again.write(bytes([0x21, 0x01, 0x00]))
        assert await again.until(
            lambda: app.board == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
        )
        await board.move("g1", "f3")
        assert await again.until(
            lambda: app.board == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
        )
        await board.emulation.stop()
        bluez.stop()

    asyncio.run(go())


def test_a_chessnut_app_at_the_smallest_mtu_is_warned_of_in_the_journal(bus, caplog):
    async def go() -> None:
        bluez = await StandInBlueZ(bus.address).start()
        board = await Board("chessnut", bus.address).start()
        assert await bluez.until(lambda: bluez.advertisements)
        phone = central_for(bluez, "chessnut")  # 23: an app that never asked for more
        await phone.connect()
        await phone.subscribe(CHESSNUT_POSITION)
        with caplog.at_level(logging.WARNING, logger="magboard.emulation"):
            await phone.write(bytes([0x21, 0x01, 0x00]))
            assert await phone.until(lambda: len(phone.notifications) == 2)
        assert [len(n) for n in phone.notifications] == [20, 18]  # cut, never cut short
        assert "the app's MTU is 23: a 38-byte chessnut message" in caplog.text
        await board.emulation.stop()
        bluez.stop()

    asyncio.run(go())
