"""The daemon: one asyncio loop from the reed switches to the lights.

::

    scanner thread ──(t_ms, bitmap)──> loop: debounce -> tracker -> store -> feedback -> LEDs
    (only changes, plus a heartbeat)          ^ timers: debounce maturity, tracker settle,
                                                blinking (2 Hz), flashes, watchdog

The scanner thread hands scans to the loop with ``call_soon_threadsafe``; everything else
runs on the loop. Timers are scheduled for the moments something can happen (a debounced
change maturing, the board having been still for the settle time, the next blink phase),
so an idle board costs one heartbeat a second and nothing more.

A committed move is in the store (one transaction, ``synchronous=FULL``) before the LEDs
confirm it. After a crash the daemon resumes the newest game at its last stored move,
with the pieces as the sensors find them: if they differ, the tracker's frame guides
them back.

The daemon's own light patterns, on the 28 edge squares (documented in the README):

- starting: edge squares blue, steady (until the game is loaded and the board scanned);
- bridge link lost: edge squares yellow, blinking (the pieces shown last are kept);
- hardware fault: edge squares red, blinking, just before the daemon exits non-zero.

Waiting for the board to match the game (after a restart, or an illegal position) is the
tracker's own frame: red blinking = empty this square, blue blinking = fill this square.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from board_driver.boardscript.feed import describe
from board_driver.events import BoardEvent, Button, Choose, Lift, Place
from board_driver.frame import Frame
from board_driver.physical.debounce import Debouncer
from board_driver.service.config import Config
from board_driver.service.notify import Notifier
from board_driver.service.store import Store, StoreError, rebuild_game
from board_driver.squares import square_name, squares_of

log = logging.getLogger("magboard")

#: The 28 squares around the edge of the board.
EDGE_SQUARES = tuple(sq for sq in range(64) if sq < 8 or sq >= 56 or sq % 8 in (0, 7))
EDGE_MASK = sum(1 << sq for sq in EDGE_SQUARES)
#: Blinking: on for half the period, off for the other half.
BLINK_PERIOD_S = 0.5
#: How long a committed move's squares flash white.
FLASH_S = 0.3
#: With no scan (not even a heartbeat) for this long, the scanner is taken as stuck.
SCANNER_STALL_S = 5.0


class DaemonError(Exception):
    """The daemon cannot start or go on; the message says what and where."""


class DaemonConfigError(DaemonError):
    """The config asks for something that cannot be had: exit 2 (restarting will not help)."""


def edge_frame(letter: str, *, blink: bool = False) -> Frame:
    """A frame with only the edge squares lit, for the daemon's own states."""
    colours = tuple(letter if sq in EDGE_SQUARES else "." for sq in range(64))
    return Frame(colours, EDGE_MASK if blink else 0)


STARTING_FRAME = edge_frame("b")
LINK_LOST_FRAME = edge_frame("y", blink=True)
FAULT_FRAME = edge_frame("r", blink=True)


@dataclass
class Hardware:
    """The ports the daemon drives, opened from the config by :func:`open_hardware`."""

    sensing: Any
    leds: Any
    render: Callable[[Frame, bool], list]  # (frame, phase on) -> 64 RGB
    sim_board: Any = None  # the SimulatedBoard, with --sim
    bridge: Any = None  # the BridgeLink, when a port is on the serial bridge
    buttons: Any = None  # GpioButtons, or None

    def close(self, *, lights_off: bool = True) -> None:
        """Every port released, the lights off (or left as they are); safe to call twice."""
        for port in (self.buttons, self.leds, self.sensing, self.bridge):
            if port is None or (port is self.leds and not lights_off):
                continue
            if port is self.bridge and not lights_off and self.leds is self.bridge:
                continue
            with contextlib.suppress(Exception):
                port.close()


#: What opening a port can raise that is the world's fault, not a bug: named, not traced.
def _open_errors() -> tuple[type[BaseException], ...]:
    from board_driver.physical.hwlib import MissingLibraryError

    return (MissingLibraryError, ValueError, OSError, RuntimeError, ImportError)


