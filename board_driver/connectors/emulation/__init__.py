"""Apps use the board as a DGT board, a Millennium ChessLink board, a DGT Pegasus or a
Chessnut eBoard.

``[emulation] protocol = "dgt"`` or ``"chesslink"`` on a serial ``device`` (the Pi's USB
gadget port ``/dev/ttyGS0``, or an RFCOMM port ``/dev/rfcomm0``); ``"chesslink"``, ``"pegasus"`` or
``"chessnut"`` with ``transport = "ble"`` over Bluetooth LE, advertised as ``name``;
``docs/emulation.md`` says how to set them up and which programs were seen working.

- :mod:`.view`: the board as the app is told it (pass time held, pieces named from the game);
- :mod:`.dgt`, :mod:`.chesslink`, :mod:`.pegasus`, :mod:`.chessnut`: the protocols, bytes
  in and bytes out;
- :mod:`.serial_port`: the serial transport (pyserial);
- :mod:`.gatt` and :mod:`.ble`: the Bluetooth LE transport (BlueZ over D-Bus, dbus-fast);
- :mod:`.connector`: a protocol and a transport joined on the door.

Only this module is imported at start-up; the rest (and pyserial or dbus-fast) when the
section turns the emulation on.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any, ClassVar

from board_driver.door.config_values import Bad, Check, FilePath, one_of, quote, text
from board_driver.door.extension import Extension, ExtensionError

PROTOCOLS = ("none", "dgt", "chesslink", "pegasus", "chessnut")
TRANSPORTS = ("serial", "ble")
#: Which transports each protocol's boards have (DGT's Bluetooth LE board is the Pegasus;
#: Chessnut's boards speak to apps over Bluetooth LE, and over USB HID, which is not here).
PROTOCOL_TRANSPORTS = {
    "dgt": ("serial",),
    "chesslink": ("serial", "ble"),
    "pegasus": ("ble",),
    "chessnut": ("ble",),
}
#: A name longer than this does not fit a scan response (31 bytes, less 2 of header).
NAME_LIMIT = 29
#: The colours the app's lights may take (the LED palette's names).
COLOURS = ("red", "orange", "yellow", "green", "blue", "cyan", "white")


@dataclass(frozen=True)
class EmulationConfig:
    """``[emulation]``: the board as a commercial board, for apps (``docs/emulation.md``).

    ``protocol``: ``"dgt"`` (DGT's serial protocol), ``"chesslink"`` (Millennium's),
    ``"pegasus"`` (DGT Pegasus, Bluetooth LE), ``"chessnut"`` (Chessnut Air, Bluetooth LE)
    or ``"none"``; ``transport``: ``"serial"``
    or ``"ble"``; ``device``: the serial device the app is on; ``name``: the Bluetooth
    name (``""``: the one apps look for); ``adapter``: the Bluetooth controller
    (``"hci0"``; ``""``: the first); ``colour``: the colour of the lights the app asks
    for; ``trace``: a file to write every byte in and out and every board event to, with
    their times (``""``: none).
    """

    protocol: str = "none"
    transport: str = "serial"
    device: str = "/dev/ttyGS0"
    name: str = ""
    adapter: str = ""
    colour: str = "cyan"
    trace: str = ""


def ble_name(key: str, value: Any) -> str:
    """A name to advertise: printable ASCII that fits a scan response."""
    value = text(key, value)
    if not (value.isascii() and value.isprintable()) or len(value) > NAME_LIMIT:
        raise Bad(f"{quote(value)} is not up to {NAME_LIMIT} printable ASCII characters")
    return value


def adapter_name(key: str, value: Any) -> str:
    value = text(key, value)
    if value and not (value.startswith("hci") and value[3:].isdigit()):
        raise Bad(f'{quote(value)} is not a Bluetooth controller like "hci0" (or "" for the first)')
    return value


class EmulationExtension(Extension):
    name = "emulation"
    config_class = EmulationConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "protocol": one_of(*PROTOCOLS),
        "transport": one_of(*TRANSPORTS),
        "device": text,
        "name": ble_name,
        "adapter": adapter_name,
        "colour": one_of(*COLOURS),
        "trace": FilePath("written"),
    }

    def enabled(self, section: Any, config: Any) -> bool:
        return section.protocol != "none"

    def check_across(self, section: Any, config: Any) -> list[str]:
        protocol, transport = section.protocol, section.transport
        if protocol == "none":
            return []
        if transport not in PROTOCOL_TRANSPORTS[protocol]:
            boards = {
                "dgt": "DGT's serial boards",
                "pegasus": "the Pegasus",
                "chessnut": "Chessnut's boards",
            }[protocol]
            other = PROTOCOL_TRANSPORTS[protocol][0]
            return [
                f'[emulation] transport: "{transport}" is not for protocol "{protocol}" '
                f'({boards} use "{other}": transport = "{other}")'
            ]
        if transport == "serial" and not section.device.strip():
            return [f'[emulation] device: "" names no device for protocol "{protocol}"']
        return []

    def validate_environment(self, section: Any) -> None:
        if section.transport == "ble":
            if find_spec("dbus_fast") is None:
                raise ExtensionError(
                    "the Bluetooth LE emulation needs dbus-fast: pip install dbus-fast "
                    "(or magboard[ble], or magboard[pi])"
                )
        elif find_spec("serial") is None:
            raise ExtensionError(
                "the emulation needs pyserial: pip install pyserial (or magboard[pi])"
            )

    async def start(self, door: Any, section: Any) -> Any:
        from board_driver.connectors.emulation.connector import start_emulation

        return await start_emulation(door, section)


extension = EmulationExtension()
