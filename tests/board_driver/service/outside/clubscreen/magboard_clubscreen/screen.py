"""The club screen at work: a task following the door's events."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from board_driver.door import ActionRefused, Door, Frame, square

log = logging.getLogger("magboard_clubscreen")


class Screen:
    def __init__(self, door: Door, section: Any) -> None:
        self.door = door
        self.section = section
        self.path = Path(section.seen_file)
        self.layer = door.light_layer("clubscreen")
        self.task: asyncio.Task[None] | None = None

    def start(self) -> Screen:
        events = self.door.subscribe()  # now, so that nothing after the start is missed
        self.task = asyncio.create_task(self._follow(events))
        self._write(f"started at ply {len(self.door.snapshot().moves)}")
        log.info("clubscreen: started")
        return self

    async def _follow(self, subscription: Any) -> None:
        async with subscription as events:
            async for event in events:
                if event["type"] == "move":
                    self._write(f"move {event['ply']} {event['san']} {event['uci']}")
                    to = square(event["to"])
                    self.layer.show(Frame.off().with_square(to, self.section.colour))
                    if event["ply"] == 1:
                        try:
                            self.door.set_headers(Event=self.section.event)
                        except ActionRefused as why:
                            self._write(f"refused: {why}")
                        self.door.announce({"type": "clubscreen", "note": "the event named"})
                elif event["type"] == "game_over":
                    self._write(f"over {event['result']} {event['termination']}")
                elif event["type"] == "overflow":
                    self._write(f"lost {event['lost']}: now at {self.door.snapshot().fen}")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        self.layer.show(None)
        # The board is still there when its extensions stop: its snapshot says where it is.
        self._write(f"stopped at ply {len(self.door.snapshot().moves)}")
        log.info("clubscreen: stopped")

    def _write(self, line: str) -> None:
        with self.path.open("a", encoding="utf-8") as file:
            file.write(line + "\n")
