"""The board as a Bluetooth LE peripheral: the GATT service and the advertisement that apps
look for, as objects BlueZ calls over D-Bus (``dbus-fast``, imported only when a Bluetooth
emulation runs).

BlueZ's GATT server takes an *application*: an object tree whose root answers
``GetManagedObjects``, with a ``org.bluez.GattService1`` and its
``org.bluez.GattCharacteristic1`` objects (BlueZ's ``doc/gatt-api.txt``); and an
``org.bluez.LEAdvertisement1`` object (``doc/advertising-api.txt``). BlueZ calls
``WriteValue`` when the app writes a command, ``StartNotify``/``StopNotify`` when it
subscribes and leaves, ``ReadValue`` when it reads; the board notifies by emitting
``PropertiesChanged`` with the characteristic's new ``Value``.

Each protocol has a :class:`Profile`: the service and characteristics of the board it
stands for, and the name apps look for (``docs/emulation.md`` says where each comes from).

>>> PROFILES["pegasus"].service
'6e400001-b5a3-f393-e0a9-e50e24dcca9e'
>>> PROFILES["chesslink"].default_name
'MILLENNIUM CHESS'
"""

# No ``from __future__ import annotations``: dbus-fast reads the D-Bus signatures from the
# annotations of the methods and properties below.

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from dbus_fast import DBusError
from dbus_fast.annotations import (
    DBusBool,
    DBusBytes,
    DBusDict,
    DBusObjectPath,
    DBusSignature,
    DBusStr,
)
from dbus_fast.service import PropertyAccess, ServiceInterface, dbus_method, dbus_property

StrList = Annotated[list[str], DBusSignature("as")]
PathList = Annotated[list[str], DBusSignature("ao")]

GATT_SERVICE = "org.bluez.GattService1"
GATT_CHARACTERISTIC = "org.bluez.GattCharacteristic1"
ADVERTISEMENT = "org.bluez.LEAdvertisement1"


@dataclass(frozen=True)
class Characteristic:
    """One characteristic of a board's GATT table: its UUID and BlueZ's flags for it."""

    uuid: str
    flags: tuple[str, ...]


@dataclass(frozen=True)
class Service:
    """One service of a board's GATT table, with its characteristics in order."""

    uuid: str
    characteristics: tuple[Characteristic, ...]


#: The characteristics apps write to take writes with and without a response.
WRITE_FLAGS = ("write", "write-without-response")


@dataclass(frozen=True)
class Profile:
    """A board's Bluetooth LE face: its services (the first is the one advertised), the
    characteristic the app writes its commands to, the one the board notifies its answers
    on, where messages of some kinds go instead (``routes``: first byte, characteristic),
    and the name apps look for. ``whole_messages``: the apps take each notification as one
    whole message and do not put pieces together (a message must fit the MTU)."""

    protocol: str
    services: tuple[Service, ...]
    write: str
    notify: str
    default_name: str
    routes: tuple[tuple[int, str], ...] = ()
    whole_messages: bool = False

    @property
    def service(self) -> str:
        """The service advertised (and the one apps look for)."""
        return self.services[0].uuid

    @property
    def characteristics(self) -> dict[str, Characteristic]:
        return {c.uuid: c for service in self.services for c in service.characteristics}

    @property
    def notify_flags(self) -> tuple[str, ...]:
        return self.characteristics[self.notify].flags

    def notify_for(self, message: bytes) -> str:
        """The characteristic a message to the app goes out on.

        >>> CHESSNUT.notify_for(bytes([0x01, 0x24]))[4:8], CHESSNUT.notify_for(b"#")[4:8]
        ('8262', '8273')
        """
        kind = message[0] if message else None
        return next((uuid for first, uuid in self.routes if first == kind), self.notify)


def _uart(protocol: str, service: str, write: str, notify: str, flags: tuple[str, ...],
          name: str) -> Profile:  # fmt: skip
    """A board with one service: a characteristic the app writes, one it is notified on."""
    characteristics = (Characteristic(write, WRITE_FLAGS), Characteristic(notify, flags))
    return Profile(protocol, (Service(service, characteristics),), write, notify, name)


