"""The Bluetooth LE transport: the emulation's bytes through BlueZ's GATT server, on the
daemon's loop (``dbus-fast``, imported only when ``[emulation] transport = "ble"``).

The board registers its GATT application (:mod:`.gatt`: the service of the board it
stands for) and an advertisement with its name on the adapter, through BlueZ's D-Bus API
on the system bus. An app finds it, connects, subscribes to the notify characteristic
(the link is up), writes its commands (each write's bytes go to the protocol session as
they come; a long command may come in several writes) and reads the answers as
notifications, one protocol message per notification, cut to the connection's MTU.

- **One app at a time.** While an app is connected the board stops advertising (other
  phones no longer see it); another device that writes anyway is refused. When the app
  disconnects (or unsubscribes) the link is down (its lights go out) and the board
  advertises again; a reconnecting app asks for the board and reads it as it is.
- **BlueZ restarting**, the adapter vanishing or the bus going: everything is registered
  again when they are back; each problem is logged once (``bluetoothd`` not running, no
  adapter, the adapter off and not turned on, a registration refused), and the board
  tries again every ``retry_s`` seconds and at once when BlueZ appears on the bus.
- **Nothing blocks the loop**: every D-Bus call is asynchronous, BlueZ's calls into the
  application are answered at once, and a notification is one signal queued on the bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from dbus_fast import BusType, DBusError, Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from board_driver.connectors.emulation.gatt import GattApplication, Profile

log = logging.getLogger("magboard.emulation")

BLUEZ = "org.bluez"
ADAPTER = "org.bluez.Adapter1"
DEVICE = "org.bluez.Device1"
GATT_MANAGER = "org.bluez.GattManager1"
ADVERTISING_MANAGER = "org.bluez.LEAdvertisingManager1"
PROPERTIES = "org.freedesktop.DBus.Properties"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"
#: The smallest ATT MTU (Bluetooth 4.0): 20 bytes of a value per notification.
DEFAULT_MTU = 23
#: An ATT notification carries the MTU less its opcode and handle.
ATT_HEADER = 3
MATCH_RULES = (
    "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
    "member='NameOwnerChanged',arg0='org.bluez'",
    "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
    "member='PropertiesChanged',arg0='org.bluez.Device1'",
    "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager'",
)


class Unavailable(Exception):
    """Why the board cannot be offered over Bluetooth LE just now (said once)."""


def cut(data: bytes, size: int) -> list[bytes]:
    """``data`` in pieces of at most ``size`` bytes.

    >>> cut(b"abcdefg", 3)
    [b'abc', b'def', b'g']
    """
    return [data[i : i + size] for i in range(0, len(data), size)] or [b""]


class BleTransport:
    """The board as a Bluetooth LE peripheral, for one protocol; see the module docstring.

    ``profile`` says the service and characteristics (:data:`.gatt.PROFILES`), ``name``
    what the board advertises (the profile's name apps look for, if empty), ``adapter``
    which controller (``"hci0"``; empty: the first that can advertise), ``bus_address``
    a D-Bus address instead of the system bus (the tests' private bus)::

        transport = BleTransport(PROFILES["pegasus"])
        return await Emulation(door, PegasusSession, transport).start()
    """

    #: Each write() is one protocol message (the session splits them): one notification.
    per_message = True

    def __init__(
        self,
        profile: Profile,
        name: str = "",
        *,
        adapter: str = "",
        bus_address: str | None = None,
        retry_s: float = 2.0,
    ) -> None:
        self.profile = profile
        self.name = name or profile.default_name
        self.adapter = adapter
        self.bus_address = bus_address
        self.retry_s = retry_s
        self.on_data: Callable[[bytes], None] = lambda data: None
        self.on_link: Callable[[bool, str], None] = lambda up, reason: None
        self.app = GattApplication(
            profile,
            self.name,
            on_write=self._written,
            on_subscribe=self._subscribed,
            on_read=self._read,
            on_release=self._released,
            on_other_write=self._written_elsewhere,
        )
        #: The adapter's object path once registered (``/org/bluez/hci0``), else None.
        self.adapter_path: str | None = None
        #: The connected app's device (its object path), or None.
        self.central: str | None = None
        #: The notify characteristics the app is subscribed to (what the board sends on
        #: them reaches it).
        self.subscriptions: set[str] = set()
        self.mtu = DEFAULT_MTU
        self._mtu_warned = False
        self._bus: Any = None
        self._bluez: str | None = None  # org.bluez's unique name on the bus
        self._advertising = False
        self._closed = False
        self._task: asyncio.Task | None = None
        self._wake = asyncio.Event()
        self._gone = asyncio.Event()
        self._last_problem = ""
        self._refused: set[str] = set()
        self._pending: set[asyncio.Task] = set()

    @property
    def subscribed(self) -> bool:
        """The app is subscribed to at least one of the board's notify characteristics."""
        return bool(self.subscriptions)

    @property
    def connected(self) -> bool:
        """An app is subscribed to the board's notifications."""
        return self.subscribed

    # ------------------------------------------------------------------ life

    def start(self, on_data: Callable[[bytes], None], on_link: Callable[[bool, str], None]) -> None:
        """Register with BlueZ now and whenever it comes back (call on the loop)."""
        self.on_data, self.on_link = on_data, on_link
        self._task = asyncio.get_running_loop().create_task(self._run())

    def close(self) -> None:
        """Stop offering the board: leaving the bus makes BlueZ drop the application and
        the advertisement, and disconnects nobody else."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
        for task in self._pending:
            task.cancel()
        if self._bus is not None:
            self._bus.disconnect()
            self._bus = None

    async def _run(self) -> None:
        while not self._closed:
            self._wake.clear()
            try:
                await self._serve()
            except asyncio.CancelledError:
                raise
            except Unavailable as why:
                self._problem(str(why))
            except (DBusError, OSError, EOFError, ValueError) as exc:
                self._problem(f"Bluetooth LE: {_describe(exc)}")
            self._link_lost("Bluetooth went away")
            self.adapter_path = None
            self._advertising = False
            if self._closed:
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.retry_s)

    def _problem(self, text: str) -> None:
        if text != self._last_problem:
            log.warning("emulation: %s (trying again every %g s)", text, self.retry_s)
            self._last_problem = text

    async def _serve(self) -> None:
        """Register, then wait until BlueZ or the bus goes away."""
        bus = await self._connect()
        self._gone.clear()
        self._bluez = await self._owner(BLUEZ)
        if self._bluez is None:
            raise Unavailable(
                "Bluetooth LE: bluetoothd is not running (no org.bluez on the system bus: "
                "sudo systemctl enable --now bluetooth)"
            )
        path, adapter = await self._find_adapter()
        await self._power_on(path, adapter)
        await self._call(path, GATT_MANAGER, "RegisterApplication", "oa{sv}", [self.app.root, {}])
        self.adapter_path = path
        await self._advertise(True)
        self._last_problem = ""
        log.info(
            "emulation: Bluetooth LE: %s advertised as %r on %s",
            self.profile.protocol,
            self.name,
            path.rsplit("/", 1)[-1],
        )
        disconnected = asyncio.ensure_future(bus.wait_for_disconnect())
        gone = asyncio.ensure_future(self._gone.wait())
        try:
            await asyncio.wait({disconnected, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            disconnected.cancel()
            gone.cancel()
        if bus.connected and not self._closed:
            log.warning("emulation: Bluetooth LE: bluetoothd or the adapter went away")

    async def _connect(self) -> Any:
        if self._bus is not None and self._bus.connected:
            return self._bus
        try:
            if self.bus_address:
                bus = MessageBus(bus_address=self.bus_address)
            else:
                bus = MessageBus(bus_type=BusType.SYSTEM)
            await bus.connect()
        except (OSError, EOFError, DBusError) as exc:
            raise Unavailable(
                f"Bluetooth LE: cannot reach the system D-Bus: {_describe(exc)}"
            ) from exc
        bus.add_message_handler(self._signal)
        for rule in MATCH_RULES:
            await self._call_on(
                bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "AddMatch", "s", [rule],
            )  # fmt: skip
        self.app.export(bus)
        self._bus = bus
        return bus

    async def _owner(self, name: str) -> str | None:
        try:
            reply = await self._call_on(
                self._bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus", "GetNameOwner", "s", [name],
            )  # fmt: skip
        except DBusError:
            return None
        return reply.body[0]

    async def _find_adapter(self) -> tuple[str, dict[str, Variant]]:
        reply = await self._call("/", OBJECT_MANAGER, "GetManagedObjects")
        found = []
        for path, interfaces in sorted(reply.body[0].items()):
            can_advertise = GATT_MANAGER in interfaces and ADVERTISING_MANAGER in interfaces
            if can_advertise and self.adapter in ("", path.rsplit("/", 1)[-1]):
                found.append((path, interfaces.get(ADAPTER, {})))
        if not found:
            wanted = f" {self.adapter}" if self.adapter else ""
            raise Unavailable(
                f"Bluetooth LE: no adapter{wanted} that can advertise (is the Bluetooth "
                "controller there and enabled? `bluetoothctl list`)"
            )
        return found[0]

    async def _power_on(self, path: str, adapter: dict[str, Variant]) -> None:
        if not _value(adapter.get("Powered"), True):
            try:
                await self._set(path, ADAPTER, "Powered", Variant("b", True))
            except DBusError as exc:
                raise Unavailable(
                    f"Bluetooth LE: {path.rsplit('/', 1)[-1]} is off and cannot be turned on "
                    f"({_describe(exc)}; is it blocked? `rfkill list`)"
                ) from exc
        # The name in the advertisement is the one apps scan for; the adapter's own name
        # (what a connected phone reads in the GAP service) is made the same.
        if _value(adapter.get("Alias"), self.name) != self.name:
            try:
                await self._set(path, ADAPTER, "Alias", Variant("s", self.name))
            except DBusError as exc:
                log.info("emulation: Bluetooth LE: the adapter keeps its name (%s)", exc.text)

    async def _advertise(self, on: bool) -> None:
        if self.adapter_path is None or on == self._advertising:
            return
        self._advertising = on
        if on:
            await self._call(
                self.adapter_path, ADVERTISING_MANAGER, "RegisterAdvertisement", "oa{sv}",
                [self.app.advertisement_path, {}],
            )  # fmt: skip
        else:
            await self._call(
                self.adapter_path, ADVERTISING_MANAGER, "UnregisterAdvertisement", "o",
                [self.app.advertisement_path],
            )  # fmt: skip

    def _advertise_soon(self, on: bool) -> None:
        task = asyncio.get_running_loop().create_task(self._advertise_quietly(on))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _advertise_quietly(self, on: bool) -> None:
        try:
            await self._advertise(on)
        except (DBusError, OSError, EOFError) as exc:
            self._advertising = not on
            log.warning(
                "emulation: Bluetooth LE: cannot %s advertising: %s",
                "start" if on else "stop",
                _describe(exc),
            )

    # ------------------------------------------------------------------ D-Bus calls

    async def _call(
        self, path: str, interface: str, member: str, signature: str = "", body: Any = ()
    ) -> Message:
        return await self._call_on(self._bus, BLUEZ, path, interface, member, signature, body)

    @staticmethod
    async def _call_on(
        bus: Any,
        destination: str,
        path: str,
        interface: str,
        member: str,
        signature: str = "",
        body: Any = (),
    ) -> Message:
        reply = await bus.call(
            Message(
                destination=destination,
                path=path,
                interface=interface,
                member=member,
                signature=signature,
                body=list(body),
            )
        )
        if reply is None:
            raise EOFError("the bus connection closed")
        if reply.message_type == MessageType.ERROR:
            raise DBusError._from_message(reply)
        return reply

    async def _set(self, path: str, interface: str, name: str, value: Variant) -> None:
        await self._call(path, PROPERTIES, "Set", "ssv", [interface, name, value])

    # ------------------------------------------------------------------ BlueZ's news

    def _signal(self, message: Message) -> None:
        if message.message_type != MessageType.SIGNAL:
            return None
        if message.member == "NameOwnerChanged" and message.body[0] == BLUEZ:
            self._bluez = message.body[2] or None
            if self._bluez is None:
                self._gone.set()
            else:
                self._wake.set()  # BlueZ is back: register now
            return None
        if message.sender != self._bluez or self.adapter_path is None:
            return None
        if message.member == "PropertiesChanged" and message.body[0] == DEVICE and message.path:
            connected = message.body[1].get("Connected")
            if connected is not None:
                self._device(message.path, bool(connected.value))
        elif message.member == "InterfacesAdded":
            properties = message.body[1].get(DEVICE, {})
            if _value(properties.get("Connected"), False):
                self._device(message.body[0], True)
        elif message.member == "InterfacesRemoved":
            path = message.body[0]
            if path == self.adapter_path and ADAPTER in message.body[1]:
                self._gone.set()
            elif path == self.central:
                self._device(path, False)
        return None

    def _device(self, path: str, connected: bool) -> None:
        """A device under our adapter connected or left."""
        if not path.startswith(f"{self.adapter_path}/"):
            return
        if connected and self.central is None:
            self.central = path
            self.mtu = DEFAULT_MTU
            self._mtu_warned = False
            self._refused.clear()
            log.info("emulation: Bluetooth LE: %s connected", _address(path))
            self._advertise_soon(False)  # one app at a time
        elif not connected and path == self.central:
            self.central = None
            log.info("emulation: Bluetooth LE: %s disconnected", _address(path))
            self._link_lost("disconnected")
            self._advertise_soon(True)

    def _link_lost(self, reason: str) -> None:
        if self.subscribed:
            self.subscriptions.clear()
            self.on_link(False, reason)

    # ------------------------------------------------------------------ the app's calls

    def _from(self, options: dict[str, Any]) -> None:
        """Note the calling device and the MTU it uses; refuse a second device."""
        device = _value(options.get("device"), None)
        if device is not None:
            if self.central is None:
                self._device(device, True)
            elif device != self.central:
                if device not in self._refused:
                    self._refused.add(device)
                    log.warning(
                        "emulation: Bluetooth LE: %s refused: %s is using the board",
                        _address(device),
                        _address(self.central),
                    )
                raise DBusError("org.bluez.Error.NotPermitted", "the board is in use")
        mtu = _value(options.get("mtu"), None)
        if mtu:
            self.mtu = max(DEFAULT_MTU, int(mtu))

    def _written(self, data: bytes, options: dict[str, Any]) -> None:
        self._from(options)
        self.on_data(data)

    def _written_elsewhere(self, uuid: str, data: bytes, options: dict[str, Any]) -> None:
        """A write to a characteristic that carries no command of ours: accepted, dropped."""
        self._from(options)
        log.debug("emulation: Bluetooth LE: %d bytes written to %s, not used", len(data), uuid)

    def _read(self, options: dict[str, Any]) -> None:
        self._from(options)

    def _subscribed(self, uuid: str, on: bool) -> None:
        if on:
            first = not self.subscriptions
            self.subscriptions.add(uuid)
            if first:
                self.on_link(True, "")
        elif uuid in self.subscriptions:
            if len(self.subscriptions) == 1:
                self._link_lost("unsubscribed")
            else:
                self.subscriptions.discard(uuid)

    def _released(self) -> None:
        self._advertising = False

    # ------------------------------------------------------------------ to the app

    def write(self, data: bytes) -> None:
        """Notify the app of one protocol message on the characteristic the profile says,
        in pieces that fit the MTU (dropped while the app is not subscribed to it)."""
        uuid = self.profile.notify_for(data)
        if not data or uuid not in self.subscriptions or self._bus is None:
            return
        room = self.mtu - ATT_HEADER
        if self.profile.whole_messages and len(data) > room and not self._mtu_warned:
            self._mtu_warned = True
            log.warning(
                "emulation: Bluetooth LE: the app's MTU is %d: a %d-byte %s message does not "
                "fit one notification and it is sent in pieces, which %s apps do not put "
                "together (they ask for a larger MTU on connecting)",
                self.mtu, len(data), self.profile.protocol, self.profile.protocol,
            )  # fmt: skip
        characteristic = self.app.characteristics[uuid]
        for piece in cut(data, room):
            characteristic.notify(piece)


def _value(variant: Any, default: Any) -> Any:
    return default if variant is None else getattr(variant, "value", variant)


def _address(path: str) -> str:
    """``/org/bluez/hci0/dev_AA_BB_..`` -> ``AA:BB:..``."""
    return path.rsplit("/", 1)[-1].removeprefix("dev_").replace("_", ":")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, DBusError):
        return f"{exc.type}: {exc.text}" if exc.text else exc.type
    return str(exc) or type(exc).__name__
