"""The board's events into the tracker, on the loop, in the order they happened.

::

    scanner thread ──(bitmap)──> debounce ──> tracker        (the daemon's handle())
    buttons, the page, scripts ─────────────> (held while an earlier switch change matures)
    timers: a debounced change maturing, the board still for the settle time, the watchdog

The scanner thread hands scans to the loop with ``call_soon_threadsafe``, each with the
moment it was read (the monotonic clock, which is the loop's), so debounce, tracker and
timers share one time base, and a loop that was held up still sees what the switches showed
meanwhile, spaced as it happened. A lift or a
place happened at its edge, when the hand took or let go of the piece, even if debouncing
confirms it ``debounce_ms`` later: the tracker is handed it with the edge's time, so the
settle time counts from the hand letting go (the board has been still since then), not
from the confirmation, as in a replay of the same script. So nothing is judged at a
moment before which a change may still be maturing: a button or a promotion choice that
comes meanwhile happened after that change, and waits for it; so does the tracker's
timer. Timers are set only for the moments something can happen, so an idle board costs
one heartbeat a second.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from board_driver.physical.debounce import Debouncer
from board_driver.physical.events import BoardEvent, Button, Choose
from board_driver.service.lights import FAULT_FRAME, LINK_LOST_FRAME

log = logging.getLogger("magboard")

#: With no scan (not even a heartbeat) for this long, the scanner is taken as stuck.
SCANNER_STALL_S = 5.0


class Intake:
    """The loop's side of the inputs, for ``daemon`` (its ``handle``, clock, lights, door)."""

    def __init__(self, daemon: Any, first_scan: int) -> None:
        self.daemon = daemon
        self.loop: asyncio.AbstractEventLoop = daemon.loop
        self.debouncer = Debouncer(daemon.config.sensing.debounce_ms, initial=first_scan)
        self.link_up: bool | None = None
        self.scan_loop: Any = None
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self._tick_timers: dict[int, asyncio.TimerHandle] = {}
        self._held: list[BoardEvent] = []
        self._debounced_to = 0  # the debouncer's clock only goes forward
        self._tick_waits = False  # the tracker's timer waits for a change still maturing
        self._last_scan_at = self.loop.time()

    # ------------------------------------------------------------------ start and stop

    def start(self) -> None:
        """The bridge's link and buttons, GPIO buttons and the scanner, onto the loop."""
        daemon, loop = self.daemon, self.loop
        hw = daemon.hw
        if hw.bridge is not None:
            self.link_up = bool(hw.bridge.link_up)
            hw.bridge.on_link_change = lambda up, why: loop.call_soon_threadsafe(
                self.link_changed, up, why
            )
            if daemon.config.buttons.backend == "bridge":
                from board_driver.physical.buttons import ButtonPresses

                presses = ButtonPresses(lambda e: loop.call_soon_threadsafe(self.pressed, e))
                hw.bridge.on_button = lambda name: presses.press(name, 0)
        if hw.buttons is not None:
            hw.buttons.start(lambda e: loop.call_soon_threadsafe(self.pressed, e))
        self._start_scanner()
        self._schedule_watchdog()

    def stop(self) -> None:
        if self.scan_loop is not None:
            try:
                self.scan_loop.stop()
            except Exception:  # a backend's failure to stop must not hide the shutdown
                log.exception("stopping the scanner")
        for handle in [*self.timers.values(), *self._tick_timers.values()]:
            handle.cancel()

    # ------------------------------------------------------------------ scans

    def _start_scanner(self) -> None:
        from board_driver.physical.sensing import ScanLoop

        loop = self.loop

        def deliver(t_ms: int, bitmap: int) -> None:  # on the scanner thread
            loop.call_soon_threadsafe(self.on_scan, bitmap, t_ms)

        def failed(exc: BaseException) -> None:  # on the scanner thread
            loop.call_soon_threadsafe(self._scan_failed, exc)

        config = self.daemon.config
        self.scan_loop = ScanLoop(
            self.daemon.hw.sensing, deliver, rate_hz=config.sensing.rate_hz, on_error=failed
        )
        self.scan_loop.start()

    def _scan_failed(self, exc: BaseException) -> None:
        """A scan raised: show the fault pattern until scans come again (retried each second).

        Under systemd a fault that lasts stops the watchdog pings, and the service restarts.
        """
        lights = self.daemon.lights
        if lights.pattern is not FAULT_FRAME:
            log.error("hardware fault: reading the board failed: %s", exc)
            lights.set_pattern(FAULT_FRAME)
            self.daemon.door.announce_state()

    def on_scan(self, bitmap: int, scanned_ms: int | None = None) -> None:
        """A scan that differs from the one before, or a heartbeat (on the loop).

        ``scanned_ms``: when the scanner read it (its monotonic clock, the loop's too).
        Debounced at that time, not when the loop gets to it: a loop held up for a while
        (a slow store write) must not squeeze what the switches showed meanwhile into one
        moment, where a piece placed and lifted again would read as a flicker."""
        self._last_scan_at = self.loop.time()
        lights = self.daemon.lights
        if lights.pattern is FAULT_FRAME:
            log.warning("board readable again")
            lights.set_pattern(LINK_LOST_FRAME if self.link_up is False else None)
            self.daemon.door.announce_state()
        events = self.debouncer.feed(self._debounce_time(scanned_ms), bitmap)
        if events:
            self.daemon.handle(self.debouncer.at_edges(events))
        self._schedule_debounce()

    def _debounce_time(self, scanned_ms: int | None = None) -> int:
        """The daemon's time of a scan (now, if not said), never before the debouncer's."""
        now = self.daemon.now_ms()
        t = now
        if scanned_ms is not None:
            t = min(now, scanned_ms - round(self.daemon.loop_time(0) * 1000))
        t = max(t, self._debounced_to)
        self._debounced_to = t
        return t

    def debounce_due(self) -> None:
        self.timers.pop("debounce", None)
        events = self.debouncer.tick(self._debounce_time())
        if events:
            self.daemon.handle(self.debouncer.at_edges(events))
        self._schedule_debounce()

    def _schedule_debounce(self) -> None:
        if self._tick_waits:  # the change it waited for matured or bounced away
            self._tick_waits = False
            self.schedule_tick()
        due = self.debouncer.next_due()
        self._cancel("debounce")
        if due is not None:
            # A millisecond late, so that int(now) has passed the maturity time.
            self.timers["debounce"] = self.loop.call_at(
                self.daemon.loop_time(due + 1), self.debounce_due
            )

    # ------------------------------------------------------------------ buttons and choices

    def outside(self, event: BoardEvent) -> list[dict]:
        """A button or a promotion choice from outside the switches, judged in its place
        among the board's events (see the module docstring). Returns the game events it
        led to at once (none while it waits)."""
        if self.debouncer.next_due() is not None:
            self._held.append(event)
            self._release_later()
            return []
        return self.daemon.handle([event])

    def pressed(self, event: BoardEvent) -> None:
        """A button was pressed (on the loop): retimed on the loop's clock."""
        from board_driver.boardscript.feed import describe

        now = self.daemon.now_ms()
        if isinstance(event, Choose):
            event = Choose(now, event.piece)
        elif isinstance(event, Button):
            event = Button(now, event.name)
        log.info("button: %s", describe(event))
        self.outside(event)

    def _release_later(self) -> None:
        due = self.debouncer.next_due()
        if due is None:
            self.loop.call_soon(self._release)
        elif "held" not in self.timers:
            at = self.daemon.loop_time(due + 1)
            self._later("held", max(0.0, at - self.loop.time()), self._release)

    def _release(self) -> None:
        self.timers.pop("held", None)
        self.debounce_due()  # the earlier changes of the switches first
        if self.debouncer.next_due() is not None:
            self._release_later()  # a change still bouncing: it happened before too
            return
        held, self._held = self._held, []
        now = self.daemon.now_ms()
        for event in held:
            if isinstance(event, Choose):
                event = Choose(max(now, event.t_ms), event.piece)
            elif isinstance(event, Button):
                event = Button(max(now, event.t_ms), event.name)
            self.daemon.handle([event])

    # ------------------------------------------------------------------ the tracker's timer

    def schedule_tick(self) -> None:
        """The tracker judges the board once it has been still: wake it then, not before."""
        due = self.daemon.tracker.next_due()
        if due is not None and due not in self._tick_timers:
            at = self.daemon.loop_time(due)
            self._tick_timers[due] = self.loop.call_at(at, self._tick, due)

    def _tick(self, due: int) -> None:
        self._tick_timers.pop(due, None)
        # now_ms() truncates the loop's clock: at the timer's moment it may read due - 1.
        daemon = self.daemon
        upto = max(daemon.now_ms(), due)
        maturing = self.debouncer.maturing_since()
        if maturing is not None:
            if maturing < due:
                # The board moved before this moment: judge once that change is known.
                self._tick_waits = True
                return
            upto = min(upto, maturing)
        daemon.after(daemon.tracker.tick(upto))

    # ------------------------------------------------------------------ the bridge

    def link_changed(self, up: bool, reason: str) -> None:
        """The serial bridge went up or down (called on the loop)."""
        if up == self.link_up:
            return
        self.link_up = up
        log.warning("bridge link %s%s", "up" if up else "down", f": {reason}" if reason else "")
        self.daemon.lights.set_pattern(None if up else LINK_LOST_FRAME)
        self.daemon.door.announce_state()

    # ------------------------------------------------------------------ the watchdog

    def _schedule_watchdog(self) -> None:
        interval = self.daemon.notifier.watchdog_interval()
        if interval is not None:
            self._later("watchdog", interval, self._watchdog)

    def _watchdog(self) -> None:
        stalled = self.loop.time() - self._last_scan_at
        if stalled < SCANNER_STALL_S:
            self.daemon.notifier.watchdog()
        else:
            log.error("no scan for %.1f s: not pinging the watchdog", stalled)
        self._schedule_watchdog()

    # ------------------------------------------------------------------ timers

    def _later(self, name: str, delay: float, callback: Callable[[], None]) -> None:
        self._cancel(name)
        self.timers[name] = self.loop.call_later(delay, callback)

    def _cancel(self, name: str) -> None:
        handle = self.timers.pop(name, None)
        if handle is not None:
            handle.cancel()
