"""The page under abuse, against a real ``magboard run --sim``: the board's own path never
starves for it, every bad request gets a 4xx with a reason, and slow pages cannot grow the
daemon's memory (issue 17, items 2, 9, 10 and 12)."""

from __future__ import annotations

import errno
import json
import select
import socket
import time
from pathlib import Path

import pytest
import wsproto
import wsproto.events as ws_events

from tests.board_driver.connectors.web.daemon import WebDaemon, free_port
from tests.board_driver.daemon_process import DaemonProcess, write_config


def raw_request(port: int, data: bytes, timeout: float = 5.0) -> tuple[int, dict]:
    """Send raw bytes, read one response: (status, JSON body or {})."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(data)
        chunks = b""
        while b"\r\n\r\n" not in chunks:
            part = conn.recv(65536)
            if not part:
                break
            chunks += part
        head, _, body = chunks.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            part = conn.recv(65536)
            if not part:
                break
            body += part
    status = int(head.split(b" ")[1])
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {}


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def post(port: int, path: str, body: bytes, *headers: bytes) -> bytes:
    lines = [f"POST {path} HTTP/1.1".encode(), b"Host: 127.0.0.1", *headers]
    lines += [b"Content-Type: application/json", b"Content-Length: %d" % len(body)]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def test_a_flood_of_idle_connections_never_starves_the_board(tmp_path: Path) -> None:
    """300 idle connections against a daemon allowed 128 files (the attack run used 1,100
    against 1,024): moves are stored meanwhile and after, the log does not flood, and the
    page answers again once the connections are gone."""
    port = free_port()
    write_config(tmp_path, f'[web]\nport = {port}\n')
    proc = DaemonProcess(tmp_path, max_files=128)
    idle: list[socket.socket] = []
    try:
        proc.wait_ready(timeout=30)
        # All at once, not one after the other: those beyond the listen backlog wait on
        # the kernel's SYN retries (a second and more each), which then run side by side.
        for _ in range(300):
            conn = socket.socket()
            conn.setblocking(False)
            if conn.connect_ex(("127.0.0.1", port)) not in (0, errno.EINPROGRESS):
                conn.close()
                break
            idle.append(conn)
        waiting = list(idle)
        deadline = time.monotonic() + 15
        while waiting and time.monotonic() < deadline:
            _, writable, _ = select.select([], waiting, [], 0.5)
            waiting = [conn for conn in waiting if conn not in writable]
        assert not waiting, f"{len(waiting)} of 300 connections never made"
        proc.send("lift e2", "place e4")
        assert proc.wait_for(lambda: len(proc.moves_logged()) == 1, 10), proc.output()
        for conn in idle:
            conn.close()
        idle.clear()
        proc.send("lift e7", "place e5")
        assert proc.wait_for(lambda: len(proc.moves_logged()) == 2, 10), proc.output()
        deadline = time.monotonic() + 10
        while True:
            try:
                status, state = raw_request(port, b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert status == 200 and state["moves"] == ["e4", "e5"]
        output = proc.output()
        assert "Traceback" not in output
        assert len(output.splitlines()) < 40, output
    finally:
        for conn in idle:
            conn.close()
        proc.terminate()


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    web = WebDaemon(tmp_path_factory.mktemp("abuse"))
    yield web
    web.stop()


@pytest.mark.parametrize(
    ("request_bytes", "status", "reason"),
    [
        # A bearer token that is not UTF-8 (the attack run got a 500).
        (post(0, "/api/button", b'{"button": "resign"}', b"Authorization: Bearer \xff\xfe"),
         403, "wrong token"),
        # Not HTTP at all.
        (b"HELLO\r\n\r\n", 400, "bad request"),
        # A WebSocket handshake with a header that is not UTF-8 (no answer, a trace: 24.6).
        (b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
         b"X-A: \xff\r\n\r\n", 400, "not UTF-8"),
        # A head larger than any browser sends.
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n", 431, ""),
        # A body larger than any action needs.
        (post(0, "/api/button", b"{" + b" " * 20000 + b"}"), 413, "too large"),
        # A method the page has no use for.
        (b"DELETE /api/state HTTP/1.1\r\nHost: x\r\n\r\n", 405, "not allowed"),
    ],
)  # fmt: skip
def test_a_bad_request_gets_a_4xx_with_a_reason(daemon, request_bytes, status, reason) -> None:
    got, body = raw_request(daemon.port, request_bytes)
    assert got == status
    if reason:
        assert reason in body["error"]
    assert daemon.proc.poll() is None and "Traceback" not in daemon.output()


def test_a_deeply_nested_body_is_refused_not_crashed_on(daemon) -> None:
    """Nested 5,000 deep within the size limit (the attack run got a 500)."""
    token = daemon.token.encode()
    nested = b"[" * 5000 + b"]" * 5000
    for body in (nested, b'{"a": ' + nested + b"}"):
        status, answer = raw_request(
            daemon.port, post(0, "/api/options", body, b"Authorization: Bearer " + token)
        )
        assert (status == 400 and "JSON" in answer["error"]) or "nests" in answer["error"]
    assert daemon.state()["result"] == "*" and "Traceback" not in daemon.output()


def test_an_error_never_quotes_a_huge_value_whole(daemon) -> None:
    token = daemon.token
    huge = "x" * 10000
    status, answer = daemon.request("api/button", {"button": huge}, token=token)
    assert status == 400 and len(answer["error"]) < 300
    status, answer = daemon.request(f"api/{'y' * 3000}", {}, token=token)
    assert status == 404 and len(answer["error"]) < 200


def open_socket(port: int) -> socket.socket:
    """A WebSocket opened and then never read: the slowest page there is."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    client = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
    conn.sendall(client.send(ws_events.Request(host="127.0.0.1", target="/ws")))
    conn.settimeout(5)
    conn.recv(4096)  # the upgrade's answer; nothing is read after it
    return conn


def test_two_hundred_slow_pages_cannot_grow_the_daemons_memory(tmp_path: Path) -> None:
    """200 WebSockets that never read while the game goes on (the attack run saw the
    daemon grow from 42 to 64 MB): at most a few MB more, and the board plays on."""
    port = free_port()
    write_config(tmp_path, f'[web]\nport = {port}\n')
    proc = DaemonProcess(tmp_path)
    sockets: list[socket.socket] = []
    try:
        proc.wait_ready(timeout=30)
        before = rss_kb(proc.proc.pid)
        for _ in range(200):
            try:
                sockets.append(open_socket(port))
            except OSError:
                break
        moves = ["e2", "e4", "e7", "e5", "g1", "f3", "b8", "c6"] * 1
        for i in range(0, len(moves), 2):
            proc.send(f"lift {moves[i]}", f"place {moves[i + 1]}")
        # Back and forth: many changes for the pages that do not read.
        for _ in range(10):
            proc.send("lift f3", "place g1", "lift g1", "place f3")
        assert proc.wait_for(lambda: len(proc.moves_logged()) >= 4, 30), proc.output()
        time.sleep(1)
        grown = (rss_kb(proc.proc.pid) - before) / 1024
        assert grown < 8, f"grew {grown:.1f} MB"
        assert "Traceback" not in proc.output()
    finally:
        for conn in sockets:
            conn.close()
        proc.terminate()
