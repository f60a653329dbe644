"""Millennium's ChessLink protocol, spoken as a board: bytes from the app in, bytes out.

What Chess for Android, the chess.com app and python-mchess speak to a Millennium board:
38400 baud, 7 data bits with odd parity, printable ASCII. Every message ends with a block
check, the XOR of its characters as two upper-case hex digits. The app's commands are
upper case, the board's answers lower case:

======== ===================================== =====================================
command  what                                   answer
======== ===================================== =====================================
``V``    version                                ``v`` + 4 hex digits
``S``    status                                 ``s`` + 64 pieces, a8..h8, a7..h7 ..
``L``    LEDs: slot time + 81 codes             ``l``
``X``    all LEDs off                           ``x``
``W``    write register: address, value         ``w`` + address + value
``R``    read register: address                 ``r`` + address + value
``T``    reset (LEDs and status cleared)        none
``I``    undocumented; the chess.com app's      ``i0055mm`` and a line feed
======== ===================================== =====================================

Register 2 chooses when the board reports its status by itself: on every scan (the
hardware's default; register 1 is the scan time in 2.048 ms units), never, every
register-3 time (4.096 ms units), or on every change (values 3..7: the board's own
debounce of 1..5 scans is the tracker's pass time here).

Parity: a 7O1 byte and an 8N1 byte with the parity in bit 7 are the same bits on the
wire. Answers carry odd parity in bit 7, so both kinds of app read them; bit 7 of what
comes in is ignored, so apps that send plain 7-bit ASCII work too (the block check
still guards every command).

>>> from board_driver.connectors.emulation.view import BoardView, STARTING_FEN
>>> view = BoardView()
>>> _ = view.resync(STARTING_FEN, occupancy=0xFFFF00000000FFFF)
>>> session = ChessLinkSession(view)
>>> text(session.receive(encode("V")))
'v3130'
>>> text(session.receive(encode("S")))[:17]
'srnbqkbnrpppppppp'
>>> text(session.receive(encode("W0203")))     # report the status on every change
'w0203'
>>> view.lift(12, 0)                           # e2 lifted, and held for the pass time
>>> text(session.board_changed(view.advance(100)))[49:57]    # rank 2, a2..h2
'PPPP.PPP'
"""

from __future__ import annotations

import math
from collections.abc import Callable

from board_driver.connectors.emulation.view import BoardView, Change
from board_driver.physical.frame import Frame

#: Each command's length (without its block check); ``I`` may also carry 2 characters.
COMMAND_LENGTHS = {"V": 1, "S": 1, "X": 1, "T": 1, "R": 3, "W": 5, "L": 1 + 2 + 81 * 2, "I": 1}
#: What we answer to ``V`` (the version that boards emulated for the chess.com app give).
VERSION = "3130"
#: What we answer to ``I`` (as the emulations the chess.com app works with answer).
IDENTITY = "i0055mm\n"
#: Register defaults (the hardware's): block check on, scan time 20 (40.96 ms), status
#: on every scan, report time 0, full LED brightness.
REGISTER_DEFAULTS = {0x00: 0x00, 0x01: 20, 0x02: 0x00, 0x03: 0x00, 0x04: 0x0F}
SCAN_UNIT_MS = 2.048
REPORT_UNIT_MS = 4.096
#: A command whose characters have not all come within this time is dropped (ms).
STALE_MS = 1000


def odd_parity(char: int) -> int:
    """A 7-bit character with odd parity in bit 7.

    >>> hex(odd_parity(ord("V"))), hex(odd_parity(ord("5")))
    ('0xd6', '0xb5')
    """
    char &= 0x7F
    return char | 0x80 if bin(char).count("1") % 2 == 0 else char


def check(body: str) -> str:
    """The block check of ``body``: the XOR of its characters, two upper-case hex digits.

    >>> check("V")
    '56'
    """
    value = 0
    for char in body:
        value ^= ord(char)
    return f"{value:02X}"


def encode(body: str, *, with_check: bool = True) -> bytes:
    """A message as it goes on the wire: block check appended, odd parity in bit 7.

    >>> encode("V").hex(" ")
    'd6 b5 b6'
    """
    if with_check:
        body += check(body)
    return bytes(odd_parity(ord(c)) for c in body)


def text(data: bytes) -> str:
    """Wire bytes as text, parity stripped and each message's block check removed.

    >>> text(encode("v3130"))
    'v3130'
    """
    chars = "".join(chr(b & 0x7F) for b in data)
    out, index = [], 0
    while index < len(chars):
        length = REPLY_LENGTHS.get(chars[index])
        if length is None or index + length + 2 > len(chars):
            out.append(chars[index:])
            break
        out.append(chars[index : index + length])
        index += length + 2
    return "".join(out)


