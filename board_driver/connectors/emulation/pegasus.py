"""DGT Pegasus's protocol, spoken as a board: bytes from the app in, bytes to it out.

The Pegasus is DGT's Bluetooth LE board. It speaks DGT's board protocol (the commands
and the framing of :mod:`.dgt`, which this module reuses) with three differences that
matter to a reed-switch board, read from the public clients (``docs/emulation.md``):

- it senses **occupancy only**: a board dump is 64 bytes of 0 (empty) or 1 (a piece),
  a field update says 0 or 1; the app tracks which piece is where from the moves;
- it reports every change as soon as an app is connected (two emulations the DGT app
  is known to work with do; the app also sends ``0x40`` in the middle of a game);
- its LEDs take a list of squares: ``60 <size> 05 <speed> <repeat> <brightness>
  <square>... 00`` lights them (``repeat`` 0: until told otherwise; else that many
  flashes), ``60 02 00 00`` puts them out; and a developer key (``63 <size> <key> 00``)
  that is not answered.

It identifies itself as a Pegasus: version 1.0 (dgtdriver tells a Pegasus by a major
version of 1) and DGT's four-line trademark text, whose first line apps check.

>>> from board_driver.connectors.emulation.view import BoardView, STARTING_FEN
>>> view = BoardView()
>>> _ = view.resync(STARTING_FEN, occupancy=0xFFFF00000000FFFF)
>>> session = PegasusSession(view)
>>> session.receive(bytes([SEND_VERSION])).hex(" ")
'93 00 05 01 00'
>>> dump = session.receive(bytes([SEND_BRD]))
>>> dump[:3].hex(" "), dump[3:11].hex(" "), dump[19:27].hex(" ")   # a8..h8, a6..h6
('86 00 43', '01 01 01 01 01 01 01 01', '00 00 00 00 00 00 00 00')
>>> view.lift(12, 0)
>>> session.board_changed(view.advance(100)).hex(" ")   # e2 emptied: DGT's field 52
'8e 00 05 34 00'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from board_driver.connectors.emulation.dgt import (
    CLOCK_MESSAGE,
    MSG_BOARD_DUMP,
    MSG_FIELD_UPDATE,
    MSG_LONG_SERIALNR,
    MSG_SERIALNR,
    MSG_TRADEMARK,
    MSG_VERSION,
    RETURN_LONG_SERIALNR,
    RETURN_SERIALNR,
    SEND_BRD,
    SEND_RESET,
    SEND_TRADEMARK,
    SEND_UPDATE,
    SEND_UPDATE_BRD,
    SEND_UPDATE_NICE,
    SEND_VERSION,
    SET_LEDS,
    DgtSession,
    field,
    message,
)
from board_driver.connectors.emulation.view import BoardView, Change
from board_driver.physical.frame import Frame

#: The developer key an app registers with (no answer).
DEVELOPER_KEY = 0x63
#: Hardware version (DGTCentaurMods' emulation answers it; DGT's app is not seen asking).
SEND_HARDWARE_VERSION = 0x48
MSG_HARDWARE_VERSION = 0x96
#: LED sub-commands.
LEDS_OFF = 0x00
LEDS_ON = 0x05
#: One flash of a ``repeat`` count lasts this long (ms); DGTCentaurMods lights a
#: one-flash pattern for half a second.
FLASH_MS = 500
VERSION = (1, 0)
SERIAL_NUMBER = "00001"
LONG_SERIAL_NUMBER = "MB00000001"
#: DGT's app reads the first two lines (DGTCentaurMods: "it must contain Digital Game
#: Technology / Copyright (c)"); the serial number says which board this is.
TRADEMARK = (
    "Digital Game Technology\r\n"
    "Copyright (c) 2021 DGT\r\n"
    "software version: 1.00, build: 210722\r\n"
    f"hardware version: 1.00, serial no: {LONG_SERIAL_NUMBER}"
)


class PegasusSession(DgtSession):
    """One app's conversation with the board as a DGT Pegasus; see the module docstring.

    ``view`` is the board as the app is told it (here only which squares are occupied);
    ``show_lights`` is called with the frame the app's LED commands ask for (None: off).
    """

    protocol = "pegasus"
    sized_commands: ClassVar[tuple[int, ...]] = (SET_LEDS, CLOCK_MESSAGE, DEVELOPER_KEY)

    def __init__(
        self,
        view: BoardView,
        show_lights: Callable[[Frame | None], None] | None = None,
        *,
        colour: str = "c",
    ) -> None:
        super().__init__(view, show_lights, colour=colour)
        #: The occupancy the app has been told (bit i = square i, a1 = 0).
        self.told = view.occupancy
        self._lights_out_at: int | None = None
        self._now = 0

    def receive(self, data: bytes, now_ms: int = 0) -> bytes:
        self._now = now_ms
        return super().receive(data, now_ms)

    def _handle(self, command: int, data: bytes, now_ms: int = 0) -> bytes:
        if command == SEND_BRD:
            return self.board_dump()
        if command in (SEND_RESET, SEND_UPDATE, SEND_UPDATE_BRD, SEND_UPDATE_NICE):
            return b""  # changes are reported all the time (see the module docstring)
        if command == SEND_VERSION:
            return message(MSG_VERSION, VERSION)
        if command == RETURN_SERIALNR:
            return message(MSG_SERIALNR, SERIAL_NUMBER.encode())
        if command == RETURN_LONG_SERIALNR:
            return message(MSG_LONG_SERIALNR, LONG_SERIAL_NUMBER.encode())
        if command == SEND_TRADEMARK:
            return message(MSG_TRADEMARK, TRADEMARK.encode())
        if command == SEND_HARDWARE_VERSION:
            return message(MSG_HARDWARE_VERSION, VERSION)
        if command == DEVELOPER_KEY:
            return b""  # registered, not answered (dgtdriver expects no answer)
        # Battery, bus address, clock, stored moves, LEDs: as a DGT board; the rest
        # (0x5a, which DGT's app sends once, among them) is not answered.
        return super()._handle(command, data, now_ms)

    # ------------------------------------------------------------------ lights

    def _set_leds(self, data: bytes) -> None:
        # data: the size byte, the sub-command and its bytes, a closing 0x00.
        body = data[1:]
        if not body or body[0] == LEDS_OFF:
            self._lights(set(), None)
        elif body[0] == LEDS_ON and len(body) >= 5:
            repeat = body[2]
            squares = {field(f) for f in body[4:-1] if f < 64}
            self._lights(squares, self._now + repeat * FLASH_MS if repeat and squares else None)

    def _lights(self, squares: set[int], out_at: int | None) -> None:
        self.lit = squares
        self._lights_out_at = out_at
        frame = None
        if squares:
            frame = Frame.off()
            for sq in sorted(squares):
                frame = frame.with_square(sq, self.colour, blink=True)
        self.show_lights(frame)

    def next_due(self, now_ms: int | None = None) -> int | None:
        """When lights lit for a number of flashes go out, or None (``now_ms`` as the DGT
        session's: the time now does not change it)."""
        return self._lights_out_at

    def tick(self, now_ms: int) -> bytes:
        if self._lights_out_at is not None and now_ms >= self._lights_out_at:
            self._lights(set(), None)
        return b""

    def close(self) -> None:
        """The app is gone: its lights go out."""
        if self.lit:
            self._lights(set(), None)
        self._lights_out_at = None

    # ------------------------------------------------------------------ to the app

    def board_dump(self) -> bytes:
        """Which squares hold a piece, a8 first: 1 for a piece, 0 for none."""
        self.told = occupancy = self.view.occupancy
        codes = [0] * 64
        for sq in range(64):
            if occupancy >> sq & 1:
                codes[field(sq)] = 1
        return message(MSG_BOARD_DUMP, codes)

    def board_changed(self, changes: list[Change], now_ms: int = 0) -> bytes:
        """A field update for each square whose occupancy changed (a piece named anew
        on a square, as when a move is committed, is not a change here)."""
        out = bytearray()
        occupancy = self.view.occupancy
        for sq, _piece in changes:
            bit = 1 << sq
            if (occupancy ^ self.told) & bit:
                self.told ^= bit
                out += message(MSG_FIELD_UPDATE, [field(sq), 1 if occupancy & bit else 0])
        return bytes(out)
