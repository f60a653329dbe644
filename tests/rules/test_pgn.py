"""PGN: what we write python-chess reads back identically; we read real games and their
main lines, and say where a bad one goes wrong."""

from __future__ import annotations

import io
import random

import chess
import chess.pgn
import pytest

from rules import BLACK, WHITE, Game, Outcome, PgnError, Position, read_pgn
from tests.conftest import SHARED_DATA

SELFPLAY_TEXT = (SHARED_DATA / "selfplay.pgn").read_text()


def their_games(text: str) -> list[chess.pgn.Game]:
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def test_all_selfplay_games_read_to_the_same_final_positions_as_python_chess():
    ours = read_pgn(SELFPLAY_TEXT)
    theirs = their_games(SELFPLAY_TEXT)
    assert len(ours) == len(theirs) == 100
    for mine, their in zip(ours, theirs, strict=True):
        assert mine.headers == dict(their.headers)
        assert [m.uci() for m in mine.game.moves] == [m.uci() for m in their.mainline_moves()]
        assert mine.game.position.fen() == their.end().board().fen()
        assert mine.result == their.headers["Result"]
        if mine.result != "*":  # 95 mates and a stalemate: the rules agree with the result
            assert mine.game.outcome().result() == mine.result
        else:
            assert mine.game.outcome() is None


def test_what_we_write_python_chess_reads_identically():
    for pgn_game in read_pgn(SELFPLAY_TEXT)[:40]:
        text = pgn_game.game.pgn(pgn_game.headers)
        their = chess.pgn.read_game(io.StringIO(text))
        assert not their.errors
        # A game that has ended says how in a Termination tag (the selfplay file has none).
        expected = dict(pgn_game.headers)
        if pgn_game.game.outcome() is not None:
            expected["Termination"] = "normal"
        assert dict(their.headers) == expected
        assert [m.uci() for m in their.mainline_moves()] == [m.uci() for m in pgn_game.game.moves]
        assert their.accept(chess.pgn.StringExporter(headers=False)).split() == (
            text.split("\n\n", 1)[1].split()
        )


def test_random_games_with_underpromotions_round_trip_through_python_chess():
    rng = random.Random(7)
    for _ in range(10):
        game = Game()
        while game.outcome() is None and len(game.moves) < 250:
            game.push(rng.choice(game.position.legal_moves()))
        text = game.pgn()
        their = chess.pgn.read_game(io.StringIO(text))
        assert [m.uci() for m in their.mainline_moves()] == [m.uci() for m in game.moves]
        assert their.headers["Result"] == (game.outcome().result() if game.outcome() else "*")
        assert read_pgn(text)[0].game.position.fen() == game.position.fen()


def test_writer_layout():
    game = Game()
    for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"]:
        game.push_san(san)
    text = game.pgn({"White": 'Ann "the rook"', "Black": "Bob", "Annotator": "me", "Result": "*"})
    assert text == (
        '[Event "?"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "?"]\n'
        '[White "Ann \\"the rook\\""]\n[Black "Bob"]\n[Result "1-0"]\n[Annotator "me"]\n'
        '[Termination "normal"]\n\n'
        "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"
    )
    assert read_pgn(text)[0].headers["White"] == 'Ann "the rook"'


def test_writer_sets_up_a_non_standard_start_and_wraps_at_80_columns():
    start = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 30")
    game = Game(start)
    for _ in range(12):
        for san in ["Kd8", "Kd1", "Ke8", "Ke1"]:
            game.push_san(san) if game.outcome() is None else None
    text = game.pgn()
    head, moves = text.split("\n\n")
    assert '[SetUp "1"]\n[FEN "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 30"]' in head
    lines = moves.splitlines()
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("30... Kd8 31. Kd1 Ke8 32. Ke1")
    assert moves.split()[-1] == "1/2-1/2"  # fivefold repetition ends it
    their = chess.pgn.read_game(io.StringIO(text))
    assert their.end().board().fen() == game.position.fen()


