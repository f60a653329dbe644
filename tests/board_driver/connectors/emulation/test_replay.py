"""The recorded conversations with the real drivers, replayed against the emulation.

Each fixture (``fixtures/*.json``, provenance in ``fixtures/README.md``) is the
emulation's trace of a whole game played into the real daemon while a real driver
(PicoChess's, python-mchess's, ChessnutPy's over Bluetooth LE) read it: the door's events,
the driver's bytes in, ours out, with their times. Replayed on a virtual clock, a fresh
emulation must send the same bytes in the same order at about the same times: what those
drivers accepted. And what the drivers read in the recording was the game's position after
every move (but for a move played while the driver was away, in ``meta["unseen"]``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.board_driver.connectors.emulation.apps import ChessLinkApp, ChessnutApp, DgtApp
from tests.board_driver.connectors.emulation.replay import Recording, replay

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RECORDINGS = sorted(FIXTURES.glob("*.json"))
#: How far a message's time may move between the recording (real time: a timer on a
#: loaded machine fires late, and two messages a few ms apart may swap) and the replay
#: (virtual time, exact). What a message says cannot depend on it: the emulation tells
#: every change that is due before it answers a command. A recording made in the system
#: tests' emulated machine says its own (``meta["time_slack_ms"]``): there a timer, or the
#: daemon between reading a command and answering it, can be held up for a second or more.
TIME_SLACK_MS = 150


def messages(protocol: str, chunks: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """Each write cut into the protocol's messages, each with the write's time (one write
    may carry several: changes told together by a timer that fired late)."""
    out = []
    for t, data in chunks:
        while data:
            if protocol == "dgt":
                size = (data[1] << 7) | data[2]
            elif protocol == "chessnut":
                size = 2 + data[1]
            else:
                size = ChessLinkApp.LENGTHS[chr(data[0] & 0x7F)]
            out.append((t, data[:size]))
            data = data[size:]
    return out


def unmatched(sent: list, recorded: list, slack: int = TIME_SLACK_MS) -> tuple[list, list]:
    """Recorded messages with no equal message sent within ``slack`` ms, in order; and the
    sent messages left over."""
    left = list(range(len(sent)))
    missing = []
    for t_recorded, data in recorded:
        for k, i in enumerate(left):
            t_sent, sent_data = sent[i]
            if t_sent > t_recorded + slack:
                missing.append((t_recorded, data.hex()))
                break
            if sent_data == data and abs(t_sent - t_recorded) <= slack:
                del left[k]
                break
        else:
            missing.append((t_recorded, data.hex()))
    return missing, [(sent[i][0], sent[i][1].hex()) for i in left]


def test_there_is_a_recording_for_each_protocol():
    protocols = {Recording.load(path).start["protocol"] for path in RECORDINGS}
    assert protocols == {"dgt", "chesslink", "chessnut"}


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_the_emulation_sends_what_the_real_driver_was_sent(path):
    recording = Recording.load(path)
    sent, _ = replay(recording)
    protocol = recording.start["protocol"]
    recorded = messages(protocol, recording.sent())
    assert len(recorded) > 50
    slack = recording.meta.get("time_slack_ms", TIME_SLACK_MS)
    missing, extra = unmatched(messages(protocol, sent), recorded, slack)
    assert not missing and not extra, (missing[:3], extra[:3])


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_the_driver_read_the_games_position_after_every_move(path):
    recording = Recording.load(path)
    moves: list[dict] = []
    for record in recording.records:
        event = record.get("event", {})
        if event.get("type") == "move":
            if event.get("replaces"):  # a rook move that became castling
                moves.pop()
            moves.append(event)
    assert [m["san"] for m in moves] == recording.meta["moves"] and len(moves) > 40
    read = [line["fen"] for line in recording.driver if "fen" in line]
    unseen = set(recording.meta.get("unseen", ()))  # played while the driver was away
    index = 0
    for ply, move in enumerate(moves):  # each position in turn, in the order of the game
        if ply in unseen:
            continue
        board = move["fen"].split()[0]
        while index < len(read) and read[index] != board:
            index += 1
        assert index < len(read), f"the driver never read the position after {move['san']}"
    assert read[-1] == moves[-1]["fen"].split()[0]
    assert not recording.meta["problems"]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_an_app_reading_the_replay_sees_the_final_position(path):
    recording = Recording.load(path)
    sent, door = replay(recording)
    app = {"dgt": DgtApp, "chesslink": ChessLinkApp, "chessnut": ChessnutApp}[
        recording.start["protocol"]
    ]()
    for _, data in sent:
        app.feed(data)
    assert app.fen() == door.game.position.board_fen()


def test_every_fixture_says_where_it_came_from():
    readme = (FIXTURES / "README.md").read_text()
    for path in RECORDINGS:
        meta = Recording.load(path).meta
        for key in ("repository", "commit", "files", "command", "game", "harness"):
            assert meta.get(key), f"{path.name}: no {key}"
        assert path.name in readme and meta["commit"] in readme
