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
store takes it). After a crash the daemon resumes the newest game at its last stored
move, with the pieces as the sensors find them: if they differ, the lights guide them back.

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
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

import rules
from board_driver.arbiter.tracker import Timing, Tracker
from board_driver.events import BoardEvent, Button, Choose, Lift, Place
from board_driver.extension import ExtensionConfigError
from board_driver.frame import Frame
from board_driver.physical.debounce import Debouncer
from board_driver.service.config import Config
from board_driver.service.doorway import BoardDoor
from board_driver.service.hardware import Hardware, HardwareError, gpio_present, open_hardware
from board_driver.service.lights import (
    EDGE_SQUARES,
    FAULT_FRAME,
    LINK_LOST_FRAME,
    STARTING_FRAME,
    STORE_FAILING_FRAME,
    Lights,
)
from board_driver.service.notify import Notifier
from board_driver.service.recorder import Recorder, options_record
from board_driver.service.store import Store, StoreError
from board_driver.squares import square, square_name, squares_of

log = logging.getLogger("magboard")

#: With no scan (not even a heartbeat) for this long, the scanner is taken as stuck.
SCANNER_STALL_S = 5.0
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


def _lock_store(path: Path) -> Any:
    """One daemon per store: a second one would interleave two games' moves."""
    import fcntl

    lock_path = Path(f"{path}.lock")
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock_path, "w")  # noqa: SIM115 - held open while the daemon runs
    except OSError as exc:
        raise StoreError(f"{lock_path}: cannot create ({exc.strerror})") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise DaemonError(
            f"another magboard daemon is running with the store {path} "
            "(stop it first: `systemctl stop magboard`, or use another config)"
        ) from None
    return handle


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
        self.lights = Lights(self._show, game_frame=self._game_frame, on_change=self._frame_changed)
        self.door = BoardDoor(self)
        self.recorder: Recorder | None = None
        self.tracker: Any = None
        self.debouncer: Debouncer | None = None
        self.exit_code = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._t0 = 0.0
        self._timing = Timing(settle_ms=config.game.settle_ms, pass_ms=config.game.pass_ms)
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tick_timers: dict[int, asyncio.TimerHandle] = {}
        self._in_sync: bool | None = None
        self._last_scan_at = 0.0
        self._link_up: bool | None = None
        self._scan_loop: Any = None
        self._tasks: list[asyncio.Task] = []
        self._lock: Any = None
        self._extensions: list[tuple[str, Any]] = []
        self._held: list[BoardEvent] = []  # buttons waiting for the board's earlier events
        self._store_failing: str | None = None

    # ------------------------------------------------------------------ clock

    def now_ms(self) -> int:
        assert self.loop is not None
        return int((self.loop.time() - self._t0) * 1000)

    def _loop_time(self, t_ms: int) -> float:
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
        except (DaemonError, StoreError):
            self.exit_code = 1
            with contextlib.suppress(Exception):
                self.lights.set_pattern(FAULT_FRAME)
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
        self._lock = _lock_store(path)
        self.recorder = Recorder(Store.open(path), config.game)
        try:
            first = self.hw.sensing.scan()
        except Exception as exc:  # any backend, any failure: name it, no traceback
            raise DaemonError(f"cannot read the board: {exc}") from exc
        self._last_scan_at = self.loop.time()
        game, options = self.recorder.resume()
        self.tracker = Tracker(game, options=options, timing=self._timing)
        self.door.restore_seats()
        self.debouncer = Debouncer(config.sensing.debounce_ms, initial=first)
        self._wire_inputs()
        self._start_scanner()
        self.lights.set_pattern(LINK_LOST_FRAME if self._link_up is False else None)
        self._after([])
        self._catch_up(first)
        self._schedule_watchdog()

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
        if self.script is not None:
            self._tasks.append(asyncio.create_task(self._play_script()))

    def _wire_inputs(self) -> None:
        """The bridge's link changes and buttons, and GPIO buttons, onto the loop."""
        loop = self.loop
        if self.hw.bridge is not None:
            bridge = self.hw.bridge
            self._link_up = bool(bridge.link_up)
            bridge.on_link_change = lambda up, why: loop.call_soon_threadsafe(
                self.link_changed, up, why
            )
            if self.config.buttons.backend == "bridge":
                from board_driver.physical.buttons import ButtonPresses

                presses = ButtonPresses(lambda e: loop.call_soon_threadsafe(self._pressed, e))
                bridge.on_button = lambda name: presses.press(name, 0)
        if self.hw.buttons is not None:
            self.hw.buttons.start(lambda e: loop.call_soon_threadsafe(self._pressed, e))

    async def _shutdown(self) -> None:
        from board_driver.service.extensions import stop_extensions

        self.notifier.stopping()
        await stop_extensions(self._extensions)
        self.door.close()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        if self._scan_loop is not None:
            with contextlib.suppress(Exception):
                self._scan_loop.stop()
        for handle in [*self._timers.values(), *self._tick_timers.values()]:
            handle.cancel()
        self.lights.close()
        # A clean stop turns the lights off; a fault leaves its pattern lit for whoever looks.
        self.hw.close(lights_off=self.exit_code == 0)
        if self.store is not None:
            self.store.close()
        if self._lock is not None:
            self._lock.close()
        log.info("stopped%s", f" (exit {self.exit_code})" if self.exit_code else "")

    # ------------------------------------------------------------------ the game

    def _catch_up(self, standing: int) -> None:
        """Pieces that moved while the daemon was away (a crash, a power cut): as if moved now.

        A move completed but not yet judged when the power went is then judged as usual
        and committed; half a move waits to be finished; anything else is out of sync and
        the lights show what to put right.
        """
        committed = self.tracker.board
        if standing == committed:
            return
        lifted = squares_of(committed & ~standing)
        placed = squares_of(standing & ~committed)
        log.info(
            "the pieces differ from the stored game:%s%s",
            " lifted " + " ".join(map(square_name, lifted)) if lifted else "",
            " placed " + " ".join(map(square_name, placed)) if placed else "",
        )
        t = self.now_ms()
        self.handle([*(Lift(t, sq) for sq in lifted), *(Place(t, sq) for sq in placed)])

    def new_game(
        self, fen: str | None, options: dict[str, Any], *, online: bool = False
    ) -> list[dict]:
        """Start a new game (a script's ``fen``/``option`` header, the page, a player) on
        the pieces standing; ValueError names a bad FEN or option."""
        merged = dataclasses.replace(self.tracker.options, **options)
        start = rules.Position.from_fen(fen) if fen else rules.Position()
        game = rules.Game(start)
        if online and hasattr(game, "dead_position_ends"):
            game.dead_position_ends = False  # the server decides; a dead position is a note
        board = self.debouncer.stable if self.debouncer else None
        self.tracker = Tracker(game, options=merged, timing=self._timing, board=board)
        now = self.now_ms()
        # A set-up position that is already over (mate, dead position) is announced at once.
        events = [{"t": now, "type": "new_game", "fen": start.fen()}]
        events += self.tracker.starting_events(now)
        self._after(events)
        return events

    def resume_game(self, game_id: int) -> list[dict]:
        """Make stored game ``game_id`` the game on the board again (LookupError if none)."""
        from board_driver.service.store import NoSuchGame

        try:
            game, options = self.recorder.load(game_id)
        except NoSuchGame as exc:
            raise LookupError(str(exc)) from None
        board = self.debouncer.stable if self.debouncer else None
        self.tracker = Tracker(game, options=options, timing=self._timing, board=board)
        self.door.restore_seats()
        log.info("game %d resumed at ply %d", game_id, len(game.moves))
        events = [{"t": self.now_ms(), "type": "game_resumed", "game_id": game_id,
                   "fen": game.position.fen()}]  # fmt: skip
        self._after(events)
        return events

    def set_options(self, options: dict[str, Any]) -> list[dict]:
        """Change the current game's options (``touch_move``, ``takeback``, ``hints``).

        ValueError (from GameOptions) names a bad value; the options stay as they were.
        """
        self.tracker.options = dataclasses.replace(self.tracker.options, **options)
        o = self.tracker.options
        self.store_call(self.recorder.set_options, o)
        log.info("options: %s", _brief(options_record(o)))
        events = [
            {
                "t": self.now_ms(),
                "type": "options",
                "touch_move": o.touch_move,
                "takeback": o.takeback,
                "hints": o.hints,
            }
        ]
        self._after(events)
        return events

    def announce(self, events: list[dict]) -> None:
        """Game events from beside the tracker (players, the door): stored, logged, lit."""
        self._after(events)

    # ------------------------------------------------------------------ events in

    def handle(self, events: Iterable[BoardEvent]) -> list[dict]:
        """Hand board events to the tracker, in order; then store, log and light.
        Returns the game events they led to."""
        from board_driver.boardscript.feed import describe

        announced: list[dict] = []
        for event in events:
            log.debug("event %s", describe(event))
            try:
                found = self.tracker.handle(event)  # judges first what fell due before it
            except ValueError as exc:  # an event no board can make: the tracker keeps its state
                log.error("ignored %s: %s", describe(event), exc)
                continue
            self._after(found, [event] if isinstance(event, Lift | Place) else [])
            announced += found
        return announced

    def handle_outside(self, event: BoardEvent) -> list[dict]:
        """A button or a promotion choice from outside the switches (a button, the page, a
        script). Judged in the order things happened: while a change of the switches is
        still being debounced (it happened before), the event waits for it."""
        if self.debouncer is not None and self.debouncer.next_due() is not None:
            self._held.append(event)
            self._release_held_later()
            return []
        return self.handle([event])

    def _release_held_later(self) -> None:
        due = self.debouncer.next_due() if self.debouncer else None
        if due is None:
            self.loop.call_soon(self._release_held)
        elif "held" not in self._timers:
            self._set_timer("held", max(0.0, self._loop_time(due + 1) - self.loop.time()),
                            self._release_held)  # fmt: skip

    def _release_held(self) -> None:
        self._timers.pop("held", None)
        self._debounce_due()  # the earlier changes of the switches first
        if self.debouncer is not None and self.debouncer.next_due() is not None:
            self._release_held_later()  # a change still bouncing: it happened before too
            return
        held, self._held = self._held, []
        now = self.now_ms()
        for event in held:
            if isinstance(event, Choose):
                event = Choose(max(now, event.t_ms), event.piece)
            elif isinstance(event, Button):
                event = Button(max(now, event.t_ms), event.name)
            self.handle([event])

    def _pressed(self, event: BoardEvent) -> None:
        """A button was pressed (on the loop): retimed on the loop's clock."""
        from board_driver.boardscript.feed import describe

        if isinstance(event, Choose):
            event = Choose(self.now_ms(), event.piece)
        elif isinstance(event, Button):
            event = Button(self.now_ms(), event.name)
        log.info("button: %s", describe(event))
        self.handle_outside(event)

    # ------------------------------------------------------------------ after each step

    def _tick(self, due: int) -> None:
        self._tick_timers.pop(due, None)
        # now_ms() truncates the loop's clock: at the timer's moment it may read due - 1.
        self._after(self.tracker.tick(max(self.now_ms(), due)))

    def _schedule_tick(self) -> None:
        """The tracker judges the board once it has been still: wake it then, not before."""
        due = self.tracker.next_due()
        if due is not None and due not in self._tick_timers and self.loop is not None:
            self._tick_timers[due] = self.loop.call_at(self._loop_time(due), self._tick, due)

    def _after(self, announced: list[dict], board_events: Iterable[Any] = ()) -> None:
        """What follows a tracker step: store first, then logs, then lights, then the door."""
        self._schedule_tick()
        fresh = any(e.get("type") == "new_game" for e in announced)
        self._sync_store(fresh)
        if fresh:
            announced = [*announced, *self.door.on_new_game()]
        for event in announced:
            _log_announcement(event, self.game_id)
            if event.get("type") == "move" and event.get("uci"):
                uci = event["uci"]
                self.lights.flash((1 << square(uci[0:2])) | (1 << square(uci[2:4])))
                self.notifier.status(f"game {self.game_id}: {event.get('san')} stored")
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

    def _sync_store(self, fresh: bool) -> bool:
        """The game in the store; a failure is loud, lit, and retried (the game is kept)."""
        try:
            self.recorder.sync(self.tracker.game, self.tracker.options, fresh)
        except STORE_ERRORS as exc:
            self._store_failed(f"cannot store the game: {exc}")
            return False
        if self._store_failing is not None:
            self._store_failing = None
            self._timers.pop("store", None)
            log.warning("the store works again: game %s is stored", self.game_id)
            self.lights.set_warning(None)
            self.door.announce_state()
        return True

    def store_call(self, write: Callable[..., Any], *args: Any) -> None:
        """A write beside the moves (options, headers, an extension's data): like the
        moves, a failure is loud and lit (it is not retried: the next step writes again)."""
        try:
            write(*args)
        except STORE_ERRORS as exc:
            self._store_failed(f"cannot store: {exc}")

    def _store_failed(self, message: str) -> None:
        if self._store_failing != message:
            log.error("%s (the game is kept in memory; retrying every %g s)",
                      message, STORE_RETRY_S)  # fmt: skip
        first = self._store_failing is None
        self._store_failing = message
        self.lights.set_warning(STORE_FAILING_FRAME)
        if first:
            self.door.announce_state()
        if "store" not in self._timers and self.loop is not None:
            self._set_timer("store", STORE_RETRY_S, self._retry_store)

    def _retry_store(self) -> None:
        self._timers.pop("store", None)
        if self._sync_store(False):
            self.lights.refresh()

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

    # ------------------------------------------------------------------ scans

    def _start_scanner(self) -> None:
        from board_driver.physical.sensing import ScanLoop

        loop = self.loop

        def deliver(_t_ms: int, bitmap: int) -> None:  # on the scanner thread
            loop.call_soon_threadsafe(self._on_scan, bitmap)

        def failed(exc: BaseException) -> None:  # on the scanner thread
            loop.call_soon_threadsafe(self._scan_failed, exc)

        self._scan_loop = ScanLoop(
            self.hw.sensing, deliver, rate_hz=self.config.sensing.rate_hz, on_error=failed
        )
        self._scan_loop.start()

    def _scan_failed(self, exc: BaseException) -> None:
        """A scan raised: show the fault pattern until scans come again (retried each second).

        Under systemd a fault that lasts stops the watchdog pings, and the service restarts.
        """
        if self.lights.pattern is not FAULT_FRAME:
            log.error("hardware fault: reading the board failed: %s", exc)
            self.lights.set_pattern(FAULT_FRAME)
            self.door.announce_state()

    def _on_scan(self, bitmap: int) -> None:
        # The loop's clock, not the thread's: one time base for debounce, tracker and timers.
        self._last_scan_at = self.loop.time()
        if self.lights.pattern is FAULT_FRAME:
            log.warning("board readable again")
            self.lights.set_pattern(LINK_LOST_FRAME if self._link_up is False else None)
            self.door.announce_state()
        events = self.debouncer.feed(self.now_ms(), bitmap)
        if events:
            self.handle(events)
        self._schedule_debounce()

    def _debounce_due(self) -> None:
        self._timers.pop("debounce", None)
        events = self.debouncer.tick(self.now_ms())
        if events:
            self.handle(events)
        self._schedule_debounce()

    def _schedule_debounce(self) -> None:
        due = self.debouncer.next_due() if self.debouncer else None
        old = self._timers.pop("debounce", None)
        if old is not None:
            old.cancel()
        if due is not None:
            # A millisecond late, so that int(now) has passed the maturity time.
            self._timers["debounce"] = self.loop.call_at(
                self._loop_time(due + 1), self._debounce_due
            )

    # ------------------------------------------------------------------ the bridge

    def link_changed(self, up: bool, reason: str) -> None:
        """The serial bridge went up or down (called on the loop)."""
        if up == self._link_up:
            return
        self._link_up = up
        log.warning("bridge link %s%s", "up" if up else "down", f": {reason}" if reason else "")
        self.lights.set_pattern(None if up else LINK_LOST_FRAME)
        self.door.announce_state()

    # ------------------------------------------------------------------ timers

    def _set_timer(self, name: str, delay: float, callback: Callable[[], None]) -> None:
        old = self._timers.pop(name, None)
        if old is not None:
            old.cancel()
        self._timers[name] = self.loop.call_later(delay, callback)

    def _schedule_watchdog(self) -> None:
        interval = self.notifier.watchdog_interval()
        if interval is not None:
            self._set_timer("watchdog", interval, self._watchdog)

    def _watchdog(self) -> None:
        stalled = self.loop.time() - self._last_scan_at
        if stalled < SCANNER_STALL_S:
            self.notifier.watchdog()
        else:
            log.error("no scan for %.1f s: not pinging the watchdog", stalled)
        self._schedule_watchdog()

    # ------------------------------------------------------------------ scripts

    async def _play_script(self) -> None:
        from board_driver.boardscript.feed import ScriptFeeder, stream_lines, text_lines

        if self.hw.sim_board is None:
            raise DaemonError("--script needs the simulated board (--sim)")
        feeder = ScriptFeeder(self.door, self.hw.sim_board, self.config.sensing.debounce_ms)
        if self.script == "-":
            await feeder.play(stream_lines(self.script_input or sys.stdin), "<stdin>")
        else:
            text = self.script_text
            if text is None:
                text = Path(self.script).read_text(encoding="utf-8")
            await feeder.play(text_lines(text), self.script)
        log.info("script finished")


# ---------------------------------------------------------------------- helpers


def _log_announcement(event: dict, game_id: int | None) -> None:
    kind = event.get("type")
    if kind == "move":
        ply = event.get("ply")
        log.info(
            "move%s: %s (%s) stored in game %s",
            f" {ply}" if ply else "",
            event.get("san"),
            event.get("uci"),
            game_id,
        )
    elif kind in ("illegal", "restored", "takeback", "promotion_amended", "game_over"):
        details = {k: v for k, v in event.items() if k not in ("t", "type", "leds")}
        log.info("%s: %s", kind.replace("_", " "), _brief(details))
    else:
        log.debug("%s: %s", kind, _brief({k: v for k, v in event.items() if k != "type"}))


def _brief(details: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in details.items()) or "-"

