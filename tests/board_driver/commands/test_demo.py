"""``magboard demo``: a famous game played through the rules core, printed."""

from __future__ import annotations

import io

import chess.pgn

from board_driver.commands import main


def test_demo_plays_the_opera_game_to_mate(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "17.   Rd8#    d1d8" in out
    assert "Outcome: checkmate, 1-0 (White wins)" in out
    assert ". n . R k b . r" in out  # rank 8 of the final position
    pgn = out[out.index("[Event") :]
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game.headers["White"] == "Paul Morphy"
    board = game.end().board()
    assert board.is_checkmate() and game.headers["Result"] == "1-0"
