"""The host's BridgeLink against the real firmware, over a pty pair standing for the cable."""

from __future__ import annotations

import os
import random
import sys
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from firmware_bridge import BridgeLink, LinkDownError, MissingDependencyError, packets
from firmware_bridge.packets import Board, StreamDecoder, Welcome

from .rig import START, Rig

E2, E4, E7, E5, G1, F3 = 12, 28, 52, 36, 6, 21


def wait_for(condition: Callable[[], object], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {condition.__doc__ or condition}")
        time.sleep(0.005)


class Host:
    """A BridgeLink with everything it reports written down."""

    def __init__(self, device: str, **options: object) -> None:
        self.boards: list[int] = []
        self.buttons: list[str] = []
        self.changes: list[tuple[bool, str]] = []
        self.link = BridgeLink(
            device,
            on_board=self.boards.append,
            on_button=self.buttons.append,
            on_link_change=lambda up, why: self.changes.append((up, why)),
            backoff_min=0.02,
            backoff_max=0.2,
            **options,
        )

    def wait_board(self, board: int) -> None:
        wait_for(lambda: self.link.board == board)


@pytest.fixture
def host(rig: Rig) -> Iterator[Host]:
    host = Host(rig.device_path)
    assert host.link.wait_until_up(3.0)
    yield host
    host.link.close()
    stats = host.link.stats
    assert stats.reader_errors == 0 and stats.callback_errors == 0, stats


def play(rig: Rig, host: Host, moves: list[tuple[str, int]], seen: list[int]) -> None:
    """Move pieces one change at a time, each held long enough to debounce and arrive."""
    for action, square in moves:
        getattr(rig, action)(square)
        seen.append(rig.pieces)
        host.wait_board(rig.pieces)


def test_the_start_position_arrives_and_changes_come_in_order(rig: Rig, host: Host) -> None:
    assert host.link.scan() == START
    assert host.link.state == "up" and host.changes == [(True, host.changes[0][1])]
    seen = [START]
    play(rig, host, [("lift", E2), ("place", E4), ("lift", E7), ("place", E5)], seen)
    assert host.boards == seen
    assert host.link.scan() == 0xFFEF00101000EFFF
    stats = host.link.stats
    assert stats.bad_frames == 0 and stats.seq_gaps == 0 and stats.device_resets == 0


def test_led_frames_reach_the_squares_and_only_when_they_change(rig: Rig, host: Host) -> None:
    frame = [(0, 0, 0)] * 64
    frame[E2], frame[E4] = (255, 255, 255), (0, 40, 0)
    host.link.show(frame)
    wait_for(lambda: rig.leds() == frame)
    sent = host.link.stats.led_frames_sent
    shown = rig.hw.strips[-1].show_count
    for _ in range(20):
        host.link.show(list(frame))
    time.sleep(0.1)
    assert host.link.stats.led_frames_sent == sent
    assert rig.hw.strips[-1].show_count == shown
    frame[E4] = (0, 0, 90)
    host.link.show(frame)
    wait_for(lambda: rig.leds() == frame)
    assert host.link.stats.led_frames_sent == sent + 1


def test_close_turns_the_lights_off(rig: Rig, host: Host) -> None:
    host.link.show([(9, 9, 9)] * 64)
    wait_for(lambda: rig.leds() == [(9, 9, 9)] * 64)
    host.link.close()
    wait_for(lambda: rig.leds() == [(0, 0, 0)] * 64)
    assert host.link.state == "closed" and host.changes[-1] == (False, "closed")
    host.link.close()  # twice is fine: the sensing and the LED port both close it


def test_buttons_arrive_by_name(rig: Rig, host: Host) -> None:
    for name in ("adjust", "promote", "claim_draw", "resign", "new_game", "hint"):
        rig.press(name)
    wait_for(lambda: len(host.buttons) == 6)
    assert host.buttons == ["adjust", "promote", "claim_draw", "resign", "new_game", "hint"]


def test_pings_measure_the_round_trip(rig: Rig, host: Host) -> None:
    wait_for(lambda: host.link.stats.rtt_ms is not None, timeout=3)
    assert 0 < host.link.stats.rtt_ms < 500


def test_cable_pulled_mid_game_while_pieces_move(rig: Rig, host: Host) -> None:
    """Externally powered board: the firmware keeps scanning while the USB cable is out."""
    seen = [START]
    play(rig, host, [("lift", E2), ("place", E4)], seen)
    frame = [(0, 0, 0)] * 64
    frame[E4] = (200, 200, 200)
    host.link.show(frame)
    wait_for(lambda: rig.leds() == frame)

    rig.pull()
    wait_for(lambda: not host.link.link_up)
    assert host.changes[-1][0] is False
    assert host.link.scan() == seen[-1]  # the pieces as last seen, not a guess
    for action, square in [("lift", E7), ("place", E5), ("lift", G1), ("place", F3)]:
        getattr(rig, action)(square)  # 1... e5 2. Nf3, made while the host cannot see
        time.sleep(0.03)
    after_outage = rig.pieces
    time.sleep(0.3)  # the host retries a missing device
    rig.plug()
    host.wait_board(after_outage)
    assert host.link.link_up
    play(rig, host, [("lift", 57), ("place", 42)], seen_after := [after_outage])

    # Every board the host saw is one the matrix had, in order: the old ones, then the one
    # standing at reconnection (nothing from the outage in between), then the new moves.
    assert host.boards == [*seen, *seen_after]
    assert host.link.scan() == rig.pieces
    stats = host.link.stats
    assert stats.link_losses == 1 and stats.opens >= 2 and stats.device_resets == 0
    wait_for(lambda: rig.leds() == frame)  # the LEDs were re-sent after reconnecting


def test_usb_powered_board_unplugged_reboots_and_resyncs(rig: Rig, host: Host) -> None:
    """Pulling the cable of a USB-powered board powers it off; it boots when plugged back."""
    seen = [START]
    play(rig, host, [("lift", E2), ("place", E4)], seen)
    host.link.show([(0, 0, 50)] * 64)
    wait_for(lambda: rig.leds() == [(0, 0, 50)] * 64)
    rig.pull()
    rig.power_off()
    rig.lift(E7)
    rig.place(E5)
    rig.plug()
    rig.power_on()
    host.wait_board(rig.pieces)
    wait_for(lambda: host.link.link_up)
    assert host.boards == [*seen, rig.pieces]
    assert host.link.stats.device_resets == 1
    wait_for(lambda: rig.leds() == [(0, 0, 50)] * 64)  # a rebooted device is dark: re-sent


def test_firmware_reset_with_the_cable_in_is_noticed_and_healed(rig: Rig, host: Host) -> None:
    host.link.show([(3, 0, 0)] * 64)
    wait_for(lambda: rig.leds() == [(3, 0, 0)] * 64)
    rig.power_off()  # a soft reset: USB stays, the firmware restarts
    rig.lift(E2)
    rig.power_on()
    host.wait_board(rig.pieces)
    wait_for(lambda: host.link.stats.device_resets == 1)
    wait_for(lambda: host.link.link_up)
    assert [up for up, _ in host.changes] == [True, False, True]
    assert "restarted" in host.changes[1][1]
    wait_for(lambda: rig.leds() == [(3, 0, 0)] * 64)
    assert host.boards == [START, rig.pieces]


def test_a_frozen_device_is_detected_by_silence_and_picked_up_again(rig: Rig) -> None:
    host = Host(rig.device_path, silence_timeout=0.4, ping_interval=0.1)
    try:
        assert host.link.wait_until_up(3)
        rig.power_off()  # nothing answers any more, the port stays
        wait_for(lambda: not host.link.link_up, timeout=2)
        assert "no data" in host.changes[-1][1]
        rig.lift(E2)
        rig.power_on()
        host.wait_board(rig.pieces)
        assert host.boards == [START, rig.pieces]
    finally:
        host.link.close()


def test_garbage_on_the_line_is_counted_and_the_board_stays_right(rig: Rig, host: Host) -> None:
    noise = bytes(range(256)) * 4 + random.Random(7).randbytes(3000)
    rig.inject(noise)
    rig.inject(b"\x00" + packets.encode(Board(0x1234, 0), seq=99)[:-3] + b"\x00")  # torn frame
    rig.lift(E2)
    host.wait_board(rig.pieces)
    wait_for(lambda: host.link.stats.bad_frames > 0)
    assert host.link.link_up
    assert set(host.boards) <= {START, rig.pieces}  # no board made of noise
    assert host.link.stats.resyncs >= 1


def test_a_callback_that_raises_does_not_stop_the_reader(rig: Rig) -> None:
    calls = []

    def broken(board: int) -> None:
        calls.append(board)
        raise RuntimeError("a bug in the daemon")

    link = BridgeLink(rig.device_path, on_board=broken, backoff_min=0.02)
    try:
        assert link.wait_until_up(3)
        rig.lift(E2)
        wait_for(lambda: link.board == rig.pieces)
        assert calls == [START, rig.pieces]
        assert link.stats.callback_errors == 2 and link.link_up
    finally:
        link.close()


def test_a_device_that_appears_later_is_found(tmp_path: Path) -> None:
    with Rig(tmp_path) as rig:
        host = Host(rig.device_path)
        try:
            wait_for(lambda: "cannot open" in host.link.stats.last_problem)
            assert host.link.state == "connecting"
            rig.plug()
            rig.power_on()
            assert host.link.wait_until_up(3)
            assert host.link.scan() == START
        finally:
            host.link.close()


def test_scan_says_why_when_no_board_ever_came(tmp_path: Path) -> None:
    link = BridgeLink(str(tmp_path / "nothing-here"), first_board_timeout=0.2, backoff_min=0.02)
    try:
        with pytest.raises(LinkDownError, match=r"no board from the bridge at .*nothing-here"):
            link.scan()
        with pytest.raises(LinkDownError, match="cannot open"):
            link.scan()  # later calls do not wait again
    finally:
        link.close()


class FakeDevice:
    """A hand-written device at the other end of a pty (for what our firmware never does)."""

    def __init__(self, directory: Path, answer: Callable[[packets.Packet, int], list[bytes]]):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = str(directory / "odd-device")
        os.symlink(os.ttyname(self.slave), self.path)
        self.answer = answer
        self.received: list[packets.Packet] = []
        self.running = True
        self.tx = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        decoder = StreamDecoder()
        os.set_blocking(self.master, False)
        while self.running:
            try:
                data = os.read(self.master, 4096)
            except (BlockingIOError, OSError):
                time.sleep(0.005)
                continue
            for _, packet in decoder.feed(data):
                self.received.append(packet)
                for frame in self.answer(packet, self.tx):
                    os.write(self.master, frame)
                    self.tx += 1

    def close(self) -> None:
        self.running = False
        self.thread.join()
        os.close(self.master)
        os.close(self.slave)


def test_a_device_of_another_protocol_version_is_named_and_its_boards_ignored(
    tmp_path: Path,
) -> None:
    def version_2(packet: packets.Packet, seq: int) -> list[bytes]:
        if isinstance(packet, packets.Hello):
            return [
                packets.encode(Welcome(2, 7, "fw 2.0"), seq),
                packets.encode(Board(0xFF, 0), seq + 1),
            ]
        return []

    device = FakeDevice(tmp_path, version_2)
    host = Host(device.path, first_board_timeout=0.3)
    try:
        wait_for(lambda: host.link.state == "incompatible")
        wait_for(lambda: host.link.stats.ignored >= 1)  # its BOARD, not taken
        assert not host.link.link_up and host.link.board is None
        with pytest.raises(LinkDownError, match="protocol 2, this host speaks 1"):
            host.link.scan()
        assert not any(isinstance(packet, packets.Leds) for packet in device.received)
    finally:
        host.link.close()
        device.close()


def test_a_silent_device_never_brings_the_link_up(tmp_path: Path) -> None:
    device = FakeDevice(tmp_path, lambda packet, seq: [])
    host = Host(device.path, silence_timeout=0.3, hello_interval=0.1)
    try:
        # Silence means reopen, and hello again: waited for, however slow the machine.
        wait_for(lambda: host.link.stats.opens >= 2, timeout=30)
        wait_for(lambda: sum(isinstance(p, packets.Hello) for p in device.received) >= 3)
        assert not host.link.link_up and host.changes == []
    finally:
        host.link.close()
        device.close()


def test_missing_pyserial_is_a_clear_error_naming_the_pi_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "serial", None)
    with pytest.raises(MissingDependencyError, match=r"pyserial.*'pi' extra"):
        BridgeLink("/dev/magboard-bridge")