def test_reader_skips_comments_nags_variations_and_reads_several_games():
    text = """
% an escaped line: 1. h4 is not read
[Event "one"]
[Result "*"]

1. e4 {best by test} e5 $1 2. Nf3 (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6 ; a comment
3.Bb5 a6!? 4. Ba4 *

[Event "two"]
[SetUp "1"]
[FEN "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"]

2. exd6 e.p. Kd7 1/2-1/2
[Event "three"]
1. d4 d5 0-1
1. c4
"""
    games = read_pgn(text)
    assert [g.headers.get("Event") for g in games] == ["one", "two", "three", None]
    assert games[0].game.san_moves() == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"]
    assert games[0].result == "*"
    assert games[1].game.position.fen() == "8/3k4/3P4/8/8/8/8/4K3 w - - 1 3"
    assert games[1].result == "1/2-1/2"
    assert games[2].game.san_moves() == ["d4", "d5"] and games[2].result == "0-1"
    assert games[3].game.san_moves() == ["c4"] and games[3].result == "*"
    assert read_pgn("") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1. e4 e5 2. Ke3 *", "PGN game 1, line 1, move 2. Ke3: illegal SAN 'Ke3'"),
        ('[Event "x"]\n\n1. e4 *\n\n1. d4 Qd6 2. Qd3 Qxd4 3. Qxh7 *', "PGN game 2, line 5"),
        ("1. Nc3 e6 2. Nf3 e5 3. Ng5 d6 4. Ne4 *", "move 4. Ne4: ambiguous SAN 'Ne4'"),
        ('[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n1. e4 *', "PGN game 1: bad FEN header: FEN"),
        ("1. e4 (1. d4 d5 *", "PGN game 1: a variation '(' is never closed"),
        ("1. e4 ) e5 *", "PGN game 1, line 1: ')' closes no variation"),
        ("1. e4 } e5 *", "PGN game 1, line 1: cannot read '} e5 *'"),
        (
            "1. f3 e5 2. g4 Qh4 3. a3 *",
            "move 3. a3: a move after the end of the game (checkmate, 0-1)",
        ),
    ],
)
def test_reader_errors_say_which_game_line_and_move(text, message):
    with pytest.raises(PgnError) as info:
        read_pgn(text)
    assert message in str(info.value)


def test_reader_wants_text():
    with pytest.raises(PgnError, match="PGN must be text, not bytes"):
        read_pgn(b"1. e4 *")


def test_writer_refuses_a_result_that_is_not_a_pgn_result():
    with pytest.raises(PgnError, match="PGN Result header 'draw' must be one of 1-0, 0-1"):
        Game().pgn({"Result": "draw"})
    # A game that has ended writes its own result, whatever the headers say.
    game = Game()
    game.agree_draw()
    assert '[Result "1/2-1/2"]' in game.pgn({"Result": "1-0"})


# ---------------------------------------------------------------- endings and Termination

LAST_PIECE = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/4r3/4K3 w - - 0 1"  # Kxe2 leaves a dead position


def _pgn_of(fen: str, sans: list[str], headers: dict[str, str] | None = None) -> str:
    game = Game(Position.from_fen(fen))
    for san in sans:
        game.push_san(san)
    return game.pgn(headers)


def test_a_dead_position_is_written_with_its_termination_and_why():
    text = _pgn_of(LAST_PIECE, ["Kxe2"])
    assert '[Result "1/2-1/2"]' in text and '[Termination "normal"]' in text
    their = chess.pgn.read_game(io.StringIO(text))
    assert not their.errors
    assert " ".join(their.end().comment.split()) == (
        "Dead position: neither side can checkmate by any series of legal moves (FIDE 5.2.2)."
    )
    assert " ".join(text.split()).endswith("(FIDE 5.2.2).} 1/2-1/2")
    assert all(len(line) <= 80 for line in text.splitlines())


def test_endings_from_outside_the_board_are_written_with_the_standard_termination():
    game = Game()
    game.push_san("e4")
    game.end("timeout", WHITE)
    assert '[Termination "time forfeit"]' in game.pgn()
    game = Game()
    game.end("abandoned", BLACK)
    assert '[Termination "abandoned"]' in game.pgn() and '[Result "0-1"]' in game.pgn()
    game = Game()
    game.end("aborted", None)
    assert '[Termination "unterminated"]' in game.pgn() and game.pgn().endswith("\n\n*\n")
    # A flag fall that is a draw says why.
    bare = Game(Position.from_fen("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"))
    bare.flag_fall(WHITE)
    text = bare.pgn()
    assert '[Result "1/2-1/2"]' in text and '[Termination "time forfeit"]' in text
    assert "{Time ran out, but the other side cannot checkmate" in text
    # A Termination given with the headers (a server's own words) is kept.
    assert '[Termination "Time forfeit"]' in game.pgn({"Termination": "Time forfeit"})
    assert "Termination" not in Game().pgn()  # not over: nothing to say


