"""The engine's seat at the daemon's board: it plays its side and gives hints.

The daemon calls :meth:`EngineSeat.update` after every step of the tracker (on the
loop). When it is the engine's turn and its move is not yet known, the seat asks the
engine in a task beside the loop (the board goes on being scanned and lit meanwhile),
then hands the move to the tracker (:meth:`Tracker.expect`): from then on it is lit
cyan and it is the only move the board accepts. A question whose game changed while
the engine thought (a take-back, a new game, an amended move) is cancelled and asked
anew. A crashed engine is started again by :class:`EnginePlayer`; the game is the
daemon's, so nothing is lost.

``button hint`` (the tracker's ``hint_requested``) asks the engine for the side to
move; the suggestion is lit green, not played.

Events announced (through the daemon, like the tracker's): ``engine_move`` (the move to
play on the board: ``san``, ``uci``, ``from``, ``to``, ``captured``, ``rook_from``,
``rook_to``, ``en_passant``, ``promotion`` / ``promotion_piece``, ``engine``), ``hint``
(the same details), ``engine_error`` (``message``), ``engine_changed`` (``side``,
``level``, ``engine``), and ``refused`` for a hint that cannot be given.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Any

from board_driver.arbiter.expected import describe_move
from board_driver.players.engine.player import EngineLevel, EnginePlayer
from board_driver.players.engine.uci import EngineError, EngineNotFound
from rules import BLACK, WHITE, Color

log = logging.getLogger("magboard")

#: The sides an engine can play (``[engine] side``, ``set_engine``), and their colours.
SIDES = {"none": None, "white": WHITE, "black": BLACK}
#: After the engine failed for good, ask again this many seconds later.
RETRY_AFTER_S = 5.0


def _check_side(side: str) -> None:
    if side not in SIDES:
        raise ValueError(f"engine side: {side!r} is not one of {', '.join(SIDES)}")


def side_name(color: Color | None) -> str:
    return "none" if color is None else "white" if color == WHITE else "black"


@dataclass(frozen=True)
class EngineRecord:
    """What a stored game keeps about its engine (the store's options, as text)."""

    side: str
    name: str
    level: str
    elo: int | None

    def options(self) -> dict[str, str]:
        record = {"engine_side": self.side}
        if self.side != "none":
            record.update(engine_name=self.name, engine_level=self.level)
            if self.elo is not None:
                record["engine_elo"] = str(self.elo)
        return record


def pgn_headers(options: dict[str, str]) -> dict[str, str]:
    """PGN headers for a stored game's engine: its name on its side, its level.

    >>> pgn_headers({"engine_side": "black", "engine_name": "Stockfish 15.1",
    ...              "engine_level": "skill 3, depth 5", "engine_elo": "1500"})
    {'Black': 'Stockfish 15.1', 'BlackElo': '1500', 'BlackEngineLevel': 'skill 3, depth 5'}
    >>> pgn_headers({"touch_move": "warn"})
    {}
    """
    side = options.get("engine_side", "none")
    if side not in ("white", "black"):
        return {}
    colour = side.capitalize()
    headers = {colour: options.get("engine_name", "?")}
    if options.get("engine_elo"):
        headers[f"{colour}Elo"] = options["engine_elo"]
    if options.get("engine_level"):
        headers[f"{colour}EngineLevel"] = options["engine_level"]
    return headers


class EngineSeat:
    """One engine for the daemon: its side, level, the question in progress.

    ``host`` is the daemon: the seat reads ``host.tracker`` and calls
    ``host.announce(events)`` (store, log, lights) and ``host.now_ms()``.
    """

    def __init__(
        self,
        host: Any,
        *,
        side: str = "none",
        path: str = "",
        level: EngineLevel | None = None,
        threads: int = 1,
        hash_mb: int = 16,
    ) -> None:
        _check_side(side)
        self.host = host
        self.side = side
        self.path = path
        self.level = level or EngineLevel()
        self.threads = threads
        self.hash_mb = hash_mb
        self.player: EnginePlayer | None = None
        self._task: asyncio.Task | None = None
        self._task_key: tuple | None = None
        self._hint_task: asyncio.Task | None = None
        self._failed: tuple | None = None  # the question the engine gave up on
        self._retry: asyncio.TimerHandle | None = None
        self._chores: set[asyncio.Task] = set()  # small jobs beside the loop (ucinewgame)

    # ------------------------------------------------------------------ settings

    @property
    def color(self) -> Color | None:
        return SIDES[self.side]

    @property
    def name(self) -> str:
        return self.player.name if self.player is not None else "engine"

    def record(self) -> EngineRecord:
        return EngineRecord(self.side, self.name, self.level.describe(), self.level.elo)

    def state(self) -> dict[str, Any]:
        """For the web page: who plays, how strong, what it is doing.

        ``side``, ``engine`` (its name, once started), ``level`` (in words), the level's
        ``skill``/``depth``/``movetime_ms``/``elo``, ``thinking`` (a question is open),
        ``expected`` (the engine's move waiting to be played, UCI) and ``hint``.
        """
        tracker = self.host.tracker
        level = self.level
        return {
            "side": self.side,
            "engine": self.name,
            "level": level.describe(),
            "skill": level.skill,
            "depth": level.depth,
            "movetime_ms": level.movetime_ms,
            "elo": level.elo,
            "thinking": self._task is not None,
            "expected": str(tracker.expected) if tracker.expected is not None else None,
            "hint": str(tracker.hint) if tracker.hint is not None else None,
        }

    def _player(self) -> EnginePlayer:
        if self.player is None:
            self.player = EnginePlayer(
                self.path, self.level, threads=self.threads, hash_mb=self.hash_mb
            )
        return self.player

    async def start(self) -> None:
        """Start the engine now if it plays a side (so that a bad path is known at once)."""
        if self.side != "none":
            await self._player().start()

    def configure(self, side: str, level: EngineLevel | None = None) -> None:
        """A new side and level (the web page, :meth:`Daemon.set_engine`).

        ValueError (EngineNotFound) if the engine cannot be found; nothing changes then.
        """
        _check_side(side)
        if side != "none":
            self._player()  # finds the engine, or raises
        self.side = side
        if level is not None and level != self.level:
            self.level = level
            if self.player is not None:
                self.player.set_level(level)
        self._failed = None

    async def close(self) -> None:
        for task in (self._task, self._hint_task, *self._chores):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self._retry is not None:
            self._retry.cancel()
        if self.player is not None:
            with contextlib.suppress(Exception):
                await self.player.close()

    # ------------------------------------------------------------------ after each step

    def update(self, announced: list[dict]) -> None:
        """The tracker did something (or nothing): ask the engine what it must be asked."""
        tracker = self.host.tracker
        if tracker.other_side != self.color:
            tracker.set_other_side(self.color)
        if self.player is not None and any(e.get("type") == "new_game" for e in announced):
            self._background(self.player.new_game())  # ucinewgame: forget the last game
        key = self._key()
        if self._task is not None and self._task_key != key:
            self._task.cancel()  # the game changed under the question
            self._task = None
        if tracker.awaiting and self._task is None and self._failed != key:
            self._task_key = key
            self._task = asyncio.get_running_loop().create_task(self._think(key))
        if any(e.get("type") == "hint_requested" for e in announced):
            self._hint(announced)

    def _background(self, coro: Any) -> None:
        """Run ``coro`` beside the loop; a failure is logged, not lost."""

        def done(task: asyncio.Task) -> None:
            self._chores.discard(task)
            if not task.cancelled() and task.exception() is not None:
                log.warning("engine: %s", task.exception())

        task = asyncio.get_running_loop().create_task(coro)
        self._chores.add(task)  # held: the loop keeps only a weak reference
        task.add_done_callback(done)

    def _key(self) -> tuple:
        game = self.host.tracker.game
        return (id(self.host.tracker), id(game), tuple(map(str, game.moves)))

    async def _think(self, key: tuple) -> None:
        try:
            await self._ask_for_move(key)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug, not the engine: say so, keep the daemon running
            log.exception("engine: unexpected failure while asking for a move")
            self._task = None

    async def _ask_for_move(self, key: tuple) -> None:
        tracker = self.host.tracker
        game = tracker.game
        start, moves = game.start.fen(), [str(m) for m in game.moves]
        try:
            uci = await self._player().best_move(start, moves)
        except (EngineError, OSError) as exc:
            self._gave_up(key, exc)
            return
        finally:
            if self._task is asyncio.current_task():
                self._task = None
        if self._key() != key or not tracker.awaiting or uci is None:
            self.host.announce([])  # the game moved on: ask again if need be
            return
        position = tracker.game.position
        try:
            move = position.parse_uci(uci)
        except ValueError:
            self._gave_up(key, EngineError(f"{self.name} answered {uci!r}, not a legal move"))
            return
        t = self.host.now_ms()
        event = {
            "t": t,
            "type": "engine_move",
            "engine": self.name,
            **describe_move(position, move),
        }
        log.info(
            "engine move: %s (%s) to play on the board: %s",
            event["san"],
            event["uci"],
            _how_to_play(event),
        )
        self.host.announce([event, *tracker.expect(move, t)])

    def _gave_up(self, key: tuple, exc: BaseException) -> None:
        self._failed = key
        log.error("engine: %s (asking again in %g s)", exc, RETRY_AFTER_S)
        self.host.announce([{"t": self.host.now_ms(), "type": "engine_error", "message": str(exc)}])

        def retry() -> None:
            self._retry = None
            if self._failed == key:
                self._failed = None
                self.host.announce([])

        self._retry = asyncio.get_running_loop().call_later(RETRY_AFTER_S, retry)

    # ------------------------------------------------------------------ hints

    def _hint(self, announced: list[dict]) -> None:
        tracker = self.host.tracker
        t = self.host.now_ms()
        reason = None
        if tracker.game.outcome() is not None:
            reason = "the game is over"
        elif tracker.other_side is not None and tracker.game.position.turn == tracker.other_side:
            reason = "it is the engine's turn"
        elif self._hint_task is not None:
            reason = "a hint is already being worked out"
        else:
            try:
                self._player()
            except EngineNotFound as exc:
                reason = str(exc)
        if reason is not None:
            log.info("hint refused: %s", reason)
            self.host.announce([{"t": t, "type": "refused", "button": "hint", "reason": reason}])
            return
        self._hint_task = asyncio.get_running_loop().create_task(self._find_hint(self._key()))

    async def _find_hint(self, key: tuple) -> None:
        tracker = self.host.tracker
        game = tracker.game
        try:
            # A hint is the engine's best, whatever its level as an opponent.
            uci = await self._player().best_move(
                game.start.fen(), [str(m) for m in game.moves], level=self.level.full_strength()
            )
        except (EngineError, OSError) as exc:
            log.error("hint: %s", exc)
            self.host.announce(
                [{"t": self.host.now_ms(), "type": "engine_error", "message": str(exc)}]
            )
            return
        finally:
            self._hint_task = None
        if self._key() != key or uci is None:
            return  # the position changed meanwhile: the hint is stale
        position = tracker.game.position
        try:
            move = position.parse_uci(uci)
        except ValueError:
            message = f"{self.name} answered {uci!r}, not a legal move"
            log.error("hint: %s", message)
            self.host.announce(
                [{"t": self.host.now_ms(), "type": "engine_error", "message": message}]
            )
            return
        tracker.show_hint(move)
        event = {"t": self.host.now_ms(), "type": "hint", "engine": self.name}
        event.update(describe_move(position, move))
        log.info("hint: %s (%s)", event["san"], event["uci"])
        self.host.announce([event])


def _how_to_play(event: dict) -> str:
    """``e7 to e5``, with the rook, the victim and the promotion piece when there are any."""
    text = f"{event['from']} to {event['to']}"
    if "rook_from" in event:
        text += f", rook {event['rook_from']} to {event['rook_to']}"
    if "captured" in event:
        text += f", take the piece on {event['captured']}"
    if "promotion_piece" in event:
        text += f", the pawn becomes a {event['promotion_piece']}"
    return text