@pytest.mark.parametrize(
    ("colours", "complaint"),
    [
        ([(0, 0, 0)] * 63, "needs 64 colours"),
        ([(0, 0, 0)] * 63 + [(0, 0, 256)], "square 63: colour"),
        ([(0, 0)] * 64, "square 0: colour"),
    ],
)
def test_show_rejects_a_bad_frame_and_keeps_the_last_one(
    rig: Rig, host: Host, colours: list, complaint: str
) -> None:
    host.link.show([(1, 1, 1)] * 64)
    with pytest.raises(ValueError, match=complaint):
        host.link.show(colours)
    time.sleep(0.05)
    assert rig.leds() == [(1, 1, 1)] * 64


def test_the_reader_outlives_an_unexpected_error_of_its_own(rig: Rig) -> None:
    link = BridgeLink(rig.device_path, backoff_min=0.02)
    try:
        assert link.wait_until_up(3)
        decoder = link._decoder  # fault injection: the next chunk read blows up inside
        feed = decoder.feed

        def explode(data: bytes) -> list:
            decoder.feed = feed
            raise RuntimeError("a bug in the reader")

        decoder.feed = explode
        wait_for(lambda: link.stats.reader_errors == 1)
        assert "a bug in the reader" in link.stats.last_problem
        rig.lift(E2)
        wait_for(lambda: link.board == rig.pieces and link.link_up)
    finally:
        link.close()


