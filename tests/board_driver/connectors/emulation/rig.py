"""The emulation on a fake door and a fake transport, on a virtual clock, with an app's
reader of what it sends: everything a test needs to play a game and look at the app."""

from __future__ import annotations

import asyncio
from typing import Any

from board_driver.arbiter.tracker import GameOptions, Timing
from board_driver.boardscript.script import Script
from board_driver.connectors.emulation.chesslink import ChessLinkSession
from board_driver.connectors.emulation.chessnut import ChessnutSession
from board_driver.connectors.emulation.connector import Emulation
from board_driver.connectors.emulation.dgt import DgtSession
from board_driver.connectors.emulation.pegasus import PegasusSession
from board_driver.physical.events import Button, Choose, Lift, Place
from tests.board_driver.connectors.emulation.apps import (
    ChessLinkApp,
    ChessnutApp,
    DgtApp,
    PegasusApp,
)
from tests.board_driver.connectors.emulation.fakes import (
    DEFAULT_TIMING,
    NO_TOUCH_MOVE,
    FakeDoor,
    FakeTransport,
    VirtualClock,
)

SESSIONS = {
    "dgt": DgtSession,
    "chesslink": ChessLinkSession,
    "pegasus": PegasusSession,
    "chessnut": ChessnutSession,
}
APPS = {"dgt": DgtApp, "chesslink": ChessLinkApp, "pegasus": PegasusApp, "chessnut": ChessnutApp}
MOVE_EVENTS = ("move", "promotion_amended")


class Rig:
    def __init__(
        self,
        protocol: str,
        fen: str | None = None,
        *,
        options: GameOptions = NO_TOUCH_MOVE,
        timing: Timing = DEFAULT_TIMING,
        board_events_first: bool = True,
        trace: Any = None,
    ) -> None:
        self.clock = VirtualClock()
        self.door = FakeDoor(
            fen,
            clock=self.clock,
            options=options,
            timing=timing,
            board_events_first=board_events_first,
        )
        self.transport = FakeTransport(self.clock)
        self.emulation = Emulation(
            self.door,
            SESSIONS[protocol],
            self.transport,
            call_at=self.clock.call_at,
            trace=trace,
        )
        self.app = APPS[protocol]()

    async def start(self) -> Rig:
        await self.emulation.start()
        await self.pump()
        return self

    async def stop(self) -> None:
        await self.emulation.stop()

    @property
    def layer(self):
        return self.door.layers["emulation"]

    async def pump(self) -> None:
        """Let the emulation take every event waiting for it."""
        for _ in range(3):
            await asyncio.sleep(0)
        while any(not s.queue.empty() for s in self.door.subscriptions):
            await asyncio.sleep(0)
        await asyncio.sleep(0)

    async def until(self, t_ms: int) -> None:
        """Move the clock to ``t_ms``, running every timer on the way in order."""
        while True:
            await self.pump()
            due = self.clock.next_due()
            if due is None or due > t_ms:
                break
            self.clock.run_next()
        self.clock.now = max(self.clock.now, t_ms)
        await self.pump()

    async def send(self, data: bytes) -> list:
        """The app sends ``data``; returns the messages it read back."""
        self.transport.feed(data)
        await self.pump()
        return self.read()

    def read(self) -> list:
        return self.app.feed(self.transport.take())

    async def play(self, item: Any) -> None:
        """One board-script item, at its time."""
        await self.until(item.t_ms)
        if isinstance(item, Lift):
            self.door.lift(item.square)
        elif isinstance(item, Place):
            self.door.place(item.square)
        elif isinstance(item, Choose):
            self.door.choose(item.piece)
        elif isinstance(item, Button):
            self.door.press(item.name)
        await self.pump()

    async def play_script(self, script: Script, *, after_move=None) -> int:
        """Every item of ``script``; ``after_move(rig, event)`` for each committed move
        once it has been told (the pass time after it), when the board is still until
        then. Returns how many moves were checked so."""
        self._checked = 0
        self._looked = 0
        for item in script.items:
            await self._advance_checking(item.t_ms, after_move)
            await self.play(item)
        await self._advance_checking(self.clock.now + 3000, after_move)
        self.read()
        return self._looked

    async def _advance_checking(self, target: int, after_move) -> None:
        quiet_ms = self.emulation.view.pass_ms + 50
        while True:
            moves = [e for e in self.door.events if e["type"] in MOVE_EVENTS]
            if self._checked < len(moves):
                quiet = moves[self._checked]["t"] + quiet_ms
                if quiet < target:
                    await self.until(quiet)
                    # Nothing touched since the move was committed (or in the lift that
                    # committed it), nothing committed after it?
                    move = moves[self._checked]
                    touched = any(
                        e["type"] in ("lift", "place") and e["t"] >= move["t"]
                        for e in self.door.events
                    )
                    latest = [e for e in self.door.events if e["type"] in MOVE_EVENTS]
                    if after_move is not None and not touched and len(latest) == self._checked + 1:
                        self.read()
                        after_move(self, moves[self._checked])
                        self._looked += 1
                    self._checked += 1
                    continue
                if self.clock.next_due() is None or self.clock.next_due() > target:
                    self._checked = len(moves)  # the board moves again before it is still
            due = self.clock.next_due()
            if due is None or due > target:
                await self.until(target)
                return
            await self.until(due)