#: Millennium's boards: Microchip's "transparent UART" (python-mchess's
#: ``chess_link_bluepy.py``). python-mchess reads the notify characteristic as well.
MILLENNIUM = _uart(
    "chesslink",
    "49535343-fe7d-4ae5-8fa9-9fafd205e455",
    "49535343-8841-43f4-a8d4-ecbe34729bb3",
    "49535343-1e4d-4bd9-ba61-23c647249616",
    ("read", "notify"),
    "MILLENNIUM CHESS",
)
#: DGT's Pegasus: Nordic's UART service (dgtdriver, Universal-Chess, DGTCentaurMods).
PEGASUS = _uart(
    "pegasus",
    "6e400001-b5a3-f393-e0a9-e50e24dcca9e",
    "6e400002-b5a3-f393-e0a9-e50e24dcca9e",
    "6e400003-b5a3-f393-e0a9-e50e24dcca9e",
    ("notify",),
    "DGT_PEGASUS_00001",
)


def _chessnut(short: int) -> str:
    return f"1b7e{short:04x}-2877-41c3-b46e-cf057c562023"


#: Chessnut's eBoards (Chessnut's public API document): the position on its own service
#: and characteristic, the commands and their answers on another. The third service (a
#: characteristic written, one notified: the upload of games played offline) is not in the
#: document; the real board has it (Universal-Chess's reading of one) and ChessnutPy
#: subscribes to it, so it is offered, and stays silent.
CHESSNUT = Profile(
    protocol="chessnut",
    services=(
        Service(_chessnut(0x8261), (Characteristic(_chessnut(0x8262), ("notify",)),)),
        Service(
            _chessnut(0x8271),
            (
                Characteristic(_chessnut(0x8272), WRITE_FLAGS),
                Characteristic(_chessnut(0x8273), ("notify",)),
            ),
        ),
        Service(
            _chessnut(0x8281),
            (
                Characteristic(_chessnut(0x8282), WRITE_FLAGS),
                Characteristic(_chessnut(0x8283), ("notify",)),
            ),
        ),
    ),
    write=_chessnut(0x8272),
    notify=_chessnut(0x8273),
    default_name="Chessnut Air",
    routes=((0x01, _chessnut(0x8262)),),  # the position goes out on its own characteristic
    whole_messages=True,
)
PROFILES = {profile.protocol: profile for profile in (MILLENNIUM, PEGASUS, CHESSNUT)}


class GattService(ServiceInterface):
    def __init__(self, uuid: str, characteristics: list[str]) -> None:
        super().__init__(GATT_SERVICE)
        self._uuid = uuid
        self._characteristics = characteristics

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> DBusStr:
        return self._uuid

    @dbus_property(access=PropertyAccess.READ)
    def Primary(self) -> DBusBool:
        return True

    @dbus_property(access=PropertyAccess.READ)
    def Characteristics(self) -> PathList:
        return self._characteristics


