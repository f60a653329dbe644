"""Whole games played by hand on the door, and what an app reads of them in each protocol.

The games are ``selfplay.pgn``'s, turned into lifts and places the way people move pieces
(``tests/generate_scripts.py``: slides, captures in either order, castling three ways,
en passant, promotions named before, after or not at all, quick replies). After every
move, once the board has been still for the pass time, the board the app reads is the
game's position; so is it at the end.
"""

from __future__ import annotations

import asyncio

import pytest

from board_driver.arbiter.tracker import GameOptions
from board_driver.connectors.emulation.view import placement
from tests.board_driver.connectors.emulation.apps import chesslink_command
from tests.board_driver.connectors.emulation.rig import Rig
from tests.conftest import SHARED_DATA
from tests.generate_scripts import generate_game, read_games

GAMES = read_games(SHARED_DATA / "selfplay.pgn")


def _board(fen: str) -> str:
    return fen.split()[0]


def _read(rig: Rig, protocol: str) -> str:
    """The board as the app reads it: a FEN's placement; for a Pegasus, which squares
    hold a piece (the app names them itself)."""
    if protocol == "pegasus":
        return f"{rig.app.occupancy():016x}"
    return rig.app.fen()


def _expected(fen: str, protocol: str) -> str:
    if protocol == "pegasus":
        return f"{sum(1 << sq for sq in placement(fen)):016x}"
    return _board(fen)


async def _connect(rig: Rig, protocol: str) -> None:
    if protocol == "dgt":
        await rig.send(bytes([0x4B, 0x42]))  # update mode (nice), then a board dump
    elif protocol == "pegasus":
        await rig.send(bytes([0x42, 0x44]))  # a board dump, then update mode
    elif protocol == "chessnut":
        await rig.send(bytes([0x21, 0x01, 0x00]))  # the real-time report on
    else:
        await rig.send(chesslink_command("W0203") + chesslink_command("S"))


def _games_with(*features: str) -> list[int]:
    """Indexes of games whose moves include each feature (``=``, ``O-O``, ``x``)."""
    found = []
    for index, game in enumerate(GAMES):
        board, sans = game.board(), []
        for move in game.mainline_moves():
            sans.append(board.san(move))
            board.push(move)
        text = " ".join(sans)
        if all(f in text for f in features):
            found.append(index)
    return found


@pytest.mark.parametrize("protocol", ["dgt", "chesslink", "pegasus", "chessnut"])
@pytest.mark.parametrize("index", [0, _games_with("=R")[0], _games_with("=B")[0]])
def test_after_every_move_the_app_reads_the_games_position(protocol, index):
    asyncio.run(_after_every_move(protocol, index))


async def _after_every_move(protocol: str, index: int) -> None:
    generated = generate_game(GAMES[index], 500 + index, f"game {index + 1}")
    script = generated.script
    rig = await Rig(protocol, options=GameOptions(**script.options)).start()
    await _connect(rig, protocol)
    problems = []

    def check(rig: Rig, move: dict) -> None:
        if _read(rig, protocol) != _expected(move["fen"], protocol):
            problems.append(f"after {move['san']}: app reads {_read(rig, protocol)}, {move['fen']}")

    looked = await rig.play_script(script, after_move=check)
    sans = [e["san"] for e in rig.door.events if e["type"] == "move"]
    assert sans[: len(generated.sans)] and rig.door.tracker.game.san_moves() == generated.sans
    assert not problems, problems[:5]
    assert looked > len(generated.sans) // 2  # most moves are followed by a still board
    assert _read(rig, protocol) == _expected(rig.door.snapshot().fen, protocol)
    await rig.stop()


@pytest.mark.parametrize("protocol", ["dgt", "chesslink", "pegasus", "chessnut"])
def test_board_events_after_the_games_events_tell_the_same(protocol):
    asyncio.run(_board_events_after(protocol))


async def _board_events_after(protocol: str) -> None:
    # The door may put a lift that committed the move before it after that move's event.
    index = _games_with("O-O", "=")[0]
    generated = generate_game(GAMES[index], 77, "game")
    rig = await Rig(
        protocol, options=GameOptions(**generated.script.options), board_events_first=False
    ).start()
    await _connect(rig, protocol)
    await rig.play_script(generated.script)
    assert rig.door.tracker.game.san_moves() == generated.sans
    assert _read(rig, protocol) == _expected(rig.door.snapshot().fen, protocol)
    await rig.stop()
