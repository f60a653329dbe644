"""Issue 35: a Chess960 game, as an app of each protocol reads it.

The protocols know no variants: DGT's, ChessLink's and Chessnut's apps read a board of
pieces, so a Chess960 game is reported as any position is, from its start array on (a
new game set up on the board tells the app every piece again), and a castling as the
position it leaves (the king and rook where they end, however the hands went). A Pegasus
app reads occupancy only, the same for every start array.
"""

from __future__ import annotations

import asyncio

import pytest

from rules import Position
from tests.board_driver.connectors.emulation.rig import Rig
from tests.board_driver.connectors.emulation.test_games import _connect, _expected, _read

#: Start position 3 (Scharnagl's numbering): the king on f1 between its rooks on e1 and
#: g1, so that O-O swaps king and rook (the king to g1, the rook to f1).
POSITION_3 = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"
#: Two knights out each, then: the king lifted first and held, the rook lifted, the rook
#: set on the king's square and the king on the rook's (as FIDE recommends, Guidelines II).
HANDS = [
    ("lift", "d1"), ("place", "e3"), ("lift", "d8"), ("place", "e6"),
    ("lift", "c1"), ("place", "d3"), ("lift", "c8"), ("place", "d6"),
    ("lift", "f1"), ("lift", "g1"), ("place", "f1"), ("place", "g1"),
]  # fmt: skip
AFTER_CASTLING = "bq2rkrb/pppppppp/3nn3/8/8/3NN3/PPPPPPPP/BQ2RRKB"


@pytest.mark.parametrize("protocol", ["dgt", "chesslink", "chessnut", "pegasus"])
def test_a_chess960_new_game_and_its_castling_are_reported_as_any_position(protocol):
    asyncio.run(_chess960_game(protocol))


async def _set_up(rig: Rig) -> None:
    """Follow the lights until the position stands: the squares to empty emptied, then
    each kind's squares filled."""
    for _ in range(64):
        snap = rig.door.snapshot()
        if not snap.setup_pending:
            return
        setup = snap.setup
        assert setup is not None
        emptied = [*setup["extra"], *(w["square"] for w in setup["wrong"])]
        group = setup["group"]
        steps = [("lift", n) for n in emptied] or [("place", n) for n in group["missing"]]
        for kind, name in steps if group is not None or emptied else []:
            await rig.until(rig.clock.now + 300)
            getattr(rig.door, kind)(name)
        await rig.until(rig.clock.now + 1000)
    raise AssertionError(f"the set-up did not end: {rig.door.snapshot().setup}")


async def _chess960_game(protocol: str) -> None:
    rig = await Rig(protocol).start()
    await _connect(rig, protocol)
    assert _read(rig, protocol) == _expected(Position().fen(), protocol)
    # The new_game button on the board, its pieces home: the next game is Chess960's
    # start position 3 (as the daemon's [game] variant gives it), its back ranks set up by
    # the lights kind by kind (the board knows the standard array stands), then begun.
    rig.door.tracker.next_start = lambda: Position.from_chess960(3)
    rig.door.press("new_game")
    await rig.until(rig.clock.now + 500)
    await _set_up(rig)
    rig.read()
    assert rig.door.snapshot().start_fen == POSITION_3
    assert _read(rig, protocol) == _expected(POSITION_3, protocol)
    for kind, name in HANDS:
        await rig.until(rig.clock.now + 400)
        getattr(rig.door, kind)(name)
    await rig.until(rig.clock.now + 3000)
    rig.read()
    game = rig.door.tracker.game
    assert game.san_moves()[-1] == "O-O" and rig.door.tracker.in_sync
    assert game.position.board_fen() == AFTER_CASTLING
    assert _read(rig, protocol) == _expected(AFTER_CASTLING + " b - - 1 5", protocol)
    await rig.stop()
