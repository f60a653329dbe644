"""The emulation on the door: the board's events to the app, the app's commands to the board.

One :class:`Emulation` joins three parts that know nothing of each other: the door (the
running board), a protocol session (:mod:`.dgt`, :mod:`.chesslink`, :mod:`.pegasus`,
:mod:`.chessnut`: bytes in, bytes out) and a transport (:mod:`.serial_port`, :mod:`.ble`,
or anything with ``start``, ``write`` and ``close``). Between them sits the
:class:`~.view.BoardView`: the tracker's lifts and places, held for the pass time, with
pieces named from the game.

Everything runs on the daemon's loop; nothing here blocks it. With ``trace`` set, every
byte in and out and every board event is written to that file as JSON lines with the
daemon's time (a bug report, or a test fixture: see
``tests/board_driver/connectors/emulation/fixtures/README.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from board_driver.connectors.emulation.view import BoardView, Change, describe
from board_driver.physical.frame import Frame
from board_driver.physical.squares import square

log = logging.getLogger("magboard.emulation")

#: Game events after which the pieces are named from the game again.
RESYNC_EVENTS = ("move", "promotion_amended", "takeback", "new_game", "restored", "game_resumed")


class Transport(Protocol):
    """Carries bytes both ways. A transport with ``per_message = True`` (Bluetooth LE) is
    given one protocol message per :meth:`write`, as the session splits them."""

    def start(
        self, on_data: Callable[[bytes], None], on_link: Callable[[bool, str], None]
    ) -> None: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class Session(Protocol):
    protocol: str

    def receive(self, data: bytes, now_ms: int = 0) -> bytes: ...

    def board_changed(self, changes: list[Change], now_ms: int = 0) -> bytes: ...

    def next_due(self) -> int | None: ...

    def tick(self, now_ms: int) -> bytes: ...

    def close(self) -> None: ...

    def split(self, data: bytes) -> list[bytes]: ...


SessionFactory = Callable[..., Session]


#: The door's events after which the clock's reading is read again (between them it only
#: counts down, which a reading already says: see board_driver.clock.texts.times_at).
CLOCK_EVENTS = frozenset(
    {
        "move",
        "takeback",
        "clock",
        "clock_button",
        "game_over",
        "game_resumed",
        "new_game",
        "options",
        "promotion_amended",
        "overflow",
    }
)


class Emulation:
    """One protocol on one transport, for as long as the daemon runs. In an extension's
    ``start(door, section)``::

        port = SerialTransport("/dev/ttyGS0", 9600)
        return await Emulation(door, DgtSession, port).start()   # its stop() ends it
    """

    def __init__(
        self,
        door: Any,
        session_factory: SessionFactory,
        transport: Transport,
        *,
        colour: str = "c",
        trace: str | Path | None = None,
        call_at: Callable[[int, Callable[[], None]], Any] | None = None,
    ) -> None:
        self.door = door
        #: Runs a callback at a time of the door's clock (ms); returns a cancellable handle.
        self.call_at = call_at or self._loop_call_at
        self.transport = transport
        self._session_factory = session_factory
        self._colour = colour
        self._trace_path = Path(trace) if trace else None
        self._trace: Any = None
        self.view: BoardView | None = None
        self.session: Any = None
        self._subscription: Any = None
        self._task: asyncio.Task | None = None
        self._timers: dict[str, Any] = {}
        self._fen = ""
        self._before = ""
        self._layer: Any = None
        self._lights: Frame | None = None
        #: The board's clock as last read (a protocol that relays a clock reads it).
        self._clock: Any = None

    # ------------------------------------------------------------------ life

    async def start(self) -> Emulation:
        """Subscribe to the board, open the transport; returns self (for ``stop``)."""
        snapshot = self.door.snapshot()
        pass_ms = int(dict(snapshot.timing).get("pass_ms", 100))
        self.view = BoardView(pass_ms=pass_ms)
        self._fen, self._before = snapshot.fen, self._before_fen(snapshot)
        self.view.resync(snapshot.fen, before=self._before, occupancy=snapshot.sensed)
        self._layer = self.door.light_layer("emulation")
        self.session = self._session_factory(self.view, self._show_lights, colour=self._colour)
        self._clock = getattr(snapshot, "clock", None)
        if hasattr(self.session, "clock"):  # DGT relays the board's clock to the app
            self.session.clock = lambda: self._clock
            self.session.now = self.door.now_ms
        if self._trace_path is not None:
            try:
                self._trace = open(self._trace_path, "a", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                log.warning("emulation: no trace: cannot write %s (%s)", self._trace_path, exc)
            self._record(
                "start",
                {
                    "protocol": self.session.protocol,
                    "fen": snapshot.fen,
                    "sensed": f"{snapshot.sensed:016x}",
                    "pass_ms": pass_ms,
                    "clock": self._clock,
                },
            )
        self._subscription = self.door.subscribe(board=True)
        self._task = asyncio.get_running_loop().create_task(self._follow())
        self.transport.start(self._received, self._link)
        return self

    async def stop(self) -> None:
        """Close the transport, put the app's lights out, unsubscribe."""
        self.transport.close()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        if self._subscription is not None:
            self._subscription.close()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        if self._layer is not None:
            self._layer.show(None)
        if self._trace is not None:
            self._trace.close()
            self._trace = None

    # ------------------------------------------------------------------ the board

    async def _follow(self) -> None:
        assert self._subscription is not None
        async for event in self._subscription:
            try:
                self.handle(event)
            except Exception:  # one odd event must not end the emulation
                log.exception("emulation: cannot follow %s", event.get("type"))

    def handle(self, event: dict[str, Any]) -> None:
        """One door event: a lift or place held back for the pass time, or the game's
        change naming the pieces again."""
        assert self.view is not None
        kind = event.get("type")
        now = self.door.now_ms()
        self._record("event", event)
        self._settle(now)  # what was due before this event is told first
        changes: list[Change] = []
        if kind in ("lift", "place"):
            sq = event["square"]
            sq = square(sq) if isinstance(sq, str) else int(sq)
            t = int(event.get("t", now))
            (self.view.lift if kind == "lift" else self.view.place)(sq, t)
        elif kind in RESYNC_EVENTS and event.get("fen"):
            fen = event["fen"]
            if kind == "move" and not event.get("replaces"):
                self._before = self._fen
            elif kind not in ("move", "promotion_amended"):
                self._before = self._before_fen(self.door.snapshot())
            # (a promotion amended, a rook move become castling: the same ply, named again)
            self._fen = fen
            changes = self.view.resync(fen, before=self._before)
        elif kind == "overflow":
            snapshot = self.door.snapshot()
            self._fen = snapshot.fen
            self._before = self._before_fen(snapshot)
            changes = self.view.resync(snapshot.fen, before=self._before, occupancy=snapshot.sensed)
        if kind in CLOCK_EVENTS:
            self._clock = getattr(self.door.snapshot(), "clock", None)
            self._record("clock", self._clock)
        self._tell(changes, now)
        self._schedule()

    @staticmethod
    def _before_fen(snapshot: Any) -> str:
        """The position before the game's last move (the start, if none)."""
        if not snapshot.ucis:
            return snapshot.fen
        game = snapshot.game()
        game.pop()
        return game.position.fen()

    def _settle(self, now: int) -> None:
        assert self.view is not None
        changes = self.view.advance(now)
        if changes:
            self._tell(changes, now)

    def _tell(self, changes: list[Change], now: int) -> None:
        if not changes:
            return
        log.debug("emulation: told %s", describe(changes))
        self._send(self.session.board_changed(changes, now))

    # ------------------------------------------------------------------ timers

    def _schedule(self) -> None:
        assert self.view is not None
        self._set_timer("settle", self.view.next_due(), self._settle_due)
        self._set_timer("report", self.session.next_due(), self._report_due)

    def _set_timer(self, name: str, due: int | None, callback: Callable[[], None]) -> None:
        old = self._timers.pop(name, None)
        if old is not None:
            old.cancel()
        if due is not None:
            self._timers[name] = self.call_at(due, callback)

    def _loop_call_at(self, due: int, callback: Callable[[], None]) -> asyncio.TimerHandle:
        # A millisecond late, so that the door's whole-ms clock has reached ``due``.
        delay = max(0.0, (due - self.door.now_ms() + 1) / 1000)
        return asyncio.get_running_loop().call_later(delay, callback)

    def _settle_due(self) -> None:
        self._timers.pop("settle", None)
        self._settle(self.door.now_ms())
        self._schedule()

    def _report_due(self) -> None:
        self._timers.pop("report", None)
        self._send(self.session.tick(self.door.now_ms()))
        self._schedule()

    # ------------------------------------------------------------------ the app

    def _received(self, data: bytes) -> None:
        now = self.door.now_ms()
        self._record("in", data.hex())
        self._settle(now)
        self._send(self.session.receive(data, now))
        self._schedule()

    def _send(self, data: bytes) -> None:
        if not data:
            return
        self._record("out", data.hex())
        if getattr(self.transport, "per_message", False):
            for one in self.session.split(data):
                self.transport.write(one)
        else:
            self.transport.write(data)

    def _link(self, up: bool, reason: str) -> None:
        self._record("link", {"up": up, "reason": reason})
        if up:
            start = getattr(self.session, "start", None)
            if start is not None:
                start(self.door.now_ms())
        else:
            self.session.close()  # the app is gone: its lights go out
        self._schedule()

    def _show_lights(self, frame: Frame | None) -> None:
        if frame != self._lights:
            self._lights = frame
            log.debug(
                "emulation: the app lights %s",
                "nothing" if frame is None else _lit_squares(frame),
            )
            if self._layer is not None:
                self._layer.show(frame)

    # ------------------------------------------------------------------ trace

    def _record(self, kind: str, value: Any) -> None:
        if self._trace is None:
            return
        try:
            self._trace.write(json.dumps({"t": self.door.now_ms(), kind: value}) + "\n")
            self._trace.flush()
        except OSError as exc:  # a full disk: the trace stops, the emulation goes on
            log.warning("emulation: trace stopped: cannot write %s (%s)", self._trace_path, exc)
            with contextlib.suppress(OSError):
                self._trace.close()
            self._trace = None


