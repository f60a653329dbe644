"""The engine's seat at the board: it plays a side and gives hints, through the door.

The seat follows the board's events (:meth:`board_driver.door.Door.subscribe`). When the
board waits for the engine's move (``snapshot().awaiting == "engine"``), it asks the engine
in a task beside the loop (the board goes on being scanned and lit meanwhile), then hands
the move to :meth:`~board_driver.door.Door.expect`: from then on it is lit cyan and it is
the only move the board accepts. A question whose game changed while the engine thought
(a take-back, a new game, an amended move) is cancelled and asked anew. A crashed engine
is started again by :class:`EnginePlayer`; the game is the board's, so nothing is lost.

``button hint`` (the tracker's ``hint_requested``) asks the engine for the side to move;
the suggestion is lit green, not played.

Events announced through the door: ``engine_move`` (the move to play on the board:
``san``, ``uci``, ``from``, ``to``, ``captured``, ``rook_from``, ``rook_to``,
``en_passant``, ``promotion`` / ``promotion_piece``, ``engine``), ``hint`` (the same
details), ``engine_error`` (``message``), ``engine_changed`` (``side``, ``level``,
``engine``), and ``refused`` for a hint that cannot be given.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from board_driver.arbiter.expected import describe_move, how_to_play
from board_driver.door import HUMAN, SIDES, ActionRefused, Door, Snapshot
from board_driver.door.extension import ExtensionConfigError
from board_driver.players.engine.player import EngineLevel, EnginePlayer
from board_driver.players.engine.review import Reviewer
from board_driver.players.engine.uci import EngineError, EngineNotFound, SearchLimit, find_engine

log = logging.getLogger("magboard")

#: The player's name at the door.
NAME = "engine"
#: The sides an engine can play (``[engine] side``, the page), "none" for nobody.
SIDE_NAMES = ("none", *SIDES)
#: After the engine failed for good, ask again this many seconds later.
RETRY_AFTER_S = 5.0
#: Settings the page may change (``Door.set_player(side, "engine", settings)``).
LEVEL_KEYS = ("skill", "depth", "movetime_ms", "elo")


def check_side(side: str) -> None:
    if side not in SIDE_NAMES:
        raise ValueError(f"engine side: {side!r} is not one of {', '.join(SIDE_NAMES)}")


def pgn_headers(side: str, name: str, level: EngineLevel) -> dict[str, str]:
    """PGN headers for an engine on ``side``: its name, its Elo if limited, its level.

    >>> pgn_headers("black", "Stockfish 15.1", EngineLevel(skill=3, depth=5, movetime_ms=None))
    {'Black': 'Stockfish 15.1', 'BlackEngineLevel': 'skill 3, depth 5'}
    >>> pgn_headers("none", "Stockfish 15.1", EngineLevel())
    {}
    """
    if side not in SIDES:
        return {}
    colour = side.capitalize()
    headers = {colour: name}
    if level.elo is not None:
        headers[f"{colour}Elo"] = str(level.elo)
    headers[f"{colour}EngineLevel"] = level.describe()
    return headers


class EngineSeat:
    """The engine as a player at the door (:class:`board_driver.door.Player`)."""

    name = NAME

    def __init__(
        self,
        door: Door,
        *,
        path: str = "",
        level: EngineLevel | None = None,
        threads: int = 1,
        hash_mb: int = 16,
    ) -> None:
        self.door = door
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
        self._follower: asyncio.Task | None = None
        self._recorded: tuple | None = None
        self._seating = False  # taking the sides the config and the stored game give
        self.reviewer: Reviewer | None = None

    # ------------------------------------------------------------------ the player

    @property
    def side(self) -> str:
        """The side the engine plays in the game on the board, or "none"."""
        seats = self.door.players()
        return next((side for side in SIDES if seats.get(side) == NAME), "none")

    @property
    def engine_name(self) -> str:
        return self.player.name if self.player is not None else "engine"

    def state(self) -> Mapping[str, Any]:
        """For a page: who plays, how strong, what it is doing.

        ``side``, ``engine`` (its name, once started), ``level`` (in words), the level's
        ``skill``/``depth``/``movetime_ms``/``elo``, ``thinking`` (a question is open),
        ``review`` (:meth:`Reviewer.state`: the review of a finished game, under way or
        done).
        """
        level = self.level
        review = self.reviewer.state() if self.reviewer is not None else {"status": "off"}
        return {
            "review": review,
            "side": self.side,
            "engine": self.engine_name,
            "level": level.describe(),
            "skill": level.skill,
            "depth": level.depth,
            "movetime_ms": level.movetime_ms,
            "elo": level.elo,
            "thinking": self._task is not None,
        }

    def configure(self, settings: Mapping[str, Any]) -> None:
        """Before it is given a side: a new level (see :meth:`set_level`), and the engine
        found (EngineNotFound otherwise). ValueError names a bad setting; nothing changes."""
        level = self._level_with(settings)
        if not self._seating:
            self._player()  # finds the engine, or raises EngineNotFound
        self._use(level)

    def set_level(self, settings: Mapping[str, Any]) -> None:
        """A new level: ``skill``, ``depth``, ``movetime_ms``, ``elo`` (the ones given
        change); ValueError names a bad one, and nothing changes then."""
        self._use(self._level_with(settings))

    def _level_with(self, settings: Mapping[str, Any]) -> EngineLevel:
        unknown = set(settings) - set(LEVEL_KEYS)
        if unknown:
            raise ValueError(f"engine settings: unknown {', '.join(sorted(unknown))}")
        changes = dict(settings)
        if "skill" in changes and "elo" not in changes:
            changes["elo"] = None  # a skill chosen on a page replaces a limited Elo
        return dataclasses.replace(self.level, **changes)

    def _use(self, level: EngineLevel) -> None:
        if level != self.level:
            self.level = level
            if self.player is not None:
                self.player.set_level(level)
            if not self._seating:
                self._record()
        self._failed = None

    async def command(self, action: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """``level``: set the level (:meth:`set_level`) without giving the engine a side;
        ``review`` ``{"game": n}``: review stored game n now (ActionRefused says why not);
        ``review_stop``: stop the review under way."""
        if action == "level":
            self.set_level(args)
        elif action == "review" and self.reviewer is not None:
            game = args.get("game")
            if isinstance(game, bool) or not isinstance(game, int) or not 1 <= game < 2**63:
                big = isinstance(game, int) and abs(game) >= 10**24
                shown = "of 24 digits or more" if big else repr(game)[:40]
                raise ValueError(f"review: game {shown} is not a game number")
            self.reviewer.request(game)
        elif action == "review_stop" and self.reviewer is not None:
            self.reviewer.cancel("stopped from the page", later=False)
        else:
            raise ActionRefused(
                f"the engine has no action {action!r} (it has: level, review, review_stop)"
            )
        return dict(self.state())

    def _player(self) -> EnginePlayer:
        if self.player is None:
            self.player = EnginePlayer(
                self.path, self.level, threads=self.threads, hash_mb=self.hash_mb
            )
        return self.player

    # ------------------------------------------------------------------ life

    async def start(self, config_side: str) -> EngineSeat:
        """Sit at the door: the game on the board keeps the side it was played with (a
        stored one), new games get ``config_side``. The engine is started at once if it
        plays, so a bad path is known; one that cannot start is said, and asked again
        when it is the engine's turn."""
        door = self.door
        door.add_player(self)
        stored = door.game_data("engine")
        side = stored.get("side", config_side)
        if side not in SIDE_NAMES:  # kept by another version, or edited: not a side
            log.warning("engine: the side kept with the game, %r, is not one of %s: %s instead",
                        side[:20], ", ".join(SIDE_NAMES), config_side)  # fmt: skip
            side = config_side
        self._seating = True  # an engine that cannot start is said below, not refused
        try:
            if config_side != "none":
                door.set_player(config_side, NAME, this_game=False)
            if side != "none" and door.players().get(side) != NAME:
                door.set_player(side, NAME, new_games=False)
        finally:
            self._seating = False
        self._follower = asyncio.get_running_loop().create_task(self._follow())
        if config_side not in ("none", self.side):  # a resumed game keeps its players
            log.info(
                "engine: plays %s from the next new game (game %s, resumed, keeps %s)",
                config_side,
                door.snapshot().game_id,
                "people on both sides" if self.side == "none" else f"the engine on {self.side}",
            )
        if self.side != "none":
            try:
                await self._player().start()
            except (EngineError, OSError) as exc:
                log.error(
                    "engine: cannot start the engine for %s: %s (the board works on; "
                    "asked again when it is the engine's turn)",
                    self.side,
                    exc,
                )
                door.announce({"type": "engine_error", "message": str(exc)})
                return self
            log.info("engine: %s plays %s (%s)", self.engine_name, self.side, self.level.describe())
        self._update([])
        return self

    async def stop(self) -> None:
        if self.reviewer is not None:
            await self.reviewer.stop()
        for task in (self._follower, self._task, self._hint_task, *self._chores):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self._retry is not None:
            self._retry.cancel()
        if self.player is not None:
            with contextlib.suppress(Exception):
                await self.player.close()

    async def _follow(self) -> None:
        async with self.door.subscribe(maxsize=64) as events:
            async for event in events:
                batch = [event]
                while (more := events.get_nowait()) is not None:
                    batch.append(more)
                try:
                    self._update(batch)
                    if self.reviewer is not None:
                        self.reviewer.follow(batch)
                except Exception:  # a bug here must not stop the board
                    log.exception("engine: unexpected failure")

    # ------------------------------------------------------------------ after each step

    def _update(self, events: list[dict]) -> None:
        """The board did something: ask the engine what it must be asked."""
        kinds = {e.get("type") for e in events}
        if self.player is not None and "new_game" in kinds:
            self._background(self.player.new_game())  # ucinewgame: forget the last game
        if kinds & {"players", "new_game", "game_resumed"} or not events:
            self._record()
        if self._task is None and "hint_requested" not in kinds and self.side == "none":
            return  # it plays no side and nobody asks it anything: nothing to look at
        snapshot = self.door.snapshot()
        key = self._key(snapshot)
        if self._task is not None and self._task_key != key:
            self._task.cancel()  # the game changed under the question
            self._task = None
        if (
            snapshot.awaiting == NAME
            and not snapshot.online
            and self._task is None
            and self._failed != key
        ):
            self._task_key = key
            self._task = asyncio.get_running_loop().create_task(self._think(key))
        if "hint_requested" in kinds:
            self._hint(snapshot)

    def _record(self) -> None:
        """The game keeps who the engine was and how strong (its data and PGN headers)."""
        side = self.side
        record = (self.door.snapshot().game_id, side, self.engine_name, self.level)
        if record == self._recorded:
            return
        self._recorded = record
        data = {"side": side}
        if side != "none":
            data.update(name=self.engine_name, level=self.level.describe())
            if self.level.elo is not None:
                data["elo"] = str(self.level.elo)
        self.door.set_game_data(NAME, data)
        if side != "none":
            self.door.set_headers(**pgn_headers(side, self.engine_name, self.level))
        changed = {"side": side, "engine": self.engine_name, "level": self.level.describe()}
        self.door.announce({"type": "engine_changed", **changed})

    def _background(self, coro: Any) -> None:
        """Run ``coro`` beside the loop; a failure is logged, not lost."""

        def done(task: asyncio.Task) -> None:
            self._chores.discard(task)
            if not task.cancelled() and task.exception() is not None:
                log.warning("engine: %s", task.exception())

        task = asyncio.get_running_loop().create_task(coro)
        self._chores.add(task)  # held: the loop keeps only a weak reference
        task.add_done_callback(done)

    @staticmethod
    def _key(snapshot: Snapshot) -> tuple:
        return (snapshot.game_id, snapshot.start_fen, snapshot.ucis, snapshot.variant)

    async def _think(self, key: tuple) -> None:
        try:
            await self._ask_for_move(key)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug, not the engine: say so, keep the daemon running
            log.exception("engine: unexpected failure while asking for a move")
            self._task = None

    async def _ask_for_move(self, key: tuple) -> None:
        _game_id, start, moves, variant = key
        try:
            clock = self.door.snapshot().clock  # the engine plays on it, when one runs
            uci = await self._player().best_move(
                start, list(moves), clock=clock, chess960=variant == "chess960"
            )
        except (EngineError, OSError) as exc:
            self._gave_up(key, exc)
            return
        finally:
            if self._task is asyncio.current_task():
                self._task = None
        snapshot = self.door.snapshot()
        if self._key(snapshot) != key or snapshot.awaiting != NAME or uci is None:
            self._update([])  # the game moved on: ask again if need be
            return
        position = snapshot.position()
        try:
            move = position.parse_uci(uci)
        except ValueError:
            self._gave_up(key, EngineError(f"{self.engine_name} answered {uci!r}, not legal"))
            return
        event = {"type": "engine_move", "engine": self.engine_name}
        event.update(describe_move(position, move))
        log.info(
            "engine move: %s (%s) to play on the board: %s",
            event["san"],
            event["uci"],
            how_to_play(event),
        )
        self.door.announce(event)
        self.door.expect(str(move))

    def _gave_up(self, key: tuple, exc: BaseException) -> None:
        self._failed = key
        log.error("engine: %s (asking again in %g s)", exc, RETRY_AFTER_S)
        self.door.announce({"type": "engine_error", "message": str(exc)})

        def retry() -> None:
            self._retry = None
            if self._failed == key:
                self._failed = None
                self._update([])

        self._retry = asyncio.get_running_loop().call_later(RETRY_AFTER_S, retry)

    # ------------------------------------------------------------------ hints

    def _hint(self, snapshot: Snapshot) -> None:
        if "puzzles" in snapshot.players.values():
            return  # a puzzle's hint is the puzzle's own (board_driver.players.puzzles)
        reason = None
        if snapshot.result != "*":
            reason = "the game is over"
        elif snapshot.online:
            reason = "no help in an online game (its server forbids assistance)"
        elif snapshot.players.get(snapshot.turn) != HUMAN:
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
            self.door.announce({"type": "refused", "button": "hint", "reason": reason})
            return
        key = self._key(snapshot)
        self._hint_task = asyncio.get_running_loop().create_task(self._find_hint(key))

    async def _find_hint(self, key: tuple) -> None:
        _game_id, start, moves, variant = key
        try:
            # A hint is the engine's best, whatever its level as an opponent.
            uci = await self._player().best_move(
                start,
                list(moves),
                level=self.level.full_strength(),
                chess960=variant == "chess960",
            )
        except (EngineError, OSError) as exc:
            log.error("hint: %s", exc)
            self.door.announce({"type": "engine_error", "message": str(exc)})
            return
        finally:
            self._hint_task = None
        snapshot = self.door.snapshot()
        if self._key(snapshot) != key or uci is None:
            return  # the position changed meanwhile: the hint is stale
        position = snapshot.position()
        try:
            move = position.parse_uci(uci)
        except ValueError:
            message = f"{self.engine_name} answered {uci!r}, not a legal move"
            log.error("hint: %s", message)
            self.door.announce({"type": "engine_error", "message": message})
            return
        self.door.show_hint(str(move))
        event = {"type": "hint", "engine": self.engine_name}
        event.update(describe_move(position, move))
        log.info("hint: %s (%s)", event["san"], event["uci"])
        self.door.announce(event)


