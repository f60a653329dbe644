"""The decoders against garbage: random bytes and mutated frames, 100,000 of them.

Every frame must come out either as a good packet or as one counted, dropped bad frame;
nothing may raise. A seeded loop keeps it fast and repeatable; hypothesis adds a few
shrinking examples on top.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import cobs, packets
from firmware_bridge.packets import Board, ButtonPress, Fault, Leds, Ping, Pong, StreamDecoder

from .rig import install_fakes

install_fakes()
from magboard_fw.protocol import FrameReader  # noqa: E402

CASES = 100_000
SEED = 20261122


def _valid_packet(rng: random.Random) -> packets.Packet:
    kind = rng.randrange(7)
    if kind == 0:
        return Board(rng.getrandbits(64), rng.randrange(3))
    if kind == 1:
        return ButtonPress(rng.choice(list(packets.BUTTON_CODES.values())))
    if kind == 2:
        return Fault(rng.randrange(1, 6), rng.randbytes(rng.randrange(5)))
    if kind == 3:
        return Pong(rng.getrandbits(32))
    if kind == 4:
        return Leds(rng.randbytes(192))
    if kind == 5:
        return Ping(rng.getrandbits(32))
    return packets.Welcome(1, rng.getrandbits(32), "fw")


def _case(rng: random.Random) -> tuple[bytes, bool]:
    """One frame's bytes (no trailing delimiter) and whether it must be rejected."""
    packet = _valid_packet(rng)
    frame = packets.encode(packet, rng.randrange(256))[:-1]
    how = rng.randrange(6)
    if how == 0:  # pure noise, zeros included (so it may be several frames, or none)
        return rng.randbytes(rng.randrange(1, 400)), False
    if how == 1:  # noise without zeros: one frame, possibly oversize
        return bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 300))), False
    if how == 2:  # one bit of the packet flipped before stuffing: the CRC must catch it
        body = bytearray(cobs.decode(frame))
        bit = rng.randrange(len(body) * 8)
        body[bit // 8] ^= 1 << (bit % 8)
        return cobs.encode(bytes(body)), True
    if how == 3:  # a burst of up to 2 bytes of the packet replaced: the CRC must catch it
        body = bytearray(cobs.decode(frame))
        at = rng.randrange(len(body) - 1)
        old = bytes(body[at : at + 2])
        new = old
        while new == old:
            new = rng.randbytes(2)
        body[at : at + 2] = new
        return cobs.encode(bytes(body)), True
    if how == 4:  # the frame cut short (a cable pulled mid-frame)
        return frame[: rng.randrange(1, len(frame))], False
    # random bytes of the encoded frame overwritten (code bytes too)
    mutated = bytearray(frame)
    for _ in range(rng.randrange(1, 4)):
        mutated[rng.randrange(len(mutated))] = rng.randrange(256)
    return bytes(mutated), False


def _segments(data: bytes) -> int:
    return sum(1 for part in data.split(b"\x00") if part)


def test_host_decoder_counts_and_drops_every_bad_frame_of_100k() -> None:
    rng = random.Random(SEED)
    stream = StreamDecoder()
    frames = 0
    accepted = 0
    must_reject = 0
    for _ in range(CASES):
        data, reject = _case(rng)
        expected = _segments(data)
        # One decoder per case checks the accounting exactly...
        single = StreamDecoder()
        good = single.feed(data + b"\x00")
        counts = single.counts
        assert len(good) + counts.bad_frames == expected, data.hex()
        assert counts.packets == len(good) - counts.unknown_type
        if reject:
            must_reject += 1
            assert good == [], f"a corrupt packet passed the CRC: {data.hex()}"
        for seq, packet in good:
            assert 0 <= seq <= 255
            assert isinstance(packet, packets.Packet | packets.UnknownPacket)
        # ...and one long-lived decoder sees them all as a stream, as the link does.
        accepted += len(stream.feed(data + b"\x00"))
        frames += expected
    totals = stream.counts
    assert accepted + totals.bad_frames == frames
    assert totals.packets + totals.unknown_type == accepted
    assert frames > CASES  # noise with zeros makes more frames than cases
    assert must_reject > CASES // 4
    assert totals.bad_frames > CASES // 2
    # the stream still decodes a good frame after all that
    assert stream.feed(packets.encode(Pong(1), 0)) == [(0, Pong(1))]


def test_firmware_reader_counts_and_drops_every_bad_frame() -> None:
    rng = random.Random(SEED + 1)
    reader = FrameReader()
    frames = good_total = 0
    for _ in range(20_000):
        data, _ = _case(rng)
        frames += _segments(data)
        good_total += len(reader.feed(data + b"\x00"))
    assert good_total + reader.bad_frames == frames
    assert reader.bad_frames > 10_000


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_no_byte_sequence_makes_the_decoder_raise(chunks: list[bytes]) -> None:
    decoder = StreamDecoder()
    for chunk in chunks:
        decoder.feed(chunk)
    decoder.feed(b"\x00")
    assert decoder.feed(packets.encode(Ping(9), 3)) == [(3, Ping(9))]