def _lit_squares(frame: Frame) -> str:
    from board_driver.physical.squares import square_name

    return " ".join(square_name(sq) for sq, c in enumerate(frame.colours) if c != ".")


async def start_emulation(door: Any, section: Any) -> Emulation:
    """Start the ``[emulation]`` section's protocol on its transport."""
    from board_driver.physical.frame import COLOUR_NAMES

    letter = {name: letter for letter, name in COLOUR_NAMES.items()}[section.colour]
    transport: Transport
    if section.transport == "ble":
        from board_driver.connectors.emulation.ble import BleTransport
        from board_driver.connectors.emulation.gatt import PROFILES

        transport = BleTransport(PROFILES[section.protocol], section.name, adapter=section.adapter)
        where = f"Bluetooth LE as {transport.name!r}"
    else:
        from board_driver.connectors.emulation.serial_port import BAUDRATES, SerialTransport

        transport = SerialTransport(section.device, BAUDRATES[section.protocol])
        where = section.device
    emulation = Emulation(
        door,
        session_class(section.protocol),
        transport,
        colour=letter,
        trace=section.trace or None,
    )
    log.info("emulation: %s on %s", section.protocol, where)
    return await emulation.start()


def session_class(protocol: str) -> SessionFactory:
    """The session of ``protocol``: ``"dgt"``, ``"chesslink"``, ``"pegasus"`` or
    ``"chessnut"``."""
    if protocol == "dgt":
        from board_driver.connectors.emulation.dgt import DgtSession

        return DgtSession
    if protocol == "pegasus":
        from board_driver.connectors.emulation.pegasus import PegasusSession

        return PegasusSession
    if protocol == "chessnut":
        from board_driver.connectors.emulation.chessnut import ChessnutSession

        return ChessnutSession
    from board_driver.connectors.emulation.chesslink import ChessLinkSession

    return ChessLinkSession