class GattCharacteristic(ServiceInterface):
    """One characteristic. ``on_write(data, options)`` gets what the app writes,
    ``on_subscribe(True/False)`` its subscribing and leaving, ``on_read(options)`` its
    reads (before the last value is returned); :meth:`notify` sends a value."""

    def __init__(
        self,
        uuid: str,
        service: str,
        flags: tuple[str, ...],
        *,
        on_write: Callable[[bytes, dict[str, Any]], None] | None = None,
        on_subscribe: Callable[[bool], None] | None = None,
        on_read: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        super().__init__(GATT_CHARACTERISTIC)
        self._uuid = uuid
        self._service = service
        self._flags = list(flags)
        self._on_write = on_write
        self._on_subscribe = on_subscribe
        self._on_read = on_read
        self.value = b""

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> DBusStr:
        return self._uuid

    @dbus_property(access=PropertyAccess.READ)
    def Service(self) -> DBusObjectPath:
        return self._service

    @dbus_property(access=PropertyAccess.READ)
    def Flags(self) -> StrList:
        return self._flags

    @dbus_property(access=PropertyAccess.READ)
    def Value(self) -> DBusBytes:
        return self.value

    @dbus_method()
    def ReadValue(self, options: DBusDict) -> DBusBytes:
        if "read" not in self._flags:
            raise DBusError("org.bluez.Error.NotPermitted", "not readable")
        if self._on_read is not None:
            self._on_read(options)
        return self.value

    @dbus_method()
    def WriteValue(self, value: DBusBytes, options: DBusDict) -> None:
        if self._on_write is None:
            raise DBusError("org.bluez.Error.NotPermitted", "not writable")
        self._on_write(bytes(value), options)

    @dbus_method()
    def StartNotify(self) -> None:
        if self._on_subscribe is None:
            raise DBusError("org.bluez.Error.NotSupported", "no notifications")
        self._on_subscribe(True)

    @dbus_method()
    def StopNotify(self) -> None:
        if self._on_subscribe is not None:
            self._on_subscribe(False)

    def notify(self, value: bytes) -> None:
        """Send ``value`` to the subscribed app (BlueZ turns the signal into a
        notification; it must fit the connection's MTU less 3 bytes)."""
        self.value = value
        self.emit_properties_changed({"Value": value})


class Advertisement(ServiceInterface):
    """The advertisement: connectable, the service's UUID, the board's name (BlueZ puts
    the name in the scan response when the advertisement has no room for it)."""

    def __init__(self, name: str, service: str, on_release: Callable[[], None]) -> None:
        super().__init__(ADVERTISEMENT)
        self._name = name
        self._service = service
        self._on_release = on_release

    @dbus_property(access=PropertyAccess.READ)
    def Type(self) -> DBusStr:
        return "peripheral"

    @dbus_property(access=PropertyAccess.READ)
    def ServiceUUIDs(self) -> StrList:
        return [self._service]

    @dbus_property(access=PropertyAccess.READ)
    def LocalName(self) -> DBusStr:
        return self._name

    @dbus_property(access=PropertyAccess.READ)
    def Discoverable(self) -> DBusBool:
        return True

    @dbus_method()
    def Release(self) -> None:
        self._on_release()


@dataclass
class GattApplication:
    """The objects of one board's application and advertisement, and their paths.

    ``on_write(data, options)`` gets what the app writes to the profile's command
    characteristic; ``on_subscribe(uuid, on)`` its subscribing to and leaving a notify
    characteristic; ``on_read(options)`` its reads; ``on_release()`` BlueZ dropping the
    advertisement; ``on_other_write(uuid, data, options)`` a write to any other writable
    characteristic (which carries no command of ours).
    """

    profile: Profile
    name: str
    on_write: Callable[[bytes, dict[str, Any]], None]
    on_subscribe: Callable[[str, bool], None]
    on_read: Callable[[dict[str, Any]], None]
    on_release: Callable[[], None]
    on_other_write: Callable[[str, bytes, dict[str, Any]], None] | None = None
    base: str = "/org/magboard/emulation"

    def __post_init__(self) -> None:
        #: The application's root (BlueZ reads every object under it), the advertisement
        #: beside it.
        self.root = f"{self.base}/gatt"
        self.advertisement_path = f"{self.base}/advertisement"
        self.objects: list[tuple[str, ServiceInterface]] = []
        #: The characteristics by UUID, and their paths.
        self.characteristics: dict[str, GattCharacteristic] = {}
        self.paths: dict[str, str] = {}
        for s, service in enumerate(self.profile.services):
            service_path = f"{self.root}/service{s}"
            paths = [f"{service_path}/char{c}" for c in range(len(service.characteristics))]
            self.objects.append((service_path, GattService(service.uuid, paths)))
            for path, spec in zip(paths, service.characteristics, strict=True):
                characteristic = self._characteristic(spec, service_path)
                self.objects.append((path, characteristic))
                self.characteristics[spec.uuid] = characteristic
                self.paths[spec.uuid] = path
        self.advertisement = Advertisement(self.name, self.profile.service, self.on_release)

    def _characteristic(self, spec: Characteristic, service_path: str) -> GattCharacteristic:
        uuid = spec.uuid
        on_write: Callable[[bytes, dict[str, Any]], None] | None = None
        if uuid == self.profile.write:
            on_write = self.on_write
        elif "write" in spec.flags and self.on_other_write is not None:
            on_other = self.on_other_write

            def on_write(data: bytes, options: dict[str, Any]) -> None:
                on_other(uuid, data, options)

        notifies = "notify" in spec.flags
        return GattCharacteristic(
            uuid,
            service_path,
            spec.flags,
            on_write=on_write,
            on_subscribe=(lambda on: self.on_subscribe(uuid, on)) if notifies else None,
            on_read=self.on_read if "read" in spec.flags else None,
        )

    def export(self, bus: Any) -> None:
        """Put the objects on ``bus`` (a dbus-fast ``MessageBus``)."""
        for path, interface in self.objects:
            bus.export(path, interface)
        bus.export(self.advertisement_path, self.advertisement)
