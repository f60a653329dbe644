"""A spectator on the broker for the tests: subscribes, and keeps every message it gets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any

import aiomqtt


@dataclass(frozen=True)
class Got:
    topic: str
    payload: str
    retain: bool

    def json(self) -> Any:
        return json.loads(self.payload)


class Listener:
    """``async with Listener(broker, "hall/#") as got:`` then ``await got.until(...)``."""

    def __init__(self, broker: Any, *filters: str, username: str = "", password: str = ""):
        self.broker = broker
        self.filters = filters or ("#",)
        self.username = username
        self.password = password
        self.messages: list[Got] = []
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._client: aiomqtt.Client | None = None

    async def __aenter__(self) -> Listener:
        self._client = aiomqtt.Client(
            self.broker.host,
            self.broker.port,
            username=self.username or None,
            password=self.password or None,
        )
        await self._client.__aenter__()
        for topic in self.filters:
            await self._client.subscribe(topic, qos=1)
        self._task = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await self._task
        with contextlib.suppress(aiomqtt.MqttError):
            await self._client.__aexit__(None, None, None)

    async def _read(self) -> None:
        async for message in self._client.messages:
            payload = message.payload
            text = payload.decode() if isinstance(payload, bytes | bytearray) else str(payload)
            self.messages.append(Got(str(message.topic), text, bool(message.retain)))
            self._changed.set()

    async def until(self, predicate, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while not predicate(self):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.2))
        return True

    def on(self, suffix: str) -> list[Got]:
        """The messages whose topic ends with ``suffix``, in order."""
        return [m for m in self.messages if m.topic.endswith(suffix)]

    def last(self, topic: str) -> Got | None:
        found = [m for m in self.messages if m.topic == topic]
        return found[-1] if found else None
