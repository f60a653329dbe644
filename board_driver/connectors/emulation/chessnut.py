"""Chessnut's eBoard protocol (Chessnut Air, Air+, Go, Pro), spoken as a board: bytes from
the app in, bytes to it out.

Chessnut documents it publicly (``chessnutech/Chessnut_eBoards``, the "Chessnut Move Chess
Board API": ``docs/emulation.md`` says what else was read). Every command and every answer
is framed the same way: a kind byte, a length byte, that many bytes of payload.

- ``21 01 00`` turns the real-time report on: from then on the board sends its whole
  position after every change (``21 01 01``, the offline-game upload mode, turns it off);
- the position, ``01 24``, then 32 bytes of pieces, two squares a byte (the first in the
  low four bits), h8, g8, ... a8, h7, ... a1, in Chessnut's piece codes, then four bytes
  the document does not describe (zeros here);
- ``0a 08`` and 8 bytes lights LEDs: a byte a rank, rank 8 first, bit 7 the a-file; each
  command says the whole board, so a square not named goes out;
- ``29 01 00`` asks for the battery: ``2a 02 <level> 00`` (bit 7 of the level: charging).

From Chessnut's own SDK (``chessnutech/EasyLinkSDK``, the same commands over USB) and the
public drivers: ``27 01 01`` and ``27 01 00`` ask for the MCU's and the Bluetooth part's
versions (the text from the fourth byte on), ``31 01 00`` for the number of games stored
offline (``32 01 <count>``), ``0b 04 <Hz> <ms>`` beeps (no buzzer here: no answer). The
enable and LED commands are acknowledged with ``23 01 00``, which ``mono424/chessnutdriver``
waits for and ChessnutPy ignores.

A Chessnut board reads each piece by RFID; ours knows pieces only from the game: the
position told is the :class:`~.view.BoardView`'s (pieces named from the game, each change
held for the pass time). The battery answer says 100% and not charging (the board runs on
mains power), the versions say magboard; nothing claims a game stored offline.

>>> from board_driver.connectors.emulation.view import BoardView, STARTING_FEN
>>> view = BoardView()
>>> _ = view.resync(STARTING_FEN, occupancy=0xFFFF00000000FFFF)
>>> session = ChessnutSession(view)
>>> out = session.receive(bytes([0x21, 0x01, 0x00]))
>>> [m[:2].hex(" ") for m in session.split(out)]        # acknowledged, then the position
['23 01', '01 24']
>>> session.split(out)[1][2:6].hex(" ")                 # rook h8, knight g8, bishop f8 ...
'58 23 31 85'
>>> view.lift(12, 0)
>>> position(session.board_changed(view.advance(100)))[12] is None   # e2 emptied
True
"""

from __future__ import annotations

from collections.abc import Callable

from board_driver.connectors.emulation.view import BoardView, Change
from board_driver.physical.frame import Frame

# Commands from the app.
LEDS = 0x0A
BEEP = 0x0B
MODE = 0x21
VERSION = 0x27
BATTERY = 0x29
FILE_COUNT = 0x31
# Answers to it.
POSITION = 0x01
ACK = 0x23
VERSION_TEXT = 0x28
BATTERY_LEVEL = 0x2A
FILES = 0x32
#: ``MODE``'s payload: the real-time report, or the upload of games played offline.
REAL_TIME, UPLOAD = 0x00, 0x01
#: ``VERSION``'s payload: the Bluetooth part's version, or the MCU's.
BLE_PART, MCU = 0x00, 0x01

#: Chessnut's piece codes (0: empty), by FEN letter.
PIECE_CODES = {
    "q": 1, "k": 2, "b": 3, "p": 4, "n": 5, "R": 6,
    "P": 7, "r": 8, "B": 9, "N": 10, "Q": 11, "K": 12,
}  # fmt: skip
CODE_PIECES = {code: letter for letter, code in PIECE_CODES.items()}
#: The position's payload: 32 bytes of pieces and 4 the document leaves undescribed.
POSITION_PAYLOAD = 36
#: A mains-powered board: full, not charging.
BATTERY_PERCENT = 100
#: A command longer than this is no Chessnut command: the buffer is dropped.
LONGEST_COMMAND = 64
#: A command whose payload has not all come within this time is dropped (ms).
STALE_MS = 1000


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("magboard")
    except PackageNotFoundError:
        return "source"


def message(kind: int, payload: bytes | list[int] = b"") -> bytes:
    """A message as Chessnut frames one: kind, length, payload.

    >>> message(BATTERY_LEVEL, [100, 0]).hex(" ")
    '2a 02 64 00'
    """
    body = bytes(payload)
    if len(body) > 0xFF:
        raise ValueError(f"message 0x{kind:02x}: {len(body)} bytes do not fit its length byte")
    return bytes([kind, len(body)]) + body


def split_messages(data: bytes) -> list[bytes]:
    """Messages to the app, one by one (each says its length): the units a Bluetooth LE
    notification carries.

    >>> [m.hex(" ") for m in split_messages(bytes.fromhex("230100 2a026400"))]
    ['23 01 00', '2a 02 64 00']
    """
    out = []
    index = 0
    while index < len(data):
        size = 2 + data[index + 1] if index + 1 < len(data) else 1
        out.append(bytes(data[index : index + size]))
        index += size
    return out


