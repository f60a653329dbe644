"""HTTP/1.1 and WebSocket on asyncio streams: just what the page needs, and no more.

The protocols are spoken by ``h11`` and ``wsproto`` (small, sans-I/O, strict parsers); this
module only moves bytes, routes requests, and keeps a page from costing the board anything:

- at most ``max_connections`` connections at once (one more is closed as it comes, so the
  daemon's file descriptors are never exhausted by browsers);
- a request's head and body must arrive within ``read_timeout_s`` and fit in
  ``max_head``/``max_body`` bytes (else 408, 431 or 413), an idle keep-alive connection is
  closed after ``idle_timeout_s``;
- a handler's failure is a 500 with nothing of its insides, logged once.

Why not a web framework: the daemon's memory budget (40 MB on a Pi Zero 2) could not carry
one (aiohttp alone added 15 MB to the process); ``h11`` and ``wsproto`` add under 2 MB.

>>> Response.json({"ok": True}).body
b'{"ok": true}'
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import h11
import wsproto
import wsproto.events as ws_events

log = logging.getLogger("magboard")

#: How often an open WebSocket is pinged (a page gone without a word is noticed).
PING_S = 20.0
REASONS = {
    200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
    405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict",
    413: "Content Too Large", 431: "Request Header Fields Too Large",
    500: "Internal Server Error", 503: "Service Unavailable",
}  # fmt: skip


class HttpError(Exception):
    """Ends a request with ``status`` and a JSON ``{"error": message}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Request:
    """A request as a handler sees it: the header names in lower case."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes = b""
    #: What the route's pattern matched, by group name.
    match: dict[str, str] = field(default_factory=dict)
    #: The request's target as it came (path and query), for a WebSocket's upgrade.
    target: str = ""
    #: The headers as they came, bytes (a WebSocket's upgrade is judged on these: a byte
    #: that is not UTF-8 must not be turned into a character first).
    raw_headers: list[tuple[bytes, bytes]] = field(default_factory=list)


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        return cls(status, json.dumps(data).encode(), "application/json", dict(headers or {}))

    @classmethod
    def error(cls, status: int, message: str, **headers: str) -> Response:
        return cls.json({"error": message}, status, headers)


Handler = Callable[[Request], Awaitable[Response]]


class WebSocket:
    """An accepted WebSocket: :meth:`send` text; :meth:`closed` waits for its end."""

    def __init__(self, connection: wsproto.WSConnection, writer: asyncio.StreamWriter) -> None:
        self._connection = connection
        self._writer = writer
        self._closed = asyncio.Event()

    @property
    def is_closed(self) -> bool:
        return self._closed.is_set()

    async def send(self, text: str) -> None:
        """Send a text message; a peer that went away only closes the socket."""
        if self._closed.is_set():
            return
        try:
            self._writer.write(self._connection.send(ws_events.Message(data=text)))
            await self._writer.drain()
        except (ConnectionError, wsproto.utilities.LocalProtocolError, RuntimeError):
            self._closed.set()

    async def closed(self) -> None:
        await self._closed.wait()

    def close(self) -> None:
        self._closed.set()


#: A WebSocket route's handler: runs while the socket is open.
SocketHandler = Callable[[Request, WebSocket], Awaitable[None]]


class Router:
    """Routes by method and a path pattern with ``{name}`` parts (no ``/`` in a part)."""

    def __init__(self) -> None:
        self._routes: list[tuple[str, re.Pattern[str], Any, bool]] = []

    def add(self, method: str, pattern: str, handler: Handler) -> None:
        self._routes.append((method, _compile(pattern), handler, False))

    def add_websocket(self, pattern: str, handler: SocketHandler) -> None:
        self._routes.append(("GET", _compile(pattern), handler, True))

    def find(self, method: str, path: str) -> tuple[Any, bool, dict[str, str]] | int:
        """The handler, whether it is a WebSocket's, and the path's parts; or 404/405."""
        allowed = False
        for route_method, pattern, handler, socket in self._routes:
            found = pattern.fullmatch(path)
            if found is None:
                continue
            if route_method == method or (method == "HEAD" and route_method == "GET"):
                return handler, socket, found.groupdict()
            allowed = True
        return 405 if allowed else 404


def _compile(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", pattern)
    text = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts)
    )
    return re.compile(text)


class HttpServer:
    """Serves ``router`` on one host and port (see the module docstring for the limits)."""

    def __init__(
        self,
        router: Router,
        *,
        max_connections: int = 256,
        max_head: int = 8192,
        max_body: int = 16 * 1024,
        read_timeout_s: float = 10.0,
        idle_timeout_s: float = 30.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.router = router
        self.max_connections = max_connections
        self.max_head = max_head
        self.max_body = max_body
        self.read_timeout_s = read_timeout_s
        self.idle_timeout_s = idle_timeout_s
        #: Headers added to every response that does not set them (security headers).
        self.headers = dict(headers or {})
        self.open = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self, host: str, port: int) -> None:
        """Listen; OSError if the address cannot be had (a port in use)."""
        # asyncio accepts up to ``backlog`` connections at a time before any is served:
        # kept small, a burst cannot take the descriptors the board needs.
        backlog = max(1, min(64, self.max_connections // 4))
        self._server = await asyncio.start_server(
            self._connected, host, port, backlog=backlog, reuse_address=True
        )

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None

    # ------------------------------------------------------------------ a connection

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.open >= self.max_connections:
            writer.transport.abort()  # the board's own path needs the descriptors more
            return
        self.open += 1
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self.open -= 1
            if task is not None:
                self._tasks.discard(task)
            writer.transport.abort()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = h11.Connection(h11.SERVER, max_incomplete_event_size=self.max_head)
        first = True
        while True:
            try:
                timeout = self.read_timeout_s if first else self.idle_timeout_s
                request = await self._read_request(connection, reader, timeout)
            except HttpError as error:
                await self._send(connection, writer, Response.error(error.status, str(error)))
                return
            if request is None:
                return
            first = False
            found = self.router.find(request.method, request.path)
            if isinstance(found, int):
                message = "no such page" if found == 404 else f"{request.method} not allowed"
                response = Response.error(found, message)
            else:
                handler, socket, request.match = found
                if socket:
                    await self._websocket(handler, request, reader, writer)
                    return
                response = await self._respond(handler, request)
            if request.method == "HEAD":
                response = Response(response.status, b"", response.content_type, response.headers)
            await self._send(connection, writer, response)
            if connection.our_state is h11.MUST_CLOSE:
                return
            try:
                connection.start_next_cycle()
            except h11.LocalProtocolError:
                return

    async def _read_request(
        self, connection: h11.Connection, reader: asyncio.StreamReader, timeout: float
    ) -> Request | None:
        """The next request, whole; None when the peer closed the connection."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        head: h11.Request | None = None
        body = bytearray()
        while True:
            try:
                event = connection.next_event()
            except h11.RemoteProtocolError as exc:
                status = 431 if "too long" in str(exc) or "large" in str(exc) else 400
                raise HttpError(status, f"bad request: {exc}") from None
            if event is h11.NEED_DATA:
                left = deadline - loop.time()
                if left <= 0:
                    if head is None and not body and connection.their_state is h11.IDLE:
                        return None  # an idle keep-alive connection: just close it
                    raise HttpError(408, "the request did not arrive in time")
                try:
                    data = await asyncio.wait_for(reader.read(16384), left)
                except TimeoutError:
                    continue
                connection.receive_data(data)
                if not data and connection.their_state is h11.IDLE:
                    return None
                continue
            if isinstance(event, h11.Request):
                head = event
                length = dict(event.headers).get(b"content-length")
                if length is not None and length.isdigit() and int(length) > self.max_body:
                    raise HttpError(413, "the request body is too large")
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > self.max_body:
                    raise HttpError(413, "the request body is too large")
            elif isinstance(event, h11.EndOfMessage):
                assert head is not None
                return _request(head, bytes(body))
            elif isinstance(event, h11.ConnectionClosed):
                return None

    async def _respond(self, handler: Handler, request: Request) -> Response:
        try:
            return await handler(request)
        except HttpError as error:
            return Response.error(error.status, str(error))
        except Exception:  # a bug here must not stop the board, nor show its insides
            log.exception("web: %s %s failed", request.method, request.path[:60])
            return Response.error(500, "the board could not answer this request (see its log)")

    async def _send(
        self, connection: h11.Connection, writer: asyncio.StreamWriter, response: Response
    ) -> None:
        headers = {**self.headers, **response.headers}
        headers["Content-Type"] = response.content_type
        headers["Content-Length"] = str(len(response.body))
        reason = REASONS.get(response.status, "").encode()
        try:
            data = connection.send(
                h11.Response(
                    status_code=response.status,
                    headers=[(k.encode(), v.encode("latin-1")) for k, v in headers.items()],
                    reason=reason,
                )
            )
            data += connection.send(h11.Data(data=response.body)) if response.body else b""
            data += connection.send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            return  # the connection cannot take a response any more
        writer.write(data)
        await writer.drain()

    # ------------------------------------------------------------------ WebSockets

    async def _websocket(
        self,
        handler: SocketHandler,
        request: Request,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        connection = wsproto.WSConnection(wsproto.ConnectionType.SERVER)
        try:
            for name, value in request.raw_headers:
                try:
                    value.decode("utf-8")
                except UnicodeDecodeError:
                    # A page's script sends text; bytes that are not are no handshake.
                    shown = name.decode("latin-1")[:40]
                    raise ValueError(f"the header {shown} is not UTF-8 text") from None
            connection.initiate_upgrade_connection(request.raw_headers, request.target)
            for event in connection.events():
                if isinstance(event, ws_events.Request):
                    writer.write(connection.send(ws_events.AcceptConnection()))
        except (wsproto.utilities.ProtocolError, ValueError) as exc:
            # A header wsproto refuses, or one that is not text: a 400, never a trace.
            body = json.dumps({"error": f"not a WebSocket request: {exc}"}).encode()
            head = b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
            head += b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
            writer.write(head + body)
            await writer.drain()
            return
        await writer.drain()
        socket = WebSocket(connection, writer)
        pinger = asyncio.create_task(self._ping(socket, connection, writer))
        reading = asyncio.create_task(self._read_socket(socket, connection, reader, writer))
        try:
            await handler(request, socket)
        finally:
            socket.close()
            for task in (pinger, reading):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _read_socket(
        self,
        socket: WebSocket,
        connection: wsproto.WSConnection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        """Answers pings and a close; the page sends nothing else that matters."""
        try:
            while not socket.is_closed:
                data = await reader.read(4096)
                if not data:
                    break
                connection.receive_data(data)
                for event in connection.events():
                    if isinstance(event, ws_events.Ping):
                        writer.write(connection.send(event.response()))
                    elif isinstance(event, ws_events.CloseConnection):
                        with contextlib.suppress(Exception):
                            writer.write(connection.send(event.response()))
                        socket.close()
                        return
        except (ConnectionError, wsproto.utilities.ProtocolError):
            pass
        finally:
            socket.close()

    async def _ping(
        self, socket: WebSocket, connection: wsproto.WSConnection, writer: asyncio.StreamWriter
    ) -> None:
        while not socket.is_closed:
            await asyncio.sleep(PING_S)
            try:
                writer.write(connection.send(ws_events.Ping()))
                await writer.drain()
            except (ConnectionError, wsproto.utilities.ProtocolError, RuntimeError):
                socket.close()


def _request(head: h11.Request, body: bytes) -> Request:
    target = head.target.decode("latin-1")
    parts = urlsplit(target)
    return Request(
        method=head.method.decode("ascii", "replace"),
        path=unquote(parts.path, errors="surrogateescape"),
        query=dict(parse_qsl(parts.query)),
        headers={
            name.decode("latin-1").lower(): value.decode("utf-8", "surrogateescape")
            for name, value in head.headers
        },
        body=body,
        target=target,
        raw_headers=[(bytes(name), bytes(value)) for name, value in head.headers],
    )