#: Each answer's length without its block check (for :func:`text` and the tests).
REPLY_LENGTHS = {"v": 5, "s": 65, "l": 1, "x": 1, "w": 5, "r": 5, "i": len(IDENTITY)}


def corner_index(file_edge: int, rank_edge: int) -> int:
    """The LED (0..80) at a corner: ``file_edge`` 0 (left of a) .. 8 (right of h),
    ``rank_edge`` 0 (below rank 1) .. 8 (above rank 8). LED 0 is at a8's outer corner,
    8 at a1's, 72 at h8's, 80 at h1's.

    >>> corner_index(0, 8), corner_index(0, 0), corner_index(8, 8), corner_index(8, 0)
    (0, 8, 72, 80)
    """
    return file_edge * 9 + (8 - rank_edge)


def square_corners(sq: int) -> tuple[int, int, int, int]:
    """The four LEDs at the corners of square ``sq`` (a1 = 0)."""
    file, rank = sq & 7, sq >> 3
    return (
        corner_index(file, rank),
        corner_index(file + 1, rank),
        corner_index(file, rank + 1),
        corner_index(file + 1, rank + 1),
    )


def squares_lit(codes: list[int]) -> dict[int, bool]:
    """Which of our 64 squares light for 81 corner LEDs, and whether each blinks.

    A square whose four corners are lit lights (that is how apps light a square), except
    one whose every corner is already lit by other such squares: the square between the
    two of a two-square move. A lit corner that belongs to no lit square lights every
    square it touches. A square blinks unless all its lit corners are always on (0xFF).

    >>> codes = [0] * 81
    >>> for sq in (12, 28):                      # e2 and e4, as for the move e2e4
    ...     for led in square_corners(sq):
    ...         codes[led] = 0xFF
    >>> squares_lit(codes)                       # e3's corners are all lit too: not e3
    {12: False, 28: False}
    """
    lit = {i for i, code in enumerate(codes) if code}
    full = [sq for sq in range(64) if all(c in lit for c in square_corners(sq))]
    kept = list(full)
    changed = True
    while changed:
        changed = False
        for sq in list(kept):
            others = {c for other in kept if other != sq for c in square_corners(other)}
            if all(c in others for c in square_corners(sq)):
                kept.remove(sq)
                changed = True
    covered = {c for sq in kept for c in square_corners(sq)}
    result = {sq: any(codes[c] != 0xFF for c in square_corners(sq)) for sq in kept}
    for led in sorted(lit - covered):
        for sq in range(64):
            if led in square_corners(sq) and sq not in result:
                result[sq] = codes[led] != 0xFF
    return dict(sorted(result.items()))


