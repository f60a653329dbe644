"""The hall's link to the broker: every board's status and game records into
:class:`~.games.HallGames`, again after every reconnection (the broker hands over its
retained messages each time; taking one twice changes nothing)."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from board_driver.connectors.broadcast.topics import QOS
from board_driver.hall.games import HallGames

log = logging.getLogger("magboard")

#: Seconds between two attempts to reach a lost broker: doubling from the first to the last.
RETRY_S = (0.5, 4.0)


class Subscriber:
    """Keeps ``games`` up to date from the broker a ``[hall]`` section names; calls
    ``on_change()`` after every message that changed something."""

    def __init__(self, section: Any, games: HallGames, on_change: Callable[[], None]) -> None:
        self.section = section
        self.games = games
        self.on_change = on_change
        self.connected = False
        #: Messages taken since the start (changed something or not).
        self.received = 0

    async def run(self) -> None:
        import aiomqtt

        from board_driver.connectors.broadcast import broker

        retry = RETRY_S[0]
        lost_at: float | None = None
        # A hall of its own per process: two halls on one broker must not push each other off.
        identifier = f"magboard-hall-{os.getpid()}-{time.monotonic_ns() % 1_000_000}"
        while True:
            try:
                async with broker.client(self.section, identifier=identifier) as client:
                    for topic in self.games.topics.hall_filters():
                        await client.subscribe(topic, qos=QOS)
                    self.connected = True
                    retry = RETRY_S[0]
                    if lost_at is None:
                        log.info("hall: subscribed to %s on %s", self.games.topics.prefix,
                                 broker.describe(self.section))
                    else:
                        log.info("hall: the broker is back after %.1f s",
                                 time.monotonic() - lost_at)
                    lost_at = None
                    async for message in client.messages:
                        self.received += 1
                        if self.games.take(str(message.topic), message.payload or b""):
                            self.on_change()
            except aiomqtt.MqttError as exc:
                self.connected = False
                if lost_at is None:
                    lost_at = time.monotonic()
                    log.warning("hall: broker %s unreachable (%s); retrying",
                                broker.describe(self.section), exc)
                await asyncio.sleep(retry)
                retry = min(retry * 2, RETRY_S[1])
