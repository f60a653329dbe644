"""A small door of our own (the :class:`board_driver.door.Door` protocol's reading side),
for testing the publisher without a daemon: a game played by calls, a store of games,
and bounded subscriptions that overflow as the door's do.

The real rules decide every move (``rules.Game``), so SAN, UCI, FEN and results are the
board's own, not written by hand here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import tempfile
import time
from pathlib import Path
from typing import Any

import rules
from board_driver.door import Snapshot
from board_driver.physical.frame import Frame


def make_snapshot(**fields: Any) -> Snapshot:
    """A Snapshot with these fields, and None for any field the door adds later (the fake
    says what it knows; a new field must not break it)."""
    for f in dataclasses.fields(Snapshot):
        if f.name not in fields and f.default is dataclasses.MISSING and (
            f.default_factory is dataclasses.MISSING
        ):
            fields[f.name] = None
    return Snapshot(**fields)


class FakeSubscription:
    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.lost = 0
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closed = False

    def put(self, event: dict[str, Any]) -> None:
        if self.closed:
            return
        if self._queue.qsize() >= self.maxsize:
            dropped = 0
            while not self._queue.empty():
                self._queue.get_nowait()
                dropped += 1
            self.lost += dropped
            self._queue.put_nowait({"type": "overflow", "lost": dropped, "t": 0})
        self._queue.put_nowait(event)

    def __aiter__(self):
        return self

    async def __anext__(self) -> dict[str, Any]:
        if self.closed:
            raise StopAsyncIteration
        return await self._queue.get()

    def get_nowait(self) -> dict[str, Any] | None:
        return None if self._queue.empty() else self._queue.get_nowait()

    def close(self) -> None:
        self.closed = True

    async def __aenter__(self) -> FakeSubscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class _StoredGame:
    def __init__(self, game_id: int, fen: str | None) -> None:
        self.id = game_id
        self.started = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace(
            "+00:00", "Z"
        )
        self.game = rules.Game(rules.Position.from_fen(fen) if fen else None)
        self.headers: dict[str, str] = {}
        self.result = "*"
        self.termination: str | None = None
        #: The board's clock as a snapshot reads it (``set_clock``), None: no clock.
        self.clock: dict[str, Any] | None = None


class FakeDoor:
    """The board as the publisher sees it; ``play``, ``take_back``, ``new_game``,
    ``set_headers`` and ``end_game`` change it and announce the event as the daemon does."""

    def __init__(self, state_dir: Path | None = None) -> None:
        self._t0 = time.monotonic()
        self._games: list[_StoredGame] = []
        self._subscriptions: list[FakeSubscription] = []
        self._folder = None if state_dir is not None else tempfile.TemporaryDirectory()
        self._state_dir = state_dir or Path(self._folder.name)
        #: The events connectors announced (``announce``), in order.
        self.announced: list[dict[str, Any]] = []
        self.new_game()

    @property
    def current(self) -> _StoredGame:
        return self._games[-1]

    # ------------------------------------------------------------------ reading

    def now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def state_dir(self) -> Path:
        return self._state_dir

    def announce(self, event: dict[str, Any]) -> None:
        event = {"t": self.now_ms(), **event}
        self.announced.append(event)
        for subscription in self._subscriptions:
            subscription.put(event)

    def subscribe(self, *, board: bool = False, lights: bool = False, maxsize: int = 256):
        subscription = FakeSubscription(maxsize)
        self._subscriptions.append(subscription)
        return subscription

    def snapshot(self) -> Snapshot:
        stored = self.current
        game = stored.game
        position = game.position
        return make_snapshot(
            game_id=stored.id,
            start_fen=game.start.fen(),
            fen=position.fen(),
            turn="white" if position.turn else "black",
            moves=tuple(game.san_moves()),
            ucis=tuple(m.uci() for m in game.moves),
            result=stored.result,
            termination=stored.termination,
            winner=None,
            check=False,
            in_sync=True,
            empty=(),
            fill=(),
            sensed=0,
            lights=Frame.off(),
            board_state="ok",
            options={},
            players={"white": "human", "black": "human"},
            player_states={},
            expected=None,
            hint=None,
            headers=dict(stored.headers),
            setup_pending=False,
            draw_offer=None,
            sim_pieces=None,
            timing={"settle_ms": 250, "pass_ms": 100},
            clock=dict(stored.clock) if stored.clock is not None else None,
        )

    def games(self) -> list[Any]:
        return [
            {
                "id": g.id,
                "started": g.started,
                "plies": len(g.game.moves),
                "result": g.result,
                "termination": g.termination,
            }
            for g in self._games
        ]

    def pgn(self, game_id: int | None = None) -> str:
        stored = self.current if game_id is None else self._find(game_id)
        headers = {"Event": f"magboard game {stored.id}", "Site": "magboard",
                   **stored.headers, "Result": stored.result}
        return stored.game.pgn(headers)

    # ------------------------------------------------------------------ changing it

    def play(self, *sans: str) -> None:
        for san in sans:
            move = self.current.game.push_san(san)
            ply = len(self.current.game.moves)
            san_text = self.current.game.san_moves()[-1]
            self._announce({"type": "move", "san": san_text, "uci": move.uci(), "ply": ply})
            outcome = self.current.game.outcome()
            if outcome is not None:
                self.current.result = outcome.result()
                self.current.termination = outcome.termination
                self._announce({"type": "game_over", "result": outcome.result()})

    def take_back(self, plies: int = 1) -> None:
        for _ in range(plies):
            self.current.game.pop()
        self.current.result, self.current.termination = "*", None
        self._announce({"type": "takeback", "plies": plies})

    def set_clock(self, control: str, clks: list[int | None], white_ms: int, black_ms: int) -> None:
        """The game's clock (a control as the board names it, each ply's %clk, the times)."""
        self.current.clock = {
            "control": control,
            "clks": list(clks),
            "white_ms": white_ms,
            "black_ms": black_ms,
            "state": "running",
        }
        self._announce({"type": "clock", "action": "adjust"})

    def end_game(self, termination: str, result: str) -> None:
        self.current.result, self.current.termination = result, termination
        self._announce({"type": "game_over", "result": result, "termination": termination})

    def new_game(self, fen: str | None = None) -> None:
        self._games.append(_StoredGame(len(self._games) + 1, fen))
        self._announce({"type": "new_game", "game_id": self.current.id})

    def set_headers(self, **headers: str) -> list[dict[str, Any]]:
        for name, value in headers.items():
            if value:
                self.current.headers[name] = value
            else:
                self.current.headers.pop(name, None)
        event = {"type": "headers", "headers": dict(self.current.headers)}
        self._announce(event)
        return [event]

    def _find(self, game_id: int) -> _StoredGame:
        for g in self._games:
            if g.id == game_id:
                return g
        raise LookupError(f"no game {game_id}")

    def _announce(self, event: dict[str, Any]) -> None:
        event = {"t": self.now_ms(), **event}
        for subscription in self._subscriptions:
            subscription.put(event)
