"""The wire format: COBS, CRC-16, frames and packets, host and firmware agreeing byte for byte."""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import cobs, framing, packets
from firmware_bridge.errors import CobsError, CrcError, FrameLengthError, UnknownTypeError
from firmware_bridge.framing import MAX_FRAME, FrameSplitter, decode_frame, encode_frame
from firmware_bridge.packets import (
    Board,
    ButtonPress,
    Fault,
    GetBoard,
    Hello,
    Leds,
    Ping,
    Pong,
    StreamDecoder,
    Welcome,
)

from .rig import install_fakes

install_fakes()
from magboard_fw import cobs as fw_cobs  # noqa: E402
from magboard_fw import crc as fw_crc  # noqa: E402
from magboard_fw import protocol as fw  # noqa: E402

# Published COBS examples (Cheshire & Baker; the Wikipedia table).
COBS_VECTORS = [
    (b"", b"\x01"),
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x00\x11\x00", b"\x01\x02\x11\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
    (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255))),
    (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    (bytes(range(2, 256)) + b"\x00", b"\xff" + bytes(range(2, 256)) + b"\x01\x01"),
    (bytes(range(3, 256)) + b"\x00\x01", b"\xfe" + bytes(range(3, 256)) + b"\x02\x01"),
]


@pytest.mark.parametrize(("data", "encoded"), COBS_VECTORS)
def test_cobs_matches_the_published_examples_on_both_sides(data: bytes, encoded: bytes) -> None:
    assert cobs.encode(data) == encoded
    assert fw_cobs.encode(data) == encoded
    assert cobs.decode(encoded) == data
    assert fw_cobs.decode(encoded) == data


@given(st.binary(max_size=700))
def test_cobs_round_trips_and_never_contains_a_zero(data: bytes) -> None:
    encoded = cobs.encode(data)
    assert 0 not in encoded
    assert fw_cobs.encode(data) == encoded
    assert cobs.decode(encoded) == data
    assert fw_cobs.decode(encoded) == data
    assert len(encoded) <= len(data) + 1 + len(data) // 254


@pytest.mark.parametrize(
    ("encoded", "complaint"),
    [(b"\x05\x11\x22", "block at offset 0 needs 4 bytes, only 2 left"), (b"\x02\x00", "zero byte")],
)
def test_broken_cobs_is_an_error_that_says_where(encoded: bytes, complaint: str) -> None:
    with pytest.raises(CobsError, match=complaint):
        cobs.decode(encoded)
    with pytest.raises(ValueError):
        fw_cobs.decode(encoded)


def test_crc_is_ccitt_false_with_initial_value_ffff_on_both_sides() -> None:
    assert binascii.crc_hqx(b"123456789", 0xFFFF) == 0x29B1
    assert fw_crc.crc16(b"123456789") == 0x29B1


@given(st.binary(max_size=300))
def test_firmware_crc_table_agrees_with_binascii(data: bytes) -> None:
    assert fw_crc.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


def test_frame_layout_is_type_seq_payload_crc_little_endian() -> None:
    frame = encode_frame(0x21, 0x07, b"\x01\x02\x03\x04")
    assert frame[-1] == 0 and 0 not in frame[:-1]
    packet = cobs.decode(frame[:-1])
    assert packet[:6] == b"\x21\x07\x01\x02\x03\x04"
    assert int.from_bytes(packet[6:], "little") == binascii.crc_hqx(packet[:6], 0xFFFF)
    assert fw.encode_frame(0x21, 0x07, b"\x01\x02\x03\x04") == frame


def test_board_is_a_little_endian_u64_with_a1_as_bit_0() -> None:
    after_e4 = 0xFFFF00001000EFFF
    frame = packets.encode(Board(after_e4, Board.CHANGED), seq=9)
    body = cobs.decode(frame[:-1])
    assert body[0] == packets.BOARD and body[1] == 9
    assert body[2] == 0xFF  # a1..h1
    assert body[3] == 0xEF  # a2..h2 without e2 (bit 4)
    assert body[2:10] == after_e4.to_bytes(8, "little")


ALL_PACKETS = [
    Hello(1),
    Welcome(1, 0xDEADBEEF, "magboard-fw 1.0"),
    Board(0xFFFF00000000FFFF, Board.HEARTBEAT),
    *[ButtonPress(name) for name in packets.BUTTON_CODES.values()],
    Fault(3, b"\x05\x07"),
    Pong(0x01020304),
    Leds(bytes(range(192))),
    Ping(0xFFFFFFFF),
    GetBoard(),
]


