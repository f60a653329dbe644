"""DGT's serial board protocol, spoken as a board: bytes from the app in, bytes to it out.

What PicoChess, Lucas Chess, Arena and DGT LiveChess speak to a DGT board (9600 baud,
8N1). Commands are one byte (0x40..0x55), two of them followed by data (the LED command
and the clock message, each with a size byte); messages to the app are a header (the id
with bit 7 set, then the total length in two 7-bit bytes) and data bytes below 0x80.
Squares are numbered a8 = 0, b8 = 1, ... h1 = 63.

Nothing here knows the transport: :meth:`DgtSession.receive` takes bytes and returns the
answer, :meth:`DgtSession.board_changed` the field updates for squares that changed (in an
update mode).

**The clock.** A DGT board relays its clock's times to the app (``DGT_MSG_BWTIME``); with
the board's own clock running (``[clock]``, the page, ``option clock``) the emulation is
that clock: ``SEND_CLK`` is answered with the times, and in the update modes that report
clocks (``SEND_UPDATE``, ``SEND_UPDATE_NICE``) a ``BWTIME`` goes out whenever a time shown
(whole seconds) or the clock's state changes. The message, as PicoChess's driver reads it:
the right clock's hours, minutes and seconds (BCD) first, Black's; then the left one's,
White's (PicoChess reads the left as White's); then a status byte (bit 0 running, bit 3
Black's turn, bit 4 White's turn). The lever bit (1) stays put: PicoChess takes a lever
flip for a player pressing the clock to switch sides. A clock command from the app
(``CLOCK_MESSAGE``: its version, a text to show, times to set) is acknowledged as a DGT 3000
does, so the app knows a clock is there, and otherwise left alone: the board's clock is the
one that counts. Without a clock, nothing answers a clock command and ``SEND_CLK`` says no
clock is connected, as before.

>>> from board_driver.connectors.emulation.view import BoardView, STARTING_FEN
>>> view = BoardView()
>>> _ = view.resync(STARTING_FEN, occupancy=0xFFFF00000000FFFF)
>>> session = DgtSession(view)
>>> session.receive(bytes([SEND_VERSION])).hex(" ")
'93 00 05 01 07'
>>> dump = session.receive(bytes([SEND_BRD]))
>>> dump[:3].hex(" "), dump[3:11].hex(" ")      # the header, then a8..h8
('86 00 43', '08 09 0a 0c 0b 0a 09 08')
>>> session.receive(bytes([SEND_UPDATE_NICE]))
b''
>>> session.board_changed([(12, None), (28, "P")]).hex(" ")   # e2 emptied, a pawn on e4
'8e 00 05 34 00 8e 00 05 24 01'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from board_driver.clock.texts import times_at
from board_driver.connectors.emulation.view import BoardView, Change
from board_driver.physical.frame import Frame

# Commands from the app.
SEND_RESET = 0x40
SEND_CLK = 0x41
SEND_BRD = 0x42
SEND_UPDATE = 0x43
SEND_UPDATE_BRD = 0x44
RETURN_SERIALNR = 0x45
RETURN_BUSADRES = 0x46
SEND_TRADEMARK = 0x47
SEND_EE_MOVES = 0x49
SEND_UPDATE_NICE = 0x4B
SEND_BATTERY_STATUS = 0x4C
SEND_VERSION = 0x4D
RETURN_LONG_SERIALNR = 0x55
SET_LEDS = 0x60
CLOCK_MESSAGE = 0x2B
# Messages to the app.
MSG_BOARD_DUMP = 0x86
MSG_BWTIME = 0x8D
MSG_FIELD_UPDATE = 0x8E
MSG_EE_MOVES = 0x8F
MSG_BUSADRES = 0x90
MSG_SERIALNR = 0x91
MSG_TRADEMARK = 0x92
MSG_VERSION = 0x93
MSG_BATTERY_STATUS = 0xA0
MSG_LONG_SERIALNR = 0xA2
EE_EOF = 0x6B
#: The clock status bit that says no clock is connected (the times are not valid).
NO_CLOCK = 0x20
#: The clock status bits: running, Black's turn, White's turn.
CLOCK_RUNNING, BLACK_TURN, WHITE_TURN = 0x01, 0x08, 0x10
#: In an hours byte: that side's flag has fallen (its clock is blocked at zero).
FLAG_FALLEN = 0x10
#: The clock commands inside ``CLOCK_MESSAGE`` (start and end marks, and the version query).
CLOCK_START, CLOCK_END, CLOCK_VERSION = 0x03, 0x00, 0x09
#: The clock version a DGT 3000 acknowledgement reports for us (2.2).
CLOCK_VERSION_BYTE = 0x22

#: DGT piece codes, by FEN letter.
PIECE_CODES = {
    "P": 0x01, "R": 0x02, "N": 0x03, "B": 0x04, "K": 0x05, "Q": 0x06,
    "p": 0x07, "r": 0x08, "n": 0x09, "b": 0x0A, "k": 0x0B, "q": 0x0C,
}  # fmt: skip
#: Which board we say we are (version 1.7, the serial number MB001, bus address 1).
VERSION = (1, 7)
SERIAL_NUMBER = "00001"
LONG_SERIAL_NUMBER = "0000000001"
TRADEMARK = (
    "magboard: a DGT protocol emulation by a magnetic chessboard.\n"
    "Not a DGT product. Serial nr. 00001 1.7"
)
#: A command whose data has not all come within this time is dropped (ms).
STALE_MS = 1000
MODES = ("idle", "update", "update_board", "update_nice")


def field(sq: int) -> int:
    """DGT's field number of our square (a1 = 0): a8 = 0 ... h1 = 63.

    >>> field(0), field(63), field(56)
    (56, 7, 0)
    """
    return (7 - (sq >> 3)) * 8 + (sq & 7)


def split_messages(data: bytes) -> list[bytes]:
    """Messages to the app, one by one (each says its own length): the units a Bluetooth
    LE notification carries, since some apps read one message per notification.

    >>> both = message(MSG_VERSION, [1, 7]) + message(MSG_FIELD_UPDATE, [8, 1])
    >>> [m.hex(" ") for m in split_messages(both)]
    ['93 00 05 01 07', '8e 00 05 08 01']
    """
    out = []
    index = 0
    while index < len(data):
        header = data[index : index + 3]
        size = max(3, header[1] << 7 | header[2]) if len(header) == 3 else len(header)
        out.append(bytes(data[index : index + size]))
        index += size
    return out


def message(kind: int, data: bytes | Iterable[int] = b"") -> bytes:
    """A message to the app: ``kind`` (bit 7 set), the total length in two 7-bit bytes, data.

    >>> message(MSG_VERSION, [1, 7]).hex(" ")
    '93 00 05 01 07'
    """
    body = bytes(data)
    size = len(body) + 3
    if any(b & 0x80 for b in body):
        raise ValueError(f"message 0x{kind:02x}: a data byte has bit 7 set")
    return bytes([kind, size >> 7 & 0x7F, size & 0x7F]) + body


def _bcd(n: int) -> int:
    return (n // 10) << 4 | n % 10


def _hms(ms: int) -> tuple[int, int, int]:
    seconds = min(max(0, ms) // 1000, 9 * 3600 + 59 * 60 + 59)  # the clock shows 9:59:59
    return seconds // 3600, seconds % 3600 // 60, seconds % 60


def clock_times(reading: Mapping[str, Any] | None, now_ms: int) -> bytes:
    """The ``DGT_MSG_BWTIME`` of the board's clock ``reading`` at ``now_ms`` (see the module
    docstring); the "no clock connected" message without one.

    >>> reading = {"white_ms": 3_723_900, "black_ms": 59_000, "turn": "black",
    ...            "state": "running", "at": 0, "delay_ms": 0}
    >>> clock_times(reading, 1_000).hex(" ")   # Black 0:00:58 (right), White 1:02:03 (left)
    '8d 00 0a 00 00 58 01 02 03 09'
    >>> clock_times(None, 0).hex(" ")
    '8d 00 0a 00 00 00 00 00 00 20'
    """
    if not reading:
        return message(MSG_BWTIME, [0, 0, 0, 0, 0, 0, NO_CLOCK])
    white_ms, black_ms = times_at(reading, now_ms)
    state = reading.get("state")
    status = CLOCK_RUNNING if state == "running" else 0
    if state != "stopped":
        status |= WHITE_TURN if reading.get("turn") == "white" else BLACK_TURN
    data = []
    for ms in (black_ms, white_ms):
        hours, minutes, seconds = _hms(ms)
        flag = FLAG_FALLEN if ms <= 0 and state == "stopped" else 0
        data += [hours | flag, _bcd(minutes), _bcd(seconds)]
    return message(MSG_BWTIME, [*data, status])


def clock_ack(command: int, value: int = 0) -> bytes:
    """A DGT 3000's acknowledgement of clock command ``command`` (``value``: what it
    reports, the version for ``CLOCK_VERSION``), inside a ``DGT_MSG_BWTIME`` whose first and
    fourth nibbles say "ack" (0x0A), as PicoChess's driver decodes it.

    >>> clock_ack(CLOCK_VERSION, CLOCK_VERSION_BYTE).hex(" ")
    '8d 00 0a 0a 10 09 0a 22 00 00'
    """
    return message(MSG_BWTIME, [0x0A, 0x10, command & 0x7F, 0x0A, value & 0x7F, 0, 0])


class DgtSession:
    """One app's conversation with the board, in DGT's protocol.

    ``view`` is the board as the app is told it; ``show_lights`` is called with the frame
    the app's LED command asks for (None: its lights off); ``colour`` is the frame letter
    those lights take.
    """

    protocol = "dgt"
    #: Commands followed by a size byte and that many bytes of data.
    sized_commands: ClassVar[tuple[int, ...]] = (SET_LEDS, CLOCK_MESSAGE)
    #: The messages in bytes this session sent (for a transport that sends them one by one).
    split = staticmethod(split_messages)

    def __init__(
        self,
        view: BoardView,
        show_lights: Callable[[Frame | None], None] | None = None,
        *,
        colour: str = "c",
    ) -> None:
        self.view = view
        self.show_lights = show_lights or (lambda frame: None)
        self.colour = colour
        #: ``idle`` (answers only), or one of the update modes (field updates too).
        self.mode = "idle"
        self.lit: set[int] = set()
        #: The board's clock: its latest reading (``Snapshot.clock``), or None (no clock);
        #: and the door's time now (ms). The emulation sets both.
        self.clock: Callable[[], Mapping[str, Any] | None] = lambda: None
        self.now: Callable[[], int] = lambda: 0
        self._clock_sent = b""  # the last BWTIME told in an update mode
        self._partial = bytearray()
        self._partial_since = 0

    # ------------------------------------------------------------------ from the app

    def receive(self, data: bytes, now_ms: int = 0) -> bytes:
        """Bytes from the app; returns the answers, in order."""
        if self._partial and now_ms - self._partial_since > STALE_MS:
            self._partial.clear()  # the rest of a command never came: start afresh
        if not self._partial:
            self._partial_since = now_ms
        buffer = self._partial + data
        out = bytearray()
        index = 0
        while index < len(buffer):
            command = buffer[index]
            length = self._length(buffer, index)
            if length is None:  # its data are still to come
                break
            out += self._handle(command, bytes(buffer[index + 1 : index + length]), now_ms)
            index += length
        self._partial = bytearray(buffer[index:])
        return bytes(out)

    def _length(self, buffer: bytearray, index: int) -> int | None:
        """The length of the command at ``index``, or None if its data have not all come."""
        if buffer[index] not in self.sized_commands:
            return 1
        if index + 1 >= len(buffer):
            return None
        length = 2 + buffer[index + 1]
        return length if index + length <= len(buffer) else None

    def _handle(self, command: int, data: bytes, now_ms: int = 0) -> bytes:
        if command == SEND_BRD:
            return self.board_dump()
        if command == RETURN_SERIALNR:
            return message(MSG_SERIALNR, SERIAL_NUMBER.encode())
        if command in (SEND_UPDATE, SEND_UPDATE_BRD, SEND_UPDATE_NICE, SEND_RESET):
            self.mode = {
                SEND_UPDATE: "update",
                SEND_UPDATE_BRD: "update_board",
                SEND_UPDATE_NICE: "update_nice",
                SEND_RESET: "idle",
            }[command]
            return b""
        if command == SEND_VERSION:
            return message(MSG_VERSION, VERSION)
        if command == SEND_CLK:
            # The board's clock; without one, the status byte says none is connected.
            return clock_times(self.clock(), now_ms)
        if command == SEND_TRADEMARK:
            return message(MSG_TRADEMARK, TRADEMARK.encode())
        if command == RETURN_BUSADRES:
            number = int(SERIAL_NUMBER)
            return message(MSG_BUSADRES, [number >> 7 & 0x7F, number & 0x7F])
        if command == RETURN_LONG_SERIALNR:
            return message(MSG_LONG_SERIALNR, LONG_SERIAL_NUMBER.encode())
        if command == SEND_BATTERY_STATUS:
            # Mains powered: full, times not applicable, neither charging nor discharging.
            return message(MSG_BATTERY_STATUS, [100, 0x7F, 0x7F, 0, 0, 0, 0, 0, 0])
        if command == SEND_EE_MOVES:
            return message(MSG_EE_MOVES, [EE_EOF])  # no stored moves: the end at once
        if command == SET_LEDS:
            self._set_leds(data)
            return b""
        if command == CLOCK_MESSAGE:
            return self._clock_command(data)
        # Anything else (bus mode, draughts scanning, the boot loader) is not for us.
        return b""

    def _clock_command(self, data: bytes) -> bytes:
        """A command for the clock (size, start mark, command, ..., end mark): acknowledged
        when the board has a clock, as a DGT 3000 would; without one, nothing answers (the
        app then keeps its own time)."""
        if self.clock() is None or len(data) < 3 or data[1] != CLOCK_START:
            return b""
        command = data[2]
        return clock_ack(command, CLOCK_VERSION_BYTE if command == CLOCK_VERSION else 0)

    def _set_leds(self, data: bytes) -> None:
        # size, pattern (0 off, 1 on), start field, end field, 0x00 (Revelation II).
        if len(data) < 4:
            return
        pattern, squares = data[1], [f for f in data[2:4] if f < 64]
        if pattern == 0:
            if squares:
                self.lit -= {field(f) for f in squares}  # field() is its own inverse
            else:
                self.lit.clear()
        else:
            self.lit |= {field(f) for f in squares}
        frame = None
        if self.lit:
            frame = Frame.off()
            for sq in sorted(self.lit):
                frame = frame.with_square(sq, self.colour)
        self.show_lights(frame)

    # ------------------------------------------------------------------ to the app

    def board_dump(self) -> bytes:
        """The whole board, a8 first."""
        codes = [0] * 64
        for sq, piece in self.view.pieces.items():
            codes[field(sq)] = PIECE_CODES[piece]
        return message(MSG_BOARD_DUMP, codes)

    def board_changed(self, changes: list[Change], now_ms: int = 0) -> bytes:
        """The field updates for ``changes`` (nothing in idle mode)."""
        if self.mode == "idle":
            return b""
        return b"".join(
            message(MSG_FIELD_UPDATE, [field(sq), PIECE_CODES[piece] if piece else 0])
            for sq, piece in changes
        )

    def _reports_clock(self) -> bool:
        return self.mode in ("update", "update_nice")

    def next_due(self, now_ms: int | None = None) -> int | None:
        """When the clock's time shown next changes (a whole second of the running
        clock), in an update mode that reports the clock; now, if it has changed already."""
        reading = self.clock()
        if not self._reports_clock() or reading is None:
            return None
        now = self.now() if now_ms is None else now_ms
        if clock_times(reading, now) != self._clock_sent:
            return now
        if reading.get("state") != "running":
            return None
        white, black = times_at(reading, now)
        left = white if reading.get("turn") == "white" else black
        spent = now - int(reading.get("at", now))
        delay = max(0, int(reading.get("delay_ms") or 0) - spent)
        return now + delay + left % 1000 + 1

    def tick(self, now_ms: int) -> bytes:
        """The clock's times, when they have changed since last told (update modes)."""
        reading = self.clock()
        if not self._reports_clock() or reading is None:
            return b""
        times = clock_times(reading, now_ms)
        if times == self._clock_sent:
            return b""
        self._clock_sent = times
        return times

    def close(self) -> None:
        """The app is gone: its lights go out, the board goes back to idle."""
        self.mode = "idle"
        self._clock_sent = b""
        if self.lit:
            self.lit.clear()
            self.show_lights(None)
