"""The engine's review of a game, worked out beside the board once the game is over.

A review scores every position of a stored game with the engine (a depth and a node
budget per position: ``[engine] review_depth`` and ``review_nodes``), one position at a
time, each kept in the store as soon as it is known (:meth:`Door.store_review`), so a
review stopped half way goes on where it stopped. What the scores make of the moves
(inaccuracies, mistakes, blunders) is :mod:`board_driver.door.review`'s.

**Never during a game.** A review is engine help: it runs only while no game is being
played on the board, or while a game played here with hints on is (its players asked for
the engine's help anyway); never while an online game is on (Lichess forbids assistance).
A review running when that stops being so (a new game starts, an adjourned game is
resumed, a take-back reopens the game) is stopped at once, its engine ended; it is taken up
again where it stopped the next time reviews may run (after the review of the next game
over, say), the last :data:`KEPT_UNFINISHED` such games at most.

``[engine] review = "after_game"`` (the default) reviews the game on the board a moment
after it ends (:data:`AUTO_DELAY_S`; not if a new game was asked for meanwhile: the players
went on); ``"on_request"`` only when a page asks (``Door.command("engine", "review",
{"game": n})``); ``"off"`` never. The review uses an engine process of its own, started for
it and ended after it, with one search thread at a lower priority (:data:`NICENESS`): the
board's loop never waits for it, and the board's process comes first for the CPU.

Events announced: ``review_progress`` (``game``, ``done``, ``total``: positions) after each
position, ``review_done`` (``game``) and ``review_stopped`` (``game``, ``reason``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from board_driver.door import ActionRefused, Door
from board_driver.door.review import ReviewedPly, Score
from board_driver.players.engine.uci import (
    EngineError,
    EngineNotFound,
    SearchLimit,
    UciEngine,
    find_engine,
)

log = logging.getLogger("magboard")

#: ``[engine] review``: when a finished game is reviewed.
REVIEW_MODES = ("after_game", "on_request", "off")
#: A review's budget per position unless told otherwise (the config's defaults).
DEFAULT_LIMIT = SearchLimit(depth=14, nodes=500_000)
#: Seconds after a game ends before its review starts on its own.
AUTO_DELAY_S = 2.0
#: How much nicer than the daemon the review's engine runs (see ``nice(1)``).
NICENESS = 10
#: Reviews stopped half way that are taken up again later, at most.
KEPT_UNFINISHED = 5


def refusal(snapshot: Any, game_id: int, result: str) -> str | None:
    """Why game ``game_id`` (its stored ``result``) cannot be reviewed now, the board as
    ``snapshot`` shows it; None when it can (see the module docstring).

    >>> from types import SimpleNamespace as Board
    >>> over = Board(result="1-0", online=False, game_id=2, options={"hints": False})
    >>> refusal(over, 1, "*")
    'game 1 is not over (adjourned): its review comes when it is over'
    >>> playing = Board(result="*", online=False, game_id=2, options={"hints": True})
    >>> refusal(playing, 1, "0-1") is None  # hints are on: the engine helps anyway
    True
    """
    if result == "*" and game_id != snapshot.game_id:
        return f"game {game_id} is not over (adjourned): its review comes when it is over"
    if snapshot.result != "*":
        return None
    if snapshot.online:
        return "an online game is being played (Lichess forbids engine help during a game)"
    if game_id == snapshot.game_id:
        return "the game is still being played: its review comes when it is over"
    if not snapshot.options.get("hints"):
        return "a game is being played with hints off: reviews wait until it is over"
    return None


class Reviewer:
    """Reviews one stored game at a time for the engine's seat (see the module docstring)."""

    def __init__(
        self,
        door: Door,
        *,
        path: str = "",
        limit: SearchLimit = DEFAULT_LIMIT,
        mode: str = "after_game",
        hash_mb: int = 16,
    ) -> None:
        if mode not in REVIEW_MODES:
            raise ValueError(f"review: {mode!r} is not one of {', '.join(REVIEW_MODES)}")
        self.door = door
        self.path = path
        self.limit = limit
        self.mode = mode
        self.hash_mb = hash_mb
        self.engine_name = "engine"
        #: The engine process of the review under way, if any.
        self.engine: UciEngine | None = None
        self._task: asyncio.Task | None = None
        self._result = "*"  # the reviewed game's result when it was asked for
        self._auto: asyncio.TimerHandle | None = None
        self._unfinished: list[int] = []  # stopped half way, the latest first
        #: Cancelled reviews and the ends of their engines (each awaited at stop; a second
        #: cancel must not lose the first one's).
        self._ending: set[asyncio.Task] = set()
        self._state: dict[str, Any] = {
            "game": None, "status": "idle", "done": 0, "total": 0, "reason": None,
        }  # fmt: skip

    # ------------------------------------------------------------------ for a page

    def state(self) -> dict[str, Any]:
        """``game`` (the game reviewed last, or being reviewed), ``status`` (``idle``,
        ``scheduled``: a game just over is reviewed in a moment, ``running``, ``done``,
        ``stopped``, ``failed``, or ``off``), ``done`` and ``total`` (positions),
        ``reason`` (why it stopped or failed)."""
        if self.mode == "off":
            return {"game": None, "status": "off", "done": 0, "total": 0, "reason": None}
        return dict(self._state)

    def request(self, game_id: int) -> None:
        """Review stored game ``game_id`` now (a review running of another game stops).
        ActionRefused says why not (see :func:`refusal`); LookupError if no such game."""
        if self.mode == "off":
            raise ActionRefused('reviews are off ([engine] review = "off")')
        stored = self.door.game(game_id)  # LookupError if there is none
        reason = refusal(self.door.snapshot(), game_id, stored.result)
        if reason is not None:
            raise ActionRefused(f"no review now: {reason}")
        if self._task is not None and self._state["game"] == game_id:
            return  # under way already
        self.cancel("another game is reviewed")
        if game_id in self._unfinished:
            self._unfinished.remove(game_id)
        self._result = stored.result
        self._state = {"game": game_id, "status": "running", "done": 0, "total": 0, "reason": None}
        self._task = asyncio.get_running_loop().create_task(self._run(game_id))

    def cancel(self, reason: str, *, later: bool = True) -> None:
        """Stop the review under way, if any (its engine is ended); ``later``: take it up
        again when reviews may run again."""
        if self._task is None:
            return
        self._task.cancel()
        self._ending.add(self._task)  # awaited at stop, with its engine's end
        self._task.add_done_callback(self._ending.discard)
        self._task = None
        if self.engine is not None:
            # Python 3.11's asyncio.wait_for drops a cancellation that arrives as the
            # engine's line does: ending the engine makes sure the review stops.
            ending = asyncio.get_running_loop().create_task(self.engine.kill())
            self._ending.add(ending)
            ending.add_done_callback(self._ending.discard)
        if later:
            self._unfinished = [self._state["game"], *self._unfinished][:KEPT_UNFINISHED]
        self._state.update(status="stopped", reason=reason)
        log.info("review of game %s stopped: %s", self._state["game"], reason)
        self.door.announce(
            {"type": "review_stopped", "game": self._state["game"], "reason": reason}
        )

    # ------------------------------------------------------------------ life

    async def start(self) -> Reviewer:
        """A game already over on the board at start is reviewed on (``after_game``); from
        then on :meth:`follow` is given the board's events."""
        if self.mode != "off":
            self._after_game(self.door.snapshot())
        return self

    async def stop(self) -> None:
        if self._auto is not None:
            self._auto.cancel()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            if self.engine is not None:  # as in cancel(): a cancellation may be dropped
                await self.engine.kill()
            with contextlib.suppress(BaseException):
                await task
        for ending in list(self._ending):
            with contextlib.suppress(BaseException):
                await ending

    def follow(self, events: list[dict]) -> None:
        """The board's events (a batch, from the seat's subscription): a game over is
        reviewed (``after_game``), a game starting stops a review."""
        kinds = {e.get("type") for e in events}
        if self.mode == "off" or not kinds - {"review_progress", "review_done", "review_stopped"}:
            return
        snapshot = self.door.snapshot()
        if self._auto is not None and kinds & {"new_game", "new_game_pending", "game_resumed"}:
            self._auto.cancel()  # the players went on: no review of their own accord
            self._auto = None
            self._unschedule()
        if self._task is not None:
            if "new_game" in kinds:
                self.cancel("a new game started")
            else:
                game_id = self._state["game"]
                # A game not on the board keeps the result it had when asked for.
                result = snapshot.result if game_id == snapshot.game_id else self._result
                reason = refusal(snapshot, game_id, result)
                if reason is not None:
                    self.cancel(reason)
        if "game_over" in kinds:
            self._after_game(snapshot)

    def _after_game(self, snapshot: Any) -> None:
        """The game on the board is over: reviewed a moment later, if the config says so,
        an engine is installed, and it is not reviewed already."""
        if self.mode != "after_game" or snapshot.result == "*" or snapshot.game_id is None:
            return
        if len(self._valid(snapshot.game_id, list(snapshot.ucis))) == len(snapshot.ucis) + 1:
            return  # reviewed already (a restart, the game shown again)
        try:
            find_engine(self.path)
        except EngineNotFound:
            return  # no engine, no review: nothing to say after every game
        if self._auto is not None:
            self._auto.cancel()
        self._auto = asyncio.get_running_loop().call_later(
            AUTO_DELAY_S, self._review_after_game, snapshot.game_id
        )
        if self._task is None:  # a page says it comes, rather than offering to start it
            self._state = {
                "game": snapshot.game_id, "status": "scheduled", "done": 0, "total": 0,
                "reason": None,
            }  # fmt: skip

    def _unschedule(self) -> None:
        if self._state["status"] == "scheduled":
            self._state = {**self._state, "status": "idle"}

    def _review_after_game(self, game_id: int) -> None:
        self._auto = None
        snapshot = self.door.snapshot()
        if snapshot.game_id != game_id or snapshot.result == "*" or snapshot.setup_pending:
            self._unschedule()
            return
        with contextlib.suppress(ActionRefused, LookupError):
            self.request(game_id)
        self._unschedule()

    def _take_up_unfinished(self) -> None:
        """A review is done: one stopped half way before goes on, if reviews may run."""
        while self._unfinished and self._task is None:
            game_id = self._unfinished.pop(0)
            try:
                self.request(game_id)
            except LookupError:
                continue  # gone (a store recovered anew)
            except ActionRefused:
                self._unfinished.insert(0, game_id)
                return

    # ------------------------------------------------------------------ the work

    def _valid(self, game_id: int, ucis: list[str]) -> dict[int, ReviewedPly]:
        """The stored review's plies that fit the game as it stands."""
        expected = [None, *ucis]
        return {
            r.ply: r
            for r in self.door.review(game_id)
            if r.ply < len(expected) and r.uci == expected[r.ply]
        }

    async def _run(self, game_id: int) -> None:
        try:
            await self._review(game_id)
        except asyncio.CancelledError:
            raise
        except (EngineError, OSError) as exc:
            if _cancelled():  # the engine ended by cancel(): stopped, not failed
                raise asyncio.CancelledError from exc
            self._failed(game_id, str(exc))
        except Exception as exc:  # a bug, not the engine: said, and the board runs on
            log.exception("review of game %d: unexpected failure", game_id)
            self._failed(game_id, f"unexpected failure ({exc})")
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    def _failed(self, game_id: int, message: str) -> None:
        self._state.update(status="failed", reason=message)
        log.error("review of game %d: %s", game_id, message)
        self.door.announce({"type": "review_stopped", "game": game_id, "reason": message})

    async def _review(self, game_id: int) -> None:
        import rules

        stored = self.door.game(game_id)
        ucis = list(stored.ucis)
        total = len(ucis) + 1
        done = self._valid(game_id, ucis)
        self._state.update(total=total, done=len(done))
        if len(done) < total:
            engine = self.engine = await UciEngine.start(self.path, nice=NICENESS)
            try:
                options: dict[str, int] = {}
                if "Threads" in engine.options:
                    options["Threads"] = 1  # the Pi's other cores stay the board's
                if "Hash" in engine.options:
                    options["Hash"] = self.hash_mb
                variant = getattr(stored, "variant", "standard")
                if variant == "chess960":  # castling is the king taking its rook, both ways
                    if "UCI_Chess960" not in engine.options:
                        raise EngineError(f"{engine.name} cannot review a Chess960 game")
                    options["UCI_Chess960"] = True
                await engine.configure(options)
                await engine.new_game()
                self.engine_name = engine.name
                limit = self.limit.describe()
                self.door.set_game_data(
                    "review", {"engine": engine.name, "limit": limit}, game_id=game_id
                )
                log.info(
                    "review of game %d: %s, %s per position, %d of %d positions to go",
                    game_id, engine.name, limit, total - len(done), total,
                )  # fmt: skip
                position = rules.Position.from_fen(stored.start_fen, variant=variant)
                for ply in range(total):
                    if _cancelled():
                        raise asyncio.CancelledError
                    if ply:
                        position.push(position.parse_uci(ucis[ply - 1]))
                    if ply in done:
                        continue
                    found = await engine.analyse(stored.start_fen, ucis[:ply], self.limit)
                    entry = checked_entry(engine.name, position, ply, ucis, found)
                    self.door.store_review(game_id, [entry])
                    done[ply] = entry
                    self._state["done"] = len(done)
                    self.door.announce(
                        {"type": "review_progress", "game": game_id, "done": len(done),
                         "total": total}
                    )  # fmt: skip
            finally:
                if self.engine is engine:  # not a newer review's
                    self.engine = None
                await engine.quit()
        self._state.update(status="done", done=total, reason=None)
        log.info("review of game %d done", game_id)
        self.door.announce({"type": "review_done", "game": game_id})
        self._task = None
        self._take_up_unfinished()


