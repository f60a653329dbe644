"""Packets of bridge protocol version 1, the device's side (see PROTOCOL.md on the host).

A packet is ``type | seq | payload | crc16-le``, COBS-encoded and ended by 0x00.
"""

from magboard_fw import cobs
from magboard_fw.crc import crc16

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

BOARD_CHANGED = 0
BOARD_HEARTBEAT = 1
BOARD_REQUESTED = 2

BUTTON_CODES = {
    "adjust": 1,
    "promote": 2,
    "claim_draw": 3,
    "resign": 4,
    "new_game": 5,
    "hint": 6,
    "draw_offer": 7,
    "draw_accept": 8,
    "say_move": 9,
    "say_moves": 10,
    "say_clocks": 11,
    "say_material": 12,
    "say_square": 13,
    "say_rank": 14,
    "say_file": 15,
}

FAULT_BAD_FRAME = 1
FAULT_UNKNOWN_TYPE = 2
FAULT_SEQ_GAP = 3
FAULT_VERSION = 4
FAULT_INTERNAL = 5

LED_BYTES = 192
MAX_FRAME = 256  # encoded bytes, delimiter not counted

# Payload sizes of the packets the device receives; any other type is unknown to it.
_SIZES = {HELLO: 1, LEDS: LED_BYTES, PING: 4, GET_BOARD: 0}


def encode_frame(packet_type, seq, payload=b""):
    """One frame ready for the wire, delimiter included."""
    body = bytearray((packet_type, seq & 0xFF))
    body.extend(payload)
    crc = crc16(body)
    body.append(crc & 0xFF)
    body.append(crc >> 8)
    return cobs.encode(body) + b"\x00"


class FrameError(ValueError):
    """A frame that is not a valid packet."""


def decode_frame(encoded):
    """``(type, seq, payload)`` of one frame without its delimiter, or a FrameError.

    A packet of a type the device does not know passes (its sequence number counts); the
    device reports it with a FAULT.
    """
    if len(encoded) > MAX_FRAME:
        raise FrameError("frame too long")
    try:
        packet = cobs.decode(encoded)
    except ValueError as error:
        raise FrameError(str(error)) from None
    if len(packet) < 4:
        raise FrameError("frame too short")
    sent = packet[-2] | (packet[-1] << 8)
    if crc16(packet[:-2]) != sent:
        raise FrameError("bad CRC")
    packet_type = packet[0]
    payload = packet[2:-2]
    if packet_type in _SIZES and len(payload) != _SIZES[packet_type]:
        raise FrameError(f"bad payload length for type {packet_type}")
    return packet_type, packet[1], payload


class FrameReader:
    """Bytes from the host in, ``(type, seq, payload)`` out; bad frames counted, not raised."""

    def __init__(self):
        self._buffer = bytearray()
        self._skipping = False
        self.bad_frames = 0

    def feed(self, data):
        """Add bytes; return the list of good packets they complete."""
        packets = []
        start = 0
        while True:
            end = data.find(b"\x00", start)
            if end < 0:
                self._take(data[start:])
                return packets
            self._take(data[start:end])
            if self._skipping:
                self._skipping = False
            elif self._buffer:
                self._decode(bytes(self._buffer), packets)
            self._buffer = bytearray()
            start = end + 1

    def _take(self, chunk):
        if self._skipping or not chunk:
            return
        self._buffer.extend(chunk)
        if len(self._buffer) > MAX_FRAME:
            self.bad_frames += 1
            self._buffer = bytearray()
            self._skipping = True

    def _decode(self, frame, packets):
        try:
            packets.append(decode_frame(frame))
        except FrameError:
            self.bad_frames += 1


def is_known(packet_type):
    """True for the packet types a device handles."""
    return packet_type in _SIZES
