"""The serial transport on real pseudo-terminals: a linked pair made by socat (Debian's
``socat``), as an app's end and the board's; and the emulation over it in real time."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from board_driver.connectors.emulation.connector import Emulation
from board_driver.connectors.emulation.dgt import DgtSession
from board_driver.connectors.emulation.serial_port import MAX_BUFFER, SerialTransport
from tests.board_driver.connectors.emulation.apps import DgtApp
from tests.board_driver.connectors.emulation.fakes import FakeDoor, LoopClock

pytestmark = pytest.mark.skipif(shutil.which("socat") is None, reason="socat is not installed")


class PtyPair:
    """``socat`` linking two pseudo-terminals: ``board`` and ``app`` (symbolic links)."""

    def __init__(self, directory: Path) -> None:
        self.board, self.app = directory / "board", directory / "app"
        self.proc = subprocess.Popen(
            [
                "socat",
                f"pty,raw,echo=0,link={self.board}",
                f"pty,raw,echo=0,link={self.app}",
            ],
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not (self.board.exists() and self.app.exists()):
            assert time.monotonic() < deadline, "socat made no pseudo-terminals"
            time.sleep(0.02)

    def open_app(self) -> int:
        fd = os.open(self.app, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        import termios
        import tty

        tty.setraw(fd, termios.TCSANOW)
        return fd

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


@pytest.fixture
def ptys(tmp_path):
    pair = PtyPair(tmp_path)
    yield pair
    pair.close()


async def read_until(fd: int, predicate, timeout: float = 5.0) -> bytes:
    data = b""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate(data):
        assert asyncio.get_running_loop().time() < deadline, f"only {data!r} came"
        try:
            data += os.read(fd, 4096)
        except BlockingIOError:
            await asyncio.sleep(0.01)
    return data


def test_bytes_both_ways(ptys):
    async def go() -> None:
        received: list[bytes] = []
        links: list[bool] = []
        port = SerialTransport(str(ptys.board), 9600)
        port.start(received.append, lambda up, why: links.append(up))
        assert port.connected and links == [True]
        app = ptys.open_app()
        os.write(app, b"\x42\x45")
        while not received:
            await asyncio.sleep(0.01)
        assert b"".join(received) == b"\x42\x45"
        port.write(b"\x93\x00\x05\x01\x07")
        assert await read_until(app, lambda d: len(d) >= 5) == b"\x93\x00\x05\x01\x07"
        port.close()
        os.close(app)

    asyncio.run(go())


def test_a_missing_device_is_tried_again_until_it_appears(tmp_path, caplog):
    async def go() -> None:
        links: list[bool] = []
        port = SerialTransport(str(tmp_path / "board"), 38400, retry_s=0.05)
        with caplog.at_level(logging.WARNING, logger="magboard.emulation"):
            port.start(lambda data: None, lambda up, why: links.append(up))
            await asyncio.sleep(0.3)
        assert not port.connected and not links
        warnings = [r for r in caplog.records if "no such device" in r.getMessage()]
        assert len(warnings) == 1  # said once, not every try
        pair = PtyPair(tmp_path)
        try:
            for _ in range(100):
                if port.connected:
                    break
                await asyncio.sleep(0.02)
            assert port.connected and links == [True]
        finally:
            port.close()
            pair.close()

    asyncio.run(go())


def test_the_other_end_gone_is_a_lost_link_then_it_comes_back(tmp_path):
    async def go() -> None:
        links: list[bool] = []
        pair = PtyPair(tmp_path)
        port = SerialTransport(str(pair.board), 9600, retry_s=0.05)
        port.start(lambda data: None, lambda up, why: links.append(up))
        pair.close()
        for _ in range(100):
            if links[-1] is False:
                break
            await asyncio.sleep(0.02)
        assert links == [True, False]
        pair = PtyPair(tmp_path)
        for _ in range(200):
            if port.connected:
                break
            await asyncio.sleep(0.02)
        assert links == [True, False, True]
        port.close()
        pair.close()

    asyncio.run(go())


def test_an_app_that_reads_nothing_never_blocks_the_loop(ptys, caplog):
    async def go() -> None:
        port = SerialTransport(str(ptys.board), 9600)
        port.start(lambda data: None, lambda up, why: None)
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="magboard.emulation"):
            for _ in range(40):
                port.write(bytes(MAX_BUFFER // 8))
                await asyncio.sleep(0)
        # A blocked write would hang for good (nobody reads the pty): a generous bound
        # catches that without measuring a loaded machine's speed.
        assert time.monotonic() - started < 10.0
        drops = [r for r in caplog.records if "dropped" in r.getMessage()]
        # Said, and not once per write: the kernel may drain the pty's buffers a little
        # between writes on a loaded machine (a whole write goes through, then it stalls
        # again), so a second warning is possible, forty are not.
        assert 1 <= len(drops) <= 3, len(drops)
        port.close()

    asyncio.run(go())


def test_the_dgt_emulation_over_a_real_pseudo_terminal(ptys):
    async def go() -> None:
        door = FakeDoor(clock=LoopClock())
        emulation = await Emulation(
            door, DgtSession, SerialTransport(str(ptys.board), 9600)
        ).start()
        app_fd = ptys.open_app()
        app = DgtApp()
        os.write(app_fd, bytes([0x4D, 0x42, 0x4B]))  # version, board, update mode
        app.feed(await read_until(app_fd, lambda d: len(d) >= 5 + 67))
        assert app.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        door.lift("g1")
        await asyncio.sleep(0.05)
        door.place("f3")
        app.feed(await read_until(app_fd, lambda d: len(d) >= 10))
        assert app.fen() == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"
        await emulation.stop()
        os.close(app_fd)

    asyncio.run(go())


def test_a_port_another_emulation_holds_is_busy(ptys, caplog):
    async def go() -> None:
        first = SerialTransport(str(ptys.board), 9600)
        first.start(lambda data: None, lambda up, why: None)
        second = SerialTransport(str(ptys.board), 9600, retry_s=10)
        with caplog.at_level(logging.WARNING, logger="magboard.emulation"):
            second.start(lambda data: None, lambda up, why: None)
        assert first.connected and not second.connected
        second.close()
        first.close()

    asyncio.run(go())
    assert any("busy (another program has it open)" in r.getMessage() for r in caplog.records)
