"""The firmware's own logic under CPython, on the fake CircuitPython modules."""

from __future__ import annotations

import os
import random
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from firmware_bridge import packets
from firmware_bridge.framing import encode_frame
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

from .rig import Rig, install_fakes

install_fakes()
import board  # noqa: E402
import digitalio  # noqa: E402
import fakehw  # noqa: E402
import usb_cdc  # noqa: E402
from magboard_fw import config  # noqa: E402
from magboard_fw import protocol as fw  # noqa: E402
from magboard_fw.buttons import Buttons  # noqa: E402
from magboard_fw.device import Device  # noqa: E402
from magboard_fw.matrix import Matrix  # noqa: E402
from magboard_fw.pixels import Pixels, pixel_index  # noqa: E402


@pytest.fixture
def hw(tmp_path: Path) -> Iterator[Rig]:
    """Fake hardware with no firmware running: the test drives the modules itself."""
    with Rig(tmp_path, pieces=0) as rig:
        yield rig
    fakehw.hw.release_all()


def _matrix(debounce_ms: int = 10) -> Matrix:
    return Matrix(
        [getattr(board, name) for name in config.ROW_PINS],
        [getattr(board, name) for name in config.COLUMN_PINS],
        debounce_ms=debounce_ms,
    )


def test_matrix_reads_exactly_the_pieces_standing_even_a_full_board(hw: Rig) -> None:
    matrix = _matrix()
    rng = random.Random(5)
    for pieces in [0, (1 << 64) - 1, 0xFFFF00000000FFFF, *(rng.getrandbits(64) for _ in range(50))]:
        hw.set_board(pieces)
        assert matrix.read() == pieces


def test_matrix_leaves_rows_floating_between_reads(hw: Rig) -> None:
    matrix = _matrix()
    matrix.read()
    for row in matrix._rows:
        assert row.direction == digitalio.Direction.INPUT
        assert row.pull is None


def test_debounce_ignores_a_bounce_and_takes_a_held_change(hw: Rig) -> None:
    hw.set_board(0xFFFF00000000FFFF)
    matrix = _matrix(debounce_ms=10)
    start = matrix.stable
    hw.lift(12)  # e2 opens...
    assert matrix.scan(0) is False
    hw.place(12)  # ...and bounces closed again after 5 ms
    assert matrix.scan(5) is False
    assert matrix.scan(15) is False
    assert matrix.stable == start
    hw.lift(12)
    assert matrix.scan(20) is False
    assert matrix.scan(25) is False
    assert matrix.scan(30) is True  # held for 10 ms
    assert matrix.stable == start & ~(1 << 12)


def test_debounce_judges_each_square_on_its_own_clock(hw: Rig) -> None:
    matrix = _matrix(debounce_ms=10)
    hw.place(28)
    matrix.scan(0)
    hw.place(36)
    matrix.scan(5)
    assert matrix.scan(10) is True
    assert matrix.stable == 1 << 28
    assert matrix.scan(15) is True
    assert matrix.stable == 1 << 28 | 1 << 36


def test_pins_cannot_be_claimed_twice_like_on_circuitpython(hw: Rig) -> None:
    _matrix()
    with pytest.raises(ValueError, match="in use"):
        _matrix()


def test_a_button_press_counts_once_and_a_glitch_not_at_all(hw: Rig) -> None:
    buttons = Buttons({"resign": board.GP20, "hint": board.GP22}, debounce_ms=20)
    hw.hw.pressed = frozenset({board.GP22})
    assert buttons.poll(0) == []
    hw.hw.pressed = frozenset()
    assert buttons.poll(5) == []  # a 5 ms glitch
    hw.hw.pressed = frozenset({board.GP20})
    assert buttons.poll(10) == []
    assert buttons.poll(30) == ["resign"]
    assert buttons.poll(40) == []  # still held: no repeat
    hw.hw.pressed = frozenset()
    assert buttons.poll(50) == []
    assert buttons.poll(70) == []
    hw.hw.pressed = frozenset({board.GP20})
    buttons.poll(80)
    assert buttons.poll(100) == ["resign"]


@pytest.mark.parametrize("order", ["rows", "serpentine"])
@pytest.mark.parametrize("first", ["a1", "h1", "a8", "h8"])
def test_every_layout_puts_each_square_on_its_own_pixel(order: str, first: str) -> None:
    indices = [pixel_index(square, order, first) for square in range(64)]
    assert sorted(indices) == list(range(64))
    assert indices[{"a1": 0, "h1": 7, "a8": 56, "h8": 63}[first]] == 0


def test_serpentine_from_a1_turns_back_at_the_end_of_each_rank() -> None:
    assert [pixel_index(sq) for sq in (0, 7, 8, 15, 16)] == [0, 7, 15, 8, 16]
    with pytest.raises(ValueError, match="first a1"):
        pixel_index(0, "zigzag", "a1")


def test_pixels_show_each_square_on_its_pixel(hw: Rig) -> None:
    pixels = Pixels(board.GP16, "serpentine", "a1")
    frame = bytearray(192)
    frame[8 * 3 : 8 * 3 + 3] = b"\x01\x02\x03"  # a2
    pixels.show(frame)
    strip = fakehw.hw.strips[-1]
    assert strip.shown[15] == (1, 2, 3)  # a2 is pixel 15 on a serpentine from a1
    assert sum(1 for colour in strip.shown if colour != (0, 0, 0)) == 1


# ----------------------------------------------------------------- the device's protocol


