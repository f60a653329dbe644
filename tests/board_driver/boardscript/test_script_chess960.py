"""Board scripts of Chess960 games (issue 35): ``option variant chess960`` with a ``fen``
in X-FEN or Shredder-FEN, read strictly, and ``magboard replay`` printing the game in
SAN, X-FEN and PGN with its ``Variant`` tags; python-chess is the judge of the moves."""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess
import chess.pgn
import pytest

from board_driver.boardscript.script import ScriptError, format_script, parse_script
from board_driver.commands import main

# Chess960 position 3 (BQNNRKRB): king f1, rooks e1 and g1; O-O swaps the king and the g1
# rook. X-FEN says KQkq, Shredder-FEN GEge.
XFEN = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"
SHREDDER = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1"
# Knights out, then White castles short by swapping king f1 and rook g1, as FIDE
# recommends (the king lifted first and held), and Black the same way.
GAME = """
lift d1
place e3
lift d8
place e6
lift c1
place d3
lift c8
place d6
lift f1       # the king, held
lift g1
place f1      # the rook on the king's square
place g1      # the king on the rook's: O-O
lift f8
lift g8
place g8
place f8      # the pieces may land in any order: O-O
"""
SANS = ["Ne3", "Ne6", "Nd3", "Nd6", "O-O", "O-O"]


def _judge(start: str) -> chess.Board:
    board = chess.Board(start, chess960=True)
    for san in SANS:
        board.push_san(san)
    return board


@pytest.mark.parametrize("fen", [XFEN, SHREDDER], ids=["x-fen", "shredder-fen"])
@pytest.mark.parametrize("variant_first", [True, False], ids=["variant-first", "fen-first"])
def test_a_chess960_script_reads_either_fen_with_the_variant_before_or_after(fen, variant_first):
    header = ["option variant chess960", f"fen {fen}"]
    if not variant_first:
        header.reverse()
    script = parse_script("\n".join(header) + GAME, "960")
    assert (script.variant, script.fen) == ("chess960", fen)
    assert script.position().chess960_number() == 3
    assert parse_script(format_script(script)) == script  # written back as read


def test_a_fen_that_reads_only_as_chess960_needs_the_variant_line():
    with pytest.raises(ScriptError, match=r"960:1: bad FEN: .*add 'option variant chess960'"):
        parse_script(f"fen {SHREDDER}\nlift d1\n", "960")
    with pytest.raises(ScriptError, match=r"960:1: bad FEN: .*add 'option variant chess960'"):
        parse_script(f"fen {SHREDDER}\n", "960")  # a header alone is checked at its end


def test_a_bad_variant_line_names_the_line_and_the_values():
    with pytest.raises(ScriptError, match=r"s:2: option variant takes standard\|chess960"):
        parse_script("# x\noption variant crazyhouse\n", "s")
    with pytest.raises(ScriptError, match=r"s:2: 'option variant' given twice \(first on line 1\)"):
        parse_script("option variant chess960\noption variant chess960\n", "s")


def test_a_fen_that_is_no_chess960_position_is_refused_with_the_variant():
    # Two rooks holding rights on one side of the king: no Chess960 position has that.
    with pytest.raises(ScriptError, match=r"s:2: bad FEN"):
        parse_script("option variant chess960\nfen 4k3/8/8/8/8/8/8/RR2K3 w AB - 0 1\n", "s")


def test_without_a_fen_a_chess960_script_starts_from_the_standard_array():
    script = parse_script("option variant chess960\nlift e2\nplace e4\n")
    assert script.position().variant == "chess960"
    assert script.position().chess960_number() == 518


def test_replay_prints_the_moves_in_san_and_the_position_in_x_fen(capsys, tmp_path: Path):
    path = tmp_path / "960.script"
    path.write_text(f"option variant chess960\nfen {SHREDDER}\n{GAME}")
    assert main(["replay", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    judge = _judge(XFEN)
    assert data["moves"] == SANS
    assert data["fen"] == judge.fen()  # python-chess writes X-FEN for a Chess960 board
    assert data["fen"] == "bq2rrkb/pppppppp/3nn3/8/8/3NN3/PPPPPPPP/BQ2RRKB w - - 6 4"
    assert data["in_sync"] is True
    castlings = [e for e in data["events"] if e["type"] == "move" and e["san"] == "O-O"]
    assert [e["uci"] for e in castlings] == ["f1g1", "f8g8"]  # the king takes its rook


def test_replay_prints_the_pgn_with_its_variant_setup_and_fen(capsys, tmp_path: Path):
    path = tmp_path / "960.script"
    path.write_text(f"fen {XFEN}\noption variant chess960\n{GAME}")
    assert main(["replay", "--pgn", str(path)]) == 0
    text = capsys.readouterr().out
    assert '[Variant "Chess960"]' in text and '[SetUp "1"]' in text
    assert f'[FEN "{XFEN}"]' in text
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and game.board().chess960
    assert [m.uci() for m in game.mainline_moves()] == [
        m.uci() for m in _judge(XFEN).move_stack
    ]
    assert game.end().board().fen() == _judge(XFEN).fen()


def test_a_standard_script_writes_no_variant_tags(capsys, tmp_path: Path):
    path = tmp_path / "plain.script"
    path.write_text("lift e2\nplace e4\n")
    assert main(["replay", "--pgn", str(path)]) == 0
    assert "Variant" not in capsys.readouterr().out
