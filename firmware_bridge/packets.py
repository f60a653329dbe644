"""The packets of protocol version 1, and a stream decoder that never raises.

Each packet is a small frozen dataclass; :func:`encode` turns one into a frame ready for the
wire, :func:`decode` turns a frame back into ``(seq, packet)``. :class:`StreamDecoder` takes
raw bytes as they come off the serial port and returns the good packets, counting and
dropping everything else. See ``PROTOCOL.md`` for the layouts.

>>> frame = encode(Board(0xFFFF00000000FFFF, Board.CHANGED), seq=3)
>>> decode(frame[:-1])
(3, Board(board=18446462598732906495, reason=0))
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import CobsError, CrcError, FrameError, FrameLengthError, UnknownTypeError
from .framing import FrameSplitter, decode_frame, encode_frame

#: The protocol version this host speaks (the ``HELLO``/``WELCOME`` byte).
PROTOCOL_VERSION = 1

HELLO = 0x01
WELCOME = 0x02
BOARD = 0x10
BUTTON = 0x11
FAULT = 0x12
PONG = 0x13
LEDS = 0x20
PING = 0x21
GET_BOARD = 0x22

#: Button codes on the wire and the names the host hands on.
BUTTON_CODES: dict[int, str] = {
    1: "adjust",
    2: "promote",
    3: "claim_draw",
    4: "resign",
    5: "new_game",
    6: "hint",
    7: "draw_offer",
    8: "draw_accept",
    # The questions a player asks the board (answered aloud by the speech extension).
    9: "say_move",
    10: "say_moves",
    11: "say_clocks",
    12: "say_material",
    13: "say_square",
    14: "say_rank",
    15: "say_file",
}
BUTTON_NUMBERS: dict[str, int] = {name: code for code, name in BUTTON_CODES.items()}

#: Fault codes the device reports.
FAULT_NAMES: dict[int, str] = {
    1: "bad_frame",
    2: "unknown_type",
    3: "seq_gap",
    4: "version",
    5: "internal",
}

SQUARES = 64
LED_BYTES = SQUARES * 3
MAX_FIRMWARE_NAME = 32
MAX_FAULT_DETAIL = 64


@dataclass(frozen=True, slots=True)
class Hello:
    """Host → device: the protocol version the host speaks."""

    version: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class Welcome:
    """Device → host: its protocol version, a random id per boot, its firmware name."""

    version: int
    boot_id: int
    firmware: str = ""


@dataclass(frozen=True, slots=True)
class Board:
    """Device → host: the debounced occupancy, bit *i* = square *i* (a1 = 0 .. h8 = 63)."""

    CHANGED = 0
    HEARTBEAT = 1
    REQUESTED = 2

    board: int
    reason: int = 0


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """Device → host: a button was pressed; ``name`` is one of :data:`BUTTON_CODES`' names."""

    name: str


@dataclass(frozen=True, slots=True)
class Fault:
    """Device → host: something went wrong there (see :data:`FAULT_NAMES`)."""

    code: int
    detail: bytes = b""

    @property
    def name(self) -> str:
        return FAULT_NAMES.get(self.code, f"fault_{self.code}")


@dataclass(frozen=True, slots=True)
class Pong:
    """Device → host: the answer to :class:`Ping`."""

    token: int


@dataclass(frozen=True, slots=True)
class Leds:
    """Host → device: 192 bytes, ``r, g, b`` for square 0 (a1) to square 63 (h8)."""

    rgb: bytes = field(default=bytes(LED_BYTES))


@dataclass(frozen=True, slots=True)
class Ping:
    """Host → device: liveness check; answered by a :class:`Pong` with the same token."""

    token: int


@dataclass(frozen=True, slots=True)
class GetBoard:
    """Host → device: send the board now."""


@dataclass(frozen=True, slots=True)
class UnknownPacket:
    """A well-formed packet of a type this host does not know (a newer device's?).

    :class:`StreamDecoder` counts it and hands it on only so that its sequence number
    counts; the link drops it.
    """

    packet_type: int
    payload: bytes = b""


Packet = Hello | Welcome | Board | ButtonPress | Fault | Pong | Leds | Ping | GetBoard


def encode(packet: Packet, seq: int) -> bytes:
    """One frame for ``packet`` with sequence number ``seq``, delimiter included."""
    match packet:
        case Hello(version):
            return encode_frame(HELLO, seq, bytes((version,)))
        case Welcome(version, boot_id, firmware):
            name = firmware.encode()[:MAX_FIRMWARE_NAME]
            return encode_frame(WELCOME, seq, bytes((version,)) + _u32(boot_id) + name)
        case Board(board, reason):
            return encode_frame(BOARD, seq, board.to_bytes(8, "little") + bytes((reason,)))
        case ButtonPress(name):
            return encode_frame(BUTTON, seq, bytes((BUTTON_NUMBERS[name],)))
        case Fault(code, detail):
            return encode_frame(FAULT, seq, bytes((code,)) + detail[:MAX_FAULT_DETAIL])
        case Pong(token):
            return encode_frame(PONG, seq, _u32(token))
        case Leds(rgb):
            if len(rgb) != LED_BYTES:
                raise ValueError(f"an LED frame is {LED_BYTES} bytes, not {len(rgb)}")
            return encode_frame(LEDS, seq, bytes(rgb))
        case Ping(token):
            return encode_frame(PING, seq, _u32(token))
        case GetBoard():
            return encode_frame(GET_BOARD, seq)
    raise TypeError(f"not a packet: {packet!r}")


