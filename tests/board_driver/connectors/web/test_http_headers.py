"""Any header a client sends gets an answer, never a trace in the log (issue 24, item 6):
the HTTP server of the page (:mod:`board_driver.connectors.web.http`) in this process, on
a free port, with plain requests and WebSocket handshakes, by hand and fuzzed."""

from __future__ import annotations

import asyncio
import logging
import random

import pytest

from board_driver.connectors.web.http import HttpServer, Response, Router

HANDSHAKE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
)
ANSWERS = {101, 200, 400, 404, 405, 408, 413, 431}


async def serve(requests: list[bytes]) -> tuple[list[bytes], list[dict], int]:
    """Each request on a connection of its own: the answers' first lines, what the loop's
    exception handler was given, and the connections still open at the end."""
    router = Router()

    async def page(_request):
        return Response(200, b"ok")

    async def socket(_request, websocket):
        await websocket.send("hello")
        websocket.close()

    router.add("GET", "/", page)
    router.add_websocket("/ws", socket)
    server = HttpServer(router, read_timeout_s=5)
    unhandled: list[dict] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: unhandled.append(context))
    await server.start("127.0.0.1", 0)
    port = server._server.sockets[0].getsockname()[1]
    answers = []
    for data in requests:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(data)
        await writer.drain()
        try:
            answers.append(await asyncio.wait_for(reader.readline(), 10))
        finally:
            writer.close()
    for _ in range(500):  # the server's side of each connection ends too
        if server.open == 0:
            break
        await asyncio.sleep(0.01)
    still_open = server.open
    await server.stop()
    return answers, unhandled, still_open


def status(line: bytes) -> int:
    return int(line.split(b" ")[1]) if line.startswith(b"HTTP/1.1 ") else 0


def test_a_handshake_with_a_header_that_is_not_utf8_gets_a_400(caplog):
    with caplog.at_level(logging.DEBUG):
        answers, unhandled, still_open = asyncio.run(
            serve([HANDSHAKE + b"X-A: \xff\r\n\r\n", HANDSHAKE + b"\r\n"])
        )
    assert [status(a) for a in answers] == [400, 101]  # and a good one still opens
    assert unhandled == [] and still_open == 0
    assert not [r for r in caplog.records if r.exc_info], caplog.text


def _fuzzed_request(rng: random.Random) -> bytes:
    head = HANDSHAKE if rng.random() < 0.7 else b"GET / HTTP/1.1\r\nHost: x\r\n"
    for _ in range(rng.randint(1, 4)):
        name = rng.choice([b"X-A", b"Origin", b"Sec-WebSocket-Key", b"Sec-WebSocket-Protocol",
                           b"Sec-WebSocket-Extensions", b"Connection", b"Upgrade", b"Host",
                           b"Authorization", b"Cookie", b"User-Agent"])  # fmt: skip
        value = bytes(rng.choice([*range(0x20, 0x7F), *range(0x80, 0x100), 0x09])
                      for _ in range(rng.randint(0, 40)))  # fmt: skip
        head += name + b": " + value + b"\r\n"
    return head + b"\r\n"


@pytest.mark.parametrize("seed", range(3))
def test_fuzzed_headers_always_get_an_answer_and_never_a_trace(seed, caplog):
    rng = random.Random(seed)
    requests = [_fuzzed_request(rng) for _ in range(100)]
    with caplog.at_level(logging.DEBUG):
        answers, unhandled, still_open = asyncio.run(serve(requests))
    for request, answer in zip(requests, answers, strict=True):
        assert status(answer) in ANSWERS, (request, answer)
    assert unhandled == [], unhandled[:1]
    assert still_open == 0
    assert not [r for r in caplog.records if r.exc_info], caplog.text[-3000:]
