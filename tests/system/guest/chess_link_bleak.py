"""python-mchess's ChessLink transport over Bluetooth LE on bleak (ours, for the system test).

python-mchess (domschl/python-mchess) loads its transport by module name from
``chess_link_config.json`` (``"transport": "chess_link_bleak"``), as it loads its own
``chess_link_bluepy``. This one does what ``chess_link_bluepy`` does, on bleak, for which
python-mchess has no transport: a thread of its own; each command with its block check and
odd parity written with response, at least 0.1 s after the last; the answers reassembled
from notifications, their block check verified, and put on python-mchess's queue.

For the test it can also :meth:`drop` the connection (the phone walks away) and
:meth:`come_back`, as bluepy's reconnect does.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import threading
import time

import chess_link_protocol as clp
from bleak import BleakClient, BleakScanner

WRITE = "49535343-8841-43f4-a8d4-ecbe34729bb3"
NOTIFY = "49535343-1e4d-4bd9-ba61-23c647249616"
#: The transport python-mchess made, for the test to reach.
LAST: Transport | None = None


class Transport:
    def __init__(self, que, protocol_dbg=False):
        global LAST
        self.que = que
        self.log = logging.getLogger("ChessLinkBleak")
        self.adapter = os.environ.get("MCHESS_BLEAK_ADAPTER", "hci0")
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.client: BleakClient | None = None
        self.address: str | None = None
        self.chunks = ""
        self.writes: queue.Queue = queue.Queue()
        self.connected = threading.Event()
        self.notifications = 0
        self.largest = 0
        self.last_heard = self.last_written = time.monotonic()
        threading.Thread(target=self._writer, daemon=True).start()
        LAST = self

    # python-mchess's transport interface ------------------------------------------

    def is_init(self):
        return True

    def get_name(self):
        return "chess_link_bleak"

    def search_board(self, iface=0):
        return None  # the test names the board's address in the config

    def test_board(self, address):
        return "1.0"

    def open_mt(self, address):
        self.address = address
        return self._run(self._connect())

    def write_mt(self, msg):
        self.writes.put(msg)

    def quit(self):
        self._run(self._disconnect())

    # the test's -------------------------------------------------------------------

    def quiet(self, seconds: float) -> bool:
        """Nothing left to write, and nothing heard from the board for ``seconds``."""
        written = self.writes.unfinished_tasks == 0
        return written and time.monotonic() - max(self.last_heard, self.last_written) > seconds

    def drop(self) -> None:
        self._run(self._disconnect())

    def come_back(self) -> bool:
        return self._run(self._connect())

    # ---------------------------------------------------------------------------------

    def _run(self, coroutine, timeout: float = 120):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _connect(self) -> bool:
        device = await BleakScanner.find_device_by_address(
            self.address, timeout=60, bluez={"adapter": self.adapter}
        )
        if device is None:
            self.que.put("agent-state: offline board not found")
            return False
        self.client = BleakClient(device, timeout=60, bluez={"adapter": self.adapter})
        await self.client.connect()
        await self.client.start_notify(NOTIFY, self._notified)
        self.chunks = ""
        self.connected.set()
        self.que.put("agent-state: online Connected to ChessLink board via BLE (bleak)")
        return True

    async def _disconnect(self) -> None:
        self.connected.clear()
        if self.client is not None:
            await self.client.disconnect()
            self.client = None

    def _notified(self, _characteristic, data: bytearray) -> None:
        self.notifications += 1
        self.largest = max(self.largest, len(data))
        self.last_heard = time.monotonic()
        self.chunks += "".join(chr(b & 127) for b in data)
        while self.chunks:
            if self.chunks[0] not in clp.protocol_replies:
                self.chunks = self.chunks[1:]
                continue
            length = clp.protocol_replies[self.chunks[0]]
            if len(self.chunks) < length:
                return
            message, self.chunks = self.chunks[:length], self.chunks[length:]
            if clp.check_block_crc(message):
                self.que.put(message)

    def _writer(self) -> None:
        last = 0.0
        while True:
            message = self.writes.get()
            check = 0
            for char in message:
                check ^= ord(char)
            message += clp.hex2(check)
            data = bytes(clp.add_odd_par(c) for c in message)
            self.connected.wait()
            time.sleep(max(0.0, last + 0.1 - time.monotonic()))
            try:
                client = self.client
                if client is not None:
                    self._run(client.write_gatt_char(WRITE, data, response=True), 60)
            except Exception as exc:
                self.log.warning("bleak: failed to write %s: %s", message, exc)
            last = self.last_written = time.monotonic()
            self.writes.task_done()
