"""ChessnutPy's own Chessnut Air driver in the phone's machine, run as its program runs it.

ChessnutPy (staubsauger/ChessnutPy, GPL-3.0) is not part of magboard: the test passes its
``ChessnutAir.py`` and ``ChessnutAir_Helpers/constants.py`` in (``--chessnutpy DIR``). Its
``ChessnutAir`` class finds a board by name (``discover``), connects, subscribes to its three
notify characteristics, sends its initialisation and calls the program's ``game_loop``; the
program gets ``piece_up``/``piece_down`` for each square that changed, reads the board with
``board_state_as_fen()`` and lights squares through ``to_light``, which ``board_has_changed``
sends with ``change_leds`` every 0.4 s while it waits (ChessnutPy's own ``BoardGame`` waits so).
This harness is that program, and nothing else: its ``game_loop`` waits for the board to
change, for as long as the app runs; what the driver read and did is kept for the report.

The phone walking away is the app closed: its ``run`` task cancelled (bleak disconnects on
the way out); coming back is ``run`` started again, as when the program is started again.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any


def harnessed(directory: str) -> Any:
    """The driver's class, with the program's part filled in (imported from ``directory``)."""
    sys.path.insert(0, directory)
    import chess
    from ChessnutAir import ChessnutAir

    class Program(ChessnutAir):
        def __init__(self) -> None:
            super().__init__()
            self.started = time.monotonic()
            #: Each position the driver read: its time (s) and ``board_state_as_fen()``.
            self.readings: list[dict[str, Any]] = []
            self.pieces: list[list[Any]] = []
            self.notifications = 0
            self.largest = 0
            self.whole = True

        async def piece_up(self, square: int, piece: Any) -> None:
            self.pieces.append(["up", chess.square_name(square), piece.symbol()])

        async def piece_down(self, square: int, piece: Any) -> None:
            self.pieces.append(["down", chess.square_name(square), piece.symbol()])

        async def button_pressed(self, button: int) -> None:
            self.pieces.append(["button", button])

        async def game_loop(self) -> None:
            while True:
                await self.board_has_changed(timeout=1.0)

        async def _board_handler(self, characteristic: Any, data: bytearray) -> None:
            self.notifications += 1
            self.largest = max(self.largest, len(data))
            self.whole = self.whole and len(data) == 38 and data[:2] == b"\x01\x24"
            await super()._board_handler(characteristic, data)
            self.readings.append({"t": round(time.monotonic() - self.started, 3),
                                  "fen": self.board_state_as_fen()})  # fmt: skip

    return Program


class ChessnutPyView:
    """The driver as ``ble_game.py``'s view: what it read, its LEDs, its leaving and coming
    back."""

    def __init__(self, directory: str) -> None:
        import chess

        self.chess = chess
        self.driver = harnessed(directory)()
        self.task: asyncio.Task | None = None
        self.seen = 0  # positions read when the app last (re)started

    async def start(self) -> None:
        await self.driver.connect()  # ChessnutPy's discovery: a name with "Chessnut Air"
        self._run()

    def _run(self) -> None:
        self.seen = len(self.driver.readings)
        self.task = asyncio.get_running_loop().create_task(self.driver.run())

    def ready(self) -> bool:
        return len(self.driver.readings) > self.seen

    def board_fen(self) -> str:
        return self.driver.readings[-1]["fen"] if self.driver.readings else ""

    @property
    def found(self) -> dict[str, Any]:
        device = self.driver._device
        return {"name": device.name, "address": device.address}

    async def mtu(self) -> int:
        """The MTU BlueZ negotiated for the driver's connection (bleak asks when told)."""
        client = self.driver._connection
        try:
            await client._backend._acquire_mtu()
        except Exception:
            pass
        return client.mtu_size

    def show(self, squares: list[int]) -> None:
        self.driver.to_light = self.chess.SquareSet(squares)

    def lights_off(self) -> None:
        self.driver.to_light = self.chess.SquareSet()

    async def drop(self) -> None:
        assert self.task is not None
        self.task.cancel()
        try:
            await self.task
        except asyncio.CancelledError:
            pass

    async def come_back(self) -> None:
        self._run()
