"""Replaying a recorded conversation against the emulation.

A recording is the emulation's own trace (``[emulation] trace``: JSON lines with the
daemon's time ``t`` in ms) of a real program driving it through the real daemon: the
``start`` (protocol, position, sensed squares, pass time), every door ``event`` as the
emulation received it, every byte ``in`` from the program and ``out`` to it, and the
port's ``link`` changes. :func:`replay` feeds the same events and bytes, at the same times
on a virtual clock, to a fresh emulation on a :class:`ReplayDoor`, and returns what it
sends, to be compared with what was sent then.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from board_driver.physical.frame import Frame
from rules import Game, Position
from tests.board_driver.connectors.emulation.fakes import (
    FakeLayer,
    FakeSubscription,
    VirtualClock,
    make_snapshot,
)
from tests.board_driver.connectors.emulation.rig import SESSIONS


@dataclass
class Recording:
    meta: dict[str, Any]
    start: dict[str, Any]
    start_t: int
    records: list[dict[str, Any]]
    driver: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Recording:
        data = json.loads(path.read_text())
        trace = data["trace"]
        first = trace[0]
        assert "start" in first, f"{path}: a trace begins with its start"
        return cls(data["meta"], first["start"], first["t"], trace[1:], data.get("driver", []))

    def sent(self) -> list[tuple[int, bytes]]:
        return [(r["t"], bytes.fromhex(r["out"])) for r in self.records if "out" in r]


class ReplayDoor:
    """The door as the recorded events say it was (a game rebuilt from them)."""

    def __init__(self, clock: VirtualClock, start: dict[str, Any]) -> None:
        self.clock = clock
        self.game = Game(Position.from_fen(start["fen"]))
        self.sensed = int(start["sensed"], 16)
        self.pass_ms = start["pass_ms"]
        self.subscriptions: list[FakeSubscription] = []
        self.layers: dict[str, FakeLayer] = {}
        #: The board's clock as the emulation read it (its trace's ``clock`` records).
        self.clock_reading: dict[str, Any] | None = start.get("clock")

    def now_ms(self) -> int:
        return self.clock.now

    def snapshot(self) -> Any:
        position = self.game.position
        return make_snapshot(
            game_id=1, start_fen=self.game.start.fen(), fen=position.fen(),
            turn="white" if position.turn else "black", moves=tuple(self.game.san_moves()),
            ucis=tuple(str(m) for m in self.game.moves), result="*", termination=None,
            winner=None, check=False, in_sync=True, empty=(), fill=(), sensed=self.sensed,
            lights=Frame.off(), board_state="ok", options={}, players={}, player_states={},
            awaiting=None,
            expected=None, hint=None, headers={}, setup_pending=False, draw_offer=None,
            sim_pieces=None, timing={"pass_ms": self.pass_ms}, clock=self.clock_reading,
        )  # fmt: skip

    def subscribe(self, *, board: bool = False, lights: bool = False, maxsize: int = 256):
        subscription = FakeSubscription(self, board, maxsize)  # type: ignore[arg-type]
        self.subscriptions.append(subscription)
        return subscription

    def light_layer(self, name: str) -> FakeLayer:
        return self.layers.setdefault(name, FakeLayer(name))

    def publish(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind in ("lift", "place"):
            from board_driver.physical.squares import square

            bit = 1 << square(event["square"])
            self.sensed = self.sensed | bit if kind == "place" else self.sensed & ~bit
        elif kind == "move" and not event.get("replaces"):
            self.game.push_uci(event["uci"])
        elif kind in ("move", "promotion_amended"):  # the last move, named again
            self.game.pop()
            self.game.push_uci(event["uci"])
        elif kind == "takeback":
            self.game.pop()
        elif kind == "new_game":
            self.game = Game(Position.from_fen(event["fen"]))
        for subscription in list(self.subscriptions):
            subscription.put(event)


class ReplayTransport:
    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.sent: list[tuple[int, bytes]] = []
        self.on_data: Any = None
        self.on_link: Any = None

    def start(self, on_data, on_link) -> None:
        self.on_data, self.on_link = on_data, on_link

    def write(self, data: bytes) -> None:
        self.sent.append((self.clock.now, data))

    def close(self) -> None:
        pass


async def _pump(door: ReplayDoor) -> None:
    for _ in range(3):
        await asyncio.sleep(0)
    while any(not s.queue.empty() for s in door.subscriptions):
        await asyncio.sleep(0)
    await asyncio.sleep(0)


async def _replay(recording: Recording) -> tuple[list[tuple[int, bytes]], ReplayDoor]:
    from board_driver.connectors.emulation.connector import Emulation

    clock = VirtualClock()
    clock.now = recording.start_t
    door = ReplayDoor(clock, recording.start)
    transport = ReplayTransport(clock)
    emulation = Emulation(
        door, SESSIONS[recording.start["protocol"]], transport, call_at=clock.call_at
    )
    await emulation.start()

    async def until(t: int) -> None:
        while (due := clock.next_due()) is not None and due <= t:
            clock.run_next()
            await _pump(door)
        clock.now = max(clock.now, t)

    records = recording.records
    for index, record in enumerate(records):
        await until(record["t"])
        if "event" in record:
            following = records[index + 1] if index + 1 < len(records) else {}
            if "clock" in following:  # what the emulation read of the clock after it
                door.clock_reading = following["clock"]
            door.publish(record["event"])
        elif "in" in record:
            transport.on_data(bytes.fromhex(record["in"]))
        elif "link" in record:
            transport.on_link(record["link"]["up"], record["link"]["reason"])
        await _pump(door)
    await until(recording.records[-1]["t"] + 1000)
    await emulation.stop()
    return transport.sent, door


def replay(recording: Recording) -> tuple[list[tuple[int, bytes]], ReplayDoor]:
    """What a fresh emulation sends for the recorded events and bytes, with its times."""
    return asyncio.run(_replay(recording))
