"""The hall: every board's live game from the broker, served as LiveChess-style PGN and a
page, and pushed to a Lichess broadcast (``magboard hall``; ``docs/hall.md``).

- :mod:`.games`: the games the hall keeps (:class:`~.games.HallGames`), pure: the newest
  record of each game, every record read as untrusted;
- :mod:`.legal`: a record's moves replayed by ``rules`` (only legal games are served);
- :mod:`.subscriber`: the broker's messages into them (``aiomqtt``);
- :mod:`.server`: the HTTP folder and the page (``aiohttp``);
- :mod:`.push`: a round to a Lichess broadcast round (the Broadcast API's PGN push).

Its section, ``[hall]``, lives in the same config file as the board's (a Pi can be a board
and the hall): it is an extension of the config that the daemon never starts, so that
``magboard config check`` checks it and ``magboard config show`` masks its secrets like
every other section's::

    [hall]
    host = "localhost"        # the broker (as in [broadcast]: port, username, password,
    prefix = "magboard"       #   tls_ca, prefix)
    http_host = "0.0.0.0"     # where the folder and the page are served
    http_port = 8090
    round = "1"               # the round: games.pgn's Round, the page's and the push's
    lichess_round = ""        # a broadcast round id (8 characters): push the round there
    lichess_token = ""        # a token with study:write (a secret)
    base_url = "https://lichess.org"
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from board_driver.connectors.broadcast import BROKER_CHECKS, check_tls_ca
from board_driver.door.config_values import Bad, Check, integer, text
from board_driver.door.extension import Extension

LICHESS = "https://lichess.org"


@dataclass(frozen=True)
class HallConfig:
    """``[hall]``: ``magboard hall``'s broker, HTTP address, round and Lichess push."""

    host: str = "localhost"
    port: int = 1883
    username: str = ""
    password: str = ""
    tls_ca: str = ""
    prefix: str = "magboard"
    http_host: str = "127.0.0.1"
    http_port: int = 8090
    round: str = "1"
    lichess_round: str = ""
    lichess_token: str = ""
    base_url: str = LICHESS


def round_name(_key: str, value: Any) -> str:
    """A round as PGN's Round tag and the folder name ``round-<round>`` use it."""
    value = text(_key, value)
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z.\-_]{0,31}", value):
        raise Bad(f'"{value}" is not a round name (letters, digits, ".", "-", "_"; such as "3")')
    return value


def _broadcast_round(_key: str, value: Any) -> str:
    value = text(_key, value)
    if value and not re.fullmatch(r"[0-9A-Za-z]{8}", value):
        raise Bad(
            f'"{value}" is not a broadcast round id (8 letters and digits, from the round\'s '
            "address: lichess.org/broadcast/<tournament>/<round>/<id>)"
        )
    return value


def _url(_key: str, value: Any) -> str:
    value = text(_key, value)
    if not re.fullmatch(r"https?://[^\s/]+(/[^\s]*)?", value):
        raise Bad(f'"{value}" is not an http:// or https:// address')
    return value.rstrip("/")


class HallExtension(Extension):
    """``[hall]``: read and checked with the config; run by ``magboard hall``, never by
    the daemon."""

    name = "hall"
    config_class = HallConfig
    checks: ClassVar[Mapping[str, Check]] = {
        **BROKER_CHECKS,
        "http_host": text,
        "http_port": integer(1, 65535),
        "round": round_name,
        "lichess_round": _broadcast_round,
        "lichess_token": text,
        "base_url": _url,
    }
    secrets = ("password", "lichess_token")

    def enabled(self, section: Any, config: Any) -> bool:
        return False  # the hall is its own command, not a part of the board's daemon

    def check_across(self, section: Any, config: Any) -> list[str]:
        problems = check_tls_ca(self.name, section)
        if section.lichess_round and not section.lichess_token:
            problems.append(
                "[hall] lichess_token: needed to push to lichess_round (a token with "
                "study:write, from lichess.org/account/oauth/token)"
            )
        return problems


extension = HallExtension()
