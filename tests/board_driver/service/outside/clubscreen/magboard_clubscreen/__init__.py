"""A club's screen beside the board (a test package): every move it saw written to a file,
the last move's square lit in a layer of its own, and the game's ``Event`` named at the
first move.

    [clubscreen]
    enabled = true
    seen_file = "/tmp/seen.txt"
    colour = "c"                # a frame letter: r o y g b c w
    event = "Club night"
    token = "..."               # a secret: masked by `magboard config show`
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from board_driver.door import Door
from board_driver.door.config_values import Check, FilePath, boolean, one_of, text
from board_driver.door.extension import Extension, Running


@dataclass(frozen=True)
class ClubScreenConfig:
    enabled: bool = False
    seen_file: str = ""
    colour: str = "c"
    event: str = "Club night"
    token: str = ""


class ClubScreen(Extension):
    name = "clubscreen"
    config_class = ClubScreenConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "enabled": boolean,
        "seen_file": FilePath("written"),
        "colour": one_of("r", "o", "y", "g", "b", "c", "w"),
        "event": text,
        "token": text,
    }
    secrets = ("token",)

    def check_across(self, section: Any, config: Any) -> list[str]:
        if section.enabled and not section.seen_file:
            return ["[clubscreen] seen_file: needed when enabled"]
        return []

    async def start(self, door: Door, section: Any) -> Running:
        from magboard_clubscreen.screen import Screen  # the running part: only when on

        return Screen(door, section).start()


extension = ClubScreen()
