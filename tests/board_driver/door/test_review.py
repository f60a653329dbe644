"""A game's review without an engine: Lichess's judgement of a move from the scores before
and after it, the review kept in the store (and dropped past a take-back), and its PGN
``[%eval]`` comments as python-chess reads them."""

from __future__ import annotations

import io
import math

import chess
import chess.pgn
import pytest

import rules
from board_driver.door.review import ReviewedPly, Score, chances, judge, review_moves
from board_driver.service.store import Store, game_pgn


def lichess_chances(cp: float) -> float:
    """Lichess's own formula, written out again as its docs give it (lila, WinPercent)."""
    return 2 / (1 + math.exp(-0.00368208 * cp)) - 1


@pytest.mark.parametrize("cp", [-2000, -700, -120, -1, 0, 35, 300, 999, 1500])
def test_winning_chances_are_lichess_s(cp):
    assert chances(cp) == pytest.approx(lichess_chances(cp))
    ceiled = max(-1000, min(1000, cp))
    assert Score(cp=cp).win_percent() == pytest.approx(50 + 50 * lichess_chances(ceiled))


def drop_to(cp_before: int, drop: float) -> int:
    """The score after a White move that lowers White's chances by ``drop`` exactly."""
    target = lichess_chances(cp_before) - drop
    return round(math.log((1 + target) / (1 - target)) / 0.00368208)


@pytest.mark.parametrize(
    ("drop", "mark"),
    [(0.08, None), (0.11, "inaccuracy"), (0.19, "inaccuracy"), (0.21, "mistake"),
     (0.29, "mistake"), (0.31, "blunder"), (0.6, "blunder")],
)  # fmt: skip
def test_a_move_is_marked_by_the_winning_chances_it_lost(drop, mark):
    for before in (-150, 0, 80):
        after = drop_to(before, drop)
        assert judge(Score(cp=before), Score(cp=after), mover_white=True) == mark
        # The same for Black, the scores turned round (White's point of view).
        assert judge(Score(cp=-before), Score(cp=-after), mover_white=False) == mark
    # Gaining is never marked.
    assert judge(Score(cp=-300), Score(cp=200), mover_white=True) is None


def test_mates_as_lichess_judges_them():
    # Letting the opponent mate: a blunder, unless the position was lost already.
    assert judge(Score(cp=50), Score(mate=-3), mover_white=True) == "blunder"
    assert judge(Score(cp=-800), Score(mate=-3), mover_white=True) == "mistake"
    assert judge(Score(cp=-1200), Score(mate=-3), mover_white=True) == "inaccuracy"
    assert judge(Score(cp=-50), Score(mate=3), mover_white=False) == "blunder"  # Black's
    # Letting a forced mate go: a blunder, unless the advantage kept is big.
    assert judge(Score(mate=2), Score(cp=300), mover_white=True) == "blunder"
    assert judge(Score(mate=2), Score(cp=800), mover_white=True) == "mistake"
    assert judge(Score(mate=2), Score(cp=1500), mover_white=True) == "inaccuracy"
    assert judge(Score(mate=-2), Score(mate=1), mover_white=False) == "blunder"
    # A longer mate, a mate escaped, the mating move itself: nothing to say.
    assert judge(Score(mate=2), Score(mate=4), mover_white=True) is None
    assert judge(Score(mate=-2), Score(cp=-400), mover_white=True) is None
    assert judge(Score(mate=1), Score(mate=0), mover_white=True) is None


def test_uci_scores_turn_to_white_s_point_of_view():
    assert Score.from_uci("cp 35", white_to_move=True) == Score(cp=35)
    assert Score.from_uci("cp 35", white_to_move=False) == Score(cp=-35)
    assert Score.from_uci("mate 2", white_to_move=False) == Score(mate=-2)
    with pytest.raises(ValueError, match="not a UCI score"):
        Score.from_uci("wdl 500 400 100", white_to_move=True)
    with pytest.raises(ValueError, match="one of the two"):
        Score(cp=3, mate=1)
    # Mate 0: the side to move is mated (Black here, White's chances +1).
    assert Score(mate=0).winning_chances(white_to_move=False) == 1.0