@pytest.mark.parametrize("packet", ALL_PACKETS, ids=lambda packet: type(packet).__name__)
def test_every_packet_round_trips(packet: packets.Packet) -> None:
    frame = packets.encode(packet, seq=200)
    assert packets.decode(frame[:-1]) == (200, packet)


@pytest.mark.parametrize(
    "packet", [Hello(1), Leds(bytes(range(192))), Ping(77), GetBoard()], ids=repr
)
def test_the_firmware_decodes_what_the_host_sends(packet: packets.Packet) -> None:
    frame = packets.encode(packet, seq=42)
    packet_type, seq, payload = fw.decode_frame(frame[:-1])
    assert seq == 42
    assert packets.parse(packet_type, bytes(payload)) == packet


def test_the_host_decodes_what_the_firmware_sends() -> None:
    frames = [
        fw.encode_frame(fw.WELCOME, 0, b"\x01\x04\x03\x02\x01fw"),
        fw.encode_frame(fw.BOARD, 1, (0xFFFF00000000FFFF).to_bytes(8, "little") + b"\x00"),
        fw.encode_frame(fw.BUTTON, 2, bytes((fw.BUTTON_CODES["claim_draw"],))),
        fw.encode_frame(fw.PONG, 3, b"\x01\x00\x00\x00"),
        fw.encode_frame(fw.FAULT, 4, bytes((fw.FAULT_SEQ_GAP, 1, 3))),
    ]
    decoder = StreamDecoder()
    assert decoder.feed(b"".join(frames)) == [
        (0, Welcome(1, 0x01020304, "fw")),
        (1, Board(0xFFFF00000000FFFF, Board.CHANGED)),
        (2, ButtonPress("claim_draw")),
        (3, Pong(1)),
        (4, Fault(3, b"\x01\x03")),
    ]
    assert decoder.counts.bad_frames == 0
    assert fw.BUTTON_CODES == packets.BUTTON_NUMBERS


def test_the_largest_packet_fits_the_frame_limit() -> None:
    frame = packets.encode(Leds(b"\xff" * 192), seq=255)
    assert len(frame) - 1 <= MAX_FRAME
    assert len(frame) == 198  # 196-byte packet + 1 COBS code + delimiter


def test_decode_errors_name_the_problem() -> None:
    good = packets.encode(Ping(5), seq=1)[:-1]
    body = bytearray(cobs.decode(good))
    body[3] ^= 0x40
    with pytest.raises(CrcError, match="CRC mismatch"):
        decode_frame(cobs.encode(bytes(body)))
    with pytest.raises(FrameLengthError, match="shorter than 4"):
        decode_frame(cobs.encode(b"\x10\x00"))
    with pytest.raises(FrameLengthError, match="payload of 3 bytes, expected 4"):
        packets.decode(encode_frame(packets.PING, 0, b"abc")[:-1])
    with pytest.raises(UnknownTypeError, match="0x7f") as caught:
        packets.decode(encode_frame(0x7F, 0, b"")[:-1])
    assert caught.value.packet_type == 0x7F


def test_splitter_drops_an_oversize_run_and_recovers_at_the_next_delimiter() -> None:
    splitter = FrameSplitter()
    assert splitter.feed(b"\x01" * 300) == []
    assert splitter.feed(b"\x01" * 300 + b"\x00\x02a\x00") == [b"\x02a"]
    assert splitter.oversize == 1
    assert splitter.feed(b"\x00\x00") == []  # empty frames are flushes, not errors


def test_an_unknown_type_is_counted_but_keeps_its_sequence_number() -> None:
    decoder = StreamDecoder()
    got = decoder.feed(encode_frame(0x7E, 5, b"new") + packets.encode(Pong(1), 6))
    assert got == [(5, packets.UnknownPacket(0x7E, b"new")), (6, Pong(1))]
    assert decoder.counts.unknown_type == 1
    assert decoder.counts.packets == 1 and decoder.counts.bad_frames == 0


@pytest.mark.parametrize("module", [cobs, framing, packets])
def test_the_examples_in_the_docstrings_hold(module: object) -> None:
    import doctest

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
