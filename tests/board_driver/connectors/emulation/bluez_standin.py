"""A stand-in for ``bluetoothd`` on a private D-Bus, and a central (a phone) it connects.

It calls the board's GATT application the way BlueZ does, as BlueZ's own documents say
(``doc/gatt-api.txt``, ``doc/advertising-api.txt``, ``doc/adapter-api.txt``): it owns
``org.bluez`` with one adapter (``/org/bluez/hci0``: ``Adapter1``, ``GattManager1``,
``LEAdvertisingManager1``, found through ``GetManagedObjects`` on ``/``); on
``RegisterApplication`` it reads the caller's object tree with ``GetManagedObjects``
and checks it (each characteristic has a UUID, flags BlueZ knows and a service in the
tree); on ``RegisterAdvertisement`` it reads the advertisement's properties. It drops
both when the caller leaves the bus, as BlueZ does.

:class:`Central` plays a phone on that adapter: it connects (a ``Device1`` appears,
``Connected`` true), subscribes (``StartNotify``), writes (``WriteValue`` with the
``device``, ``mtu`` and ``type`` options BlueZ passes), reads, and disconnects. A
notification is a ``PropertiesChanged`` of the characteristic's ``Value`` while it is
subscribed; one longer than the MTU less 3 is cut short, as BlueZ's ATT server does, and
noted in :attr:`Central.too_long`.

Only the real ``bluetoothd`` on a virtual radio proves the real thing (``tests/system``);
this lets the fast suite test the application's logic in a second.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

ADAPTER_PATH = "/org/bluez/hci0"
KNOWN_FLAGS = {
    "broadcast", "read", "write-without-response", "write", "notify", "indicate",
    "authenticated-signed-writes", "extended-properties", "reliable-write",
    "writable-auxiliaries", "encrypt-read", "encrypt-write", "encrypt-authenticated-read",
    "encrypt-authenticated-write", "secure-read", "secure-write", "authorize",
}  # fmt: skip


def dbus_daemon() -> str | None:
    return shutil.which("dbus-daemon")


class PrivateBus:
    """``dbus-daemon --session`` on a socket in a temporary directory."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="magboard-dbus-"))
        daemon = dbus_daemon()
        assert daemon is not None, "dbus-daemon is not installed"
        self.proc = subprocess.Popen(
            [
                daemon, "--session", "--nofork", "--nopidfile", "--print-address=1",
                f"--address=unix:path={self.directory / 'bus'}",
            ],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        self.address = self.proc.stdout.readline().strip()
        assert self.address.startswith("unix:"), f"dbus-daemon said {self.address!r}"

    def close(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        shutil.rmtree(self.directory, ignore_errors=True)


def _error(message: Message, name: str, text: str) -> Message:
    return Message.new_error(message, name, text)


class StandInBlueZ:
    """``org.bluez`` on ``address``; see the module docstring."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.bus: Any = None
        self.adapter = {
            "Address": Variant("s", "00:AA:01:00:00:01"),
            "Name": Variant("s", "magboard-test"),
            "Alias": Variant("s", "magboard-test"),
            "Powered": Variant("b", True),
        }
        self.objects: dict[str, dict[str, dict[str, Variant]]] = {}
        #: Registered applications: (owner, root) -> their objects as read.
        self.applications: dict[tuple[str, str], dict[str, Any]] = {}
        #: Registered advertisements: (owner, path) -> their properties as read.
        self.advertisements: dict[tuple[str, str], dict[str, Any]] = {}
        self.problems: list[str] = []
        self.changed = asyncio.Event()
        self._signal_watchers: list[Callable[[Message], None]] = []

    async def start(self) -> StandInBlueZ:
        self.bus = await MessageBus(bus_address=self.address).connect()
        self.bus.add_message_handler(self._handle)
        await self._call_bus("AddMatch", "s", ["type='signal'"])
        await self.bus.request_name("org.bluez")
        self.objects = {
            ADAPTER_PATH: {
                "org.bluez.Adapter1": self.adapter,
                "org.bluez.GattManager1": {},
                "org.bluez.LEAdvertisingManager1": {},
            }
        }
        return self

    def stop(self) -> None:
        """bluetoothd exits: its name and everything registered with it go."""
        if self.bus is not None:
            self.bus.disconnect()
            self.bus = None
        self.applications.clear()
        self.advertisements.clear()

    async def _call_bus(self, member: str, signature: str, body: list) -> Message:
        return await self.bus.call(
            Message(
                destination="org.freedesktop.DBus",
                path="/org/freedesktop/DBus",
                interface="org.freedesktop.DBus",
                member=member,
                signature=signature,
                body=body,
            )
        )

    async def call(
        self, destination: str, path: str, interface: str, member: str, signature: str = "",
        body: list | None = None,
    ) -> Message:  # fmt: skip
        reply = await self.bus.call(
            Message(
                destination=destination, path=path, interface=interface, member=member,
                signature=signature, body=body or [],
            )
        )  # fmt: skip
        return reply

    def emit(self, path: str, interface: str, member: str, signature: str, body: list) -> None:
        self.bus.send(Message.new_signal(path, interface, member, signature, body))

    # ------------------------------------------------------------------ what it serves

    def _handle(self, message: Message) -> Any:
        if message.message_type == MessageType.SIGNAL:
            for watcher in list(self._signal_watchers):
                watcher(message)
            if message.member == "NameOwnerChanged" and message.body[2] == "":
                self._forget(message.body[0])
            return None
        if message.message_type != MessageType.METHOD_CALL:
            return None
        key = (message.interface, message.member)
        if key == ("org.freedesktop.DBus.ObjectManager", "GetManagedObjects"):
            return Message.new_method_return(message, "a{oa{sa{sv}}}", [self.objects])
        if message.interface == "org.freedesktop.DBus.Properties":
            return self._properties(message)
        if key == ("org.bluez.GattManager1", "RegisterApplication"):
            asyncio.get_running_loop().create_task(self._register_application(message))
            return True
        if key == ("org.bluez.GattManager1", "UnregisterApplication"):
            found = self.applications.pop((message.sender, message.body[0]), None)
            self._changed()
            if found is None:
                return _error(message, "org.bluez.Error.DoesNotExist", "No such application")
            return Message.new_method_return(message)
        if key == ("org.bluez.LEAdvertisingManager1", "RegisterAdvertisement"):
            asyncio.get_running_loop().create_task(self._register_advertisement(message))
            return True
        if key == ("org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement"):
            found = self.advertisements.pop((message.sender, message.body[0]), None)
            self._changed()
            if found is None:
                return _error(message, "org.bluez.Error.DoesNotExist", "No such advertisement")
            return Message.new_method_return(message)
        return None

    def _properties(self, message: Message) -> Message:
        interfaces = self.objects.get(message.path, {})
        if message.member == "GetAll":
            values = interfaces.get(message.body[0], {})
            return Message.new_method_return(message, "a{sv}", [values])
        interface, name = message.body[0], message.body[1]
        values = interfaces.get(interface)
        if values is None or name not in values:
            return _error(message, "org.freedesktop.DBus.Error.InvalidArgs", "No such property")
        if message.member == "Get":
            return Message.new_method_return(message, "v", [values[name]])
        values[name] = message.body[2]
        self.emit(message.path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                  "sa{sv}as", [interface, {name: values[name]}, []])  # fmt: skip
        self._changed()
        return Message.new_method_return(message)

    async def _register_application(self, message: Message) -> None:
        owner, root = message.sender, message.body[0]
        if (owner, root) in self.applications:
            self.bus.send(_error(message, "org.bluez.Error.AlreadyExists", "Already Exists"))
            return
        reply = await self.call(owner, root, "org.freedesktop.DBus.ObjectManager",
                                "GetManagedObjects")  # fmt: skip
        if reply.message_type == MessageType.ERROR:
            self.bus.send(_error(message, "org.bluez.Error.Failed", "Failed to read objects"))
            return
        objects = reply.body[0]
        services = {p for p, i in objects.items() if "org.bluez.GattService1" in i}
        problems = []
        for path, interfaces in objects.items():
            service = interfaces.get("org.bluez.GattService1")
            if service is not None and not {"UUID", "Primary"} <= service.keys():
                problems.append(f"{path}: a service needs UUID and Primary")
            chrc = interfaces.get("org.bluez.GattCharacteristic1")
            if chrc is None:
                continue
            if not {"UUID", "Service", "Flags"} <= chrc.keys():
                problems.append(f"{path}: a characteristic needs UUID, Service and Flags")
                continue
            if chrc["Service"].value not in services:
                problems.append(f"{path}: its service {chrc['Service'].value} is not in the tree")
            unknown = set(chrc["Flags"].value) - KNOWN_FLAGS
            if unknown or not chrc["Flags"].value:
                problems.append(f"{path}: flags {chrc['Flags'].value}")
        if problems or not services:
            self.problems += problems or ["no service"]
            self.bus.send(_error(message, "org.bluez.Error.InvalidArguments", "; ".join(problems)))
            return
        self.applications[(owner, root)] = objects
        self.bus.send(Message.new_method_return(message))
        self._changed()

    async def _register_advertisement(self, message: Message) -> None:
        owner, path = message.sender, message.body[0]
        if (owner, path) in self.advertisements:
            self.bus.send(_error(message, "org.bluez.Error.AlreadyExists", "Already Exists"))
            return
        reply = await self.call(owner, path, "org.freedesktop.DBus.Properties", "GetAll", "s",
                                ["org.bluez.LEAdvertisement1"])  # fmt: skip
        if reply.message_type == MessageType.ERROR or "Type" not in reply.body[0]:
            self.bus.send(_error(message, "org.bluez.Error.InvalidArguments", "Invalid Arguments"))
            return
        self.advertisements[(owner, path)] = {k: v.value for k, v in reply.body[0].items()}
        self.bus.send(Message.new_method_return(message))
        self._changed()

    def _forget(self, owner: str) -> None:
        """The owner left the bus: BlueZ drops what it registered."""
        for registry in (self.applications, self.advertisements):
            for key in [k for k in registry if k[0] == owner]:
                del registry[key]
        self._changed()

    def _changed(self) -> None:
        self.changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = 10.0) -> bool:
        """Wait for ``condition`` (checked whenever something registers or changes)."""
        return await _until(self.changed, condition, timeout)

    # ------------------------------------------------------------------ the board as seen

    def characteristic(self, uuid: str) -> tuple[str, str, dict[str, Any]]:
        """(owner, path, properties) of the registered characteristic ``uuid``."""
        for (owner, _root), objects in self.applications.items():
            for path, interfaces in objects.items():
                chrc = interfaces.get("org.bluez.GattCharacteristic1")
                if chrc is not None and chrc["UUID"].value == uuid:
                    return owner, path, {k: v.value for k, v in chrc.items()}
        raise KeyError(f"no characteristic {uuid} registered")

    def advertised(self) -> list[dict[str, Any]]:
        return list(self.advertisements.values())


class Central:
    """A phone connected to the stand-in's adapter; see the module docstring."""

    def __init__(
        self, bluez: StandInBlueZ, service: str, write: str, notify: str, *,
        address: str = "11:22:33:44:55:66", mtu: int = 23,
    ) -> None:  # fmt: skip
        self.bluez = bluez
        self.uuids = (service, write, notify)
        self.path = f"{ADAPTER_PATH}/dev_{address.replace(':', '_')}"
        self.address = address
        self.mtu = mtu
        self.notifications: list[bytes] = []
        #: Each notification with the characteristic it came on.
        self.received: list[tuple[str, bytes]] = []
        self.too_long: list[bytes] = []
        self.arrived = asyncio.Event()
        self.subscribed_to: set[str] = set()
        self.on_notification: Callable[[bytes], None] | None = None

    def _device(self, connected: bool) -> dict[str, Variant]:
        return {"Address": Variant("s", self.address), "Connected": Variant("b", connected)}

    async def connect(self) -> None:
        properties = self._device(True)
        self.bluez.objects[self.path] = {"org.bluez.Device1": properties}
        self.bluez.emit("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                        "oa{sa{sv}}", [self.path, {"org.bluez.Device1": properties}])  # fmt: skip
        await asyncio.sleep(0.02)

    async def disconnect(self, *, stop_notify_first: bool = False) -> None:
        """The phone goes: Connected false and, for the subscription, StopNotify."""
        if stop_notify_first:
            await self._stop_notify()
        self.bluez.objects[self.path]["org.bluez.Device1"]["Connected"] = Variant("b", False)
        self.bluez.emit(self.path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                        "sa{sv}as", ["org.bluez.Device1", {"Connected": Variant("b", False)},
                                     []])  # fmt: skip
        if not stop_notify_first:
            await self._stop_notify()
        await asyncio.sleep(0.02)

    @property
    def subscribed(self) -> bool:
        return bool(self.subscribed_to)

    async def _stop_notify(self) -> None:
        for uuid in sorted(self.subscribed_to):
            self.subscribed_to.discard(uuid)
            owner, path, _ = self.bluez.characteristic(uuid)
            await self.bluez.call(owner, path, "org.bluez.GattCharacteristic1", "StopNotify")

    async def subscribe(self, uuid: str | None = None) -> Message:
        """Subscribe to ``uuid`` (the notify characteristic given, if None)."""
        uuid = uuid or self.uuids[2]
        owner, path, _ = self.bluez.characteristic(uuid)
        self.bluez._signal_watchers.append(self._watch(owner, path, uuid))
        self.subscribed_to.add(uuid)
        return await self.bluez.call(owner, path, "org.bluez.GattCharacteristic1", "StartNotify")

    def _watch(self, owner: str, path: str, uuid: str) -> Callable[[Message], None]:
        def watcher(message: Message) -> None:
            if (
                message.sender == owner
                and message.path == path
                and message.member == "PropertiesChanged"
                and "Value" in message.body[1]
                and uuid in self.subscribed_to
            ):
                value = bytes(message.body[1]["Value"].value)
                if len(value) > self.mtu - 3:
                    self.too_long.append(value)
                    value = value[: self.mtu - 3]
                self.notifications.append(value)
                self.received.append((uuid, value))
                if self.on_notification is not None:
                    self.on_notification(value)
                self.arrived.set()

        return watcher

    def options(self, kind: str) -> dict[str, Variant]:
        return {
            "device": Variant("o", self.path),
            "mtu": Variant("q", self.mtu),
            "link": Variant("s", "LE"),
            "type": Variant("s", kind),
        }

    async def write(
        self, data: bytes, *, response: bool = True, uuid: str | None = None
    ) -> list[Message]:
        """Write ``data`` to ``uuid`` (the write characteristic given, if None) in pieces
        of the MTU less 3 (a long write, with a response, as BlueZ hands it over: one
        WriteValue per piece, with its offset)."""
        owner, path, _ = self.bluez.characteristic(uuid or self.uuids[1])
        replies = []
        size = self.mtu - 3
        for offset in range(0, len(data), size):
            options = self.options("request" if response else "command")
            if response and len(data) > size:
                options["offset"] = Variant("q", offset)
            replies.append(
                await self.bluez.call(owner, path, "org.bluez.GattCharacteristic1", "WriteValue",
                                      "aya{sv}", [data[offset : offset + size], options])
            )  # fmt: skip
        return replies

    async def read(self) -> Message:
        owner, path, _ = self.bluez.characteristic(self.uuids[2])
        return await self.bluez.call(owner, path, "org.bluez.GattCharacteristic1", "ReadValue",
                                     "a{sv}", [self.options("request")])  # fmt: skip

    async def until(self, condition: Callable[[], bool], timeout: float = 10.0) -> bool:
        """Wait for ``condition`` (checked whenever a notification arrives)."""
        return await _until(self.arrived, condition, timeout)


async def _until(event: asyncio.Event, condition: Callable[[], bool], timeout: float) -> bool:
    """True once ``condition`` holds, checked when ``event`` is set (and every 50 ms);
    False after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            return False
        event.clear()
        try:
            await asyncio.wait_for(event.wait(), min(left, 0.05))
        except TimeoutError:
            pass
    return True


def environment_problem() -> str | None:
    """Why these tests cannot run here, or None."""
    if dbus_daemon() is None:
        return "dbus-daemon is not installed (Debian package dbus)"
    if not hasattr(os, "getuid"):
        return "not a POSIX system"
    return None
