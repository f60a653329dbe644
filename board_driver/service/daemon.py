"""The daemon: one asyncio loop from the reed switches to the lights.

::

    scanner thread ──(t_ms, bitmap)──> loop: debounce -> tracker -> recorder -> lights
    (only changes, plus a heartbeat)            │            (store)
                                                └──> the door: snapshot, events, actions
                                                     (players and connectors)

The scanner thread hands scans to the loop with ``call_soon_threadsafe``; everything else
runs on the loop. Timers are set for the moments something can happen (a debounced change
maturing, the board having been still for the settle time, the next blink phase), so an
idle board costs one heartbeat a second and nothing more.

A committed move is in the store (one transaction, ``synchronous=FULL``) before the LEDs
confirm it, or the board shows that it could not store it (the store-failing pattern on
the edge squares; the game is kept in memory and written again every second until the
store takes it; the log says "stored" only of what the store took, and a stop that still
cannot store says what it could not, and where it was kept instead). Every event given to
the tracker is first written to the hands journal beside the store
(:mod:`.hands_journal`). After a crash the daemon resumes the game on the board at its
last stored move, replays the hands of the move that was in progress, then judges the
pieces as the sensors find them; what the pieces alone cannot tell is asked
(:mod:`.resumption`), and the lights guide anything else back.

Everything else (the page, the engine, online play, app protocols, broadcasting) is an
extension (:mod:`board_driver.extension`) that sees the board only through its door
(:class:`~board_driver.service.doorway.BoardDoor`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
import sqlite3
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

import rules
from board_driver.arbiter.tracker import Timing, Tracker
from board_driver.events import BoardEvent, Lift, Place
from board_driver.extension import ExtensionConfigError
from board_driver.frame import Frame
from board_driver.service.clock import DaemonClock
from board_driver.service.config import Config
from board_driver.service.doorway import BoardDoor
from board_driver.service.hands_journal import (
    Anchor,
    Asked,
    Decided,
    Expect,
    HandsJournal,
    journal_path,
)
from board_driver.service.hardware import Hardware, HardwareError, gpio_present, open_hardware
from board_driver.service.intake import Intake
from board_driver.service.journal import (
    RepeatLimiter,
    brief,
    log_announcement,
    loop_exception_handler,
)
from board_driver.service.journal_lines import (
    data_line,
    headers_line,
    newgame_line,
    read_line,
)
from board_driver.service.lights import (
    EDGE_SQUARES,
    FAULT_FRAME,
    LINK_LOST_FRAME,
    STARTING_FRAME,
    STORE_FAILING_FRAME,
    Lights,
)
from board_driver.service.notify import Notifier
from board_driver.service.recorder import Recorder, lock_store, options_record
from board_driver.service.replay import ReplayRefused, replay_journal
from board_driver.service.resumption import Question, Reading, readings
from board_driver.service.store import Store, StoreError
from board_driver.service.store_errors import EXIT_STORE_REFUSED, StoreRefusedError
from board_driver.squares import square, square_name, squares_of

log = logging.getLogger("magboard")

#: A store that failed is tried again this often.
STORE_RETRY_S = 1.0
#: What a store write can raise that is the world's fault (a full disk, a file removed).
STORE_ERRORS = (StoreError, OSError, sqlite3.Error)

__all__ = [
    "EDGE_SQUARES",
    "FAULT_FRAME",
    "LINK_LOST_FRAME",
    "STARTING_FRAME",
    "Daemon",
    "DaemonConfigError",
    "DaemonError",
    "Hardware",
    "HardwareError",
    "gpio_present",
    "open_hardware",
]


class DaemonError(Exception):
    """The daemon cannot start or go on; the message says what and where."""


class DaemonConfigError(DaemonError):
    """The config asks for something that cannot be had: exit 2 (restarting will not help)."""


class Daemon:
    """``magboard run``: the loop, its timers, and the parts it wires together."""

    def __init__(
        self,
        config: Config,
        hardware: Hardware,
        *,
        script: str | None = None,
        script_text: str | None = None,
        notifier: Notifier | None = None,
        script_input: TextIO | None = None,
        on_frame: Callable[[Frame], None] | None = None,
        web: bool = False,
        watchers: Sequence[Callable[[BoardDoor], Awaitable[Any]]] = (),
        lock: Any = None,
    ) -> None:
        self.config = config
        #: Serve the web page (when ``[web] enabled``); ``magboard run`` turns it on.
        self.web = web
        self.hw = hardware
        self.script = script
        #: The script file's text when the caller has read (and checked) it already.
        self.script_text = script_text
        self.script_input = script_input
        self.notifier = notifier or Notifier()
        self.on_frame = on_frame
        #: What the command line adds on the door (the terminal board, a recording): each
        #: a coroutine function of the door, run from when the board is ready to the stop.
        self.watchers = tuple(watchers)
        self.lights = Lights(self._show, game_frame=self._game_frame, on_change=self._frame_changed)
        self.door = BoardDoor(self)
        #: The game's chess clock (when its options give it one).
        self.clock = DaemonClock(self)
        self.recorder: Recorder | None = None
        self.tracker: Any = None
        self.intake: Intake | None = None
        #: The game on the board is played online: a server decides its result.
        self.online = False
        self.exit_code = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._t0 = 0.0
        self._timing = Timing(settle_ms=config.game.settle_ms, pass_ms=config.game.pass_ms)
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._in_sync: bool | None = None
        self._tasks: list[asyncio.Task] = []
        #: The store's lock (:func:`.recorder.lock_store`), taken by the caller or at start.
        self._lock: Any = lock
        self._extensions: list[tuple[str, Any]] = []
        self._store_failing: str | None = None
        self._store_problem = ""  # the store's own words for the failure
        #: The hands of the move in progress, kept beside the store (see hands_journal).
        self.journal: HandsJournal | None = None
        #: What the board cannot tell after a restart, asked until answered (resumption).
        self.question: Question | None = None
        self._question_lights = self.lights.layer("question")
        #: What the board says about its own files (one set aside, and why), for the page.
        self.notices: list[str] = []
        self._unstored_checked: int | None = None  # the game whose unstored PGN was looked for
        #: A new game's headers and texts, replayed from the journal (set once it is stored).
        self._replayed: tuple[dict, dict] | None = None

    # ------------------------------------------------------------------ clock

    def now_ms(self) -> int:
        assert self.loop is not None
        return int((self.loop.time() - self._t0) * 1000)

    def loop_time(self, t_ms: int) -> float:
        """The loop's time of the daemon's ``t_ms``."""
        return self._t0 + t_ms / 1000

    @property
    def store(self) -> Store | None:
        return self.recorder.store if self.recorder is not None else None

    @property
    def game_id(self) -> int | None:
        """The stored number of the game being played."""
        return self.recorder.game_id if self.recorder is not None else None

    # ------------------------------------------------------------------ life

    async def run(self) -> int:
        """Run until SIGTERM/SIGINT (0) or a fault (non-zero)."""
        from board_driver.service.extensions import start_extensions

        self.loop = asyncio.get_running_loop()
        self.loop.set_exception_handler(loop_exception_handler(RepeatLimiter()))
        self.lights.attach(self.loop)
        self._stop = asyncio.Event()
        self._t0 = self.loop.time()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                self.loop.add_signal_handler(sig, self.stop, 0)
        try:
            self.lights.refresh()  # the starting pattern
            try:
                await self._start()
            except ValueError as exc:  # a value the parts refuse (the config's): named, no trace
                raise DaemonConfigError(
                    f"cannot start: {exc} (check the config: `magboard config check`)"
                ) from exc
            skip = () if self.web else ("web",)
            try:
                self._extensions = await start_extensions(self.door, self.config, skip=skip)
            except ExtensionConfigError as exc:
                raise DaemonConfigError(str(exc)) from exc
            self._ready()
            await self._stop.wait()
        except (DaemonError, StoreError) as exc:
            self.exit_code = 1
            with contextlib.suppress(Exception):
                self.lights.set_pattern(FAULT_FRAME)
            # Said here, before "stopped (exit 1)", not after it by the command.
            log.error("%s", exc)
            exc.logged = True  # type: ignore[attr-defined]
            raise
        finally:
            await self._shutdown()
        return self.exit_code

    def stop(self, code: int = 0) -> None:
        """Ask the loop to stop (from the loop's thread)."""
        if self._stop is not None and not self._stop.is_set():
            if code and not self.exit_code:
                self.exit_code = code
            self._stop.set()

    def fault(self, message: str, code: int = 1) -> None:
        """A hardware fault: say so, light the fault pattern, stop non-zero."""
        log.error("fault: %s", message)
        with contextlib.suppress(Exception):
            self.lights.set_pattern(FAULT_FRAME)
        self.stop(code)

    async def _start(self) -> None:
        config = self.config
        path = config.store_path()
        if self._lock is None:
            self._lock = lock_store(path)
        self.recorder = Recorder(Store.open(path), config.game, config.clock)
        game, options = self.recorder.resume()
        self._note_online(game)
        self.tracker = Tracker(game, options=options, timing=self._timing)
        self.door.restore_seats()
        stored_line = tuple(map(str, game.moves))
        self.journal = HandsJournal.open(journal_path(path))
        replayed, steps = self._replay_journal(game)
        sim = self.hw.sim_board
        if sim is not None and getattr(sim, "set_aside", None) is not None:
            # Its pieces file could not be read (set aside): the pieces stand as the game.
            with contextlib.suppress(OSError):  # saved at the next change, if not now
                sim.pieces = self.tracker.board
            self._notice(f"the simulated board's pieces file could not be read: {sim.set_aside}")
        try:
            first = self.hw.sensing.scan()
        except Exception as exc:  # any backend, any failure: name it, no traceback
            raise DaemonError(f"cannot read the board: {exc}") from exc
        self.intake = Intake(self, first)
        self.intake.start()
        self.lights.set_pattern(LINK_LOST_FRAME if self.intake.link_up is False else None)
        # The clock comes back from the store, paused at the stored game, and follows the
        # replayed steps while paused (a replayed move gets its %clk; the time it took,
        # while the daemon was away, is not known and not charged).
        clocked = self.clock.load(self.recorder.clock_log(), steps, stored_line)
        self._store_steps(steps)
        self.after([*replayed, *clocked], clocked=True)
        if self._replayed is not None:  # the new game's, now that the recorder has it
            self._set_replayed(*self._replayed)
            self._replayed = None
        self._catch_up(first)

    def _ready(self) -> None:
        plies = len(self.tracker.game.moves)
        where = (
            f"simulated board {self.config.sim_state_file()}" if self.hw.sim_board else "board"
        )
        log.info(
            "ready: game %s at ply %d, %s, store %s",
            self.game_id,
            plies,
            where,
            self.config.store_path(),
        )
        self.notifier.ready(f"game {self.game_id}, {plies} plies")
        for watcher in self.watchers:  # before the script: they see it from its start
            self._tasks.append(asyncio.create_task(watcher(self.door)))
        if self.script is not None:
            self._tasks.append(asyncio.create_task(self._play_script()))

    async def _shutdown(self) -> None:
        from board_driver.service.extensions import stop_extensions

        self.notifier.stopping()
        await stop_extensions(self._extensions)
        self.clock.close()
        self.door.close()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        if self.intake is not None:
            self.intake.stop()
        for handle in self._timers.values():
            handle.cancel()
        if self._store_failing is not None and self.tracker is not None:
            if not self._sync_store(False):  # once more: the disk may have room by now
                self._say_unstored()
            retry = self._timers.pop("store", None)
            if retry is not None:
                retry.cancel()
        self.lights.close()
        # A clean stop turns the lights off; a fault leaves its pattern lit for whoever looks.
        self.hw.close(lights_off=self.exit_code == 0)
        if self.journal is not None:
            self.journal.close()
        if self.store is not None:
            self.store.close()
        if self._lock is not None:
            self._lock.close()
        log.info("stopped%s", f" (exit {self.exit_code})" if self.exit_code else "")

    # ------------------------------------------------------------------ the game

    def _catch_up(self, standing: int) -> None:
        """Pieces that moved while the daemon was away (a crash, a power cut): as if moved now.

        With a move in progress (its hands replayed from the journal) the changes are its
        next events. With none, the pieces alone are read (:func:`.resumption.readings`):
        one reading is taken (a move completed but not yet judged is judged, half a move
        waits to be finished); several are asked, never one stored silently; none is out
        of sync, and the lights show what to put right.
        """
        tracker = self.tracker
        if self.question is not None:  # asked before the restart, asked again
            if standing == self.question.board:
                self._decide_when_still()
            else:
                self._hand_differences(self.question.board, standing)
            return
        committed = tracker.board
        if standing == committed:
            return
        lifted = squares_of(committed & ~standing)
        placed = squares_of(standing & ~committed)
        log.info(
            "the pieces differ from the %s:%s%s",
            "stored game" if tracker.at_rest() else "move in progress",
            " lifted " + " ".join(map(square_name, lifted)) if lifted else "",
            " placed " + " ".join(map(square_name, placed)) if placed else "",
        )
        if tracker.at_rest() and tracker.game.outcome() is None:
            found = readings(tracker.game.position, standing)
            if len(found) > 1 and any(reading.moves for reading in found):
                self._ask(found, standing)
                return
            if len(found) == 1 and found[0].moves:
                self._play_unseen(found[0], standing)
                return
        self._hand_differences(committed, standing)

    def _hand_differences(self, committed: int, standing: int) -> None:
        """The tracker is given what changed from ``committed`` to ``standing``, now."""
        t = self.now_ms()
        lifted = squares_of(committed & ~standing)
        placed = squares_of(standing & ~committed)
        self.handle([*(Lift(t, sq) for sq in lifted), *(Place(t, sq) for sq in placed)])

    # ------------------------------------------------------------------ after a restart

    def _replay_journal(self, game: rules.Game) -> tuple[list[dict], list]:
        """The journal replayed from its anchor (:mod:`.replay`) and taken when it agrees
        with the store: the game on the board is then the one it leads to. Returns the game
        events to announce (what the store lacks) and the replay's steps from there (for
        the clock). A journal that cannot be used, for any reason, is set aside (never
        written over) and the board starts from the store and the pieces."""
        journal = self.journal
        if journal.unreadable is not None:
            self._set_journal_aside(journal.unreadable)
            return [], []
        kept = journal.kept
        if kept is None or (not kept.events and kept.board is None and not kept.skipped):
            self._restart_journal()  # it holds nothing the store has not
            return [], []
        stored = [str(m) for m in game.moves]
        why = kept.fits(self.game_id, self.recorder.started, game.start.fen(), stored)
        if why:
            self._set_journal_aside(why)
            return [], []

        def seat(tracker: Tracker) -> None:
            self.tracker = tracker
            self.door.follow_turn()

        stored_tracker = self.tracker
        try:
            done = replay_journal(
                kept, game, options=self.tracker.options, timing=self._timing,
                online=self.online, seat=seat,
            )  # fmt: skip
        except ReplayRefused as exc:
            self.tracker = stored_tracker
            self.door.restore_seats()
            self._set_journal_aside(str(exc))
            return [], []
        for words in done.warnings:
            log.warning("the hands journal %s: %s", journal.path, words)
        self.tracker = done.tracker
        self.online = done.online
        if done.same_game:
            self.recorder.adopt(done.tracker.game)
        self.door.follow_turn()
        # The daemon's clock goes on from the journal's: the board has been left alone
        # since its last event for at least the settle time (the time the daemon was away).
        self._t0 = self.loop.time() - done.final_t / 1000
        log.info(
            "the hands journal replayed: %d events since ply %d, from %s",
            len(kept.events),
            kept.plies,
            journal.path,
        )
        journal.go_on()
        # What was set beside the moves, kept in the journal: the stored game's now, the
        # new game's (if one followed) with it once it is stored.
        recorder = self.recorder
        first = done.tracker.options if done.same_game else done.stored_options
        if first is not None and first != stored_tracker.options:
            self.store_call(recorder.set_options, first)
        if done.same_game:
            self._set_replayed(done.headers, done.data)
        else:
            self._set_replayed(done.stored_headers, done.stored_data)
            self._replayed = (done.headers, done.data)
        if done.question is not None:
            self._ask_again(*done.question)
        return done.events, done.steps

    def _set_replayed(self, headers: dict[str, str], data: dict[str, dict]) -> None:
        """Headers and extensions' texts of the game on the board, from the journal."""
        with contextlib.suppress(ValueError):  # checked when they were kept
            if headers:
                self.store_call(self.recorder.set_headers, headers)
            for extension, texts in data.items():
                self.store_call(self.recorder.set_game_data, extension, texts)

    def _store_steps(self, steps: list) -> None:
        """The lines of moves the replayed steps passed through, stored in turn, as the
        store would have had them had it worked (a take-back replayed is a take-back in its
        history, not an amendment of the move that followed it)."""
        start = self.tracker.game.start
        last = self.recorder.stored_line
        for found, line in steps[:-1]:
            if any(e.get("type") == "new_game" for e in found):
                return  # another game: stored as one by the replay's last step
            if line == last:
                continue
            last = line
            try:
                self.recorder.store_line(rules.Game.from_record(start.copy(), list(line)))
            except STORE_ERRORS:
                return  # the last step's sync says it, and retries

    def _set_journal_aside(self, why: str) -> None:
        """The journal cannot be replayed: renamed aside (never written over), said in the
        log and on the page; the journal starts again from the game as stored."""
        journal = self.journal
        where = journal.set_aside()
        kept = f"set aside as {where}" if where is not None else "left as it is"
        self._notice(f"the hands journal {journal.path} is not replayed: {why}; {kept}")
        self._restart_journal()

    def _notice(self, words: str) -> None:
        """Something about the board's own files a person should know: logged, and on the
        page (the snapshot's ``notices``) until the daemon stops."""
        log.warning("%s", words)
        self.notices.append(words)
        del self.notices[:-5]

    def _restart_journal(self) -> None:
        """The journal starts again from the game as it stands, and the pieces standing (a
        tracker made afresh from both reads on as this one): only when the store has
        everything, so that the journal always holds what the store lacks."""
        if self.journal is None or self.recorder is None or self._store_failing is not None:
            return
        if self.recorder.behind(self.tracker.game):
            return
        tracker = self.tracker
        game = tracker.game
        self.journal.start(
            Anchor(
                self.recorder.game_id,
                self.recorder.started,
                game.start.fen(),
                tuple(map(str, game.moves)),
                None if tracker.board == game.position.occupancy() else tracker.board,
            )
        )

    def _keep_journal(self, fresh: bool) -> None:
        """After a step the store took: the journal starts again when the tracker holds
        nothing but its game (or a new game began)."""
        journal = self.journal
        if journal is None or self.question is not None:
            return
        if fresh or (
            self.tracker.at_rest()
            and journal.unsettled(self.recorder.game_id, len(self.tracker.game.moves))
        ):
            self._restart_journal()

    def keep(self, event: BoardEvent | Expect | Asked | Decided) -> None:
        """Write ``event`` to the journal, before the tracker is given it (or held back
        for a question)."""
        if self.journal is not None:
            self.journal.add(event)

    def game_changed_outside(self) -> None:
        """Another game on the board, or moves read from the pieces: the journal starts
        again from the game as it now stands, once the store has it (until then the
        journal's own lines say what changed: :class:`.Decided`)."""
        self._restart_journal()

    # ------------------------------------------------------------------ what the board cannot tell

    def _ask(self, found: list[Reading], standing: int) -> None:
        """Several readings of the pieces after a restart: asked on the page and lit, the
        board's lifts and places held back until the answer (and kept in the journal, so
        that a restart asks again)."""
        self.keep(Asked(self.now_ms(), standing))
        self._set_question(Question(found, self.tracker.game.position.copy(), standing, standing))

    def _ask_again(self, asked: Asked, held: list[Any]) -> None:
        """The question in the journal, asked again after a restart, with the lifts and
        places held since (the tracker is where it was when it was first asked)."""
        found = readings(self.tracker.game.position, asked.standing)
        if not self.tracker.at_rest() or len(found) < 2:
            return  # not the same question: the pieces are judged as they stand
        question = Question(found, self.tracker.game.position.copy(), asked.standing,
                            asked.standing)  # fmt: skip
        for event in held:
            if isinstance(event, Lift | Place):
                question.note(event)
        self._set_question(question)

    def _set_question(self, question: Question) -> None:
        self.question = question
        log.warning("%s", question.words())
        frame = Frame.off()
        for sq in squares_of(question.squares()):
            frame = frame.with_square(sq, "y", blink=True)
        self._question_lights.show(frame)
        self.after(
            [
                {
                    "t": self.now_ms(),
                    "type": "question",
                    "readings": list(question.options()),
                    "squares": [square_name(sq) for sq in squares_of(question.squares())],
                }
            ]
        )

    def answer(self, choice: int) -> list[dict]:
        """The answer to the question asked after a restart: reading ``choice`` (numbered
        as :meth:`Question.options`) is what happened. ValueError if none stands."""
        question = self.question
        if question is None:
            raise ValueError("the board asks nothing now")
        if not 0 <= choice < len(question.choices):
            raise ValueError(f"reading: {choice} is not one of 0..{len(question.choices) - 1}")
        return self._resolve(choice, "answered")

    def _resolve(self, choice: int, how: str) -> list[dict]:
        """Reading ``choice`` is what happened: its moves stored, then the lifts and places
        held meanwhile given to the tracker."""
        question = self.question
        reading = question.choices[choice]
        words = question.options()[choice]
        log.info("%s: %s", how, words)
        self._end_question()
        events = [{"t": self.now_ms(), "type": "answered", "reading": words}]
        self.after(events)
        # As Question.decided tried it: a tracker of the game the reading makes, on the
        # pieces standing when asked, given the hands since.
        events += self._play_unseen(reading, question.standing)
        events += self.handle(question.held)
        return events

    def _end_question(self) -> None:
        self.question = None
        self._question_lights.show(None)

    def _held(self, event: BoardEvent) -> None:
        """A lift or place while a question stands: held for after the answer. The pieces
        put back as the game stands answer it (nothing was played); the hands since, once
        the board is still, may leave only one reading (:meth:`.Question.decided`)."""
        question = self.question
        question.note(event)
        if question.board == self.tracker.board:
            log.info("the pieces are back as stored: nothing was played while the daemon was away")
            self.keep(Decided(self.now_ms(), read_line([], self.tracker.board)))
            self._end_question()
            self._restart_journal()
            self.after([{"t": self.now_ms(), "type": "answered", "reading": "nothing"}])
            return
        self._decide_when_still()

    def _decide_when_still(self) -> None:
        """Once the board has been still for the settle time since the last hand: has it
        left only one reading? (Not before: pieces being put right pass through boards no
        reading explains.)"""
        handle = self._timers.pop("question", None)
        if handle is not None:
            handle.cancel()
        held = self.question.held if self.question is not None else []
        if held and self.loop is not None:
            when = self.loop_time(held[-1].t_ms + self._timing.settle_ms + 1)
            self._timers["question"] = self.loop.call_at(when, self._check_decided)

    def _check_decided(self) -> None:
        self._timers.pop("question", None)
        question = self.question
        if question is None:
            return
        tracker = self.tracker
        choice = question.decided(tracker.game, tracker.options, self._timing)
        if choice is not None:
            self._resolve(choice, "the hands since tell")

    def _play_unseen(self, reading: Reading, standing: int) -> list[dict]:
        """Moves played while nothing was kept, read from the pieces (the one reading, or
        the one answered; perhaps none, a piece in the hand): committed as they are, the
        pieces then standing given to a tracker of the game they lead to."""
        from board_driver.arbiter.game_events import check_event, move_event

        game = self.tracker.game
        t = self.now_ms()
        # Kept, so that a restart before the store has them reads the same (the pieces
        # may have moved by then).
        self.keep(Decided(t, read_line([str(m) for m in reading.moves], standing)))
        events: list[dict] = []
        for move in reading.moves:
            position = game.position
            san, mover = position.san(move), position.turn
            game.push(move)
            events.append(move_event(game, t, "move", move, san, mover))
            check = check_event(game, t)
            if check is not None:
                events.append(check)
        if events:
            log.info("read from the pieces: %s played while the daemon was away",
                     " ".join(e["san"] for e in events if e["type"] == "move"))  # fmt: skip
        options = self.tracker.options
        self.tracker = Tracker(game, options=options, timing=self._timing, board=standing)
        self.door.restore_seats()
        events += self.tracker.starting_events(t)
        self.after(events)
        self.game_changed_outside()
        return events

    def new_game(
        self,
        fen: str | None,
        options: dict[str, Any],
        *,
        moves: Iterable[str] = (),
        online: bool = False,
    ) -> list[dict]:
        """Start a new game (a script's ``fen``/``option`` header, the page, a player) on
        the pieces standing, from ``fen`` and ``moves`` (UCI) played from it; ValueError
        names a bad FEN, move or option."""
        merged = dataclasses.replace(self.tracker.options, **options)
        start = rules.Position.from_fen(fen) if fen else rules.Position()
        # Moves played elsewhere are a record: they replay even past a dead position.
        game = rules.Game.from_record(start, list(moves))
        if online:
            game.dead_position_ends = False  # the server decides; a dead position is a note
        line = newgame_line(
            start.fen(), [str(m) for m in game.moves], online, options_record(merged)
        )
        self.keep(Decided(self.now_ms(), line))  # replayed if the store cannot take it yet
        board = self.intake.debouncer.stable if self.intake else None
        self.tracker = Tracker(game, options=merged, timing=self._timing, board=board)
        self.online = online
        now = self.now_ms()
        # A set-up position that is already over (mate, dead position) is announced at once.
        events = [{"t": now, "type": "new_game", "fen": game.position.fen()}]
        if online:
            events[0]["online"] = True
        events += self.tracker.starting_events(now)
        self._end_question()
        self.after(events)
        return events

    def resume_game(self, game_id: int) -> list[dict]:
        """Make stored game ``game_id`` the game on the board again (LookupError if none;
        StoreUnavailable while the store cannot be written: the game on the board waits for
        it, and stays)."""
        from board_driver.door import StoreUnavailable
        from board_driver.service.store import NoSuchGame

        if self._store_failing is not None or self.recorder.behind(self.tracker.game):
            raise StoreUnavailable(
                f"a stored game is resumed once the store can be written: "
                f"{self._store_problem or 'it has not taken the game on the board yet'}"
            )
        try:
            game, options = self.recorder.load(game_id)
        except NoSuchGame as exc:
            raise LookupError(str(exc)) from None
        board = self.intake.debouncer.stable if self.intake else None
        self._note_online(game)
        self.tracker = Tracker(game, options=options, timing=self._timing, board=board)
        self.door.restore_seats()
        log.info("game %d resumed at ply %d", game_id, len(game.moves))
        events = [{"t": self.now_ms(), "type": "game_resumed", "game_id": game_id,
                   "fen": game.position.fen()}]  # fmt: skip
        self._end_question()  # another game: what was asked was of the one before
        events += self.clock.load(self.recorder.clock_log())
        self.after(events)
        self.game_changed_outside()
        return events

    def _note_online(self, game: rules.Game) -> None:
        """A stored game played online: its server decided, so a dead position is a note
        (set before the tracker sees the game, which would end it at once)."""
        self.online = self.recorder.game_data("door").get("online") == "1"
        if self.online:
            game.dead_position_ends = False

    def set_options(self, options: dict[str, Any]) -> list[dict]:
        """Change the current game's options (``touch_move``, ``takeback``, ``hints``).

        ValueError (from GameOptions) names a bad value; the options stay as they were.
        """
        before = self.tracker.options
        self.tracker.options = dataclasses.replace(before, **options)
        o = self.tracker.options
        record = ",".join(f"{k}={v}" for k, v in options_record(o).items())
        self.keep(Decided(self.now_ms(), f"options {record}"))
        self.store_call(self.recorder.set_options, o)
        log.info("options: %s", brief(options_record(o)))
        events = [
            {
                "t": self.now_ms(),
                "type": "options",
                "touch_move": o.touch_move,
                "takeback": o.takeback,
                "hints": o.hints,
                "clock": o.clock,
                "clock_switch": o.clock_switch,
                "illegal_move": o.illegal_move,
            }
        ]
        events += self.clock.options_changed(before)
        self.after(events)
        return events

    def set_game_data(self, name: str, data: dict[str, str | None]) -> None:
        """Texts extension ``name`` keeps with the game on the board: kept in the journal
        and stored, or stored once the store can be written. ValueError past the limits."""
        extension, checked = self.recorder.check_game_data(name, data)
        self.keep(Decided(self.now_ms(), data_line(extension, checked)))
        self.store_call(self.recorder.set_game_data, extension, checked)

    def set_headers(self, headers: dict[str, str]) -> None:
        """PGN headers of the game on the board (``""`` removes one): kept in the journal and
        stored, or stored once the store can be written. ValueError names a bad one."""
        checked = self.recorder.check_headers(headers)
        self.keep(Decided(self.now_ms(), headers_line(checked)))
        self.store_call(self.recorder.set_headers, checked)

    def announce(self, events: list[dict]) -> None:
        """Game events from beside the tracker (players, the door): stored, logged, lit."""
        self.after(events)

    # ------------------------------------------------------------------ events in

    def handle_outside(self, event: BoardEvent) -> list[dict]:
        """A button or a promotion choice from outside the switches (see :mod:`.intake`)."""
        return self.intake.outside(event)

    def handle(self, events: Iterable[BoardEvent]) -> list[dict]:
        """Hand board events to the tracker, in order; then store, log and light.
        Returns the game events they led to."""
        from board_driver.boardscript.feed import describe

        announced: list[dict] = []
        for event in events:
            log.debug("event %s", describe(event))
            self.keep(event)
            if self.question is not None and isinstance(event, Lift | Place):
                self._held(event)
                continue
            try:
                found = self.tracker.handle(event)  # judges first what fell due before it
            except ValueError as exc:  # an event no board can make: the tracker keeps its state
                log.error("ignored %s: %s", describe(event), exc)
                continue
            self.after(found, [event])  # the door's board stream: what the tracker took
            announced += found
        return announced

    # ------------------------------------------------------------------ after each step

    def after(
        self, announced: list[dict], board_events: Iterable[Any] = (), *, clocked: bool = False
    ) -> None:
        """What follows a tracker step: store first, then logs, then lights, then the door.
        (``clocked``: the clock has followed these events already.)"""
        if not clocked:
            announced = [*announced, *self.clock.follow(announced)]
        if self.intake is not None:
            self.intake.schedule_tick()
        fresh = any(e.get("type") == "new_game" for e in announced)
        stored = self._sync_store(fresh)
        if stored:
            self._keep_journal(fresh)
        if fresh:
            announced = [*announced, *self.door.on_new_game()]
        for event in announced:
            log_announcement(event, self.game_id, stored=stored)
            if event.get("type") == "move" and event.get("uci"):
                uci = event["uci"]
                self.lights.flash((1 << square(uci[0:2])) | (1 << square(uci[2:4])))
                said = "stored" if stored else "played, not stored yet"
                self.notifier.status(f"game {self.game_id}: {event.get('san')} {said}")
        in_sync = bool(self.tracker.in_sync)
        if in_sync != self._in_sync:
            if self._in_sync is not None or not in_sync:
                if in_sync:
                    log.info("board matches the game again")
                else:
                    log.info("waiting for the board to match: %s", self._mismatch())
            self._in_sync = in_sync
        self.lights.refresh()
        self.door.publish_board(board_events)
        self.door.publish(announced)
        self.clock.schedule()

    def _sync_store(self, fresh: bool) -> bool:
        """The game in the store; a failure is loud, lit, and retried (the game is kept)."""
        before = self.recorder.stored_line
        entries = self.clock.pending()
        try:
            self.recorder.sync(self.tracker.game, self.tracker.options, fresh, entries)
            self.clock.stored(len(entries))
        except StoreRefusedError as exc:  # damaged under us: retrying cannot mend it
            self.fault(f"{exc}", code=EXIT_STORE_REFUSED)
            return False
        except STORE_ERRORS as exc:
            self._store_failed("cannot store the game", exc)
            return False
        if self._store_failing is not None:
            self._store_failing = None
            handle = self._timers.pop("store", None)
            if handle is not None:
                handle.cancel()
            game = self.tracker.game
            same = _common(before, tuple(game.moves))
            sans = game.san_moves()[same:]
            log.warning(
                "the store works again: game %s is stored (%d plies%s%s)",
                self.game_id,
                len(game.moves),
                f"; taken back from ply {same + 1}" if len(before) > same else "",
                f"; now stored: {' '.join(sans)}" if sans else "",
            )
            self._keep_journal(False)
            self.lights.set_warning(None)
            self.door.announce_state()
        self._unstored_pgn_done()
        return True

    def store_call(self, write: Callable[..., Any], *args: Any) -> None:
        """A write beside the moves (options, headers, an extension's data): like the
        moves, a failure is loud and lit, and the recorder's writes wait for the store and
        are written by its next sync (a write to another stored game is not retried)."""
        try:
            write(*args)
        except StoreRefusedError as exc:
            self.fault(f"{exc}", code=EXIT_STORE_REFUSED)
        except STORE_ERRORS as exc:
            self._store_failed("cannot store", exc)

    def _store_failed(self, what: str, exc: BaseException) -> None:
        message = f"{what}: {exc}"
        self._store_problem = str(exc)
        if self._store_failing != message:
            log.error("%s (the game is kept in memory; retrying every %g s)",
                      message, STORE_RETRY_S)  # fmt: skip
        first = self._store_failing is None
        self._store_failing = message
        self.lights.set_warning(STORE_FAILING_FRAME)
        if first:
            self.door.announce_state()
        if "store" not in self._timers and self.loop is not None:
            self._timers["store"] = self.loop.call_later(STORE_RETRY_S, self._retry_store)

    def _retry_store(self) -> None:
        self._timers.pop("store", None)
        if self._sync_store(False):
            self.lights.refresh()

    def _unstored_pgn(self) -> Path:
        """Where a stop that cannot store writes the game as PGN (beside the store)."""
        store = self.config.store_path()
        game = f"game-{self.game_id}" if self.game_id is not None else "new-game"
        return store.with_name(f"{store.name}.{game}-unstored.pgn")

    def _unstored_pgn_done(self) -> None:
        """The store has the game on the board: a PGN an earlier stop wrote of it (saying
        its moves were not stored) is true no more. Removed once the store holds every
        move it has (a PGN with moves the store lacks stays, and is said)."""
        if self._unstored_checked == self.game_id or self.game_id is None:
            return
        self._unstored_checked = self.game_id
        store = self.config.store_path()
        for path in (self._unstored_pgn(), store.with_name(f"{store.name}.new-game-unstored.pgn")):
            if not path.is_file():
                continue
            line = _pgn_line(path)
            moves = [str(m) for m in self.tracker.game.moves]
            if line is not None and line == moves[: len(line)]:
                with contextlib.suppress(OSError):
                    path.unlink()
                    log.info("%s: its moves are stored now (game %s): removed", path, self.game_id)
                continue
            log.warning(
                "%s holds moves the store does not have (game %s): kept for you to read",
                path,
                self.game_id,
            )

    def _say_unstored(self) -> None:
        """At a stop with the store still failing: what could not be stored, loudly, and
        where it was kept instead (the journal, which the next start replays; a PGN beside
        the store, if it can be written)."""
        game = self.tracker.game
        stored = self.recorder.stored_line if self.game_id is not None else ()
        moves = tuple(game.moves)
        same = _common(stored, moves)
        sans = game.san_moves()[same:]
        what = []
        if self.game_id is None:
            what.append(f"a new game from {game.start.fen()}")
        if len(stored) > same:
            upto = f"-{len(stored)}" if len(stored) > same + 1 else ""
            what.append(f"the take-back of ply {same + 1}{upto}")
        if sans:
            upto = f"-{len(moves)}" if len(sans) > 1 else ""
            what.append(f"ply {same + 1}{upto} ({' '.join(sans)})")
        waiting = self.recorder.waiting()
        what += waiting
        if not what:
            what.append(f"the game as it stands (the store has {len(stored)} plies)")
        kept, not_kept = [], []
        journal = self.journal
        if journal is not None and journal.keeps():
            kept.append(f"in the hands journal {journal.path} (the next start stores them)")
        elif journal is not None:
            not_kept.append(f"not in the hands journal ({journal.problem or 'not kept'})")
        pgn = self._unstored_pgn()
        try:
            headers = {"Event": f"magboard game {self.game_id or '(new)'} (not stored)",
                       "Site": "magboard"}  # fmt: skip
            pgn.write_text(game.pgn({**headers, **self.recorder.headers()}), encoding="utf-8")
            kept.append(f"as PGN in {pgn}")
        except OSError as exc:
            not_kept.append(f"not as PGN ({pgn}: {exc.strerror})")
        where = f"Kept {'; '.join(kept)}" if kept else "Kept nowhere"
        log.error(
            "NOT STORED: game %s, %s: %s. %s%s.",
            self.game_id if self.game_id is not None else "(new)",
            "; ".join(what),
            self._store_problem,
            where,
            f"; {'; '.join(not_kept)}" if not_kept else "",
        )

    def _mismatch(self) -> str:
        empty_bits, fill_bits = self.tracker.to_put_right()
        empty = [square_name(s) for s in squares_of(empty_bits)]
        fill = [square_name(s) for s in squares_of(fill_bits)]
        parts = []
        if empty:
            parts.append("empty " + " ".join(empty))
        if fill:
            parts.append("fill " + " ".join(fill))
        return ", ".join(parts) or "pieces in motion"

    # ------------------------------------------------------------------ lights

    def _game_frame(self) -> Frame:
        return self.tracker.frame() if self.tracker is not None else Frame.off()

    def _show(self, frame: Frame, on: bool) -> None:
        self.hw.leds.show(self.hw.render(frame, on))
        log.debug("leds\n%s", frame.at_phase(on))

    def _frame_changed(self, frame: Frame) -> None:
        if self.on_frame is not None:
            self.on_frame(frame)
        if self.loop is not None:
            self.door.publish_lights()

    def current_frame(self) -> Frame:
        """The steady frame now: the daemon's own state, or the game's with any flash."""
        return self.lights.current()

    # ------------------------------------------------------------------ scripts

    async def _play_script(self) -> None:
        from board_driver.boardscript.feed import ScriptFeeder, stream_lines, text_lines
        from board_driver.boardscript.script import read_script_file

        if self.hw.sim_board is None:
            raise DaemonError("--script needs the simulated board (--sim)")
        feeder = ScriptFeeder(self.door, self.hw.sim_board, self.config.sensing.debounce_ms)
        if self.script == "-":
            await feeder.play(stream_lines(self.script_input or sys.stdin), "<stdin>")
        else:
            text = self.script_text
            if text is None:
                text = read_script_file(self.script)
            await feeder.play(text_lines(text), self.script)
        log.info("script finished")


def _common(a: tuple, b: tuple) -> int:
    """How many first plies two lines of moves share."""
    same = 0
    while same < min(len(a), len(b)) and a[same] == b[same]:
        same += 1
    return same


def _pgn_line(path: Path) -> list[str] | None:
    """The moves (UCI) of the PGN file at ``path``, None if it cannot be read as one."""
    from board_driver.user_files import UnusableFile, read_text

    try:
        found = rules.read_pgn(read_text(path, limit=1 << 20))
    except (UnusableFile, ValueError):
        return None
    if len(found) != 1 or found[0].game is None:
        return None
    return [str(m) for m in found[0].game.moves]