def test_random_games_with_random_cable_pulls_never_show_an_unseen_board(rig: Rig) -> None:
    """Pieces toggle at random; the cable is pulled at random moments. While connected the
    host sees every board in order; across an outage it sees exactly the board standing at
    reconnection; it never sees anything else."""
    rng = random.Random(11)
    host = Host(rig.device_path)
    try:
        assert host.link.wait_until_up(3)
        expected = [START]
        for _ in range(3):
            for _ in range(rng.randrange(2, 6)):
                square = rng.randrange(64)
                rig.set_board(rig.pieces ^ 1 << square)
                expected.append(rig.pieces)
                host.wait_board(rig.pieces)
            rig.pull()
            wait_for(lambda: not host.link.link_up)
            for _ in range(rng.randrange(1, 5)):
                rig.set_board(rig.pieces ^ 1 << rng.randrange(64))
                time.sleep(0.02)
            if rig.pieces != expected[-1]:
                expected.append(rig.pieces)
            rig.plug()
            wait_for(lambda: host.link.link_up)
            host.wait_board(rig.pieces)
        assert host.boards == expected
    finally:
        host.link.close()


def test_device_faults_and_sequence_gaps_make_the_host_heal_both_directions(
    tmp_path: Path,
) -> None:
    """A device that lost an LED frame says so (FAULT); one whose board packets skipped a
    number gets asked for the board again (GET_BOARD)."""
    faults_sent = []

    def lossy(packet: packets.Packet, seq: int) -> list[bytes]:
        if isinstance(packet, packets.Hello):
            return [
                packets.encode(Welcome(1, 1, "lossy"), seq),
                packets.encode(Board(START, Board.REQUESTED), seq + 1),
            ]
        if isinstance(packet, packets.Leds) and not faults_sent:
            faults_sent.append(packet)
            return [
                packets.encode(packets.Fault(1, b"\x01\x00"), seq),
                packets.encode(Board(START & ~(1 << E2), Board.CHANGED), seq + 5),  # a gap
            ]
        if isinstance(packet, packets.GetBoard):
            return [packets.encode(Board(START & ~(1 << E2), Board.REQUESTED), seq + 4)]
        return []

    device = FakeDevice(tmp_path, lossy)
    faults: list[tuple[str, bytes]] = []
    host = Host(device.path)
    host.link.on_fault = lambda name, detail: faults.append((name, detail))
    try:
        assert host.link.wait_until_up(3)
        host.link.show([(5, 5, 5)] * 64)
        wait_for(lambda: sum(isinstance(p, packets.Leds) for p in device.received) == 2)
        wait_for(lambda: any(isinstance(p, packets.GetBoard) for p in device.received))
        assert faults == [("bad_frame", b"\x01\x00")]
        stats = host.link.stats
        assert stats.device_faults == 1 and stats.seq_gaps >= 1 and stats.resyncs >= 1
        assert host.link.scan() == START & ~(1 << E2)
        assert host.link.link_up
    finally:
        host.link.close()
        device.close()
