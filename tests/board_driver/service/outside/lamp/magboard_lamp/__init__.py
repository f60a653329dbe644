"""A lamp beside the board (a test package): it needs its device, and says so before the
start when the config names one that is not there.

    [lamp]
    enabled = true
    device = "/dev/ttyUSB0"     # must exist: ExtensionConfigError when it does not

Its entry point is named ``lamps``, not ``lamp``: the extension's name is the one used.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from board_driver.door import Door
from board_driver.door.config_values import Check, boolean, text
from board_driver.door.extension import Extension, ExtensionConfigError, Running

log = logging.getLogger("magboard_lamp")


@dataclass(frozen=True)
class LampConfig:
    enabled: bool = False
    device: str = ""


class Lit:
    async def stop(self) -> None:
        log.info("lamp: stopped")


class Lamp(Extension):
    name = "lamp"
    config_class = LampConfig
    checks: ClassVar[Mapping[str, Check]] = {"enabled": boolean, "device": text}

    def validate_environment(self, section: Any) -> None:
        if section.device and not Path(section.device).exists():
            raise ExtensionConfigError(
                f"its device {section.device} does not exist (plug the lamp in, or leave "
                "[lamp] device out)"
            )

    async def start(self, door: Door, section: Any) -> Running:
        log.info("lamp: started")
        return Lit()


extension = Lamp()
