"""The Lichess player as its parts see it: what :mod:`.commands`, :mod:`.on_board` and
:mod:`.sending` use of the :class:`~.player.LichessPlayer` they serve, declared once.

The player hands itself to its parts; they are written against this description rather
than the class, so that none of them imports the player (which imports them), and the
type checker holds the player to it wherever it hands itself over.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Protocol

from board_driver.players.lichess.api import BoardApi
from board_driver.players.lichess.online import OnlineGame


class Sending(Protocol):
    """Our move on its way to the server (:class:`~.sending.OurMove`)."""

    in_flight: str | None


class OnTheBoard(Protocol):
    """The online game on the board (:class:`~.on_board.OnBoard`)."""

    @property
    def ours(self) -> Sending: ...

    def holds(self, game: OnlineGame | None) -> bool: ...


class PlayerParts(Protocol):
    """What the parts use of the player: its state and a few of its steps."""

    name: str
    door: Any  # the Door; Any, as the player holds it
    config: Any  # its [lichess] section
    base_url: str
    api: BoardApi | None
    account: dict[str, Any] | None
    connection: str
    message: str | None
    challenges: dict[str, dict[str, Any]]
    ongoing: dict[str, dict[str, Any]]
    game: OnlineGame | None
    state_at: int
    chat: list[dict[str, str]]
    opponent_gone: dict[str, Any] | None
    seeking: bool
    logins: dict[str, Any]
    generation: int

    @property
    def on_board(self) -> OnTheBoard: ...

    def background(self, coro: Any) -> asyncio.Task[Any]: ...
    def saved_token_path(self) -> Path: ...
    def connect(self, token: str) -> None: ...
    def problem(self, connection: str, message: str) -> None: ...
    def take(self, game_id: str) -> None: ...
    def stop_streams(self) -> None: ...
    def fresh_view(self) -> None: ...
    def sync(self) -> None: ...
    def note(self, message: str) -> None: ...
    def error(self, message: str) -> None: ...