def test_a_server_decided_game_in_a_dead_position_notes_it():
    game = Game(Position.from_fen(LAST_PIECE), dead_position_ends=False)
    game.push_san("Kxe2")
    game.end("timeout", BLACK)
    text = game.pgn()
    assert '[Result "0-1"]' in text and '[Termination "time forfeit"]' in text
    assert "{The position is dead: neither side can checkmate" in text
    assert "the result is not the board's to decide.} 0-1" in " ".join(text.split())


def test_a_game_played_on_past_a_dead_position_is_read_and_its_result_stands():
    text = (
        f'[Result "1-0"]\n[SetUp "1"]\n[FEN "{LAST_PIECE}"]\n[Termination "Time forfeit"]\n\n'
        "1. Kxe2 Kd8 2. Kd3 Kc7 3. Ke3 Kd6 1-0\n"
    )
    game = read_pgn(text)[0].game
    assert [m.uci() for m in game.moves][-1] == "e8d6" or len(game.moves) == 6
    assert game.is_dead()
    assert game.outcome() == Outcome("timeout", WHITE)  # the record's result stands
    assert game.dead_position_ends is False  # ...and the dead position is a note
    # Ending in the dead position with a draw, the game is the rules' dead position.
    drawn = read_pgn(f'[SetUp "1"]\n[FEN "{LAST_PIECE}"]\n\n1. Kxe2 1/2-1/2\n')[0].game
    assert drawn.outcome() == Outcome("dead_position", None)


@pytest.mark.parametrize(
    ("tag", "result", "expected"),
    [
        (None, "1-0", Outcome("resignation", WHITE)),
        ("Normal", "0-1", Outcome("resignation", BLACK)),
        ("Time forfeit", "0-1", Outcome("timeout", BLACK)),
        ("time forfeit", "1/2-1/2", Outcome("timeout", None)),
        ("Abandoned", "1-0", Outcome("abandoned", WHITE)),
        (None, "1/2-1/2", Outcome("agreement", None)),
        ("Rules infraction", "1-0", Outcome("rules_infraction", WHITE)),  # FIDE 7.5.5
        ("Adjudication", "1-0", None),  # no name of ours: the result is only a token
        ("Time forfeit", "*", None),
    ],
)
def test_a_result_without_mate_takes_its_kind_from_the_termination_tag(tag, result, expected):
    header = f'[Termination "{tag}"]\n' if tag else ""
    pgn_game = read_pgn(f'[Result "{result}"]\n{header}\n1. e4 e5 2. Nf3 {result}\n')[0]
    assert pgn_game.result == result
    assert pgn_game.game.outcome() == expected


def test_a_drawn_record_where_a_claim_is_possible_is_read_as_the_claim():
    shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n"
    assert read_pgn(shuffle)[0].game.outcome() == Outcome("threefold_repetition", None)


def test_every_ending_survives_writing_and_reading_back():
    games = []
    mate = Game()
    for san in ["f3", "e5", "g4", "Qh4"]:
        mate.push_san(san)
    games.append(mate)
    dead = Game(Position.from_fen(LAST_PIECE))
    dead.push_san("Kxe2")
    games.append(dead)
    bare = Game(Position.from_fen("k7/8/8/8/8/8/1r6/1K6 w - - 0 1"))
    bare.push_san("Kxb2")
    games.append(bare)
    for record in (
        lambda g: g.resign(BLACK),
        lambda g: g.agree_draw(),
        lambda g: g.end("timeout", WHITE),
        lambda g: g.end("abandoned", BLACK),
        lambda g: g.flag_fall(BLACK),
    ):
        game = Game()
        game.push_san("d4")
        record(game)
        games.append(game)
    flag_draw = Game(Position.from_fen("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"))
    flag_draw.flag_fall(WHITE)
    games.append(flag_draw)
    for game in games:
        back = read_pgn(game.pgn())[0].game
        assert back.outcome() == game.outcome(), game.pgn()
