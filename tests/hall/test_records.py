"""The hall's reading of what boards publish, without a broker: every record is untrusted
(each hostile record of issue 23, and fuzzed ones, are refused and named; nothing forged
reaches games.pgn; the other boards go on), and the newest revision of a game wins
whatever order the records come in.

python-chess is the judge of what the hall serves: every games.pgn the hall writes must
read without errors, with legal moves only.
"""

from __future__ import annotations

import functools
import json
import logging
import random
from dataclasses import replace

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
from board_driver.connectors.broadcast.record import MAX_RECORD_BYTES, GameRecord
from board_driver.hall.games import MAX_GAMES_PER_BOARD, HallGames
from board_driver.hall.legal import LegalGames
from tests.hall.hall_process import read_games
from tests.hall.hostile import HOSTILE, mutated, record_of
from tests.hall.scripts import selfplay_games

PREFIX = "hall"


@functools.cache
def some_games() -> list[list[chess.Move]]:
    return [list(g.mainline_moves()) for g in selfplay_games()[:40]]


def topic(board: int, game: int) -> str:
    return f"{PREFIX}/board/{board}/game/{game}"


def honest_hall() -> HallGames:
    """A hall with two honest boards' games."""
    hall = HallGames(PREFIX, round="1")
    assert hall.take(topic(1, 4), record_of(1, 4, ["e4", "e5", "Nf3"]).to_json())
    assert hall.take(topic(2, 7), record_of(2, 7, ["d4", "d5"]).to_json())
    return hall


def served(hall: HallGames) -> dict[str, list[str]]:
    """Board -> moves (SAN, python-chess's) of every game in games.pgn."""
    out = {}
    for game in read_games(hall.games_pgn()):
        board = game.board()
        sans = []
        for move in game.mainline_moves():
            assert board.is_legal(move)
            sans.append(board.san(move))
            board.push(move)
        out[game.headers["Board"]] = sans
    return out


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_record_is_dropped_named_once_and_the_others_go_on(name, caplog):
    payload, why = HOSTILE[name]
    hall = honest_hall()
    before = hall.games_pgn()
    with caplog.at_level(logging.WARNING, logger="magboard"):
        hall.take(topic(3, 1), payload)
        hall.take(topic(3, 1), payload)  # retained: given again at every reconnection
        hall.take(topic(3, 2), payload)
    assert hall.games_pgn() == before
    assert set(served(hall)) == {"1", "2"}
    assert why in hall.bad_data()["3"], hall.bad_data()
    assert hall.state()["bad"] == {"3": hall.bad_data()["3"]}
    warnings = [r.getMessage() for r in caplog.records if "board 3 shows bad data" in
                r.getMessage()]
    assert len(warnings) == 1, warnings
    assert why in warnings[0] and "\n" not in warnings[0]
    # The board's next good record is served, and its mark goes once its games are good.
    good = record_of(3, 1, ["c4"])
    assert hall.take(topic(3, 1), good.to_json())
    hall.take(topic(3, 2), "")  # the broken game removed from the broker
    assert set(served(hall)) == {"1", "2", "3"} and "3" not in hall.bad_data()


def test_a_record_is_refused_by_its_size_before_it_is_parsed():
    hall = honest_hall()
    before = hall.games_pgn()
    assert hall.take(topic(3, 1), b"{" * (MAX_RECORD_BYTES + 1))  # the board's mark: shown
    assert hall.last_change.game is None and hall.games_pgn() == before
    assert "more than a record's" in hall.bad_data()["3"]


def test_a_forged_game_never_reaches_games_pgn_however_it_is_sent():
    hall = honest_hall()
    for payload, _ in HOSTILE.values():
        hall.take(topic(3, 1), payload)
    text = hall.games_pgn()
    assert "Forged" not in text and "Mallory" not in text
    assert [g.headers["Board"] for g in read_games(text)] == ["1", "2"]


# ---------------------------------------------------------------------------- fuzzing

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=12,
)
FIELDS = ["board", "game", "revision", "headers", "moves", "ucis", "start_fen", "fen",
          "result", "termination", "started", "clocks"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), field=st.sampled_from(FIELDS), value=json_values,
       board=st.integers(3, 4))