def open_hardware(config: Config) -> Hardware:
    """Open the ports the config names. DaemonError says which port failed and why."""
    from board_driver.physical.buttons import open_buttons
    from board_driver.physical.leds import Renderer, open_leds
    from board_driver.physical.sensing import open_sensing
    from board_driver.physical.sensing.sim import SimulatedBoard

    s, lc = config.sensing, config.leds
    opened: list[Any] = []
    bridge = sim_board = None
    try:
        renderer = Renderer(colours=dict(lc.colours), brightness=lc.brightness, gamma=lc.gamma)
        if "bridge" in (s.backend, lc.backend, config.buttons.backend):
            try:
                from firmware_bridge import BridgeLink

                bridge = BridgeLink(config.bridge.device, config.bridge.baud)
            except _open_errors() as exc:
                raise DaemonError(f"[bridge] cannot open {config.bridge.device}: {exc}") from exc
            opened.append(bridge)
        try:
            if s.backend == "sim":
                sim_board = SimulatedBoard(state_file=config.sim_state_file())
                sensing = sim_board
            elif s.backend == "bridge":
                sensing = bridge
            else:
                sensing = open_sensing(
                    s.backend,
                    rows=list(s.rows),
                    columns=list(s.columns),
                    chip=s.chip,
                    active_low=s.active_low,
                    settle_us=s.settle_us,
                    rotation=s.rotation,
                    mirror=s.mirror,
                )
                opened.append(sensing)
        except _open_errors() as exc:
            raise DaemonError(f"[sensing] backend {s.backend!r}: cannot open: {exc}") from exc
        try:
            if lc.backend == "bridge":
                leds = bridge
            else:
                leds = open_leds(
                    lc.backend,
                    count=lc.count,
                    order=lc.order,
                    first=lc.first,
                    along=lc.along,
                    pin=lc.pin,
                    pixel_order=lc.pixel_order,
                )
                opened.append(leds)
        except _open_errors() as exc:
            raise DaemonError(f"[leds] backend {lc.backend!r}: cannot open: {exc}") from exc
        buttons = None
        if config.buttons.backend == "gpio":
            try:
                buttons = open_buttons(
                    "gpio",
                    **config.buttons.pins(),
                    gpio="rpigpio" if s.backend == "rpigpio" else "gpiod",
                    chip=s.chip,
                )
            except _open_errors() as exc:
                raise DaemonError(f"[buttons] cannot open: {exc}") from exc
    except BaseException:
        for port in opened:
            with contextlib.suppress(Exception):
                port.close()
        raise
    return Hardware(sensing, leds, renderer.render, sim_board, bridge, buttons)


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