FOOLS_MATE = [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4"), ("d8h4", "Qh4#")]
REVIEW = [
    ReviewedPly(0, None, Score(cp=30), "e2e4", 12),
    ReviewedPly(1, "f2f3", Score(cp=-60), "e7e5", 12),
    ReviewedPly(2, "e7e5", Score(cp=-40), "e2e4", 12),
    ReviewedPly(3, "g2g4", Score(mate=-1), "d8h4", 12),
    ReviewedPly(4, "d8h4", Score(mate=0), None, 0),
]


def stored_fools_mate(store: Store) -> int:
    game_id = store.new_game()
    store.sync_moves(game_id, FOOLS_MATE)
    store.set_review(game_id, REVIEW)
    store.finish(game_id, "0-1", "checkmate")
    return game_id


def test_the_review_in_the_pgn_is_read_back_by_python_chess():
    store = Store.open(":memory:")
    game_id = stored_fools_mate(store)
    text = game_pgn(store.game(game_id), review=store.review(game_id))
    words = " ".join(text.split())
    assert "2. g4 $4 {[%eval #-1,12] Blunder: e4 was best.} 2... Qh4# {[%eval #0]} 0-1" in words
    game = chess.pgn.read_game(io.StringIO(text))
    nodes = list(game.mainline())
    assert [n.eval().white() for n in nodes] == [
        chess.engine.Cp(-60), chess.engine.Cp(-40), chess.engine.Mate(-1), chess.engine.Mate(-0),
    ]  # fmt: skip
    assert nodes[-1].eval().white().mate() == 0 and nodes[-1].board().is_checkmate()
    assert [n.nags for n in nodes] == [{chess.pgn.NAG_DUBIOUS_MOVE}, set(), {4}, set()]
    assert game.end().board().fen() == rules.Game.from_record(
        rules.Position(), [u for u, _ in FOOLS_MATE]
    ).position.fen()


def test_a_take_back_drops_the_review_of_the_plies_it_changed():
    store = Store.open(":memory:")
    game_id = stored_fools_mate(store)
    store.sync_moves(game_id, FOOLS_MATE[:2])  # two plies taken back
    assert [r.ply for r in store.review(game_id)] == [0, 1, 2]
    store.sync_moves(game_id, [*FOOLS_MATE[:2], ("d2d4", "d4")])
    assert [r.ply for r in store.review(game_id)] == [0, 1, 2]
    store.sync_moves(game_id, [FOOLS_MATE[0], ("e7e6", "e6")])  # an amended ply 2
    assert [r.ply for r in store.review(game_id)] == [0, 1]
    # What is left still fits the game: the start and the first move.
    start, moves = review_moves(
        rules.STARTING_FEN, ["f2f3", "e7e6"], store.review(game_id)
    )
    assert start == Score(cp=30) and moves[0].mark == "inaccuracy" and moves[1].score is None


@pytest.mark.parametrize(
    "spoil",
    [
        "UPDATE review SET cp = 5 WHERE ply = 3",  # two scores
        "UPDATE review SET best = 'zz99' WHERE ply = 3",  # an engine's move that is none
        "UPDATE review SET cp = 999999999999999999, mate = NULL WHERE ply = 3",
        "UPDATE review SET depth = x'00ff' WHERE ply = 3",
        "UPDATE review SET uci = CAST(x'c328ff61' AS TEXT) WHERE ply = 3",
    ],
)
def test_a_review_row_out_of_shape_is_left_out_never_a_damaged_store(tmp_path, spoil):
    """Issue 32, item 3: a review is worked out again; a row of it out of shape (a buggy
    engine's, another version's) made the whole store "damaged": `magboard pgn` refused
    it and the next start exited 65. Now that row is left out, and the rest is read."""
    path = tmp_path / "games.sqlite"
    with Store.open(path) as store:
        stored_fools_mate(store)
        kept = [r.ply for r in store.review(1)]
    import sqlite3

    db = sqlite3.connect(path)
    db.execute(spoil)
    db.commit()
    db.close()
    with Store.open(path) as store:
        assert [r.ply for r in store.review(1)] == [p for p in kept if p != 3]
        assert store.game(1).ucis  # the game itself, whole
