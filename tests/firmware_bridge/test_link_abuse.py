"""The host's link against devices that misbehave on purpose: one that stops reading, one
that reports every LED frame as lost, one whose cable is pulled again and again."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from firmware_bridge import packets
from firmware_bridge.link import LED_RESEND_MIN_INTERVAL_S
from firmware_bridge.packets import Board, Welcome

from .rig import START, Rig
from .test_link import FakeDevice, Host, wait_for


def _greeter(extra=None):
    def answer(packet: packets.Packet, seq: int) -> list[bytes]:
        if isinstance(packet, packets.Hello):
            return [
                packets.encode(Welcome(1, 1, "odd"), seq),
                packets.encode(Board(START, Board.REQUESTED), seq + 1),
            ]
        if extra is not None:
            return extra(packet, seq)
        return []

    return answer


def test_show_never_blocks_against_a_device_that_stops_reading(tmp_path: Path) -> None:
    """300 different frames shown to a device that stopped reading (its input full): each
    show() returns at once (before: a blocked write, up to half a second each)."""
    device = FakeDevice(tmp_path, _greeter())
    host = Host(device.path, silence_timeout=30)
    try:
        assert host.link.wait_until_up(3)
        device.running = False  # it stops reading: the pty's buffer fills up
        device.thread.join()
        longest = 0.0
        for i in range(300):
            frame = [(i % 256, 0, 0)] * 64
            started = time.perf_counter()
            host.link.show(frame)
            longest = max(longest, time.perf_counter() - started)
        assert longest < 0.02, f"show() took {longest * 1000:.0f} ms"
    finally:
        host.link.close()
        os.close(device.master)
        os.close(device.slave)


def test_a_device_that_reports_every_led_frame_lost_gets_bounded_resends(tmp_path: Path) -> None:
    """A hostile device answers every LEDS with FAULT bad_frame, for 1.5 s: the host re-sends
    at most once per LED_RESEND_MIN_INTERVAL_S (before: at once, every time: a loop as fast
    as the line), and a new frame shown still goes out at once."""
    frames = []

    def hostile(packet: packets.Packet, seq: int) -> list[bytes]:
        if isinstance(packet, packets.Leds):
            frames.append(time.monotonic())
            return [packets.encode(packets.Fault(1, b"\x01\x00"), seq)]
        return []

    device = FakeDevice(tmp_path, _greeter(hostile))
    host = Host(device.path)
    try:
        assert host.link.wait_until_up(3)
        host.link.show([(5, 5, 5)] * 64)
        # Three re-sends at least (waited for, however slow the machine), then the rate.
        wait_for(lambda: len(frames) >= 4, timeout=30)
        window = time.monotonic() - frames[0]
        resends = len(frames) - 1
        assert resends <= window / LED_RESEND_MIN_INTERVAL_S + 1, (resends, window)
        # Counted when sent: one may be on the line, not yet counted by the device.
        assert resends <= host.link.stats.led_resends <= resends + 1
        before = len(frames)
        shown = time.monotonic()
        host.link.show([(9, 9, 9)] * 64)  # a new frame is not held back by the limit
        wait_for(lambda: len(frames) > before)
        # Out before a held-back one could have gone (the bound is the limit itself, not a
        # guess at how fast this machine is).
        assert frames[before] - shown < LED_RESEND_MIN_INTERVAL_S
    finally:
        host.link.close()
        device.close()


def test_each_link_down_is_told_once(rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    """5 cable pulls: with a listener (the daemon, which logs and lights it) the link logs
    none of them itself; without one, exactly one warning each."""
    caplog.set_level(logging.DEBUG, logger="firmware_bridge")
    for listening in (True, False):
        host = Host(rig.device_path)
        if not listening:
            host.link.on_link_change = None
        try:
            assert host.link.wait_until_up(3)
            caplog.clear()
            for _ in range(5):
                rig.pull()
                wait_for(lambda link=host.link: not link.link_up)
                rig.plug()
                wait_for(lambda link=host.link: link.link_up)
            downs = [
                r
                for r in caplog.records
                if "link down" in r.getMessage() and r.levelno >= logging.INFO
            ]
            assert len(downs) == (0 if listening else 5), [r.getMessage() for r in downs]
            if listening:
                # link_up turns before the listener is called: wait for the last call.
                wait_for(lambda host=host: len(host.changes) >= 11)
                assert [up for up, _ in host.changes[1:]] == [False, True] * 5
        finally:
            host.link.close()
