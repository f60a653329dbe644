"""The host end of the serial bridge: one object that is both a sensing port and an LED port.

:class:`BridgeLink` opens the device with pyserial, shakes hands, and keeps a reader thread
that turns the device's packets into the latest board, button presses and link state. The
thread never dies from an exception: a pulled cable, a reset device or garbage on the line
is counted, logged, and healed by reopening the port and asking for the full board again.

Example (the daemon shares one link between its sensing and LED ports)::

    link = BridgeLink("/dev/magboard-bridge", on_button=print,
                      on_link_change=lambda up, why: print("bridge", up, why))
    board = link.scan()                 # 64-bit occupancy, bit i = square i (a1 = 0)
    link.show([(0, 0, 0)] * 64)         # 64 RGB triples by square
    link.close()
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import packets
from .errors import LinkDownError, MissingDependencyError
from .packets import (
    PROTOCOL_VERSION,
    Board,
    ButtonPress,
    Fault,
    GetBoard,
    Hello,
    Leds,
    Packet,
    Ping,
    Pong,
    StreamDecoder,
    UnknownPacket,
    Welcome,
)

log = logging.getLogger("firmware_bridge")

RGB = tuple[int, int, int]
#: How long one read waits for data; bounds how late pings and timeouts are noticed.
READ_TIMEOUT_S = 0.05
#: A write that cannot finish in this time means the device has stopped reading.
WRITE_TIMEOUT_S = 0.5
#: While the versions differ, ask again this often (the device may be reflashed).
INCOMPATIBLE_RETRY_S = 5.0
#: The shortest time between two ``GET_BOARD`` requests caused by bad frames or gaps.
RESYNC_MIN_INTERVAL_S = 0.1
#: The shortest time between two LED frames re-sent because the device reported a lost
#: frame (``bad_frame``, ``seq_gap``): a device that faults on every frame gets at most
#: this many re-sends a second, not a feedback loop.
LED_RESEND_MIN_INTERVAL_S = 0.25

#: Link states, as :attr:`BridgeLink.state` reports them.
CONNECTING = "connecting"  # no port open; opening it with backoff
HANDSHAKE = "handshake"  # port open, waiting for WELCOME and the first BOARD
UP = "up"  # boards flowing
INCOMPATIBLE = "incompatible"  # the device speaks another protocol version
CLOSED = "closed"  # close() was called

OnLinkChange = Callable[[bool, str], Any]
OnButton = Callable[[str], Any]
OnBoard = Callable[[int], Any]
OnFault = Callable[[str, bytes], Any]


@dataclass(frozen=True)
class LinkStats:
    """A snapshot of the link's counters, for logs and the daemon's status page."""

    state: str
    link_up: bool
    opens: int  # times the port was opened
    handshakes: int  # WELCOMEs of our version received
    link_losses: int  # times the link went from up to down
    device_resets: int  # WELCOMEs with a new boot id
    packets_in: int
    packets_out: int
    bad_frames: int  # dropped: COBS, CRC, length, oversize
    unknown_types: int  # dropped: a type we do not know, or one only the host sends
    seq_gaps: int
    ignored: int  # boards and buttons before the handshake or from an incompatible device
    device_faults: int  # FAULT packets received
    resyncs: int  # GET_BOARD sent after a gap or a bad frame
    led_frames_sent: int
    led_resends: int  # LED frames sent again because the device reported a lost frame
    callback_errors: int  # exceptions raised by our callbacks (caught)
    reader_errors: int  # unexpected exceptions in the reader thread (caught)
    rtt_ms: float | None  # the last ping's round trip
    last_problem: str  # what went wrong last, in words


def _import_pyserial() -> Any:
    try:
        import serial
    except ImportError as error:
        raise MissingDependencyError(
            "the serial bridge needs pyserial, which comes with magboard's 'pi' extra: "
            "pip install 'magboard[pi]' (or: apt install python3-serial)"
        ) from error
    return serial


class BridgeLink:
    """The serial link to the board's microcontroller: :meth:`scan`, :meth:`show`, :meth:`close`.

    It fits ``board_driver.physical.ports.SensingPort`` and ``LedPort``; one instance serves both.

    ``device`` is the serial device (``/dev/magboard-bridge`` from our udev rule, or a
    ``/dev/serial/by-id/...`` path). The callbacks run on the reader thread; an exception
    raised by one is logged and counted, never fatal. They may also be set as attributes
    after construction (events before that are not replayed):

    - ``on_link_change(up: bool, reason: str)`` when :attr:`link_up` changes (the link
      then leaves the telling to it: one log line per change, the listener's; without a
      listener the link logs it itself);
    - ``on_button(name: str)`` for each press: ``"adjust"``, ``"promote"``, ``"claim_draw"``,
      ``"resign"``, ``"new_game"``, ``"hint"``, ``"draw_offer"``, ``"draw_accept"``;
    - ``on_board(bitmap: int)`` each time the board changes (a push alternative to polling
      :meth:`scan`);
    - ``on_fault(name: str, detail: bytes)`` for each ``FAULT`` the device reports.

    Raises :class:`~firmware_bridge.errors.MissingDependencyError` when pyserial is missing.
    The device need not exist yet: the link keeps trying to open it.
    """

    def __init__(
        self,
        device: str,
        baud: int = 115200,
        *,
        on_link_change: OnLinkChange | None = None,
        on_button: OnButton | None = None,
        on_board: OnBoard | None = None,
        on_fault: OnFault | None = None,
        silence_timeout: float = 3.0,
        ping_interval: float = 1.0,
        hello_interval: float = 1.0,
        backoff_min: float = 0.1,
        backoff_max: float = 2.0,
        first_board_timeout: float = 5.0,
    ) -> None:
        self._serial = _import_pyserial()
        self.device = device
        self.baud = baud
        self.on_link_change = on_link_change
        self.on_button = on_button
        self.on_board = on_board
        self.on_fault = on_fault
        self.silence_timeout = silence_timeout
        self.ping_interval = ping_interval
        self.hello_interval = hello_interval
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self.first_board_timeout = first_board_timeout

        self._write_lock = threading.Lock()  # guards the port object, tx seq, LED state
        self._port: Any = None
        self._broken: str | None = None  # set by a failed write; the reader reopens
        self._tx_seq = 0
        self._rx_seq: int | None = None
        self._decoder = StreamDecoder()
        self._state = CONNECTING
        self._link_up = False
        self._handshaked = False
        self._boot_id: int | None = None
        self.device_firmware: str | None = None
        self._board: int | None = None
        self._board_ready = threading.Event()
        self._up_event = threading.Event()
        self._first_scan_done = False
        self._desired_leds: bytes | None = None
        self._sent_leds: bytes | None = None
        self._last_rx = self._last_ping = self._last_hello = self._last_resync = 0.0
        self._ping_sent_at: dict[int, float] = {}
        self._counts = dict.fromkeys(
            (
                "opens",
                "handshakes",
                "link_losses",
                "device_resets",
                "packets_out",
                "unknown_types",
                "seq_gaps",
                "ignored",
                "device_faults",
                "resyncs",
                "led_frames_sent",
                "led_resends",
                "callback_errors",
                "reader_errors",
            ),
            0,
        )
        self._rtt_ms: float | None = None
        self._last_problem = ""
        # LED frames leave from a thread of their own: show() only hands one over, so a
        # device that stops reading never blocks the caller (the daemon's event loop).
        self._leds_wake = threading.Event()
        self._resend_leds = False  # the device lost a frame: send ours again (rate-limited)
        self._last_led_resend = float("-inf")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"bridge {device}", daemon=True)
        self._writer = threading.Thread(
            target=self._write_leds, name=f"bridge LEDs {device}", daemon=True
        )
        self._thread.start()
        self._writer.start()

    # ----------------------------------------------------------------- the ports' methods

    def scan(self) -> int:
        """The board as last reported by the device: bit *i* set = a piece on square *i*.

        While the link is down this is the last board received (the pieces as last seen),
        never a guess. The first call waits up to ``first_board_timeout`` seconds for the
        first board; if none has come by then (or on later calls, until one comes) it raises
        :class:`~firmware_bridge.errors.LinkDownError` saying why.
        """
        if self._board is None and not self._first_scan_done:
            self._board_ready.wait(self.first_board_timeout)
        self._first_scan_done = True
        board = self._board
        if board is None:
            raise LinkDownError(
                f"no board from the bridge at {self.device} yet "
                f"(link {self._state}{': ' + self._last_problem if self._last_problem else ''})"
            )
        return board

    def show(self, colours: Sequence[RGB]) -> None:
        """Light 64 RGB colours (0..255 each) by square, a1 = 0 .. h8 = 63.

        Never blocks: the frame is handed to the link's LED thread, which sends the latest
        one (only when it differs from what the device shows; again after a reconnect or a
        device reset, and at most every ``LED_RESEND_MIN_INTERVAL_S`` when the device says
        it lost one). Raises ``ValueError`` for anything but 64 triples of 0..255 (and
        keeps the previous frame).
        """
        rgb = _pack_colours(colours)
        self._desired_leds = rgb
        if rgb != self._sent_leds:
            self._leds_wake.set()

    def close(self) -> None:
        """Turn the LEDs off, stop the reader and close the port. Safe to call twice."""
        if self._stop.is_set():
            return
        with self._write_lock:
            self._desired_leds = bytes(packets.LED_BYTES)
            if self._handshaked and self._sent_leds != self._desired_leds:
                self._send_leds_locked()
        self._stop.set()
        self._leds_wake.set()
        for thread in (self._thread, self._writer):
            if threading.current_thread() is not thread:
                thread.join(timeout=2.0)
        self._close_port(drain=True)
        self._set_state(CLOSED, "closed")

    # ------------------------------------------------------------------------ state

    @property
    def link_up(self) -> bool:
        """True while boards are flowing from a device of our protocol version."""
        return self._link_up

    @property
    def state(self) -> str:
        """``"connecting"``, ``"handshake"``, ``"up"``, ``"incompatible"`` or ``"closed"``."""
        return self._state

    @property
    def board(self) -> int | None:
        """The last board received, or None before the first one (never blocks)."""
        return self._board

    @property
    def stats(self) -> LinkStats:
        """The link's counters now."""
        counts = self._decoder.counts
        return LinkStats(
            state=self._state,
            link_up=self._link_up,
            packets_in=counts.packets,
            bad_frames=counts.bad_frames,
            rtt_ms=self._rtt_ms,
            last_problem=self._last_problem,
            **{
                **self._counts,
                "unknown_types": self._counts["unknown_types"] + counts.unknown_type,
            },
        )

    def wait_until_up(self, timeout: float | None = None) -> bool:
        """Block until the link is up (or ``timeout`` seconds pass); return :attr:`link_up`."""
        self._up_event.wait(timeout)
        return self._link_up

    # ------------------------------------------------------------------ reader thread

    def _run(self) -> None:
        backoff = self.backoff_min
        came_up = False  # since the port was last opened
        while not self._stop.is_set():
            try:
                if self._port is None:
                    if not self._open():
                        self._stop.wait(backoff)
                        backoff = min(backoff * 2, self.backoff_max)
                        continue
                    came_up = False
                self._service()
                if self._link_up:
                    came_up = True
                    backoff = self.backoff_min
                elif self._port is None and not came_up:
                    # Opened, but dropped before any board came: a wrong or wedged device.
                    # Back off as for a failed open, so it is not hammered.
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.backoff_max)
            except Exception as error:  # the reader must outlive anything
                self._counts["reader_errors"] += 1
                log.exception("bridge reader: unexpected error")
                self._drop(f"unexpected error in the reader: {error!r}")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self.backoff_max)

    def _open(self) -> bool:
        try:
            port = self._serial.Serial(
                port=self.device,
                baudrate=self.baud,
                timeout=READ_TIMEOUT_S,
                write_timeout=WRITE_TIMEOUT_S,
                exclusive=True,
            )
            port.reset_input_buffer()
        except (OSError, ValueError) as error:
            self._note(f"cannot open {self.device}: {error}")
            return False
        now = time.monotonic()
        with self._write_lock:
            self._port = port
            self._broken = None
            self._tx_seq = 0
            self._rx_seq = None
            self._handshaked = False
            self._sent_leds = None
            self._decoder.reset()
            self._last_rx = now
            self._counts["opens"] += 1
        self._set_state(HANDSHAKE, f"opened {self.device}")
        # A lone delimiter ends whatever half frame the device may hold, then say hello.
        self._write(b"\x00" + self._next_frame(Hello(PROTOCOL_VERSION)))
        self._last_hello = now
        return True

    def _service(self) -> None:
        if self._broken:
            self._drop(self._broken)
            return
        port = self._port
        try:
            data = port.read(port.in_waiting or 1)
        except (OSError, ValueError, TypeError) as error:
            # pyserial raises SerialException (an OSError) when the cable is pulled; a port
            # closed under it may raise TypeError/ValueError from inside pyserial.
            self._drop(f"read failed: {error}")
            return
        now = time.monotonic()
        if data:
            bad_before = self._decoder.counts.bad_frames
            for seq, packet in self._decoder.feed(data):
                self._last_rx = now
                self._handle(seq, packet, now)
            if self._decoder.counts.bad_frames != bad_before:
                self._note(f"bad frame: {self._decoder.last_error}")
                if self._handshaked:
                    self._resync(now)
        self._duties(now)

    def _duties(self, now: float) -> None:
        if self._state == INCOMPATIBLE:
            if now - self._last_hello >= INCOMPATIBLE_RETRY_S:
                self._send(Hello(PROTOCOL_VERSION))
                self._last_hello = now
        elif not self._handshaked:
            if now - self._last_hello >= self.hello_interval:
                self._send(Hello(PROTOCOL_VERSION))
                self._last_hello = now
        elif now - self._last_ping >= self.ping_interval:
            token = int(now * 1000) & 0xFFFFFFFF
            self._ping_sent_at = {token: now}
            self._send(Ping(token))
            self._last_ping = now
        # An incompatible device answers only our rare HELLOs: give it time to.
        limit = self.silence_timeout
        if self._state == INCOMPATIBLE:
            limit = max(limit, INCOMPATIBLE_RETRY_S + self.silence_timeout)
        if now - self._last_rx > limit:
            self._drop(f"no data from the device for {limit:g} s")

    def _handle(self, seq: int, packet: Packet | UnknownPacket, now: float) -> None:
        if isinstance(packet, Welcome):
            self._rx_seq = seq
            self._on_welcome(packet)
            return
        if self._rx_seq is not None and seq != (self._rx_seq + 1) & 0xFF:
            self._counts["seq_gaps"] += 1
            self._note(f"sequence gap: expected {(self._rx_seq + 1) & 0xFF}, got {seq}")
            if self._handshaked:
                self._resync(now)
        self._rx_seq = seq
        if isinstance(packet, Board):
            if not self._handshaked:
                self._counts["ignored"] += 1
                return
            self._on_board(packet.board)
        elif isinstance(packet, ButtonPress):
            if not self._link_up:
                self._counts["ignored"] += 1
                return
            self._call(self.on_button, packet.name)
        elif isinstance(packet, Pong):
            sent = self._ping_sent_at.pop(packet.token, None)
            if sent is not None:
                self._rtt_ms = (now - sent) * 1000.0
        elif isinstance(packet, Fault):
            self._on_fault(packet)
        elif isinstance(packet, UnknownPacket):
            self._note(f"unknown packet type {packet.packet_type:#04x} dropped")
        else:  # a packet only the host sends: an echoing port, or a confused device
            self._counts["unknown_types"] += 1
            self._note(f"the device sent a host packet: {type(packet).__name__}")

    def _on_welcome(self, welcome: Welcome) -> None:
        if welcome.version != PROTOCOL_VERSION:
            self._handshaked = False
            self._set_state(
                INCOMPATIBLE,
                f"the device at {self.device} speaks bridge protocol {welcome.version}, "
                f"this host speaks {PROTOCOL_VERSION}: update the firmware",
            )
            return
        if self._boot_id is not None and welcome.boot_id != self._boot_id:
            self._counts["device_resets"] += 1
            self._set_state(HANDSHAKE, "the device restarted")
        self._boot_id = welcome.boot_id
        self.device_firmware = welcome.firmware
        self._counts["handshakes"] += 1
        with self._write_lock:
            self._handshaked = True
            # The device may have lost its LEDs (reset) or a frame: show ours again.
            self._sent_leds = None
        self._leds_wake.set()

    def _on_board(self, board: int) -> None:
        changed = board != self._board
        self._board = board
        self._board_ready.set()
        if not self._link_up:
            self._set_state(UP, f"boards flowing from {self.device_firmware or 'the device'}")
        if changed:
            self._call(self.on_board, board)

    def _on_fault(self, fault: Fault) -> None:
        self._counts["device_faults"] += 1
        self._note(f"device fault {fault.name}: {fault.detail!r}")
        if fault.name in ("bad_frame", "seq_gap"):
            self._resend_leds = True
            self._leds_wake.set()
        self._call(self.on_fault, fault.name, fault.detail)

    def _resync(self, now: float) -> None:
        if now - self._last_resync >= RESYNC_MIN_INTERVAL_S:
            self._last_resync = now
            self._counts["resyncs"] += 1
            self._send(GetBoard())

    # -------------------------------------------------------------------- plumbing

    def _next_frame(self, packet: Packet) -> bytes:
        frame = packets.encode(packet, self._tx_seq)
        self._tx_seq = (self._tx_seq + 1) & 0xFF
        return frame

    def _send(self, packet: Packet) -> None:
        with self._write_lock:
            self._write_locked(self._next_frame(packet))

    def _write_leds(self) -> None:
        """The LED thread: send the latest frame when it is due (see :meth:`show`)."""
        while not self._stop.is_set():
            self._leds_wake.wait()
            self._leds_wake.clear()
            if self._stop.is_set():
                return
            try:
                wait = self._send_due_leds()
            except Exception as error:  # the LED thread must outlive anything too
                self._counts["reader_errors"] += 1
                log.exception("bridge LEDs: unexpected error")
                self._note(f"unexpected error sending LEDs: {error!r}")
                wait = 0.1
            if wait is not None:  # a re-send held back by the rate limit: wake for it,
                # or at once for a new frame (the limit holds back re-sends, not news)
                self._leds_wake.wait(wait)
                self._leds_wake.set()

    def _send_due_leds(self) -> float | None:
        """Send the frame if due; the seconds until a held-back re-send is, else None."""
        with self._write_lock:
            rgb = self._desired_leds
            if rgb is None or not self._handshaked:
                return None
            if rgb == self._sent_leds:
                if not self._resend_leds:
                    return None
                wait = self._last_led_resend + LED_RESEND_MIN_INTERVAL_S - time.monotonic()
                if wait > 0:
                    return wait
                self._last_led_resend = time.monotonic()
                self._counts["led_resends"] += 1
            self._resend_leds = False
            self._send_leds_locked()
        return None

    def _send_leds_locked(self) -> None:
        rgb = self._desired_leds
        if rgb is not None and self._write_locked(self._next_frame(Leds(rgb))):
            self._sent_leds = rgb
            self._counts["led_frames_sent"] += 1

    def _write(self, data: bytes) -> bool:
        with self._write_lock:
            return self._write_locked(data)

    def _write_locked(self, data: bytes) -> bool:
        if self._port is None or self._broken:
            return False
        try:
            self._port.write(data)
        except (OSError, ValueError, TypeError) as error:
            self._broken = f"write failed: {error}"
            return False
        self._counts["packets_out"] += 1
        return True

    def _drop(self, reason: str) -> None:
        """Close the port after a failure; the reader reopens it with backoff."""
        self._note(reason)
        self._close_port()
        if not self._stop.is_set():
            self._set_state(CONNECTING, reason)

    def _close_port(self, drain: bool = False) -> None:
        with self._write_lock:
            port, self._port = self._port, None
            self._handshaked = False
            self._rx_seq = None
        if port is not None:
            try:
                if drain:  # let the last LED frame (lights off) leave before closing
                    port.flush()
                port.close()
            except Exception as error:  # a port that is already gone
                log.debug("closing %s: %r", self.device, error)

    def _set_state(self, state: str, reason: str) -> None:
        was_up = self._link_up
        self._state = state
        self._link_up = state == UP
        if self._link_up:
            self._up_event.set()
        else:
            self._up_event.clear()
        if was_up != self._link_up:
            if was_up:
                self._counts["link_losses"] += 1
            # Said once: by whoever listens (the daemon logs it, and lights it), else here.
            say = log.debug if self.on_link_change is not None else log.warning
            say("bridge link %s: %s", "up" if self._link_up else "down", reason)
            self._call(self.on_link_change, self._link_up, reason)
        if state == INCOMPATIBLE:
            self._note(reason)
            log.error("bridge: %s", reason)

    def _note(self, problem: str) -> None:
        self._last_problem = problem
        log.debug("bridge: %s", problem)

    def _call(self, callback: Callable[..., Any] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:
            self._counts["callback_errors"] += 1
            log.exception("bridge: a callback raised")


def _pack_colours(colours: Sequence[RGB]) -> bytes:
    if len(colours) != packets.SQUARES:
        raise ValueError(
            f"show() needs {packets.SQUARES} colours, one per square, not {len(colours)}"
        )
    out = bytearray()
    for square, colour in enumerate(colours):
        try:
            red, green, blue = colour
            out += bytes((red, green, blue))
        except (TypeError, ValueError) as error:
            shown = repr(colour)
            shown = shown if len(shown) <= 40 else f"{shown[:40]}... ({len(shown)} characters)"
            raise ValueError(
                f"square {square}: colour {shown} is not three integers 0..255"
            ) from error
    return bytes(out)
