"""The board's web page: watch the game, steer it, and play on the simulated board.

Served by the daemon (:class:`board_driver.connectors.web.server.WebServer`) on its own loop. The
page, its script and its style sheet live in ``static/`` inside this package: no CDN, no
build step, so a Pi with no internet serves all of it.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from board_driver.door.config_values import Check, boolean, host, integer, one_of, text
from board_driver.door.extension import Extension
from board_driver.spoken.words import LANGUAGES


@dataclass(frozen=True)
class WebConfig:
    """``[web]``: the page the daemon serves (``enabled``, ``host``, ``port``, and the
    ``token`` that actions need: ``""`` = one made at first start and kept in the state
    directory; ``language``: the words the page gives a screen reader, as the board's
    speech says them: ``en``, ``fr``, ``de``, ``es``)."""

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8080
    token: str = ""
    language: str = "en"


class WebExtension(Extension):
    name = "web"
    config_class = WebConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "enabled": boolean,
        "host": host,
        "port": integer(1, 65535),
        "token": text,
        "language": one_of(*LANGUAGES),
    }
    secrets = ("token",)

    async def start(self, door: Any, section: Any) -> Any:
        from board_driver.connectors.web.server import start_server

        return await start_server(door, section)


extension = WebExtension()
