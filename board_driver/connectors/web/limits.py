"""Limits that keep a page from holding up the board or growing the daemon: connections
counted and capped as they come, JSON bodies no deeper than a page ever sends.

>>> json_depth({"a": [1, {"b": 2}]}, 10)
3
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web


def json_depth(value: Any, limit: int) -> int:
    """How deeply ``value``'s objects and lists nest, counting no further than ``limit`` + 1."""
    depth, level = 0, [value]
    while depth <= limit:
        containers = [item for item in level if isinstance(item, dict | list)]
        if not containers:
            break
        depth += 1
        level = [
            child
            for item in containers
            for child in (item.values() if isinstance(item, dict) else item)
        ]
    return depth


class Counted(asyncio.Protocol):
    """A connection's protocol, counted by its site (see :class:`CappedSite`)."""

    def __init__(self, site: CappedSite, handler: Any) -> None:
        self._site = site
        self._handler = handler
        self._served = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._site.open += 1
        if self._site.open > self._site.limit:
            transport.abort()  # the board's own path needs the descriptors more
            return
        self._served = True
        self._handler.connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        self._site.open -= 1
        if self._served:
            self._handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self._handler.eof_received()

    def pause_writing(self) -> None:
        self._handler.pause_writing()

    def resume_writing(self) -> None:
        self._handler.resume_writing()


class CappedSite(web.BaseSite):
    """A TCP site that closes connections beyond ``limit`` as they come."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, limit: int) -> None:
        super().__init__(runner)
        self._host, self._port, self.limit = host, port, limit
        self.open = 0

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        factory = self._runner.server
        self._server = await asyncio.get_running_loop().create_server(
            lambda: Counted(self, factory()), self._host, self._port, backlog=128,
            reuse_address=True,
        )  # fmt: skip
