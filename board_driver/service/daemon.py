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
cannot store says what it could not, and where it was kept instead: :mod:`.storing`).
Every event given to the tracker, and every decision made beside the board, is first
written to the hands journal beside the store (:mod:`.hands_journal`). After a crash the
daemon resumes the game on the board at its last stored move, replays the journal (the
hands of the move that was in progress; everything the store lacked, if it was failing),
then judges the pieces as the sensors find them (:mod:`.restart`); what the pieces alone
cannot tell is asked (:mod:`.questions`), and the lights guide anything else back.

Everything else (the page, the engine, online play, app protocols, broadcasting) is an
extension (:mod:`board_driver.door.extension`) that sees the board only through its door
(:class:`~board_driver.service.doorway.BoardDoor`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
import sys
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, TextIO

from board_driver.arbiter.tracker import Timing, Tracker
from board_driver.door import ActionRefused
from board_driver.door.extension import ExtensionConfigError
from board_driver.physical.events import BoardEvent, Lift, Place
from board_driver.physical.frame import Frame
from board_driver.physical.squares import square, square_name, squares_of
from board_driver.service.clock import DaemonClock
from board_driver.service.config import Config
from board_driver.service.doorway import BoardDoor
from board_driver.service.hands_journal import Decided, HandsJournal, journal_path
from board_driver.service.hardware import Hardware, HardwareError, gpio_present, open_hardware
from board_driver.service.intake import Intake
from board_driver.service.journal import (
    RepeatLimiter,
    brief,
    log_announcement,
    loop_exception_handler,
)
from board_driver.service.journal_lines import data_line, headers_line
from board_driver.service.lights import (
    EDGE_SQUARES,
    FAULT_FRAME,
    LINK_LOST_FRAME,
    STARTING_FRAME,
    Lights,
)
from board_driver.service.new_games import NewGames
from board_driver.service.notify import Notifier
from board_driver.service.questions import Questions
from board_driver.service.recorder import Recorder, lock_store, options_record
from board_driver.service.restart import Restart
from board_driver.service.resumption import Question
from board_driver.service.store import EXIT_STORE_REFUSED, Store, StoreError, StoreRefusedError
from board_driver.service.storing import Storing

log = logging.getLogger("magboard")

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


def exit_status(exc: Exception) -> int:
    """The exit status of ``magboard run`` stopped by ``exc``, as its log's "stopped
    (exit N)" says it: 2 for the config's fault (restarting will not mend it),
    :data:`EXIT_STORE_REFUSED` for a store it cannot use, else 1."""
    if isinstance(exc, DaemonConfigError):
        return 2
    if isinstance(exc, StoreRefusedError):
        return EXIT_STORE_REFUSED
    return 1


class Daemon(NewGames, Restart, Questions, Storing):
    """``magboard run``: the loop, its timers, and the parts it wires together (a restart's
    journal replay, :class:`.Restart`; what it asks, :class:`.Questions`; the store's
    failures, :class:`.Storing`)."""

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
        watchers: Sequence[Callable[[BoardDoor], Coroutine[Any, Any, Any]]] = (),
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
        self._tracker: Any = None
        self.intake: Intake | None = None
        #: The game on the board is played online: a server decides its result.
        self.online = False
        self.exit_code = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._t0 = 0.0
        self._timing = Timing(settle_ms=config.game.settle_ms, pass_ms=config.game.pass_ms)
        #: The kind of game a new game without a position is: its variant, and for Chess960
        #: a start position number or "random" (the config's ``[game]``, then the last new
        #: game asked for through the door).
        self.game_kind: tuple[str, int | str | None] = config.game.kind()
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
        self._new_game_replayed = False  # a new game the store lacked, from the journal
        #: A new game's headers and texts, replayed from the journal (set once it is stored).
        self._replayed: tuple[dict, dict] | None = None

    @property
    def tracker(self) -> Any:
        """The tracker of the game on the board (a new one for each game taken up)."""
        return self._tracker

    @tracker.setter
    def tracker(self, tracker: Any) -> None:
        if tracker is not None:
            tracker.next_start = self.next_start  # a new game set up on the board
        self._tracker = tracker

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
    def _recorder(self) -> Recorder:
        """The recorder, once the board has started (its store open)."""
        if self.recorder is None:
            raise RuntimeError("the board has not started: no store is open yet")
        return self.recorder

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
            self.exit_code = exit_status(exc)
            with contextlib.suppress(Exception):
                self.lights.set_pattern(FAULT_FRAME)
            # Said here, before "stopped (exit N)", not after it by the command.
            log.error("%s", exc)
            exc.logged = True  # type: ignore[union-attr]
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
        game, options = self._recorder.resume()
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
        clocked = self.clock.load(self._recorder.clock_log(), steps, stored_line)
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

    def set_options(self, options: dict[str, Any]) -> list[dict]:
        """Change the current game's options (``touch_move``, ``takeback``, ``hints``).

        ValueError (from GameOptions) names a bad value; the options stay as they were.
        """
        before = self.tracker.options
        self.tracker.options = dataclasses.replace(before, **options)
        o = self.tracker.options
        record = ",".join(f"{k}={v}" for k, v in options_record(o).items())
        self.keep(Decided(self.now_ms(), f"options {record}"))
        self.store_call(self._recorder.set_options, o)
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
        extension, checked = self._recorder.check_game_data(name, data)
        self.keep(Decided(self.now_ms(), data_line(extension, checked)))
        self.store_call(self._recorder.set_game_data, extension, checked)

    def set_headers(self, headers: dict[str, str]) -> None:
        """PGN headers of the game on the board (``""`` removes one): kept in the journal and
        stored, or stored once the store can be written. ValueError names a bad one."""
        checked = self._recorder.check_headers(headers)
        self.keep(Decided(self.now_ms(), headers_line(checked)))
        self.store_call(self._recorder.set_headers, checked)

    def announce(self, events: list[dict]) -> None:
        """Game events from beside the tracker (players, the door): stored, logged, lit."""
        self.after(events)

    # ------------------------------------------------------------------ events in

    def handle_outside(self, event: BoardEvent) -> list[dict]:
        """A button or a promotion choice from outside the switches (see :mod:`.intake`)."""
        if self.intake is None:
            raise ActionRefused("the board has not started yet")
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
            script = str(self.script)  # a file's name (_play_script runs only with one)
            text = self.script_text
            if text is None:
                text = read_script_file(script)
            await feeder.play(text_lines(text), script)
        log.info("script finished")

