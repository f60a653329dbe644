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
class Profile:
    """A board's Bluetooth LE face: its service, the characteristic the app writes its
    commands to, the one the board notifies its answers on (with its flags), and the
    name apps look for."""

    protocol: str
    service: str
    write: str
    notify: str
    notify_flags: tuple[str, ...]
    default_name: str


#: Millennium's boards: Microchip's "transparent UART" (python-mchess's
#: ``chess_link_bluepy.py``). python-mchess reads the notify characteristic as well.
MILLENNIUM = Profile(
    protocol="chesslink",
    service="49535343-fe7d-4ae5-8fa9-9fafd205e455",
    write="49535343-8841-43f4-a8d4-ecbe34729bb3",
    notify="49535343-1e4d-4bd9-ba61-23c647249616",
    notify_flags=("read", "notify"),
    default_name="MILLENNIUM CHESS",
)
#: DGT's Pegasus: Nordic's UART service (dgtdriver, Universal-Chess, DGTCentaurMods).
PEGASUS = Profile(
    protocol="pegasus",
    service="6e400001-b5a3-f393-e0a9-e50e24dcca9e",
    write="6e400002-b5a3-f393-e0a9-e50e24dcca9e",
    notify="6e400003-b5a3-f393-e0a9-e50e24dcca9e",
    notify_flags=("notify",),
    default_name="DGT_PEGASUS_00001",
)
PROFILES = {profile.protocol: profile for profile in (MILLENNIUM, PEGASUS)}
#: Both characteristics the app writes to take writes with and without a response.
WRITE_FLAGS = ("write", "write-without-response")


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

    ``on_write(data, options)``, ``on_subscribe(on)``, ``on_read(options)`` and
    ``on_release()`` are the app's writes, its subscribing, its reads and BlueZ dropping
    the advertisement.
    """

    profile: Profile
    name: str
    on_write: Callable[[bytes, dict[str, Any]], None]
    on_subscribe: Callable[[bool], None]
    on_read: Callable[[dict[str, Any]], None]
    on_release: Callable[[], None]
    base: str = "/org/magboard/emulation"

    def __post_init__(self) -> None:
        #: The application's root (BlueZ reads every object under it), the advertisement
        #: beside it.
        self.root = f"{self.base}/gatt"
        self.advertisement_path = f"{self.base}/advertisement"
        service_path = f"{self.root}/service0"
        self.write_path = f"{service_path}/char0"
        self.notify_path = f"{service_path}/char1"
        self.service = GattService(self.profile.service, [self.write_path, self.notify_path])
        self.write_characteristic = GattCharacteristic(
            self.profile.write, service_path, WRITE_FLAGS, on_write=self.on_write
        )
        self.notify_characteristic = GattCharacteristic(
            self.profile.notify,
            service_path,
            self.profile.notify_flags,
            on_subscribe=self.on_subscribe,
            on_read=self.on_read,
        )
        self.advertisement = Advertisement(self.name, self.profile.service, self.on_release)
        self.objects: list[tuple[str, ServiceInterface]] = [
            (service_path, self.service),
            (self.write_path, self.write_characteristic),
            (self.notify_path, self.notify_characteristic),
        ]

    def export(self, bus: Any) -> None:
        """Put the objects on ``bus`` (a dbus-fast ``MessageBus``)."""
        for path, interface in self.objects:
            bus.export(path, interface)
        bus.export(self.advertisement_path, self.advertisement)