def decode(frame: bytes) -> tuple[int, Packet]:
    """``(seq, packet)`` from one frame without its delimiter.

    Raises a :class:`~firmware_bridge.errors.FrameError` subclass saying what is wrong.
    """
    packet_type, seq, payload = decode_frame(frame)
    try:
        return seq, parse(packet_type, payload)
    except UnknownTypeError as error:
        error.seq, error.payload = seq, payload
        raise


def parse(packet_type: int, payload: bytes) -> Packet:
    """The packet of ``packet_type`` carried by ``payload``."""
    size = len(payload)
    if packet_type == BOARD:
        _expect(packet_type, size, 9)
        return Board(int.from_bytes(payload[:8], "little"), payload[8])
    if packet_type == PONG:
        _expect(packet_type, size, 4)
        return Pong(int.from_bytes(payload, "little"))
    if packet_type == BUTTON:
        _expect(packet_type, size, 1)
        code = payload[0]
        if code not in BUTTON_CODES:
            raise FrameLengthError(f"BUTTON: unknown button code {code}")
        return ButtonPress(BUTTON_CODES[code])
    if packet_type == WELCOME:
        if not 5 <= size <= 5 + MAX_FIRMWARE_NAME:
            raise FrameLengthError(f"WELCOME: payload of {size} bytes, expected 5..37")
        name = payload[5:].decode("utf-8", "replace")
        return Welcome(payload[0], int.from_bytes(payload[1:5], "little"), name)
    if packet_type == FAULT:
        if not 1 <= size <= 1 + MAX_FAULT_DETAIL:
            raise FrameLengthError(f"FAULT: payload of {size} bytes, expected 1..65")
        return Fault(payload[0], bytes(payload[1:]))
    if packet_type == HELLO:
        _expect(packet_type, size, 1)
        return Hello(payload[0])
    if packet_type == LEDS:
        _expect(packet_type, size, LED_BYTES)
        return Leds(bytes(payload))
    if packet_type == PING:
        _expect(packet_type, size, 4)
        return Ping(int.from_bytes(payload, "little"))
    if packet_type == GET_BOARD:
        _expect(packet_type, size, 0)
        return GetBoard()
    raise UnknownTypeError(f"unknown packet type {packet_type:#04x}", packet_type)


@dataclass
class DecoderCounts:
    """What a :class:`StreamDecoder` has seen: good packets and each kind of bad frame."""

    packets: int = 0
    bad_cobs: int = 0
    bad_crc: int = 0
    bad_length: int = 0
    oversize: int = 0
    unknown_type: int = 0

    @property
    def bad_frames(self) -> int:
        """Frames dropped as corrupt (COBS, CRC, length, oversize); unknown types apart."""
        return self.bad_cobs + self.bad_crc + self.bad_length + self.oversize


class StreamDecoder:
    """Bytes off the line in, good ``(seq, packet)`` pairs out; never raises on bad input.

    Every frame is either returned or counted in :attr:`counts` and dropped; the last
    problem is kept in :attr:`last_error` for the log. A packet of an unknown type is
    counted in ``counts.unknown_type`` and returned as an :class:`UnknownPacket`.

    >>> decoder = StreamDecoder()
    >>> decoder.feed(b"garbage\\x00" + encode(Pong(5), seq=1))
    [(1, Pong(token=5))]
    >>> decoder.counts.bad_frames
    1
    """

    def __init__(self) -> None:
        self.counts = DecoderCounts()
        self.last_error: FrameError | None = None
        self._splitter = FrameSplitter()

    def feed(self, data: bytes) -> list[tuple[int, Packet | UnknownPacket]]:
        oversize_before = self._splitter.oversize
        unknown_before = self.counts.unknown_type
        frames = self._splitter.feed(data)
        self.counts.oversize += self._splitter.oversize - oversize_before
        good: list[tuple[int, Packet | UnknownPacket]] = []
        for frame in frames:
            try:
                good.append(decode(frame))
            except UnknownTypeError as error:
                self.counts.unknown_type += 1
                self.last_error = error
                seq = error.seq if error.seq is not None else -1  # decode always sets it
                good.append((seq, UnknownPacket(error.packet_type, error.payload)))
            except FrameError as error:
                self._count(error)
        self.counts.packets += len(good) - (self.counts.unknown_type - unknown_before)
        return good

    def reset(self) -> None:
        """Forget a partial frame (the port was reopened); the counts stay."""
        self._splitter.reset()

    def _count(self, error: FrameError) -> None:
        self.last_error = error
        if isinstance(error, CobsError):
            self.counts.bad_cobs += 1
        elif isinstance(error, CrcError):
            self.counts.bad_crc += 1
        else:
            self.counts.bad_length += 1


def _u32(value: int) -> bytes:
    return (value & 0xFFFFFFFF).to_bytes(4, "little")


def _expect(packet_type: int, size: int, wanted: int) -> None:
    if size != wanted:
        raise FrameLengthError(
            f"packet type {packet_type:#04x}: payload of {size} bytes, expected {wanted}"
        )
