"""What the Lichess player's unit tests share: the fake server, a player on a fake door."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from board_driver.players.lichess import LichessConfig
from board_driver.players.lichess.player import LichessPlayer
from tests.board_driver.players.lichess.door_fake import FakeDoor


async def until(predicate: Callable[[], Any], timeout: float = 5.0, what: str = "") -> Any:
    """Wait (on the loop) until ``predicate()`` is true; AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await asyncio.sleep(0.01)


async def start_player(fake: Any, token: str, tmp_path: Any, **config: Any):
    """A fake door and the Lichess player on it, logged in with ``token``."""
    door = FakeDoor()
    section = LichessConfig(
        enabled=True, token=token, base_url=fake.base_url, **{"amend_ms": 300, **config}
    )
    player = await LichessPlayer(
        door, section, state_dir=tmp_path, read_timeout_s=3.0, first_pause_s=0.1
    ).start()
    return door, player


def run(coro: Any, timeout: float = 60.0) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout))
