"""The board's side of a hall of boards: its live game, published to an MQTT broker.

``[broadcast]`` turns it on (off by default)::

    [broadcast]
    enabled = true
    host = "hall.local"      # the hall's Mosquitto
    port = 1883              # 8883 with TLS, as the broker is set up
    username = "board7"      # the broker's account for this board (its ACL: its own topics)
    password = "..."         # a secret: masked in `magboard config show`, never logged
    tls_ca = ""              # a CA file: TLS when set
    board = 7                # this board's number in the hall
    prefix = "magboard"      # the hall's topic prefix
    event = "Club night"     # the game's Event, Round, White and Black tags, when the
    round = "3"              #   board's page does not set them
    white = ""
    black = ""

The topics and messages are in :mod:`.topics`, the game record in :mod:`.record` (with the
revision that orders a game's records, :mod:`.revision`), the publisher (``aiomqtt``,
imported only when the section is enabled) in :mod:`.publisher`.
``docs/hall.md`` is the guide.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from board_driver.connectors.broadcast.topics import MAX_BOARD, check_prefix
from board_driver.door.config_values import Bad, Check, boolean, integer, text
from board_driver.door.extension import Extension, ExtensionError


@dataclass(frozen=True)
class BroadcastConfig:
    """``[broadcast]``: this board's live game to the hall's broker (``docs/hall.md``)."""

    enabled: bool = False
    host: str = "localhost"
    port: int = 1883
    username: str = ""
    password: str = ""
    tls_ca: str = ""
    board: int = 0  # not set
    prefix: str = "magboard"
    event: str = ""
    round: str = ""
    white: str = ""
    black: str = ""


def prefix(_key: str, value: Any) -> str:
    """The check of a topic prefix (``[broadcast] prefix``, ``[hall] prefix``)."""
    value = text(_key, value)
    try:
        return check_prefix(value)
    except ValueError as why:
        raise Bad(str(why)) from None


def host(_key: str, value: Any) -> str:
    value = text(_key, value)
    if not value.strip() or any(c.isspace() for c in value):
        raise Bad(f'"{value}" is not a host name or address')
    return value


#: The broker's keys, the same in ``[broadcast]`` and ``[hall]``.
BROKER_CHECKS: Mapping[str, Check] = {
    "host": host,
    "port": integer(1, 65535),
    "username": text,
    "password": text,
    "tls_ca": text,
    "prefix": prefix,
}


def check_tls_ca(name: str, section: Any) -> list[str]:
    """``tls_ca`` names a readable file (a problem text per failure)."""
    if section.tls_ca and not Path(section.tls_ca).expanduser().is_file():
        return [f"[{name}] tls_ca: {section.tls_ca}: no such file (the broker's CA certificate)"]
    return []


class BroadcastExtension(Extension):
    """Publishes the game on the board to the hall's broker."""

    name = "broadcast"
    config_class = BroadcastConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "enabled": boolean,
        **BROKER_CHECKS,
        "board": integer(0, MAX_BOARD),  # 0: not set (refused when enabled)
        "event": text,
        "round": text,
        "white": text,
        "black": text,
    }
    secrets = ("password",)

    def check_across(self, section: Any, config: Any) -> list[str]:
        if not section.enabled:
            return []
        problems = check_tls_ca(self.name, section)
        if section.board == 0:
            problems.append(
                f"[broadcast] board: not set; give this board its number in the hall "
                f"(1..{MAX_BOARD})"
            )
        if section.password and not section.username:
            problems.append("[broadcast] password: set without a username")
        return problems

    def validate_environment(self, section: Any) -> None:
        try:
            import aiomqtt  # noqa: F401
        except ImportError:
            raise ExtensionError(
                "[broadcast] needs the aiomqtt package: pip install 'magboard[pi]' "
                "(or pip install aiomqtt)"
            ) from None

    async def start(self, door: Any, section: Any) -> Any:
        from board_driver.connectors.broadcast.publisher import Publisher

        return await Publisher(door, section).start()


extension = BroadcastExtension()
