"""Issue 27: the DGT emulation relays the board's clock, and PicoChess's own driver reads it
(its DGT_CLOCK_TIME: left = White's, right = Black's). The recorded game
(``fixtures/dgt-picochess-clock.json``) is checked in every run; the live driver, when it
is checked out (``fixtures/README.md``), in a short game."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from board_driver.clock.texts import times_at
from board_driver.connectors.emulation.dgt import (
    CLOCK_MESSAGE,
    MSG_BWTIME,
    SEND_CLK,
    SEND_UPDATE_NICE,
    DgtSession,
)
from board_driver.connectors.emulation.view import START_OCCUPANCY, STARTING_FEN, BoardView
from tests.board_driver.connectors.emulation.real_clients import CLIENTS, missing, play
from tests.board_driver.connectors.emulation.replay import Recording

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "dgt-picochess-clock.json"


def decode(data: bytes) -> tuple[int, int, int] | None:
    """(white s, black s, status) of a BWTIME message (not an acknowledgement): written
    here from DGT's description (BCD minutes and seconds, hours in the low nibble; the right
    clock first), not with the emulation's code."""
    body = data[3:]
    if data[0] != MSG_BWTIME or (body[0] & 0x0F) == 0x0A or (body[3] & 0x0F) == 0x0A:
        return None

    def seconds(h: int, m: int, s: int) -> int:
        return (h & 0x0F) * 3600 + (m >> 4) * 600 + (m & 0x0F) * 60 + (s >> 4) * 10 + (s & 0x0F)

    return seconds(*body[3:6]), seconds(*body[0:3]), body[6]


def sent_times(trace: list[dict]) -> list[tuple[int, int, int, dict]]:
    """Every clock time we sent: (t, white s, black s, the clock as read then)."""
    reading = trace[0]["start"]["clock"]
    out = []
    for record in trace[1:]:
        if "clock" in record:
            reading = record["clock"]
        elif "out" in record:
            data = bytes.fromhex(record["out"])
            while data:
                size = (data[1] << 7) | data[2]
                decoded = decode(data[:size])
                if decoded is not None:
                    out.append((record["t"], decoded[0], decoded[1], reading))
                data = data[size:]
    return out


def check_clock(trace: list[dict], driver: list[dict]) -> None:
    sent = sent_times(trace)
    assert len(sent) > 5
    for t, white, black, reading in sent:  # each time we sent is the board's clock then
        expected_white, expected_black = times_at(reading, t)
        assert abs(white * 1000 - expected_white) <= 1000, (t, white, expected_white)
        assert abs(black * 1000 - expected_black) <= 1000, (t, black, expected_black)
    read = [line["clock"] for line in driver if "clock" in line]
    assert any("clock_version" in line for line in driver)  # it found a clock
    assert len(read) > 4 and all(r["connect"] for r in read)
    pairs = [(w, b) for _, w, b, _ in sent]
    for reading in read:  # and PicoChess read them as we meant them: left White's
        assert (reading["left"], reading["right"]) in pairs, reading
    assert len({(r["left"], r["right"]) for r in read}) > 4  # times that moved


def test_picochess_read_the_boards_clock_in_the_recorded_game():
    recording = Recording.load(FIXTURE)
    assert recording.meta["clock"] == "5+3" and not recording.meta["problems"]
    check_clock([{"t": recording.start_t, "start": recording.start}, *recording.records],
                recording.driver)  # fmt: skip


def test_the_clock_is_asked_for_acknowledged_and_told_as_it_changes():
    view = BoardView()
    view.resync(STARTING_FEN, occupancy=START_OCCUPANCY)
    session = DgtSession(view)
    assert session.receive(bytes([SEND_CLK])).hex()[-2:] == "20"  # no clock: none connected
    assert session.receive(bytes([CLOCK_MESSAGE, 3, 3, 9, 0])) == b""  # nothing answers
    reading = {"white_ms": 300_000, "black_ms": 299_500, "turn": "black",
               "state": "running", "at": 1_000, "delay_ms": 0}  # fmt: skip
    session.clock = lambda: reading
    session.now = lambda: 1_000
    assert decode(session.receive(bytes([SEND_CLK]), 1_000)) == (300, 299, 0x09)
    ack = session.receive(bytes([CLOCK_MESSAGE, 3, 3, 9, 0]))
    assert ack[3] & 0x0F == 0x0A and ack[5] == 9  # a DGT 3000's version acknowledgement
    assert session.next_due() is None  # idle: the app asks
    session.receive(bytes([SEND_UPDATE_NICE]))
    assert session.next_due() == 1_000  # not told yet: at once
    assert decode(session.tick(1_000)) == (300, 299, 0x09)
    assert session.tick(1_000) == b""
    assert session.next_due() == 1_000 + 500 + 1  # Black's 299.5 s shows 298 then
    assert decode(session.tick(1_501)) == (300, 298, 0x09)
    reading = {**reading, "state": "paused", "at": 2_000, "black_ms": 298_500}
    assert session.next_due() == 1_000  # the clock changed (paused): told at once
    assert decode(session.tick(2_000)) == (300, 298, 0x08)
    assert session.next_due() is None  # a paused clock changes no more


@pytest.mark.skipif(shutil.which("socat") is None, reason="socat is not installed")
def test_picochess_reads_the_boards_clock_live(tmp_path):
    why = missing("dgt")
    if why:
        pytest.skip(f"{CLIENTS['dgt']['name']}: {why}")
    result = play("dgt", 52, 3, tmp_path, led_every=0, plies=6, clock="5+3")
    assert not result.problems, result.problems
    check_clock(result.trace, result.driver)
