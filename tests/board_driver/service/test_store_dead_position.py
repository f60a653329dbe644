"""A stored game played on past a dead position (an online game, whose server decided,
or a game stored before the rules knew dead positions) is a game, not a damaged store."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn

from board_driver.service.store import Store
from board_driver.service.store_pgn import game_pgn, rebuild_game

LAST_PIECE = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/4r3/4K3 w - - 0 1"  # Kxe2 leaves a dead position


def test_a_game_played_on_past_a_dead_position_rebuilds_and_exports(tmp_path: Path):
    with Store.open(tmp_path / "games.sqlite") as store:
        played_on = store.new_game(LAST_PIECE)
        store.sync_moves(played_on, [("e1e2", "Kxe2"), ("e8d8", "Kd8"), ("e2d3", "Kd3")])
        store.finish(played_on, "1-0", "timeout")
        ended = store.new_game(LAST_PIECE)
        store.sync_moves(ended, [("e1e2", "Kxe2")])
        store.finish(ended, "1/2-1/2", "dead_position")
        game = rebuild_game(store.game(played_on))
        assert [m.uci() for m in game.moves] == ["e1e2", "e8d8", "e2d3"]
        assert game.is_dead() and game.dead_position_ends is False
        read = chess.pgn.read_game(io.StringIO(game_pgn(store.game(played_on))))
        assert read.headers["Result"] == "1-0"
        assert [m.uci() for m in read.mainline_moves()] == ["e1e2", "e8d8", "e2d3"]
        # One that ends in the dead position ends there, by the rules.
        assert rebuild_game(store.game(ended)).outcome().termination == "dead_position"


def test_recovering_a_damaged_store_keeps_the_moves_played_past_a_dead_position(tmp_path):
    import sqlite3

    from board_driver.service.store_recovery import Recovery, _read_game

    path = tmp_path / "games.sqlite"
    with Store.open(path) as store:
        gid = store.new_game(LAST_PIECE)
        store.sync_moves(gid, [("e1e2", "Kxe2"), ("e8d8", "Kd8"), ("e2d3", "Kd3")])
    report = Recovery(pgn=tmp_path / "out.pgn", moved_to=path)
    with sqlite3.connect(path) as db:
        text = _read_game(db, gid, report)
    assert report.partial == []  # every ply read
    read = chess.pgn.read_game(io.StringIO(text))
    assert [m.uci() for m in read.mainline_moves()] == ["e1e2", "e8d8", "e2d3"]