def encode_position(pieces: dict[int, str]) -> bytes:
    """The 32 bytes of a position (``pieces``: FEN letters by square, a1 = 0): h8 first,
    two squares a byte, the first in the low four bits.

    >>> encode_position({63: "r", 62: "n", 0: "K"}).hex()[:2], encode_position({0: "K"})[-1]
    ('58', 192)
    """
    out = bytearray(32)
    for sq, piece in pieces.items():
        index = 63 - sq  # h8 = 0, g8 = 1, ... a1 = 63
        out[index // 2] |= PIECE_CODES[piece] << (4 * (index % 2))
    return bytes(out)


def position(data: bytes) -> list[str | None]:
    """The pieces of a position message, by square (a1 = 0): the reading apps do, for
    tests and doctests.

    >>> position(message(POSITION, encode_position({4: "K"}) + bytes(4)))[4]
    'K'
    """
    if len(data) < 34 or data[0] != POSITION:
        raise ValueError(f"not a position message: {data[:4].hex()}")
    pieces: list[str | None] = [None] * 64
    for index in range(64):
        code = data[2 + index // 2] >> (4 * (index % 2)) & 0x0F
        pieces[63 - index] = CODE_PIECES.get(code)
    return pieces


def lit_squares(rows: bytes) -> set[int]:
    """The squares an LED command's 8 bytes light (a1 = 0): rank 8 first, bit 7 the a-file.

    >>> sorted(lit_squares(bytes([0x80, 0, 0, 0, 0, 0, 0, 0x01])))   # a8 and h1
    [7, 56]
    """
    squares = set()
    for row, bits in enumerate(rows[:8]):
        rank = 7 - row
        for file in range(8):
            if bits >> (7 - file) & 1:
                squares.add(rank * 8 + file)
    return squares


class ChessnutSession:
    """One app's conversation with the board as a Chessnut eBoard; see the module docstring.

    ``view`` is the board as the app is told it; ``show_lights`` is called with the frame
    the app's LED commands ask for (None: its lights off); ``colour`` is the frame letter
    those lights take.
    """

    protocol = "chessnut"
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
        #: The real-time report is on: every change is told.
        self.reporting = False
        self.lit: set[int] = set()
        self.version = f"magboard {_installed_version()}"
        self._partial = bytearray()
        self._partial_since = 0

    # ------------------------------------------------------------------ from the app

    def receive(self, data: bytes, now_ms: int = 0) -> bytes:
        """Bytes from the app (a command may come in pieces); returns the answers."""
        if self._partial and now_ms - self._partial_since > STALE_MS:
            self._partial.clear()  # the rest of a command never came: start afresh
        if not self._partial:
            self._partial_since = now_ms
        buffer = self._partial + data
        out = bytearray()
        index = 0
        while index + 2 <= len(buffer):
            length = buffer[index + 1]
            if length > LONGEST_COMMAND:  # no command of ours: what follows cannot be read
                index = len(buffer)
                break
            if index + 2 + length > len(buffer):
                break
            out += self._handle(buffer[index], bytes(buffer[index + 2 : index + 2 + length]))
            index += 2 + length
        self._partial = bytearray(buffer[index:])
        return bytes(out)

    def _handle(self, command: int, payload: bytes) -> bytes:
        first = payload[0] if payload else 0
        if command == MODE:
            self.reporting = first == REAL_TIME
            ack = message(ACK, [0])
            return ack + self.position() if self.reporting else ack
        if command == LEDS:
            if len(payload) >= 8:
                self._set_leds(payload[:8])
            return message(ACK, [0])
        if command == BATTERY:
            return message(BATTERY_LEVEL, [BATTERY_PERCENT, 0])
        if command == VERSION:
            text = self.version if first == MCU else "magboard over BlueZ"
            return message(VERSION_TEXT, bytes([first]) + text.encode("ascii", "replace"))
        if command == FILE_COUNT:
            return message(FILES, [0])  # no game stored offline
        # A beep (no buzzer), the upload's steps, anything else: not answered.
        return b""

    def _set_leds(self, rows: bytes) -> None:
        self.lit = lit_squares(rows)
        frame = None
        if self.lit:
            frame = Frame.off()
            for sq in sorted(self.lit):
                frame = frame.with_square(sq, self.colour)
        self.show_lights(frame)

    # ------------------------------------------------------------------ to the app

    def position(self) -> bytes:
        """The whole board as the app is told it."""
        return message(POSITION, encode_position(self.view.pieces) + bytes(POSITION_PAYLOAD - 32))

    def board_changed(self, changes: list[Change], now_ms: int = 0) -> bytes:
        """The position again, when something changed and the report is on."""
        return self.position() if changes and self.reporting else b""

    def next_due(self) -> int | None:
        return None

    def tick(self, now_ms: int) -> bytes:
        return b""

    def close(self) -> None:
        """The app is gone: its lights go out, the report stops until it asks again."""
        self.reporting = False
        self._partial.clear()
        if self.lit:
            self.lit.clear()
            self.show_lights(None)
