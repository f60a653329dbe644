"""A door on a real tracker, a clock the test moves, and a transport that is a list.

:class:`FakeDoor` is the :class:`board_driver.door.Door` protocol as far as a connector
uses it (snapshot, subscribe, now_ms, light_layer), written from ``door.py``: its game is
a real :class:`~board_driver.arbiter.tracker.Tracker`, fed lifts and places as the daemon
would feed it (already debounced), its events published to every subscriber. Time is a
:class:`VirtualClock`: ``clock.run_until(t)`` runs every timer due by ``t`` in order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import heapq
import itertools
from collections.abc import Callable
from typing import Any

from board_driver.arbiter.tracker import GameOptions, Timing, Tracker
from board_driver.door import Snapshot
from board_driver.physical.events import Button, Choose, Lift, Place
from board_driver.physical.frame import Frame
from board_driver.physical.squares import square, square_name, squares_of
from rules import Game, Position

DEFAULT_TIMING = Timing()
#: Touch-move off: the generated games may lift a piece and move another.
NO_TOUCH_MOVE = GameOptions(touch_move="off")


def make_snapshot(**values: Any) -> Snapshot:
    """A Snapshot with ``values``; any other field without a default is None (the fakes
    give what a connector reads, and keep working when the door's snapshot grows)."""
    for f in dataclasses.fields(Snapshot):
        if (
            f.name not in values
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        ):
            values[f.name] = None
    return Snapshot(**values)


class Handle:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class VirtualClock:
    """Milliseconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 0
        self._timers: list[tuple[int, int, Handle, Callable[[], None]]] = []
        self._order = itertools.count()

    def call_at(self, due_ms: int, callback: Callable[[], None]) -> Handle:
        handle = Handle()
        heapq.heappush(self._timers, (due_ms, next(self._order), handle, callback))
        return handle

    def next_due(self) -> int | None:
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0][0] if self._timers else None

    def run_next(self) -> None:
        """Run the earliest timer (the clock moves to its time)."""
        due, _, handle, callback = heapq.heappop(self._timers)
        self.now = max(self.now, due)
        if not handle.cancelled:
            callback()

    def run_until(self, t_ms: int) -> None:
        while self._timers and self._timers[0][0] <= t_ms:
            due, _, handle, callback = heapq.heappop(self._timers)
            if not handle.cancelled:
                self.now = max(self.now, due)
                callback()
        self.now = max(self.now, t_ms)


class LoopClock:
    """Real milliseconds, on the running asyncio loop (for tests over a real device)."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._start = self._loop.time()

    @property
    def now(self) -> int:
        return int((self._loop.time() - self._start) * 1000)

    def call_at(self, due_ms: int, callback: Callable[[], None]) -> asyncio.TimerHandle:
        return self._loop.call_at(self._start + (due_ms + 1) / 1000, callback)


class FakeSubscription:
    def __init__(self, door: FakeDoor, board: bool, maxsize: int) -> None:
        self.door, self.board, self.maxsize = door, board, maxsize
        self.queue: asyncio.Queue = asyncio.Queue()
        self.lost = 0
        self.closed = False

    def put(self, event: dict[str, Any]) -> None:
        if self.closed or (event["type"] in ("lift", "place") and not self.board):
            return
        if self.queue.qsize() >= self.maxsize:
            self.lost += self.queue.qsize()
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait({"t": self.door.now_ms(), "type": "overflow", "lost": self.lost})
            return
        self.queue.put_nowait(event)

    def __aiter__(self):
        return self

    async def __anext__(self) -> dict[str, Any]:
        if self.closed:
            raise StopAsyncIteration
        return await self.queue.get()

    def get_nowait(self) -> dict[str, Any] | None:
        return None if self.queue.empty() else self.queue.get_nowait()

    def close(self) -> None:
        self.closed = True
        if self in self.door.subscriptions:
            self.door.subscriptions.remove(self)

    async def __aenter__(self) -> FakeSubscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class FakeLayer:
    def __init__(self, name: str) -> None:
        self.name = name
        self.frame: Frame | None = None
        self.shown: list[Frame | None] = []

    def show(self, frame: Frame | None) -> None:
        self.frame = frame
        self.shown.append(frame)

    def lit(self) -> dict[str, str]:
        """Lit squares by name: the frame letter, upper case when blinking."""
        if self.frame is None:
            return {}
        rows = self.frame.rows()
        return {
            square_name((7 - r) * 8 + f): rows[r][f]
            for r in range(8)
            for f in range(8)
            if rows[r][f] != "."
        }


class FakeDoor:
    """The door, on a real tracker, on a virtual clock (see the module docstring)."""

    def __init__(
        self,
        fen: str | None = None,
        *,
        clock: VirtualClock | LoopClock | None = None,
        timing: Timing = DEFAULT_TIMING,
        options: GameOptions = NO_TOUCH_MOVE,
        board_events_first: bool = True,
    ) -> None:
        self.clock = clock or VirtualClock()
        start = Position.from_fen(fen) if fen else Position()
        self.tracker = Tracker(Game(start), options=options, timing=timing)
        self.sensed = start.occupancy()
        self.subscriptions: list[FakeSubscription] = []
        self.layers: dict[str, FakeLayer] = {}
        self.events: list[dict[str, Any]] = []
        self.board_events_first = board_events_first
        self._tick: Handle | None = None

    # ------------------------------------------------------------------ the Door's reading

    def now_ms(self) -> int:
        return self.clock.now

    def snapshot(self) -> Snapshot:
        game = self.tracker.game
        outcome = game.outcome()
        return make_snapshot(
            game_id=1,
            start_fen=game.start.fen(),
            fen=game.position.fen(),
            turn="white" if game.position.turn else "black",
            moves=tuple(game.san_moves()),
            ucis=tuple(str(m) for m in game.moves),
            result=outcome.result() if outcome else "*",
            termination=outcome.termination if outcome else None,
            winner=None,
            check=game.position.is_check(),
            in_sync=self.tracker.in_sync,
            empty=(),
            fill=(),
            sensed=self.sensed,
            lights=self.tracker.frame(),
            board_state="ok",
            options={},
            players={"white": "human", "black": "human"},
            player_states={},
            awaiting=None,
            expected=None,
            hint=None,
            headers={},
            setup_pending=self.tracker.setting_up,
            setup=self.tracker.setup_state(),
            draw_offer=None,
            sim_pieces=self.sensed,
            timing={
                "settle_ms": self.tracker.timing.settle_ms,
                "pass_ms": self.tracker.timing.pass_ms,
            },
        )

    def subscribe(
        self, *, board: bool = False, lights: bool = False, maxsize: int = 256
    ) -> FakeSubscription:
        subscription = FakeSubscription(self, board, maxsize)
        self.subscriptions.append(subscription)
        return subscription

    def light_layer(self, name: str) -> FakeLayer:
        return self.layers.setdefault(name, FakeLayer(name))

    # ------------------------------------------------------------------ the board

    def lift(self, name: str | int) -> None:
        sq = square(name) if isinstance(name, str) else name
        assert self.sensed >> sq & 1, f"nothing to lift on {square_name(sq)}"
        self.sensed &= ~(1 << sq)
        self._board_event("lift", sq, Lift(self.now_ms(), sq))

    def place(self, name: str | int) -> None:
        sq = square(name) if isinstance(name, str) else name
        assert not self.sensed >> sq & 1, f"{square_name(sq)} is taken"
        self.sensed |= 1 << sq
        self._board_event("place", sq, Place(self.now_ms(), sq))

    def choose(self, piece: str) -> None:
        self._publish(self.tracker.handle(Choose(self.now_ms(), piece)))

    def press(self, button: str) -> None:
        self._publish(self.tracker.handle(Button(self.now_ms(), button)))

    def _board_event(self, kind: str, sq: int, event: Lift | Place) -> None:
        board = {"t": self.now_ms(), "type": kind, "square": square_name(sq)}
        found = self.tracker.handle(event)
        self._publish([board, *found] if self.board_events_first else [*found, board])

    def _publish(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            self.events.append(event)
            for subscription in list(self.subscriptions):
                subscription.put(event)
        due = self.tracker.next_due()
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        if due is not None:
            self._tick = self.clock.call_at(due, self._judge)

    def _judge(self) -> None:
        self._tick = None
        self._publish(self.tracker.tick(self.now_ms()))

    def occupied(self) -> list[str]:
        return [square_name(sq) for sq in squares_of(self.sensed)]


class FakeTransport:
    """What the emulation writes, with the clock's time; ``feed`` is the app talking."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.written: list[tuple[int, bytes]] = []
        self.on_data: Callable[[bytes], None] | None = None
        self.on_link: Callable[[bool, str], None] | None = None
        self.closed = False

    def start(self, on_data, on_link) -> None:
        self.on_data, self.on_link = on_data, on_link
        on_link(True, "")

    def write(self, data: bytes) -> None:
        self.written.append((self.clock.now, data))

    def close(self) -> None:
        self.closed = True

    def feed(self, data: bytes) -> None:
        assert self.on_data is not None
        self.on_data(data)

    def take(self) -> bytes:
        """Everything written since the last take."""
        data = b"".join(d for _, d in self.written)
        self.written.clear()
        return data