def test_fuzzed_records_never_break_the_hall_nor_reach_games_pgn_unless_legal(
    seed, field, value, board
):
    """Records of a real game, damaged byte by byte or a field replaced by any JSON value:
    the hall never fails, and whatever it serves python-chess reads as legal chess."""
    rng = random.Random(seed)
    games = some_games()
    sans = []
    position = chess.Board()
    for move in games[seed % len(games)][: rng.randint(0, 30)]:
        sans.append(position.san(move))
        position.push(move)
    hall = honest_hall()
    good = record_of(board, 1, sans, revision=rng.randint(1, 10))
    data = json.loads(good.to_json())
    data[field] = value
    for payload in (mutated(good.to_json(), rng), json.dumps(data), good.to_json()):
        hall.take(topic(board, 1), payload)
        shown = served(hall)
        assert set(shown) <= {"1", "2", "3", "4"}
    assert shown[str(board)] == sans  # the good record, last, is served as it is


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_any_text_in_a_header_value_stays_in_its_tag(white, black):
    record = record_of(1, 1, ["e4"])
    record = replace(record, headers={"White": white, "Black": black})
    text = record.pgn()
    (game,) = read_games(text)
    clean = {name: "".join(" " if ord(c) < 32 or c in "\x7f\x85\u2028\u2029" else c
                           for c in value) for name, value in (("White", white), ("Black", black))}
    tags = text.split("\n\n")[0].split("\n")
    assert len(tags) == 8 and all(t.startswith("[") and t.endswith('"]') for t in tags)
    assert game.headers["Board"] == "1"
    (ours,) = rules.read_pgn(text)
    for name, value in clean.items():
        value = value or "?"
        # python-chess keeps the escapes as they are; our reader takes them away.
        assert game.headers[name] == value.replace("\\", "\\\\").replace('"', '\\"')
        assert ours.headers[name] == value


# ---------------------------------------------------------------------------- order

@settings(max_examples=100, deadline=None)
@given(order=st.permutations(range(8)), repeats=st.lists(st.integers(0, 7), max_size=6))
def test_the_newest_revision_wins_whatever_order_the_broker_gives(order, repeats):
    """A game's records at revisions 1..8 (a move each, a take-back at 6, the result at 8),
    handed over in any order, some twice: the hall shows the newest it has seen, never an
    older one after it, and ends on the last."""
    line = ["e4", "e5", "Nf3", "Nc6", "Bc4"]
    records = [record_of(5, 2, line[:n], revision=n) for n in range(1, 6)]
    records.append(record_of(5, 2, line[:4], revision=6))  # 3. Bc4 taken back
    records.append(record_of(5, 2, [*line[:4], "Bb5"], revision=7))
    records.append(replace(record_of(5, 2, [*line[:4], "Bb5"], revision=8), result="1-0",
                           termination="resignation"))
    hall = HallGames(PREFIX, round="1")
    newest = 0
    for index in [*order, *repeats]:
        hall.take(topic(5, 2), records[index].to_json())
        newest = max(newest, index + 1)
        (kept,) = hall.games()
        assert kept.revision == newest
        assert kept.moves == records[newest - 1].moves
    assert hall.games()[0].result == "1-0" or newest < 8


def test_a_board_with_no_revision_is_read_latest_first():
    """An older magboard gives no revision: its records are taken as they come."""
    hall = HallGames(PREFIX, round="1")
    for sans in (["e4", "e5"], ["e4"]):
        data = json.loads(record_of(6, 1, sans).to_json())
        del data["revision"]
        assert hall.take(topic(6, 1), json.dumps(data))
    assert hall.games()[0].moves == ("e4",)


def test_a_new_game_is_the_newest_an_abandoned_empty_one_is_not_shown():
    hall = HallGames(PREFIX, round="1")
    hall.take(topic(1, 3), record_of(1, 3, [], revision=10).to_json())
    hall.take(topic(1, 4), record_of(1, 4, ["e4"], revision=11).to_json())
    # The broker restored from an old save gives game 3's record again (the board had
    # removed it when it started game 4): not shown.
    hall.take(topic(1, 3), record_of(1, 3, [], revision=10).to_json())
    assert [(r.game, r.plies) for r in hall.games()] == [(4, 1)]
    # A game with moves stays a game of the round, whatever the board plays next.
    hall.take(topic(1, 5), record_of(1, 5, ["d4"], revision=12).to_json())
    assert [r.game for r in hall.games()] == [4, 5]


