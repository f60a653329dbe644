"""A small door for the Lichess player's unit tests: the real tracker, a simulated board.

It keeps to :class:`board_driver.door.Door`: the tracker (the daemon's own) judges the
simulated board's lifts and places in real time, the games live in memory (a stand-in
for the store, with each game's data and headers), and events reach subscribers through
queues. The end-to-end tests run the real daemon instead.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import rules
from board_driver.arbiter.tracker import GameOptions, Tracker
from board_driver.door import ActionRefused, Snapshot
from board_driver.physical.events import Choose, Lift, Place
from board_driver.physical.squares import square, square_name, squares_of


@dataclass
class StoredGame:
    id: int
    tracker: Tracker
    headers: dict[str, str] = field(default_factory=dict)
    data: dict[str, dict[str, str]] = field(default_factory=dict)
    players: dict[str, str] = field(default_factory=lambda: {"white": "human", "black": "human"})
    online: bool = False


class _Subscription:
    def __init__(self, door: FakeDoor, board: bool) -> None:
        self.door, self.board, self.lost = door, board, 0
        self.queue: asyncio.Queue = asyncio.Queue()

    def __aiter__(self) -> _Subscription:
        return self

    async def __anext__(self) -> dict[str, Any]:
        item = await self.queue.get()
        if item is None:
            raise StopAsyncIteration
        return item

    def get_nowait(self) -> dict[str, Any] | None:
        return None if self.queue.empty() else self.queue.get_nowait()

    def close(self) -> None:
        if self in self.door.subscribers:
            self.door.subscribers.remove(self)
            self.queue.put_nowait(None)

    async def __aenter__(self) -> _Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class _Layer:
    def __init__(self, name: str) -> None:
        self.name, self.frame = name, None

    def show(self, frame: Any) -> None:
        self.frame = frame


class FakeDoor:
    """The door over a real tracker and a simulated board (see the module docstring)."""

    def __init__(self, settle_ms: int = 60) -> None:
        self.loop = asyncio.get_running_loop()
        self.start = time.monotonic()
        self.settle_ms = settle_ms
        self.pieces = rules.Position().occupancy()
        self.stored: dict[int, StoredGame] = {}
        self.current = self._new_stored(rules.Game(), {}, False)
        self.subscribers: list[_Subscription] = []
        self.registered: dict[str, Any] = {}
        self.layers: dict[str, _Layer] = {}
        self.log: list[dict[str, Any]] = []  # every event announced
        self._timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ helpers

    def _new_stored(self, game: rules.Game, options: Mapping[str, Any], online: bool):
        from board_driver.arbiter.tracker import Timing

        opts = GameOptions(**{**{"touch_move": "warn"}, **options})
        tracker = Tracker(
            game,
            options=opts,
            timing=Timing(settle_ms=self.settle_ms, pass_ms=20),
            board=self.pieces,
        )
        stored = StoredGame(len(self.stored) + 1, tracker, online=online)
        self.stored[stored.id] = stored
        return stored

    @property
    def tracker(self) -> Tracker:
        return self.current.tracker

    def _publish(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for event in events:
            event.setdefault("t", self.now_ms())
            self.log.append(event)
            for sub in list(self.subscribers):
                if event["type"] in ("lift", "place") and not sub.board:
                    continue
                sub.queue.put_nowait(event)
        self._seat_other_side()
        self._schedule()
        return events

    def _seat_other_side(self) -> None:
        players = self.current.players
        others = [side for side in ("white", "black") if players[side] != "human"]
        tracker = self.tracker
        turn = "white" if tracker.game.position.turn == rules.WHITE else "black"
        side = turn if len(others) == 2 else (others[0] if others else None)
        color = None if side is None else (rules.WHITE if side == "white" else rules.BLACK)
        if tracker.other_side != color:
            tracker.set_other_side(color)

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        due = self.tracker.next_due()
        if due is not None:
            delay = max(0, due - self.now_ms()) / 1000
            self._timer = self.loop.call_later(delay + 0.001, self._tick)

    def _tick(self) -> None:
        self._timer = None
        self._publish(self.tracker.tick(self.now_ms()))

    # ------------------------------------------------------------------ hands at the board

    async def move(self, uci: str, *, gap_s: float = 0.02) -> None:
        """Play ``uci`` by hand (captures victim first; castling king then rook)."""
        position = self.tracker.game.position
        move = position.parse_uci(uci)
        steps: list[tuple[str, int]] = []
        if move.is_capture:
            steps.append(("lift", move.captured_square))
        steps += [("lift", move.from_square), ("place", move.to_square)]
        if move.is_castling:
            steps += [("lift", move.rook_from), ("place", move.rook_to)]
        for kind, sq in steps:
            (self.lift if kind == "lift" else self.place)(sq)
            await asyncio.sleep(gap_s)
        await self.wait_settled()

    async def wait_settled(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while self.tracker.next_due() is not None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

    # ------------------------------------------------------------------ the door

    def snapshot(self) -> Snapshot:
        tracker = self.tracker
        game = tracker.game
        outcome = game.outcome()
        empty, fill = tracker.to_put_right()
        return Snapshot(
            game_id=self.current.id,
            start_fen=game.start.fen(),
            fen=game.position.fen(),
            turn="white" if game.position.turn == rules.WHITE else "black",
            moves=tuple(game.san_moves()),
            ucis=tuple(str(m) for m in game.moves),
            result="*" if outcome is None else outcome.result(),
            termination=None if outcome is None else outcome.termination,
            winner=None
            if outcome is None or outcome.winner is None
            else ("white" if outcome.winner == rules.WHITE else "black"),
            check=game.position.is_check() and outcome is None,
            in_sync=tracker.in_sync,
            empty=tuple(square_name(s) for s in squares_of(empty)),
            fill=tuple(square_name(s) for s in squares_of(fill)),
            sensed=self.pieces,
            lights=tracker.frame(),
            board_state="ok",
            options={
                "touch_move": tracker.options.touch_move,
                "takeback": tracker.options.takeback,
                "hints": tracker.options.hints,
            },
            players=dict(self.current.players),
            player_states={name: p.state() for name, p in self.registered.items()},
            awaiting=None,
            expected=None if tracker.expected is None else str(tracker.expected),
            hint=None,
            headers=dict(self.current.headers),
            online=True,
            asks=tuple(tracker.asks()),
            setup_pending=False,
            draw_offer=None,
            sim_pieces=self.pieces,
            timing={"settle_ms": self.settle_ms, "pass_ms": 20},
        )

    def subscribe(self, *, board: bool = False, lights: bool = False, maxsize: int = 256):
        sub = _Subscription(self, board)
        self.subscribers.append(sub)
        return sub

    def now_ms(self) -> int:
        return int((time.monotonic() - self.start) * 1000)

    def games(self) -> list[Any]:
        from types import SimpleNamespace

        out = []
        for g in self.stored.values():
            outcome = g.tracker.game.outcome()
            result = "*" if outcome is None else outcome.result()
            termination = None if outcome is None else outcome.termination
            out.append(SimpleNamespace(id=g.id, result=result, termination=termination))
        return out

    def players(self) -> dict[str, str]:
        return dict(self.current.players)

    def lift(self, sq: str | int) -> None:
        sq = square(sq) if isinstance(sq, str) else sq
        if not self.pieces >> sq & 1:
            raise ActionRefused(f"no piece on {square_name(sq)}")
        self.pieces &= ~(1 << sq)
        t = self.now_ms()
        self._publish([{"t": t, "type": "lift", "square": square_name(sq)}])
        self._publish(self.tracker.handle(Lift(t, sq)))

    def place(self, sq: str | int) -> None:
        sq = square(sq) if isinstance(sq, str) else sq
        if self.pieces >> sq & 1:
            raise ActionRefused(f"a piece stands on {square_name(sq)}")
        self.pieces |= 1 << sq
        t = self.now_ms()
        self._publish([{"t": t, "type": "place", "square": square_name(sq)}])
        self._publish(self.tracker.handle(Place(t, sq)))

    def choose(self, piece: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        return self._publish(self.tracker.handle(Choose(self.now_ms(), piece)))

    def press(self, button: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        from board_driver.physical.events import Button

        return self._publish(self.tracker.handle(Button(self.now_ms(), button)))

    def new_game(
        self,
        fen=None,
        *,
        variant=None,
        options=None,
        headers=None,
        players=None,
        moves=(),
        online=False,
    ):
        variant = variant or "standard"
        start = rules.Position.from_fen(fen, variant=variant) if fen else rules.Position()
        game = rules.Game(start)
        for uci in moves:
            game.push_uci(uci)
        stored = self._new_stored(game, options or {}, online)
        stored.players.update(self.current.players)
        stored.players.update(players or {})
        stored.headers.update(headers or {})
        self.current = stored
        fen_now = game.position.fen()
        return self._publish([{"type": "new_game", "fen": fen_now, "game_id": stored.id}])

    def resume_game(self, game_id: int) -> list[dict[str, Any]]:
        if game_id not in self.stored:
            raise LookupError(f"no game {game_id}")
        self.current = self.stored[game_id]
        tracker = self.tracker
        self.current.tracker = Tracker(
            tracker.game, options=tracker.options, timing=tracker.timing, board=self.pieces
        )
        return self._publish([{"type": "new_game", "fen": tracker.game.position.fen()}])

    def game_data(self, name: str, game_id: int | None = None) -> dict[str, str]:
        stored = self.current if game_id is None else self.stored[game_id]
        return dict(stored.data.get(name, {}))

    def set_game_data(self, name: str, data: Mapping[str, str]) -> None:
        self.current.data[name] = {str(k): str(v) for k, v in data.items()}

    def set_options(self, **options: Any) -> list[dict[str, Any]]:
        import dataclasses

        self.tracker.options = dataclasses.replace(self.tracker.options, **options)
        return self._publish([{"type": "options", **options}])

    def set_headers(self, **headers: str) -> list[dict[str, Any]]:
        self.current.headers.update(headers)
        return self._publish([{"type": "headers", "headers": headers}])

    def set_player(
        self, side: str, player: str, settings=None, *, this_game=True, new_games=True
    ) -> list[dict[str, Any]]:
        self.current.players[side] = player
        return self._publish([{"type": "players", **self.current.players}])

    def end_game(self, termination: str, winner: str | None, *, t_ms=None):
        color = None if winner is None else (rules.WHITE if winner == "white" else rules.BLACK)
        try:
            events = self.tracker.end_game(termination, color, self.now_ms())
        except ValueError as exc:
            raise ActionRefused(str(exc)) from exc
        return self._publish(events)

    def take_back(self, plies: int = 1, *, t_ms=None) -> list[dict[str, Any]]:
        try:
            events = self.tracker.take_back(plies, self.now_ms())
        except ValueError as exc:
            raise ActionRefused(str(exc)) from exc
        return self._publish(events)

    def add_player(self, player: Any) -> None:
        self.registered[player.name] = player

    def expect(self, move: str, *, t_ms=None) -> list[dict[str, Any]]:
        self._seat_other_side()
        try:
            events = self.tracker.expect(move, self.now_ms())
        except ValueError as exc:
            raise ActionRefused(str(exc)) from exc
        return self._publish(events)

    def show_hint(self, move: str | None) -> None:
        pass

    async def command(self, player: str, action: str, args=None):
        return await self.registered[player].command(action, args or {})

    def announce(self, event: dict[str, Any]) -> None:
        self._publish([dict(event)])

    def light_layer(self, name: str) -> _Layer:
        return self.layers.setdefault(name, _Layer(name))

    def call_soon_threadsafe(self, callback: Callable[..., Any], *args: Any) -> None:
        self.loop.call_soon_threadsafe(callback, *args)

    # ------------------------------------------------------------------ for the tests' eyes

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.log if e["type"] == kind]