class Line:
    """The host's end of a pty, spoken to byte by byte (no BridgeLink in between)."""

    def __init__(self, path: str) -> None:
        self.port = serial.Serial(port=path, baudrate=115200, timeout=0.02)
        self.decoder = StreamDecoder()
        self.seq = 0

    def send(self, packet: packets.Packet, seq: int | None = None) -> None:
        self.port.write(packets.encode(packet, self.seq if seq is None else seq))
        self.seq = (self.seq if seq is None else seq) + 1 & 0xFF

    def receive(self, device: Device | None = None, clock: list[int] | None = None, *, wait=0.3):
        got = []
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if device is not None and clock is not None:
                device.poll(clock[0])
            got += [packet for _, packet in self.decoder.feed(self.port.read(512))]
        return got

    def close(self) -> None:
        self.port.close()


@pytest.fixture
def wired(hw: Rig) -> Iterator[tuple[Device, Line, list[int]]]:
    """A Device built by hand (fake clock, short host-lost time) and a raw host line."""
    hw.set_board(0xFFFF00000000FFFF)
    hw.plug()
    device = Device(
        usb_cdc.data,
        _matrix(),
        Pixels(board.GP16),
        boot_id=0x0A0B0C0D,
        firmware="test-fw",
        host_lost_ms=200,
    )
    line = Line(hw.device_path)
    clock = [1000]
    device.start(clock[0])
    yield device, line, clock
    line.close()


def test_hello_is_answered_with_welcome_then_the_full_board(wired) -> None:
    device, line, clock = wired
    line.receive()  # the unprompted boot announcement
    line.send(Hello(1))
    assert line.receive(device, clock) == [
        Welcome(1, 0x0A0B0C0D, "test-fw"),
        Board(0xFFFF00000000FFFF, Board.REQUESTED),
    ]


def test_the_device_answers_pings_and_board_requests_and_shows_led_frames(wired, hw) -> None:
    device, line, clock = wired
    line.send(Hello(1))
    line.receive(device, clock)
    line.send(Ping(0xCAFE))
    line.send(GetBoard())
    line.send(Leds(b"\x07" * 192))
    got = line.receive(device, clock)
    assert got == [Pong(0xCAFE), Board(0xFFFF00000000FFFF, Board.REQUESTED)]
    assert hw.leds() == [(7, 7, 7)] * 64


def test_a_wrong_host_version_gets_our_version_and_no_boards(wired, hw) -> None:
    device, line, clock = wired
    line.receive()
    line.send(Hello(2))
    got = line.receive(device, clock)
    assert got == [Welcome(1, 0x0A0B0C0D, "test-fw"), Fault(fw.FAULT_VERSION, b"\x01")]
    line.send(Leds(b"\x09" * 192))
    hw.lift(12)
    for _ in range(8):
        clock[0] += 5
        device.poll(clock[0])
    assert line.receive(device, clock) == []  # no board change, no LED frame obeyed
    assert hw.leds() != [(9, 9, 9)] * 64
    line.send(Hello(1))
    assert Board(0xFFFF00000000EFFF, Board.REQUESTED) in line.receive(device, clock)


def test_bad_frames_gaps_and_unknown_types_are_reported_not_fatal(wired) -> None:
    device, line, clock = wired
    line.send(Hello(1))
    line.receive(device, clock)
    line.port.write(b"\x05\x01\x02\x00")  # broken COBS
    got = line.receive(device, clock)
    assert got == [Fault(fw.FAULT_BAD_FRAME, b"\x01\x00")]
    clock[0] += 200
    line.send(Ping(1), seq=50)  # we last sent seq 0 (the HELLO)
    got = line.receive(device, clock)
    assert Fault(fw.FAULT_SEQ_GAP, bytes((1, 50))) in got and Pong(1) in got
    clock[0] += 200
    line.port.write(encode_frame(0x7E, 51, b"??"))
    assert line.receive(device, clock) == [Fault(fw.FAULT_UNKNOWN_TYPE, b"\x7e")]
    line.send(Ping(2), seq=52)
    assert line.receive(device, clock) == [Pong(2)]
    assert device.seq_gaps == 1


def test_a_silent_host_gets_the_host_lost_pattern_until_it_speaks(wired, hw) -> None:
    device, line, clock = wired
    line.send(Hello(1))
    line.send(Leds(b"\x00\x10\x00" * 64))
    line.receive(device, clock)
    assert hw.leds() == [(0, 16, 0)] * 64
    clock[0] += 250
    device.poll(clock[0])
    lost = hw.leds()
    assert [sq for sq in range(64) if lost[sq] != (0, 0, 0)] == [0, 7, 56, 63]
    line.send(Leds(b"\x00\x10\x00" * 64))
    line.receive(device, clock)
    assert hw.leds() == [(0, 16, 0)] * 64


def test_buttons_reach_the_line_as_codes(wired, hw) -> None:
    device, line, clock = wired
    device.buttons = Buttons({"new_game": board.GP21}, debounce_ms=20)
    line.send(Hello(1))
    line.receive(device, clock)
    hw.hw.pressed = frozenset({board.GP21})
    for _ in range(6):
        clock[0] += 5
        device.poll(clock[0])
    assert line.receive(device, clock) == [ButtonPress("new_game")]


def test_the_device_never_blocks_when_nobody_reads(hw: Rig) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    port = usb_cdc.Serial()
    port.attach(master)
    try:
        device = Device(port, _matrix(), Pixels(board.GP16), heartbeat_ms=0)
        started = time.monotonic()
        for now in range(0, 20000, 5):  # ~4000 boards into a pty nobody reads
            device.poll(now)
        assert time.monotonic() - started < 10
    finally:
        os.close(master)
        os.close(slave)