def checked_entry(engine: str, position: Any, ply: int, ucis: list[str], found: Any) -> ReviewedPly:
    """The review of the position after ``ply`` plies from the engine's answer ``found``,
    checked before anything is stored: a score an engine can give, a best move legal in
    the position (none only where the game is over). EngineError says what was wrong.

    >>> import rules
    >>> from board_driver.players.engine.uci import Analysis
    >>> checked_entry("fake", rules.Position(), 0, [], Analysis("e2e5", "cp 20", 12))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    board_driver...EngineError: fake answered bestmove 'e2e5' at ply 0: not a legal move there
    """
    import rules

    if found.score is None:
        raise EngineError(f"{engine} gave no score at ply {ply}")
    try:
        score = Score.from_uci(found.score, white_to_move=position.turn == rules.WHITE)
    except ValueError as exc:
        raise EngineError(f"{engine} at ply {ply}: {exc}") from None
    if score.mate == 0 and not position.is_checkmate():
        # "mate 0" (or "-0") says the side to move is mated: a claim the rules can check.
        raise EngineError(
            f"{engine} at ply {ply}: score {found.score.strip()!r} says the side to move is "
            "mated, and it is not"
        )
    best = found.best
    if best is not None:
        try:
            best = str(position.parse_uci(best))
        except ValueError:
            shown = best if len(best) <= 12 else f"{best[:12]}..."
            raise EngineError(
                f"{engine} answered bestmove {shown!r} at ply {ply}: not a legal move there"
            ) from None
    return ReviewedPly(
        ply=ply,
        uci=ucis[ply - 1] if ply else None,
        score=score,
        best=best,
        depth=max(0, min(int(found.depth), 10_000)),
    )


def _cancelled() -> bool:
    """Whether the running task was asked to stop, even if a wait_for swallowed it."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