def test_a_board_keeps_only_its_newest_games():
    hall = HallGames(PREFIX, round="1")
    for game in range(1, MAX_GAMES_PER_BOARD + 11):
        hall.take(topic(9, game), record_of(9, game, ["e4"], revision=game).to_json())
    games = [r.game for r in hall.games()]
    assert len(games) == MAX_GAMES_PER_BOARD and games[0] == 11


@settings(max_examples=100, deadline=None)
@given(steps=st.lists(st.integers(-3, 4), min_size=1, max_size=25), seed=st.integers(0, 39))
def test_the_moves_checked_step_by_step_are_judged_as_from_the_start(steps, seed):
    """Records that grow and shrink (take-backs) checked incrementally give what a check
    from the start gives: the same record, or the same refusal."""
    moves = some_games()[seed % len(some_games())]
    legal = LegalGames()
    length = 0
    for step in steps:
        length = max(0, min(len(moves), length + step))
        board = chess.Board()
        sans = []
        for move in moves[:length]:
            sans.append(board.san(move))
            board.push(move)
        record = record_of(1, 1, sans)
        if step == 4 and sans:  # now and then a record with a wrong last move
            record = replace(record, ucis=(*record.ucis[:-1], "a1a1"))
        try:
            stepwise = legal.check("game", record)
        except ValueError as why:
            stepwise = str(why)
        try:
            fresh = LegalGames().check("game", record)
        except ValueError as why:
            fresh = str(why)
        assert stepwise == fresh


def _chess960_record(board: int, game: int) -> tuple:
    """A Chess960 game (position 3: the king on f1 castles short by swapping with its g1
    rook) as its board publishes it, and python-chess's judge of it."""
    start = rules.Position.from_chess960(3)
    played = rules.Game(start)
    for san in ["Ne3", "Ne6", "Nd3", "Nd6", "O-O", "O-O"]:
        played.push_san(san)
    record = GameRecord(
        board=board,
        game=game,
        revision=1,
        moves=tuple(played.san_moves()),
        ucis=tuple(m.uci() for m in played.moves),
        start_fen=start.fen(),
        fen=played.position.fen(),
        variant="chess960",
    )
    judge = chess.Board(start.fen(), chess960=True)
    for san in played.san_moves():
        judge.push_san(san)
    return record, judge


def test_a_chess960_game_reaches_games_pgn_with_its_variant_and_reads_in_python_chess():
    record, judge = _chess960_record(3, 1)
    assert record.ucis[-2:] == ("f1g1", "f8g8")  # the king takes its rook
    assert GameRecord.from_json(record.to_json()) == record
    hall = honest_hall()
    assert hall.take(topic(3, 1), record.to_json())
    text = hall.games_pgn()
    games = read_games(text)
    chess960 = [g for g in games if g.headers.get("Variant") == "Chess960"]
    assert len(chess960) == 1 and chess960[0].headers["FEN"] == record.start_fen
    assert chess960[0].headers["SetUp"] == "1"
    assert chess960[0].end().board().fen() == judge.fen()
    assert all("Variant" not in g.headers for g in games if g not in chess960)


def test_a_chess960_game_is_checked_by_its_rules_and_a_standard_record_of_it_refused():
    record, _judge = _chess960_record(3, 1)
    assert LegalGames().check((3, 1), record) == record
    # The same moves read by standard chess: the FEN's rights name no corner rook.
    with pytest.raises(ValueError, match="start_fen"):
        LegalGames().check((3, 1), replace(record, variant="standard"))
    with pytest.raises(ValueError, match=r"variant: \"crazyhouse\" is not one of"):
        GameRecord.from_json(record.to_json().replace('"chess960"', '"crazyhouse"'))
    # A record without the field (an older board's) is standard chess, as it always was.
    assert "variant" not in record_of(1, 4, ["e4"]).to_json()
    assert GameRecord.from_json(record_of(1, 4, ["e4"]).to_json()).variant == "standard"
