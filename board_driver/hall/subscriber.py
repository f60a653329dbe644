"""The hall's link to the broker: every board's status and game records into
:class:`~.games.HallGames`, again after every reconnection (the broker hands over its
retained messages each time; taking one twice changes nothing, and an older one is
ignored).

A broker that cannot be reached is tried again soon (0.5 s, doubling to 4 s); one that
refuses the hall's user name or password is said so, loudly, and tried again every 30 s
(someone may mend the password file on the broker meanwhile). :attr:`Subscriber.problem`
says what is wrong for the page."""

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


class Subscriber:
    """Keeps ``games`` up to date from the broker a ``[hall]`` section names; calls
    ``on_change()`` after every message that changed something."""

    def __init__(self, section: Any, games: HallGames, on_change: Callable[[], None]) -> None:
        self.section = section
        self.games = games
        self.on_change = on_change
        self.connected = False
        #: What keeps the hall from the broker, in words (None while connected).
        self.problem: str | None = None
        #: Messages taken since the start (changed something or not).
        self.received = 0

    async def run(self) -> None:
        import aiomqtt

        from board_driver.connectors.broadcast import broker

        backoff = broker.Backoff()
        lost_at: float | None = None
        # A hall of its own per process: two halls on one broker must not push each other off.
        identifier = f"magboard-hall-{os.getpid()}-{time.monotonic_ns() % 1_000_000}"
        while True:
            try:
                async with broker.client(self.section, identifier=identifier) as client:
                    for topic in self.games.topics.hall_filters():
                        await client.subscribe(topic, qos=QOS)
                    self.connected = True
                    self.problem = None
                    backoff.reset()
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
                if broker.refused(exc):
                    problem = broker.refusal(self.section, "hall", exc)
                    if problem != self.problem:
                        log.error("hall: %s", problem)
                elif self.problem is None or "unreachable" not in self.problem:
                    problem = f"broker {broker.describe(self.section)} unreachable ({exc})"
                    log.warning("hall: %s; retrying", problem)
                else:
                    problem = self.problem  # said already: not once per attempt
                self.problem = problem
                self.on_change()  # the page shows it
                await asyncio.sleep(backoff.after(exc))