def gpio_present() -> bool:
    """Whether this machine has GPIO chips (a Raspberry Pi, or another board with some)."""
    return any(Path("/dev").glob("gpiochip*"))


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
        #: Serve the web page (``[web]``) on the loop; ``magboard run`` turns it on.
        self.web = web
        self._web_server: Any = None
        #: Called on the loop after every tracker step (with the game events it announced)
        #: and whenever the LED frame changes (with none): the web page listens here.
        self.watchers: list[Callable[[list[dict]], None]] = []
        self.on_frame = on_frame
        self.hw = hardware
        self.script = script
        #: The script file's text when the caller has read (and checked) it already.
        self.script_text = script_text
        self.script_input = script_input
        self.notifier = notifier or Notifier()
        self.store: Store | None = None
        self.tracker: Any = None
        self.debouncer: Debouncer | None = None
        self.exit_code = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._t0 = 0.0
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tick_timers: dict[int, asyncio.TimerHandle] = {}
        self._flash: tuple[int, float] | None = None  # (square mask, until loop time)
        self._override: Frame | None = STARTING_FRAME
        self._shown: tuple | None = None
        self._game: Any = None
        self._game_id: int | None = None
        self._line: tuple = ()
        self._result: tuple[str, str] | None = None
        self._in_sync: bool | None = None
        self._last_scan_at = 0.0
        self._link_up: bool | None = None
        self._scan_loop: Any = None
        self._tasks: list[asyncio.Task] = []
        self._lock: Any = None
        self.engine: Any = None  # the EngineSeat: a UCI engine playing a side, hints
        self._engine_record: tuple | None = None  # (game id, options) last stored
        self._engine_side_for_new_games = config.engine.side  # until set_engine changes it

    # ------------------------------------------------------------------ clock

    def now_ms(self) -> int:
        assert self._loop is not None
        return int((self._loop.time() - self._t0) * 1000)

    def _loop_time(self, t_ms: int) -> float:
        return self._t0 + t_ms / 1000

    # ------------------------------------------------------------------ life

    async def run(self) -> int:
        """Run until SIGTERM/SIGINT (0) or a fault (non-zero)."""
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._t0 = self._loop.time()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                self._loop.add_signal_handler(sig, self.stop, 0)
        try:
            self._show_leds()  # starting pattern
            try:
                await self._start()
            except ValueError as exc:  # a value the parts refuse (the config's): named, no trace
                raise DaemonConfigError(
                    f"cannot start: {exc} (check the config: `magboard config check`)"
                ) from exc
            if self.web:
                await self._start_web()
            await self._stop.wait()
        except (DaemonError, StoreError):
            self.exit_code = 1
            self._override = FAULT_FRAME
            with contextlib.suppress(Exception):
                self._show_leds()
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
        """A hardware or store fault: say so, light the fault pattern, stop non-zero."""
        log.error("fault: %s", message)
        self._override = FAULT_FRAME
        with contextlib.suppress(Exception):
            self._show_leds()
        self.stop(code)

    async def _start(self) -> None:
        config = self.config
        path = config.store_path()
        self._lock = _lock_store(path)
        self.store = Store.open(path)
        try:
            first = self.hw.sensing.scan()
        except Exception as exc:  # any backend, any failure: name it, no traceback
            raise DaemonError(f"cannot read the board: {exc}") from exc
        self._last_scan_at = self._loop.time()
        self._resume_game()
        await self._start_engine()
        self.debouncer = Debouncer(config.sensing.debounce_ms, initial=first)
        loop = self._loop
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
        self._start_scanner()
        self._override = None if self._link_up is not False else LINK_LOST_FRAME
        self._after([])
        self._catch_up(first)
        self._schedule_watchdog()
        where = f"simulated board {config.sim_state_file()}" if self.hw.sim_board else "board"
        log.info(
            "ready: game %s at move %d, %s, store %s",
            self._game_id,
            len(self.tracker.game.moves),
            where,
            path,
        )
        self.notifier.ready(f"game {self._game_id}, {len(self.tracker.game.moves)} plies")
        if self.script is not None:
            self._tasks.append(asyncio.create_task(self._play_script()))

    async def _start_web(self) -> None:
        from board_driver.connectors.web.server import WebServer

        self._web_server = WebServer(self)
        await self._web_server.start()  # a port in use is a warning, not a failure

    async def _shutdown(self) -> None:
        self.notifier.stopping()
        if self.engine is not None:
            await self.engine.close()
        if self._web_server is not None:
            with contextlib.suppress(Exception):
                await self._web_server.stop()
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
        # A clean stop turns the lights off; a fault leaves its pattern lit for whoever looks.
        self.hw.close(lights_off=self.exit_code == 0)
        if self.store is not None:
            self.store.close()
        if self._lock is not None:
            self._lock.close()
        log.info("stopped%s", f" (exit {self.exit_code})" if self.exit_code else "")

    # ------------------------------------------------------------------ the game

    def _resume_game(self) -> None:
        import rules
        from board_driver.arbiter.tracker import GameOptions, Timing, Tracker

        assert self.store is not None
        game_config = self.config.game
        timing = Timing(settle_ms=game_config.settle_ms, pass_ms=game_config.pass_ms)
        latest = self.store.latest_game_id()
        if latest is None:
            options = GameOptions(
                touch_move=game_config.touch_move,
                takeback=game_config.takeback,
                hints=game_config.hints,
            )
            game = rules.Game()
            self._game_id = self.store.new_game(game.start.fen(), _options_record(options))
            log.info("new game %d", self._game_id)
        else:
            stored = self.store.game(latest)
            game = rebuild_game(stored)
            options = _options_from_record(stored.options, game_config)
            self._game_id = latest
            outcome = game.outcome()
            # The stored result, not the rebuilt one: a daemon stopped between storing the
            # last move and its result left it unwritten, and the first sync writes it.
            self._result = (stored.result, stored.termination) if stored.result != "*" else None
            log.info(
                "resuming game %d at ply %d%s",
                latest,
                len(game.moves),
                f" (ended {outcome.result()}, {outcome.termination})" if outcome else "",
            )
        self.tracker = Tracker(game, options=options, timing=timing)
        self._game = self.tracker.game
        self._line = tuple(self._game.moves)
        self._timing = timing

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

    def new_game(self, fen: str | None, options: dict[str, Any]) -> None:
        """Start a new game (a script's ``fen``/``option`` header) on the pieces standing."""
        import rules
        from board_driver.arbiter.tracker import Tracker

        merged = dataclasses.replace(self.tracker.options, **options)
        start = rules.Position.from_fen(fen) if fen else rules.Position()
        board = self.debouncer.stable if self.debouncer else None
        self.tracker = Tracker(rules.Game(start), options=merged, timing=self._timing, board=board)
        now = self.now_ms()
        # A set-up position that is already over (mate, dead position) is announced at once.
        self._after([{"t": now, "type": "new_game"}, *self.tracker.starting_events(now)])

    # ------------------------------------------------------------------ the engine

    async def _start_engine(self) -> None:
        """The engine's seat from ``[engine]``; a resumed game keeps the side it had
        (new games get the config's side, see :meth:`_engine_for_new_game`).

        An engine that cannot start does not stop the board: the daemon runs on, says so
        (``engine_error``) and the seat asks again when it is the engine's turn. Only a
        config that gives new games an engine side while no engine can be found at all
        stops the daemon (exit 2, a config error: restarting would not mend it).
        """
        from board_driver.players.engine import (
            EngineError,
            EngineLevel,
            EngineNotFound,
            find_engine,
        )
        from board_driver.players.engine.seat import EngineSeat

        assert self.store is not None
        section = self.config.engine
        if section.side != "none":
            try:
                find_engine(section.path)
            except EngineNotFound as exc:
                raise DaemonConfigError(
                    f"[engine] side = {section.side!r} but no engine can be found: {exc} "
                    '(install it: `apt-get install stockfish`, or set [engine] side = "none")'
                ) from exc
        stored = self.store.game(self._game_id).options if self._game_id is not None else {}
        side = stored.get("engine_side", section.side)
        self.engine = EngineSeat(
            self,
            side=side,
            path=section.path,
            level=EngineLevel.from_config(section),
            threads=section.threads,
            hash_mb=section.hash_mb,
        )
        try:
            await self.engine.start()
        except (EngineError, OSError) as exc:
            log.error(
                "engine: cannot start the engine for %s: %s (the board works on; "
                "asked again when it is the engine's turn)",
                side,
                exc,
            )
            self._after([{"t": self.now_ms(), "type": "engine_error", "message": str(exc)}])
            return
        if side != "none":
            log.info(
                "engine: %s plays %s (%s)", self.engine.name, side, self.engine.level.describe()
            )

    def set_engine(self, side: str, level: Any = None) -> None:
        """Let the engine play ``side`` ("none", "white", "black") at ``level`` (an
        :class:`~board_driver.players.engine.EngineLevel`; None keeps the current one), from now
        on, in this game and the next ones until the daemon restarts (then the config's
        side applies to new games again). ValueError if the side is unknown or no engine can
        be found. For the web page (call it on the loop)."""
        assert self.engine is not None
        self.engine.configure(side, level)
        self._engine_side_for_new_games = side
        record = self.engine.record()
        log.info("engine: %s plays %s (%s)", record.name, side, record.level)
        self._after(
            [
                {
                    "t": self.now_ms(),
                    "type": "engine_changed",
                    "side": side,
                    "engine": record.name,
                    "level": record.level,
                }
            ]
        )

    def _engine_for_new_game(self) -> None:
        """A new game gets the side for new games (the config's, or the last set_engine)."""
        side = self._engine_side_for_new_games
        if self.engine.side != side:
            self.engine.side = side
            log.info("engine: plays %s in the new game", side)

    def engine_state(self) -> dict[str, Any]:
        """The engine's side, name, level and what it is doing (see ``EngineSeat.state``)."""
        assert self.engine is not None
        return self.engine.state()

    def announce(self, events: list[dict]) -> None:
        """Game events from beside the tracker (the engine's): stored, logged, lit."""
        self._after(events)

    def _store_engine_record(self) -> None:
        if self.engine is None or self._game_id is None or self.store is None:
            return
        options = self.engine.record().options()
        key = (self._game_id, tuple(sorted(options.items())))
        if key != self._engine_record:
            self.store.set_options(self._game_id, options)
            self._engine_record = key

    def handle(self, events: Iterable[BoardEvent]) -> None:
        """Hand board events to the tracker, in order; then store, log and light."""
        for event in events:
            log.debug("event %s", describe(event))
            try:
                found = self.tracker.handle(event)  # judges first what fell due before it
            except ValueError as exc:  # an event no board can make: the tracker keeps its state
                log.error("ignored %s: %s", describe(event), exc)
                continue
            self._after(found)

    def _tick(self, due: int) -> None:
        self._tick_timers.pop(due, None)
        # now_ms() truncates the loop's clock: at the timer's moment it may read due - 1.
        self._after(self.tracker.tick(max(self.now_ms(), due)))

    def _schedule_tick(self) -> None:
        """The tracker judges the board once it has been still: wake it then, not before."""
        due = self.tracker.next_due()
        if due is not None and due not in self._tick_timers and self._loop is not None:
            self._tick_timers[due] = self._loop.call_at(self._loop_time(due), self._tick, due)

    def _after(self, announced: list[dict]) -> None:
        """What follows a tracker step: store first, then logs, then lights."""
        self._schedule_tick()
        if self.engine is not None and any(e.get("type") == "new_game" for e in announced):
            self._engine_for_new_game()
        if self.engine is not None:
            self.engine.update(announced)  # its side on this tracker, its turn: ask it
        try:
            self._sync_store(announced)
            self._store_engine_record()
        except (StoreError, OSError, sqlite3.Error) as exc:
            self.fault(f"cannot store the game: {exc}")
            return
        for event in announced:
            _log_announcement(event, self._game_id)
            if event.get("type") == "move" and event.get("uci"):
                self._start_flash(event["uci"])
                self.notifier.status(f"game {self._game_id}: {event.get('san')} stored")
        in_sync = bool(self.tracker.in_sync)
        if in_sync != self._in_sync:
            if self._in_sync is not None or not in_sync:
                if in_sync:
                    log.info("board matches the game again")
                else:
                    log.info("waiting for the board to match: %s", self._mismatch())
            self._in_sync = in_sync
        self._show_leds()
        self._tell_watchers(announced)

    def _tell_watchers(self, announced: list[dict]) -> None:
        for watcher in list(self.watchers):
            try:
                watcher(announced)
            except Exception:  # a watcher's bug must not stop the board
                log.exception("watcher failed")

    @property
    def game_id(self) -> int | None:
        """The stored number of the game being played."""
        return self._game_id

    def set_options(self, options: dict[str, Any]) -> None:
        """Change the current game's options (``touch_move``, ``takeback``, ``hints``).

        ValueError (from GameOptions) names a bad value; the options stay as they were.
        """

        self.tracker.options = dataclasses.replace(self.tracker.options, **options)
        assert self.store is not None and self._game_id is not None
        self.store.set_options(self._game_id, _options_record(self.tracker.options))
        log.info("options: %s", _brief(_options_record(self.tracker.options)))
        o = self.tracker.options
        self._after(
            [
                {
                    "t": self.now_ms(),
                    "type": "options",
                    "touch_move": o.touch_move,
                    "takeback": o.takeback,
                    "hints": o.hints,
                }
            ]
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

    def _sync_store(self, announced: list[dict]) -> None:
        assert self.store is not None
        game = self.tracker.game
        fresh = any(e.get("type") == "new_game" for e in announced)
        if game is not self._game or (fresh and self._line):
            options = _options_record(self.tracker.options)
            self._game_id = self.store.new_game(game.start.fen(), options)
            log.info("new game %d", self._game_id)
            self._game = game
            self._line = ()
            self._result = None
        moves = tuple(game.moves)
        if moves != self._line:
            line = list(zip(map(str, moves), game.san_moves(), strict=True))
            self.store.sync_moves(self._game_id, line)
            self._line = moves
        outcome = game.outcome()
        result = (outcome.result(), outcome.termination) if outcome else None
        if result != self._result:
            if result:
                self.store.finish(self._game_id, *result)
            else:
                self.store.reopen(self._game_id)
            self._result = result

    # ------------------------------------------------------------------ scans

    def _start_scanner(self) -> None:
        from board_driver.physical.sensing import ScanLoop

        loop = self._loop

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
        if self._override is not FAULT_FRAME:
            log.error("hardware fault: reading the board failed: %s", exc)
            self._override = FAULT_FRAME
            self._show_leds()

    def _on_scan(self, bitmap: int) -> None:
        # The loop's clock, not the thread's: one time base for debounce, tracker and timers.
        self._last_scan_at = self._loop.time()
        if self._override is FAULT_FRAME:
            log.warning("board readable again")
            self._override = LINK_LOST_FRAME if self._link_up is False else None
            self._show_leds()
        t = self.now_ms()
        assert self.debouncer is not None
        events = self.debouncer.feed(t, bitmap)
        if events:
            self.handle(events)
        self._schedule_debounce()

    def _debounce_due(self) -> None:
        self._timers.pop("debounce", None)
        assert self.debouncer is not None
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
            self._timers["debounce"] = self._loop.call_at(
                self._loop_time(due + 1), self._debounce_due
            )

    # ------------------------------------------------------------------ bridge and buttons

    def link_changed(self, up: bool, reason: str) -> None:
        """The serial bridge went up or down (called on the loop)."""
        if up == self._link_up:
            return
        self._link_up = up
        log.warning("bridge link %s%s", "up" if up else "down", f": {reason}" if reason else "")
        self._override = None if up else LINK_LOST_FRAME
        self._show_leds()

    def _pressed(self, event: BoardEvent) -> None:
        """A button was pressed (on the loop): retimed on the loop's clock."""
        if isinstance(event, Choose):
            event = Choose(self.now_ms(), event.piece)
        elif isinstance(event, Button):
            event = Button(self.now_ms(), event.name)
        log.info("button: %s", describe(event))
        self.handle([event])

    # ------------------------------------------------------------------ lights

    def _start_flash(self, uci: str) -> None:
        from board_driver.squares import square

        try:
            mask = (1 << square(uci[0:2])) | (1 << square(uci[2:4]))
        except ValueError:
            return
        self._flash = (mask, self._loop.time() + FLASH_S)
        self._set_timer("flash", FLASH_S, self._end_flash)

    def _end_flash(self) -> None:
        self._timers.pop("flash", None)
        self._flash = None
        self._show_leds()

    def current_frame(self) -> Frame:
        """The steady frame now: the daemon's own state, or the game's with any flash."""
        if self._override is not None:
            return self._override
        frame = self.tracker.frame()
        if self._flash is not None:
            mask = self._flash[0]
            for sq in squares_of(mask):
                frame = frame.with_square(sq, "w")
        return frame

    def _show_leds(self) -> None:
        frame = self.current_frame()
        loop_time = self._loop.time() if self._loop else time.monotonic()
        on = frame.blink == 0 or (loop_time % BLINK_PERIOD_S) < BLINK_PERIOD_S / 2
        key = (frame, on)
        if key != self._shown:
            new_frame = self._shown is None or self._shown[0] != frame
            self._shown = key
            self.hw.leds.show(self.hw.render(frame, on))
            log.debug("leds\n%s", frame.at_phase(on))
            if self.on_frame is not None and new_frame:
                self.on_frame(frame)
            if new_frame and self._loop is not None:
                self._tell_watchers([])
        if frame.blink and self._loop is not None:
            # Wake at the next phase change only while something blinks.
            half = BLINK_PERIOD_S / 2
            delay = half - (loop_time % half) + 0.001
            self._set_timer("blink", delay, self._blink)
        else:
            old = self._timers.pop("blink", None)
            if old is not None:
                old.cancel()

    def _blink(self) -> None:
        self._timers.pop("blink", None)
        self._show_leds()

    def _set_timer(self, name: str, delay: float, callback: Callable[[], None]) -> None:
        old = self._timers.pop(name, None)
        if old is not None:
            old.cancel()
        self._timers[name] = self._loop.call_later(delay, callback)

    # ------------------------------------------------------------------ watchdog

    def _schedule_watchdog(self) -> None:
        interval = self.notifier.watchdog_interval()
        if interval is not None:
            self._set_timer("watchdog", interval, self._watchdog)

    def _watchdog(self) -> None:
        stalled = self._loop.time() - self._last_scan_at
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
        feeder = ScriptFeeder(self, self.hw.sim_board)
        if self.script == "-":
            lines = stream_lines(self.script_input or sys.stdin)
            await feeder.play(lines, "<stdin>")
        else:
            text = self.script_text
            if text is None:
                text = Path(self.script).read_text(encoding="utf-8")
            await feeder.play(text_lines(text), self.script)
        log.info("script finished")


# ---------------------------------------------------------------------- helpers


def _options_record(options: Any) -> dict[str, str]:
    return {
        "touch_move": str(options.touch_move),
        "takeback": "true" if options.takeback else "false",
        "hints": "true" if options.hints else "false",
    }


def _options_from_record(record: dict[str, str], defaults: Any) -> Any:
    from board_driver.arbiter.tracker import GameOptions

    return GameOptions(
        touch_move=record.get("touch_move", defaults.touch_move),
        takeback=record.get("takeback", str(defaults.takeback).lower()) == "true",
        hints=record.get("hints", str(defaults.hints).lower()) == "true",
    )


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
