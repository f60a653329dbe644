"""A game played into a dead position ends there, through ``magboard replay`` as a user
runs it: the JSON says so, and the PGN says why."""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess.pgn

from board_driver.commands import main

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
WALL_CLOSED = SCRIPTS / "c11_dead_position_wall_closed.script"


def test_the_game_ends_on_the_move_that_makes_the_position_dead(capsys):
    assert main(["replay", str(WALL_CLOSED), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["moves"] == ["Kf2", "Kf8", "g4"]
    assert (data["result"], data["termination"]) == ("1/2-1/2", "dead_position")
    types = [event["type"] for event in data["events"]]
    assert types == ["move", "move", "move", "game_over"]  # not a move earlier
    assert data["events"][-1]["t"] == data["events"][-2]["t"]  # at once, with g4


def test_the_pgn_says_why_and_python_chess_reads_it(capsys):
    assert main(["replay", str(WALL_CLOSED), "--pgn"]) == 0
    text = capsys.readouterr().out
    game = chess.pgn.read_game(io.StringIO(text))
    assert not game.errors
    assert game.headers["Result"] == "1/2-1/2"
    assert game.headers["Termination"] == "normal"
    assert "Dead position: neither side can checkmate" in game.end().comment
    assert game.end().board().fen() == "5k2/8/8/p1p1p1p1/P1P1P1P1/8/5K2/8 b - - 0 2"