def engine_side_problem(section: Any) -> None:
    """ExtensionConfigError when ``[engine]`` gives new games a side and no engine can be
    found at all (the extension's ``validate_environment``, and ``start_seat``'s first step)."""
    if section.side != "none":
        try:
            find_engine(section.path)
        except EngineNotFound as exc:
            raise ExtensionConfigError(
                f"[engine] side = {section.side!r} but no engine can be found: {exc} "
                '(install it: `apt-get install stockfish`, or set [engine] side = "none")'
            ) from exc


async def start_seat(door: Door, section: Any) -> EngineSeat:
    """The engine extension's start: the seat from ``[engine]``, on ``door``.

    An engine that cannot start does not stop the board: the board runs on, says so
    (``engine_error``) and the seat asks again when it is the engine's turn. Only a config
    that gives new games an engine side while no engine can be found at all stops the
    daemon (exit 2, a config error: restarting would not mend it).
    """
    engine_side_problem(section)
    seat = EngineSeat(
        door,
        path=section.path,
        level=EngineLevel.from_config(section),
        threads=section.threads,
        hash_mb=section.hash_mb,
    )
    seat.reviewer = Reviewer(
        door,
        path=section.path,
        limit=SearchLimit(
            depth=section.review_depth or None, nodes=section.review_nodes or None
        )
        if section.review != "off"
        else SearchLimit(depth=1),
        mode=section.review,
        hash_mb=section.hash_mb,
    )
    await seat.start(section.side)
    await seat.reviewer.start()
    return seat
