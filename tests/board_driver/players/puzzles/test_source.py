"""Puzzle files as people have them: the Lichess database's CSV (its columns, a header
or not, compressed or not), PGN with a FEN and a main line; the sample shipped with
magboard; filters; and lines that are not puzzles, named by file and line."""

from __future__ import annotations

import doctest
import gzip
from pathlib import Path

import pytest

import board_driver.door.puzzles
import board_driver.players.puzzles.seat
import board_driver.players.puzzles.source
from board_driver.players.puzzles.seat import SAMPLE, filters_from
from board_driver.players.puzzles.source import (
    Filters,
    PuzzleError,
    PuzzleFile,
    parse_csv_line,
)
from board_driver.user_files import UnusableFile
from rules import Position

HEADER = "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags"
BACK_RANK = "k1,6k1/5ppp/8/n7/8/8/5PPP/RR4K1 b - - 0 1,a5c4 b1b8,700,75,90,100,mate mateIn1,,"


@pytest.mark.parametrize(
    "module",
    [
        board_driver.players.puzzles.source,
        board_driver.players.puzzles.seat,
        board_driver.door.puzzles,
    ],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module) -> None:
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0 and failed == 0


def test_the_sample_is_a_dozen_sound_puzzles_whose_lines_say_what_their_themes_say() -> None:
    puzzles = PuzzleFile(SAMPLE)
    found = list(puzzles)
    assert puzzles.skipped == 0 and len(found) >= 12
    assert len({p.id for p in found}) == len(found)
    for puzzle in found:
        position = Position.from_fen(puzzle.fen)
        for uci in puzzle.moves:
            position.push(position.parse_uci(uci))
        mate_in = [t for t in puzzle.themes if t.startswith("mateIn")]
        assert position.is_checkmate() == ("mate" in puzzle.themes), puzzle.id
        if mate_in:
            assert int(mate_in[0][6:]) == len(puzzle.solution_sans()), puzzle.id
        assert puzzle.rating is not None and 600 <= puzzle.rating <= 2000
    pgn = list(PuzzleFile(SAMPLE.with_suffix(".pgn")))
    assert [(p.id, p.player_side, p.solution_sans()) for p in pgn] == [
        ("mbp01", "white", ["Qg7+", "Rxb3", "Qa7#"]),
        ("mbp02", "black", ["Nf4", "Ne2#"]),
        ("mbp03", "white", ["Rxd8#"]),
    ]
    assert not pgn[0].opponent_first and pgn[0].themes == ("endgame", "long", "mate", "mateIn3")


def test_a_line_of_the_database_reads_as_lichess_means_it() -> None:
    puzzle = parse_csv_line(BACK_RANK)
    # The FEN is before the opponent's move, which Moves begins with.
    assert (puzzle.player_side, puzzle.opponent_side) == ("white", "black")
    assert puzzle.sans == ("Nc4", "Rb8#") and puzzle.solution_sans() == ["Rb8#"]
    assert puzzle.to_dict()["moves"] == 1 and "b1b8" not in str(puzzle.to_dict())
    # Only the first three columns are needed.
    assert parse_csv_line("k2,6k1/5ppp/8/n7/8/8/5PPP/RR4K1 b - - 0 1,a5c4 b1b8").rating is None


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("k1,6k1/5ppp/8/n7/8/8/5PPP/RR4K1 b - - 0 1,a5c4 b1b9", "move 2 'b1b9'"),
        ("k1,6k1/5ppp/8/n7/8/8/5PPP/RR4K1 b - - 0 1,a5c4 b2b8", "move 2 'b2b8'"),
        ("k1,6k1/5ppp/8/n7/8/8/5PPP/RR4K1 x - - 0 1,a5c4 b1b8", "bad FEN"),
        ("k1,6k1/5ppp/8/n7/8/8/5PPP/RR4K1 b - - 0 1,a5c4", "no move left for the solver"),
        ("k1,6k1/5ppp/8/n7/8/8/5PPP/RR4K1 b - - 0 1", "expected at least PuzzleId,FEN,Moves"),
        (BACK_RANK.replace(",700,", ",seven hundred,"), "Rating 'seven hundred'"),
    ],
)
def test_a_line_that_is_not_a_puzzle_says_why(line: str, says: str) -> None:
    with pytest.raises(PuzzleError, match=says):
        parse_csv_line(line, "mine.csv:7")
    with pytest.raises(PuzzleError, match=r"mine\.csv:7"):
        parse_csv_line(line, "mine.csv:7")


def test_a_file_skips_what_is_not_a_puzzle_and_names_it(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    bad = BACK_RANK.replace("k1,", "k2,").replace("b1b8", "b1b9")
    path.write_text(f"{HEADER}\n{BACK_RANK}\n{bad}\n\n{BACK_RANK.replace('k1,', 'k3,')}\n")
    puzzles = PuzzleFile(path)
    assert [p.id for p in puzzles] == ["k1", "k3"]
    assert puzzles.skipped == 1 and puzzles.problems[0].startswith("mine.csv:3: move 2")


def test_filters_by_rating_and_themes_and_compressed_files(tmp_path: Path) -> None:
    path = tmp_path / "db.csv.gz"
    with gzip.open(path, "wt") as out:
        out.write(SAMPLE.read_text())
    everything = [p.id for p in PuzzleFile(path)]
    assert everything == [p.id for p in PuzzleFile(SAMPLE)]
    mates = list(PuzzleFile(path, filters_from("1300-1500", "mateIn2")))
    assert mates and all(
        1300 <= (p.rating or 0) <= 1500 and "mateIn2" in p.themes for p in mates
    )
    assert not list(PuzzleFile(path, Filters(rating_min=3000)))
    with pytest.raises(ValueError, match="the low bound is above the high one"):
        filters_from("1800-1200")
    zst = tmp_path / "lichess_db_puzzle.csv.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 16)
    with pytest.raises(UnusableFile, match=r"zstd -d lichess_db_puzzle\.csv\.zst"):
        list(PuzzleFile(zst))


def test_reading_a_file_can_be_cancelled_from_another_thread(tmp_path: Path) -> None:
    """A run's look through a big database ends at the next line once cancelled (the
    daemon stopping, another run begun), even where no line passes the filters."""
    path = tmp_path / "db.csv"
    path.write_text(HEADER + "\n" + (BACK_RANK + "\n") * 50)
    puzzles = PuzzleFile(path)
    lines = iter(puzzles)
    assert next(lines).id == "k1"
    puzzles.cancel()
    assert list(lines) == []
