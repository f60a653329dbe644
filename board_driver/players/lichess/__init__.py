"""Play online on Lichess from the physical board (issue 12), through the Board API.

The Lichess player is one more player on the door (:mod:`board_driver.door`), like the
engine: the opponent's moves come from the server and are lit to be played on the board,
ours are sent once the board commits them. Its parts:

- :mod:`.api`: the Board API through ``berserk`` (blocking calls, for threads), with the
  three kinds of failure the rest acts on: token rejected, refused, unreachable;
- :mod:`.follow`: a stream followed in a thread, reconnecting with backoff;
- :mod:`.online`: an online game as the server sees it (clocks, moves, result, headers);
- :mod:`.reconcile`: the one rule that brings the board back into agreement with the
  server after any news (the server's moves are the game);
- :mod:`.login`: the token (config, file, or "Log in with Lichess" with OAuth2 PKCE);
- :mod:`.player`: :class:`LichessPlayer`, the player on the door and its page actions.

Nothing here is imported by the daemon unless ``[lichess] enabled = true``: berserk and
requests are imported by :meth:`LichessExtension.start` only. The whole guide:
``docs/lichess.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from board_driver.door.config_values import Bad, Check, FilePath, boolean, integer, quote, text
from board_driver.door.extension import Extension, ExtensionError

DEFAULT_BASE_URL = "https://lichess.org"


@dataclass(frozen=True)
class LichessConfig:
    """``[lichess]``: play online (``docs/lichess.md``).

    ``enabled``; ``token`` (a personal token with the ``board:play`` scope) or
    ``token_file`` (a file holding one, readable by the service alone; "Log in with
    Lichess" on the page writes its token there too, or to ``lichess-token`` in the
    state directory); ``base_url`` (another Lichess server: a test or a self-hosted one);
    ``low_time_s``: below this many seconds on our clock the board's edge lights say so
    (0: never); ``amend_ms``: how long a move that may still grow (a rook move that may
    become castling, a promotion to a queen that may be named otherwise) waits, the board
    still, before it is sent.
    """

    enabled: bool = False
    token: str = ""
    token_file: str = ""
    base_url: str = DEFAULT_BASE_URL
    low_time_s: int = 30
    amend_ms: int = 1500


def _base_url(_key: str, value: Any) -> str:
    value = text(_key, value)
    if not value.startswith(("https://", "http://")) or len(value.split("://", 1)[1]) == 0:
        raise Bad(f"{quote(value)} is not an http(s) address, like {DEFAULT_BASE_URL!r}")
    return value.rstrip("/")


def _token(_key: str, value: Any) -> str:
    value = text(_key, value)
    # Lichess tokens match ^[A-Za-z0-9_]+$ (its API description); never quote one.
    if value and not all(c.isascii() and (c.isalnum() or c == "_") for c in value):
        raise Bad("is not a Lichess token (letters, digits and _ only); it is not shown here")
    return value


class LichessExtension(Extension):
    """The Lichess player: on when ``[lichess] enabled = true``."""

    name = "lichess"
    config_class = LichessConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "enabled": boolean,
        "token": _token,
        "token_file": FilePath("secret"),
        "base_url": _base_url,
        "low_time_s": integer(0, 3600),
        "amend_ms": integer(0, 10_000),
    }
    secrets = ("token",)

    def check_across(self, section: Any, config: Any) -> list[str]:
        if section.token and section.token_file:
            return ["[lichess] token_file: set token or token_file, not both"]
        return []

    def validate_environment(self, section: Any) -> None:
        try:
            import berserk  # noqa: F401
        except ImportError as exc:
            raise ExtensionError(
                "[lichess] needs the berserk package: pip install 'magboard[pi]' "
                "(or pip install berserk)"
            ) from exc

    async def start(self, door: Any, section: Any) -> Any:
        self.validate_environment(section)
        from board_driver.players.lichess.player import LichessPlayer

        return await LichessPlayer(door, section).start()


extension = LichessExtension()
