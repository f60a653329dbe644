"""A subscriber's bounded stream of the board's events (:meth:`BoardDoor.subscribe`).

The board only ever appends: past ``maxsize`` waiting events the waiting ones are dropped and
an ``overflow`` item says how many, so a subscriber too slow to keep up costs the board
nothing and the daemon's memory stays bounded; it reads the snapshot again.

>>> events = Subscription(maxsize=2)
>>> for n in range(3):
...     events.put({"type": "move", "n": n})
>>> events.get_nowait(), events.get_nowait(), events.get_nowait()
({'type': 'overflow', 'lost': 2}, {'type': 'move', 'n': 2}, None)
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Callable
from typing import Any


class Subscription:
    """One subscriber's bounded queue of events (see :class:`board_driver.door.Subscription`)."""

    def __init__(
        self,
        *,
        board: bool = False,
        lights: bool = False,
        maxsize: int = 256,
        on_close: Callable[[Subscription], None] | None = None,
    ) -> None:
        if maxsize < 1:
            raise ValueError(f"subscribe: maxsize must be at least 1, got {maxsize}")
        self.board = board
        self.lights = lights
        self.maxsize = maxsize
        self.lost = 0
        self._on_close = on_close
        self._items: collections.deque[dict[str, Any]] = collections.deque()
        self._ready = asyncio.Event()
        self._closed = False

    def put(self, event: dict[str, Any]) -> None:
        if self._closed:
            return
        if len(self._items) >= self.maxsize:
            dropped = len(self._items)
            self.lost += dropped
            self._items.clear()
            self._items.append({"type": "overflow", "lost": dropped})
        self._items.append(event)
        self._ready.set()

    def get_nowait(self) -> dict[str, Any] | None:
        if not self._items:
            self._ready.clear()
            return None
        return self._items.popleft()

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self

    async def __anext__(self) -> dict[str, Any]:
        while not self._items:
            if self._closed:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        return self._items.popleft()

    def close(self) -> None:
        self._closed = True
        self._ready.set()
        if self._on_close is not None:
            self._on_close(self)

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
