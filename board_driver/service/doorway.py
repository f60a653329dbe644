"""The daemon's side of the one door (:mod:`board_driver.door`): snapshots, bounded
subscriptions, and the actions, each turned into what the board's own path does.

Subscribers never hold up the board: :meth:`BoardDoor.publish` only appends to bounded
queues (a full queue is emptied and its subscriber told how many events it lost), and
every action runs on the loop in the time it takes the tracker to take one event.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import rules
from board_driver.door import HUMAN, SIDES, ActionRefused, Player, Snapshot, StoreUnavailable
from board_driver.physical.events import BUTTON_NAMES, PROMOTION_LETTERS, Button, Choose
from board_driver.physical.squares import square, square_name, squares_of
from board_driver.service.hands_journal import Decided, Expect
from board_driver.service.subscriptions import Subscription

log = logging.getLogger("magboard")

#: The most subscribers the door serves at once (a page per browser, a few connectors).
MAX_SUBSCRIBERS = 256


class Followed:
    """What the board only announces and a snapshot shows: a standing draw offer, followed
    from the events.

    >>> followed = Followed()
    >>> followed.follow([{"type": "draw_offer", "side": "white"}])
    >>> followed.draw_offer
    'white'
    """

    def __init__(self) -> None:
        self.draw_offer: str | None = None

    def follow(self, events: Sequence[Mapping[str, Any]]) -> None:
        for event in events:
            kind = event.get("type")
            if kind == "draw_offer":
                self.draw_offer = event.get("side")
            elif kind == "move" and self.draw_offer and event.get("side") != self.draw_offer:
                self.draw_offer = None  # the other side played instead of accepting
            elif kind in ("takeback", "game_over", "new_game", "new_game_pending"):
                self.draw_offer = None


def _side(color: bool) -> str:
    return "white" if color else "black"


def _color(side: str) -> bool:
    if side not in SIDES:
        raise ActionRefused(f"side: {side!r} is not one of {', '.join(SIDES)}")
    return side == "white"


class BoardDoor:
    """The door of one running daemon (``board``: the :class:`Daemon`, used only here)."""

    def __init__(self, board: Any) -> None:
        self._board = board
        self._subscribers: set[Subscription] = set()
        self._players: dict[str, Player] = {}
        #: Who plays each side in the game on the board, and in new games.
        self.seats: dict[str, str] = {side: HUMAN for side in SIDES}
        self.new_game_seats: dict[str, str] = {side: HUMAN for side in SIDES}
        self.followed = Followed()
        self._san_key: tuple | None = None
        self._san_moves: tuple[str, ...] = ()
        self._pending_seats: dict[str, str] | None = None

    # ------------------------------------------------------------------ reading

    def snapshot(self) -> Snapshot:
        board = self._board
        tracker = board.tracker
        game = tracker.game
        position = game.position
        outcome = game.outcome()
        empty, fill = (0, 0) if tracker.in_sync else tracker.to_put_right()
        question = (board.question.words(),) if board.question is not None else ()
        sim = board.hw.sim_board
        timing = tracker.timing
        return Snapshot(
            game_id=board.recorder.game_id,
            start_fen=game.start.fen(),
            fen=position.fen(),
            turn="white" if position.turn else "black",
            moves=self._san(game),
            ucis=tuple(map(str, game.moves)),
            result=outcome.result() if outcome else "*",
            termination=outcome.termination if outcome else None,
            winner=None if outcome is None or outcome.winner is None else _side(outcome.winner),
            check=outcome is None and position.is_check(),
            in_sync=bool(tracker.in_sync),
            empty=tuple(map(square_name, squares_of(empty))),
            fill=tuple(map(square_name, squares_of(fill))),
            # While the board asks, the tracker keeps the stored position: the pieces are
            # the question's.
            sensed=board.question.board if board.question is not None else tracker.board,
            lights=board.lights.current(),
            board_state=board.lights.pattern_name,
            options={
                "touch_move": tracker.options.touch_move,
                "takeback": tracker.options.takeback,
                "hints": tracker.options.hints,
                "clock": tracker.options.clock,
                "clock_switch": tracker.options.clock_switch,
                "illegal_move": tracker.options.illegal_move,
            },
            players=dict(self.seats),
            player_states={name: dict(p.state()) for name, p in self._players.items()},
            awaiting=self._awaiting(),
            expected=str(tracker.expected) if tracker.expected is not None else None,
            hint=str(tracker.hint) if tracker.hint is not None else None,
            headers=board.recorder.headers(),
            online=board.online,
            setup_pending=tracker.setting_up,
            setup=tracker.setup_state(),
            asks=(*question, *tracker.asks()),
            question=board.question.options() if board.question is not None else (),
            draw_offer=self.followed.draw_offer,
            sim_pieces=sim.pieces if sim is not None else None,
            timing={
                "settle_ms": timing.settle_ms,
                "pass_ms": timing.pass_ms,
                "debounce_ms": board.config.sensing.debounce_ms,
            },
            clock=board.clock.reading(),
            variant=game.start.variant,
            chess960=game.start.chess960_number() if game.start.variant == "chess960" else None,
            notices=tuple(board.notices),
        )

    def _san(self, game: rules.Game) -> tuple[str, ...]:
        """The game's moves in SAN, worked out once per line of moves (a snapshot per
        event must not cost a replay of the whole game)."""
        key = (id(game), tuple(game.moves))
        if self._san_key != key:
            self._san_key, self._san_moves = key, tuple(game.san_moves())
        return self._san_moves

    def _awaiting(self) -> str | None:
        tracker = self._board.tracker
        if not tracker.awaiting:
            return None
        return self.seats[_side(tracker.game.position.turn)]

    def subscribe(
        self, *, board: bool = False, lights: bool = False, maxsize: int = 256
    ) -> Subscription:
        if len(self._subscribers) >= MAX_SUBSCRIBERS:
            raise ActionRefused(f"too many subscribers ({MAX_SUBSCRIBERS})")
        subscription = Subscription(
            board=board, lights=lights, maxsize=maxsize, on_close=self._subscribers.discard
        )
        self._subscribers.add(subscription)
        return subscription

    def players(self) -> Mapping[str, str]:
        return dict(self.seats)

    def now_ms(self) -> int:
        return self._board.now_ms()

    def state_dir(self) -> Path:
        return self._board.config.store_path().parent

    def games(self) -> list[Any]:
        with _store_read():
            return self._board.recorder.store.games()

    def pgn(self, game_id: int | None = None, *, evals: bool = False) -> str:
        from board_driver.service.store import game_pgn

        stored = self.game(self._board.recorder.game_id if game_id is None else game_id)
        return game_pgn(stored, review=self.review(stored.id) if evals else None)

    def game(self, game_id: int) -> Any:
        from board_driver.service.store import NoSuchGame

        try:
            with _store_read():
                return self._board.recorder.store.game(game_id)
        except NoSuchGame as exc:
            raise LookupError(str(exc)) from None

    def describe(self, what: str, *, language: str = "en", **details: Any) -> str:
        from board_driver.spoken import Words
        from board_driver.spoken.asks import answer

        try:
            return answer(Words(language), what, self.snapshot(), **details)
        except ValueError as exc:
            raise ActionRefused(f"describe: {exc}") from None

    def review(self, game_id: int) -> list[Any]:
        from board_driver.service.store import NoSuchGame

        try:
            with _store_read():
                return self._board.recorder.store.review(game_id)
        except NoSuchGame as exc:
            raise LookupError(str(exc)) from None

    def store_review(self, game_id: int, plies: Sequence[Any]) -> None:
        self._board.store_call(self._board.recorder.store.set_review, game_id, list(plies))

    # ------------------------------------------------------------------ publishing

    def publish(self, events: list[dict[str, Any]]) -> None:
        """Game events announced by a step of the board (called by the daemon)."""
        self.followed.follow(events)
        if all(self.seats[side] != HUMAN for side in SIDES):
            self.follow_turn()
        if not self._subscribers:
            return
        game_id = self._board.recorder.game_id if self._board.recorder is not None else None
        for event in events:
            clean = {k: v for k, v in event.items() if k != "leds"}
            clean.setdefault("game_id", game_id)  # which stored game it belongs to
            for subscription in list(self._subscribers):
                subscription.put(clean)

    def publish_board(self, events: Iterable[Any]) -> None:
        """The events the tracker took, lifts, places, buttons and choices (for
        ``board=True`` subscribers)."""
        wanted = [s for s in self._subscribers if s.board]
        if not wanted:
            return
        for event in events:
            item: dict[str, Any]
            if isinstance(event, Button):
                item = {"t": event.t_ms, "type": "button", "name": event.name}
            elif isinstance(event, Choose):
                item = {"t": event.t_ms, "type": "choose", "piece": event.piece}
            else:
                kind = type(event).__name__.lower()
                if kind not in ("lift", "place"):
                    continue
                item = {"t": event.t_ms, "type": kind, "square": square_name(event.square)}
            for subscription in wanted:
                subscription.put(item)

    def publish_lights(self) -> None:
        """The frame shown changed (for ``lights=True`` subscribers)."""
        for subscription in list(self._subscribers):
            if subscription.lights:
                subscription.put({"t": self.now_ms(), "type": "lights"})

    def announce_state(self) -> None:
        """The daemon's own state changed (``board_state``: see Snapshot.board_state)."""
        state = self._board.lights.pattern_name
        self.publish([{"t": self.now_ms(), "type": "board_state", "state": state}])

    # ------------------------------------------------------------------ board events

    def _t(self, t_ms: int | None) -> int:
        return self.now_ms() if t_ms is None else t_ms

    def press(self, button: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        if button not in BUTTON_NAMES:
            known = ", ".join(sorted(BUTTON_NAMES))
            raise ActionRefused(f"button: {button!r} is not one of {known}")
        return self._board.handle_outside(Button(self._t(t_ms), button))

    def choose(self, piece: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        if piece not in PROMOTION_LETTERS:
            raise ActionRefused(f"choose: {piece!r} is not a promotion piece (q, r, b or n)")
        return self._board.handle_outside(Choose(self._t(t_ms), piece))

    def resign(self, side: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        _color(side)  # ActionRefused names a bad side
        return self.press(f"resign_{side}", t_ms=t_ms)

    def _sim(self) -> Any:
        sim = self._board.hw.sim_board
        if sim is None:
            raise ActionRefused("this board is not the simulator: move the pieces on the board")
        return sim

    def lift(self, square_: str | int) -> None:
        self._move_sim("lift", square_)

    def place(self, square_: str | int) -> None:
        self._move_sim("place", square_)

    def _move_sim(self, kind: str, square_: str | int) -> None:
        sim = self._sim()
        try:
            sq = square(square_) if isinstance(square_, str) else square_
            (sim.lift if kind == "lift" else sim.place)(sq)
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None
        except OSError as exc:  # the piece moved; only its state file lags: said, retried
            log.error("simulated board: %s (saved again at the next change)", exc)

    def set_sim_pieces(self, occupancy: int) -> None:
        if not 0 <= occupancy < 1 << 64:
            raise ActionRefused(f"set_sim_pieces: {occupancy!r} is not a 64-bit occupancy")
        self._sim().pieces = occupancy

    # ------------------------------------------------------------------ the game

    def new_game(
        self,
        fen: str | None = None,
        *,
        variant: str | None = None,
        chess960: int | str | None = None,
        options: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        players: Mapping[str, str] | None = None,
        moves: Sequence[str] = (),
        online: bool = False,
    ) -> list[dict[str, Any]]:
        for side, name in (players or {}).items():
            _color(side)
            self._check_player(name)
        seats = {**self.new_game_seats, **(players or {})}
        self._pending_seats = seats
        try:
            if fen is not None:
                rules.Position.from_fen(fen, variant=variant or "standard")
            events = self._board.new_game(
                fen,
                dict(options or {}),
                variant=variant,
                chess960=chess960,
                moves=moves,
                online=online,
            )
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None
        finally:
            self._pending_seats = None
        if online:
            self._board.set_game_data("door", {"online": "1"})
        if headers:
            events += self.set_headers(**headers)
        return events

    def on_new_game(self) -> list[dict[str, Any]]:
        """A new game was stored (the daemon calls this): its players sit, for the next
        ones as set, or as the caller of :meth:`new_game` asked. Returns the events."""
        if self._pending_seats is None:
            self._board.online = False  # a new game set up on the board is played here
        return self._seat(self._pending_seats or self.new_game_seats, announce=False)

    def resume_game(self, game_id: int) -> list[dict[str, Any]]:
        return self._board.resume_game(game_id)

    def set_options(self, **options: Any) -> list[dict[str, Any]]:
        try:
            return self._board.set_options(options)
        except (TypeError, ValueError) as exc:
            raise ActionRefused(f"options: {exc}") from None

    def set_headers(self, **headers: str) -> list[dict[str, Any]]:
        for name, value in headers.items():
            if not name.isidentifier() or not isinstance(value, str) or "\n" in value:
                raise ActionRefused(f"header {name!r}: expected a tag name and one line of text")
        # Kept in memory and the journal, stored now or once the store can be written.
        self._board.set_headers(headers)
        event = {"t": self.now_ms(), "type": "headers", "headers": self._board.recorder.headers()}
        self._board.announce([event])
        return [event]

    def game_data(self, name: str, game_id: int | None = None) -> dict[str, str]:
        return self._board.recorder.game_data(name, game_id)

    def all_game_data(self, name: str) -> dict[int, dict[str, str]]:
        recorder = self._board.recorder
        found = recorder.store.all_game_data(name)
        if recorder.game_id is not None:
            current = recorder.game_data(name)  # what the store may not have taken yet
            if current:
                found[recorder.game_id] = current
            else:
                found.pop(recorder.game_id, None)
        return dict(sorted(found.items()))

    def set_game_data(
        self, name: str, data: Mapping[str, str], *, game_id: int | None = None
    ) -> None:
        recorder = self._board.recorder
        if game_id is None or game_id == recorder.game_id:
            self._board.set_game_data(name, dict(data))
        else:
            self._board.store_call(recorder.store.set_game_data, game_id, name, data)

    def end_game(
        self, termination: str, winner: str | None, *, t_ms: int | None = None
    ) -> list[dict[str, Any]]:
        color = None if winner is None else _color(winner)
        t = self._t(t_ms)
        try:
            self._board.keep(Decided(t, f"end {termination} {winner or '-'}"))
            events = self._board.tracker.end_game(termination, color, t)
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None
        self._board.announce(events)
        return events

    def clock(self, action: str, **args: Any) -> list[dict[str, Any]]:
        try:
            events = self._board.clock.act(action, self.now_ms(), **args)
        except (KeyError, TypeError, ValueError) as exc:
            raise ActionRefused(f"clock: {exc}") from None
        self._board.announce(events)
        return events

    def take_back(self, plies: int = 1, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        t = self._t(t_ms)
        try:
            self._board.keep(Decided(t, f"takeback {int(plies)}"))
            events = self._board.tracker.take_back(plies, t)
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None
        self._board.announce(events)
        return events

    def answer(self, reading: int) -> list[dict[str, Any]]:
        try:
            return self._board.answer(reading)
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None

    # ------------------------------------------------------------------ players

    def add_player(self, player: Player) -> None:
        if player.name == HUMAN or not player.name:
            raise ValueError(f"a player cannot be called {player.name!r}")
        self._players[player.name] = player

    def _check_player(self, name: str) -> None:
        if name != HUMAN and name not in self._players:
            known = ", ".join([HUMAN, *self._players])
            raise ActionRefused(f"player: {name!r} is not one of {known}")

    def set_player(
        self,
        side: str,
        player: str,
        settings: Mapping[str, Any] | None = None,
        *,
        this_game: bool = True,
        new_games: bool = True,
    ) -> list[dict[str, Any]]:
        _color(side)
        self._check_player(player)
        if player == HUMAN:
            if settings:
                raise ActionRefused("settings: people at the board take none")
        else:
            self._players[player].configure(settings or {})  # ValueError names a bad one
        if new_games:
            self.new_game_seats[side] = player
        if not this_game:
            return []
        return self._seat({**self.seats, side: player})

    def _seat(self, seats: Mapping[str, str], *, announce: bool = True) -> list[dict[str, Any]]:
        self.seats = dict(seats)
        self.follow_turn()
        stored = self._board.recorder.game_data("seats")
        events = []
        self._board.clock.seats_changed()
        if stored != self.seats:
            self._board.set_game_data("seats", dict(self.seats))
            events.append({"t": self.now_ms(), "type": "players", **self.seats})
        if announce:
            self._board.announce(events)
        return events

    def follow_turn(self) -> None:
        """The tracker waits for the moves of the side not at the board; when both sides
        are (a move of ours made elsewhere, to be played here too), for the side to move."""
        tracker = self._board.tracker
        remote = [side for side in SIDES if self.seats[side] != HUMAN]
        if len(remote) == 2:
            remote = [_side(tracker.game.position.turn)]
        tracker.set_other_side(_color(remote[0]) if remote else None)

    def restore_seats(self) -> None:
        """The game on the board was loaded: its players sit again (people by default)."""
        stored = self._board.recorder.game_data("seats")
        seats = {side: stored.get(side, HUMAN) for side in SIDES}
        for side, name in seats.items():
            if name != HUMAN and name not in self._players:
                seats[side] = HUMAN  # its player is not there (its extension is off)
        self.seats = seats
        self.follow_turn()
        self._board.clock.seats_changed()

    def expect(self, move: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        t = self._t(t_ms)
        self._board.keep(Expect(t, str(move)))  # replayed after a restart, as a board event
        try:
            events = self._board.tracker.expect(move, t)
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None
        self._board.announce(events)
        return events

    def show_hint(self, move: str | None) -> None:
        try:
            self._board.tracker.show_hint(move)
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None
        self._board.announce([])

    def require(self, moves: Sequence[str] | None, *, mates: bool = False) -> None:
        try:
            self._board.tracker.require(None if moves is None else list(moves), mates=mates)
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None

    async def command(
        self, player: str, action: str, args: Mapping[str, Any] | None = None
    ) -> Mapping[str, Any]:
        if player not in self._players:
            raise LookupError(f"no player {player!r} (known: {', '.join(self._players)})")
        return await self._players[player].command(action, dict(args or {}))

    def announce(self, event: dict[str, Any]) -> None:
        event = {"t": self.now_ms(), **event}
        if not isinstance(event.get("type"), str):
            raise ValueError(f"announce: an event needs a type, got {event!r}")
        self._board.announce([event])

    # ------------------------------------------------------------------ lights and loop

    def light_layer(self, name: str) -> Any:
        return self._board.lights.layer(name)

    def call_soon_threadsafe(self, callback: Callable[..., Any], *args: Any) -> None:
        self._board.loop.call_soon_threadsafe(callback, *args)

    def close(self) -> None:
        for subscription in list(self._subscribers):
            subscription.close()


@contextlib.contextmanager
def _store_read() -> Iterator[None]:
    """A read of the store that fails (not a game that is not there) is the door's
    :class:`StoreUnavailable`, in the store's words."""
    from board_driver.service.store import NoSuchGame, StoreError

    try:
        yield
    except NoSuchGame:
        raise
    except StoreError as exc:
        raise StoreUnavailable(str(exc)) from None
