"""Apps use the board as a DGT board or a Millennium ChessLink board (issue 18).

``[emulation] protocol = "dgt"`` or ``"chesslink"`` on ``device`` (the Pi's USB gadget
port ``/dev/ttyGS0``, or an RFCOMM port ``/dev/rfcomm0``); ``docs/emulation.md`` says how
to set them up and which programs were seen working.

- :mod:`.view`: the board as the app is told it (pass time held, pieces named from the game);
- :mod:`.dgt` and :mod:`.chesslink`: the protocols, bytes in and bytes out, no transport;
- :mod:`.serial_port`: the serial transport (pyserial);
- :mod:`.connector`: the three joined on the door.

Only this module is imported at start-up; the rest (and pyserial) when the section
turns the emulation on.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any, ClassVar

from board_driver.config_values import Check, FilePath, one_of, text
from board_driver.extension import Extension, ExtensionError

PROTOCOLS = ("none", "dgt", "chesslink")
#: The colours the app's lights may take (the LED palette's names).
COLOURS = ("red", "orange", "yellow", "green", "blue", "cyan", "white")


@dataclass(frozen=True)
class EmulationConfig:
    """``[emulation]``: the board as a commercial board, for apps (``docs/emulation.md``).

    ``protocol``: ``"dgt"`` (DGT's serial protocol), ``"chesslink"`` (Millennium's) or
    ``"none"``; ``device``: the serial device the app is on; ``colour``: the colour of the
    lights the app asks for; ``trace``: a file to write every byte in and out and every
    board event to, with their times (``""``: none).
    """

    protocol: str = "none"
    device: str = "/dev/ttyGS0"
    colour: str = "cyan"
    trace: str = ""


class EmulationExtension(Extension):
    name = "emulation"
    config_class = EmulationConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "protocol": one_of(*PROTOCOLS),
        "device": text,
        "colour": one_of(*COLOURS),
        "trace": FilePath("written"),
    }

    def enabled(self, section: Any, config: Any) -> bool:
        return section.protocol != "none"

    def check_across(self, section: Any, config: Any) -> list[str]:
        if section.protocol != "none" and not section.device.strip():
            return [f'[emulation] device: "" names no device for protocol "{section.protocol}"']
        return []

    def validate_environment(self, section: Any) -> None:
        if find_spec("serial") is None:
            raise ExtensionError(
                "the emulation needs pyserial: pip install pyserial (or magboard[pi])"
            )

    async def start(self, door: Any, section: Any) -> Any:
        from board_driver.connectors.emulation.connector import start_emulation

        return await start_emulation(door, section)


extension = EmulationExtension()
