"""Boards for the hall's tests without daemons: the board's real publisher on a door of our
own (tests/board_driver/connectors/broadcast/fake_door.py), on an asyncio loop in a thread,
so that a plain test can play moves on them while ``magboard hall`` runs as a process."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from board_driver.connectors.broadcast import BroadcastConfig
from board_driver.connectors.broadcast.publisher import Publisher
from tests.board_driver.connectors.broadcast.fake_door import FakeDoor
from tests.mosquitto import Mosquitto


class Boards:
    """``with Boards(broker, count) as boards: boards.play(1, "e4", "e5")``."""

    def __init__(self, broker: Mosquitto, count: int, *, round: str = "1",
                 accounts: Callable[[int], dict[str, str]] | None = None, **keys: Any):
        """``accounts(board)``: its ``username`` and ``password`` (and ``prefix``), when the
        broker has accounts; ``keys``: more ``[broadcast]`` keys for every board."""
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.doors: dict[int, FakeDoor] = {}
        self.publishers: dict[int, Publisher] = {}
        for board in range(1, count + 1):
            own = {"prefix": "club", **keys, **(accounts(board) if accounts else {})}
            section = BroadcastConfig(
                enabled=True, host=broker.host, port=broker.port, board=board, round=round,
                **own,
            )
            self.doors[board], self.publishers[board] = self.run(self._start(section))

    @staticmethod
    async def _start(section: BroadcastConfig) -> tuple[FakeDoor, Publisher]:
        door = FakeDoor()
        return door, await Publisher(door, section).start()

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(30)

    def call(self, function, *args, **kwargs):
        async def on_loop():
            return function(*args, **kwargs)

        return self.run(on_loop())

    def play(self, board: int, *sans: str) -> None:
        self.call(self.doors[board].play, *sans)

    def door(self, board: int) -> FakeDoor:
        return self.doors[board]

    def close(self) -> None:
        for publisher in self.publishers.values():
            self.run(publisher.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

    def __enter__(self) -> Boards:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