class ChessLinkSession:
    """One app's conversation with the board, in the ChessLink protocol.

    ``view`` is the board as the app is told it; ``show_lights`` is called with the frame
    the app's LED commands ask for (None: its lights off), in the frame letter ``colour``.
    """

    protocol = "chesslink"

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
        self.registers = dict(REGISTER_DEFAULTS)
        self.leds: list[int] = [0] * 81
        self._partial = ""
        self._partial_since = 0
        self._next_report: float | None = None
        self._reported: str | None = None

    # ------------------------------------------------------------------ registers

    @property
    def checked(self) -> bool:
        """Block checks in use (register 0, bit 0 clear: the default)."""
        return not self.registers.get(0x00, 0) & 0x01

    @property
    def report_mode(self) -> int:
        """Register 2, bits 0-2: 0 every scan, 1 never, 2 timed, 3..7 on change."""
        return self.registers.get(0x02, 0) & 0x07

    def report_period_ms(self) -> float | None:
        """How often the board reports by itself (modes 0 and 2), or None."""
        mode = self.report_mode
        if mode == 0:
            scans = self.registers.get(0x01, 20)
            return (scans if scans >= 15 else 20) * SCAN_UNIT_MS
        if mode == 2:
            return max(self.registers.get(0x03, 0), 1) * REPORT_UNIT_MS
        return None

    # ------------------------------------------------------------------ from the app

    def receive(self, data: bytes, now_ms: int = 0) -> bytes:
        """Bytes from the app (parity ignored); returns the answers, in order."""
        if self._partial and now_ms - self._partial_since > STALE_MS:
            self._partial = ""
        if not self._partial:
            self._partial_since = now_ms
        buffer = self._partial + "".join(chr(b & 0x7F) for b in data)
        out = bytearray()
        index = 0
        while index < len(buffer):
            if buffer[index] not in COMMAND_LENGTHS:
                index += 1  # noise between commands
                continue
            found = self._command_at(buffer, index)
            if found is None:  # the rest is still to come
                break
            body, length = found
            if body is None:  # a bad block check: not acted on, not answered
                index += 1
                continue
            try:
                out += self._handle(body, now_ms)
            except ValueError:  # a number that is not hex: not acted on, not answered
                pass
            index += length
        self._partial = buffer[index:]
        return bytes(out)

    def _command_at(self, buffer: str, index: int) -> tuple[str | None, int] | None:
        """(the command, its length with the check) at ``index``; (None, 1) if its block
        check is wrong; None if it has not all come."""
        command = buffer[index]
        tail = 2 if self.checked else 0
        lengths = [COMMAND_LENGTHS[command]]
        if command == "I":
            lengths.append(3)  # ``I`` and two characters, as some apps send it
        for body_length in lengths:
            end = index + body_length + tail
            if end > len(buffer):
                return None
            body = buffer[index : index + body_length]
            if not self.checked or buffer[end - 2 : end] == check(body):
                return body, end - index
        return None, 1

    def _handle(self, body: str, now_ms: int) -> bytes:
        command = body[0]
        if command == "S":
            return self._reply(self.status())
        if command == "V":
            return self._reply("v" + VERSION)
        if command == "L":
            self._set_leds([int(body[i : i + 2], 16) for i in range(3, len(body), 2)])
            return self._reply("l")
        if command == "X":
            self._set_leds([0] * 81)
            return self._reply("x")
        if command == "W":
            address, value = int(body[1:3], 16), int(body[3:5], 16)
            self.registers[address] = value
            if address in (0x01, 0x02, 0x03):
                self._next_report = None
                self._schedule(now_ms)
            return self._reply("w" + body[1:5].upper())
        if command == "R":
            address = int(body[1:3], 16)
            return self._reply(f"r{address:02X}{self.registers.get(address, 0):02X}")
        if command == "T":
            # A reset: LEDs and the status array cleared, registers kept (they are E2ROM).
            self._set_leds([0] * 81)
            self._reported = None
            return b""
        return self._reply(IDENTITY)  # "I"

    def split(self, data: bytes) -> list[bytes]:
        """The answers in ``data`` one by one, each known from its letter: the units a
        Bluetooth LE notification carries (python-mchess reads one answer a notification).

        >>> answers = ChessLinkSession(BoardView()).split(encode("v3130") + encode("x"))
        >>> [text(answer) for answer in answers]
        ['v3130', 'x']
        """
        tail = 2 if self.checked else 0
        out, index = [], 0
        while index < len(data):
            length = REPLY_LENGTHS.get(chr(data[index] & 0x7F))
            size = len(data) - index if length is None else length + tail
            out.append(bytes(data[index : index + size]))
            index += size
        return out

    def _reply(self, body: str) -> bytes:
        return encode(body, with_check=self.checked)

    def _set_leds(self, codes: list[int]) -> None:
        if len(codes) != 81:
            return
        self.leds = codes
        lit = squares_lit(codes)
        frame = None
        if lit:
            frame = Frame.off()
            for sq, blink in lit.items():
                frame = frame.with_square(sq, self.colour, blink=blink)
        self.show_lights(frame)

    # ------------------------------------------------------------------ to the app

    def status(self) -> str:
        """``s`` and the 64 pieces, a8..h8 first, ``.`` for an empty square."""
        chars = []
        for rank in range(7, -1, -1):
            for file in range(8):
                chars.append(self.view.piece_at(rank * 8 + file) or ".")
        return "s" + "".join(chars)

    def board_changed(self, changes: list[Change], now_ms: int = 0) -> bytes:
        """The status, if the app asked for it on every change and it did change."""
        if not changes or self.report_mode < 3:
            return b""
        status = self.status()
        if status == self._reported:
            return b""
        self._reported = status
        return self._reply(status)

    def next_due(self) -> int | None:
        """When the board next reports by itself (modes 0 and 2), or None."""
        return None if self._next_report is None else math.ceil(self._next_report)

    def tick(self, now_ms: int) -> bytes:
        """The timed status report, when it is due."""
        due = self._next_report
        if due is None or now_ms < due:
            return b""
        # The next one a period after this one was due, not after now: no drift.
        self._next_report = None
        period = self.report_period_ms()
        if period is not None:
            self._next_report = due + period if due + period > now_ms else now_ms + period
        self._reported = self.status()
        return self._reply(self._reported)

    def _schedule(self, now_ms: int) -> None:
        period = self.report_period_ms()
        if period is not None and self._next_report is None:
            self._next_report = now_ms + period

    def start(self, now_ms: int) -> None:
        """The app is connected: timed reports start (the hardware's default is on)."""
        self._schedule(now_ms)

    def close(self) -> None:
        """The app is gone: its lights go out, timed reports stop."""
        self._next_report = None
        self._reported = None
        if any(self.leds):
            self._set_leds([0] * 81)
