"""The review of a finished game (issue 28), with the real Stockfish through the door.

A game's blunders are found by the engine and marked as Lichess marks them; the review is
kept with the game in the store and goes into its PGN as ``[%eval ...]`` comments that
python-chess reads back; and no review runs while a game is being played, unless a local
game with hints on (and never an online one), and one running stops when a game starts.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

import rules
from board_driver.connectors.web.review import review_view
from board_driver.door import ActionRefused
from board_driver.door.review import review_moves
from board_driver.service.store import Store, game_pgn
from tests.board_driver.daemon_process import ROOT
from tests.board_driver.players.test_engine_seat import (
    make_daemon,
    needs_stockfish,
    run_daemon,
    until,
)

pytestmark = needs_stockfish

#: 1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6?? 4. Qxf7#: the blunder lets a mate in one.
SCHOLARS_MATE = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]
#: 1. e4 e5 2. Nf3 Qg5?? 3. Nxg5: the blunder gives the queen away (no mate in sight).
QUEEN_HUNG = ["e2e4", "e7e5", "g1f3", "d8g5", "f3g5"]
QUICK = "[engine]\nreview_depth = 10\nreview_nodes = 0\n"


def review_state(daemon) -> dict:
    return dict(daemon.door.snapshot().player_states["engine"]["review"])


def reviewed_moves(store_path: Path, game_id: int):
    with Store.open(store_path) as store:
        stored = store.game(game_id)
        return review_moves(stored.start_fen, stored.ucis, store.review(game_id))[1]


def test_a_mate_in_one_allowed_is_marked_a_blunder_and_the_better_move_stops_it(tmp_path):
    daemon = make_daemon(tmp_path, QUICK)

    async def scenario() -> None:
        daemon.door.new_game(moves=SCHOLARS_MATE)  # ends in mate: reviewed on its own
        game_id = daemon.door.snapshot().game_id
        # A moment later; meanwhile a page says it comes (issue 34), rather than offering it.
        await until(lambda: review_state(daemon)["status"] != "idle")
        assert review_state(daemon)["status"] == "scheduled"
        assert review_state(daemon)["game"] == game_id
        await until(
            lambda: (
                review_state(daemon)
                == {"game": game_id, "status": "done", "done": 8, "total": 8, "reason": None}
            )
        )

    run_daemon(daemon, scenario)
    moves = reviewed_moves(tmp_path / "games.sqlite", 2)
    marks = {m.san: m.mark for m in moves if m.mark in ("blunder", "mistake")}
    assert marks == {"Nf6": "blunder"}, [(m.san, m.score, m.mark) for m in moves]
    blunder = next(m for m in moves if m.san == "Nf6")
    assert blunder.score.mate == 1  # White mates in one after it
    # The engine's better move leaves White no mate in one (checked by our own rules).
    position = rules.Position.from_fen(moves[4].fen)  # after 3. Qh5
    position.push(position.parse_uci(blunder.best))
    for reply in position.legal_moves():
        after = position.copy()
        after.push(reply)
        assert not after.is_checkmate(), (blunder.best_san, reply)
    assert moves[-1].score.mate == 0  # the last position: Black is mated


def test_a_queen_given_away_is_a_blunder_and_the_review_goes_into_the_pgn(tmp_path):
    with Store.open(tmp_path / "games.sqlite") as store:
        game_id = store.new_game()
        position = rules.Position()
        line = []
        for uci in QUEEN_HUNG:
            move = position.parse_uci(uci)
            line.append((uci, position.san(move)))
            position.push(move)
        store.sync_moves(game_id, line)
        store.finish(game_id, "1-0", "resignation")
    # The pieces stand as the game left them (all of them home would start a new game).
    pieces = f'{{"pieces": "{position.occupancy():016x}"}}'
    (tmp_path / "sim-board.json").write_text(pieces)
    daemon = make_daemon(tmp_path, QUICK)

    async def scenario() -> None:
        # The game on the board is over at start: its review is taken up at once.
        await until(lambda: review_state(daemon)["status"] == "done")
        assert review_state(daemon)["game"] == game_id
        with pytest.raises(ValueError, match="not a game number"):
            await daemon.door.command("engine", "review", {"game": "one"})

    run_daemon(daemon, scenario)
    moves = reviewed_moves(tmp_path / "games.sqlite", game_id)
    assert [m.mark for m in moves][3] == "blunder"  # 2... Qg5??
    bad = [m.san for m in moves if m.mark in ("blunder", "mistake")]
    assert bad == ["Qg5"], [(m.san, m.score, m.mark) for m in moves]
    assert moves[3].score.cp > 500 and moves[3].best_san != "Qg5"

    # The PGN with the review (`magboard pgn --evals`): python-chess reads every [%eval]
    # back, from White's point of view.
    store = str(tmp_path / "games.sqlite")
    printed = subprocess.run(
        [sys.executable, "-m", "board_driver", "pgn", "--evals", "--store", store, str(game_id)],
        capture_output=True, text=True, cwd=ROOT, check=True, timeout=60,
    )  # fmt: skip
    text = printed.stdout
    with Store.open(store) as opened:
        assert text.strip() == game_pgn(opened.game(game_id), review=opened.review(game_id)).strip()
        plain = game_pgn(opened.game(game_id))
    assert "%eval" not in plain
    parsed = chess.pgn.read_game(io.StringIO(text))
    assert parsed.headers["Annotator"].startswith("Stockfish")
    nodes = list(parsed.mainline())
    assert [n.move.uci() for n in nodes] == QUEEN_HUNG
    for node, move in zip(nodes, moves, strict=True):
        score = node.eval().white()
        assert score.score() == move.score.cp and score.mate() == move.score.mate
        assert node.eval_depth() == move.depth
    assert nodes[3].nags == {chess.pgn.NAG_BLUNDER}
    assert f"{moves[3].best_san} was best" in nodes[3].comment


def test_no_review_while_a_game_is_played_and_one_running_stops_when_a_game_starts(tmp_path):
    daemon = make_daemon(tmp_path, "[engine]\nreview_depth = 0\nreview_nodes = 50000000\n")
    door = daemon.door

    async def scenario() -> None:
        # Game 1 is being played (no move yet): no review of it, nor of anything else.
        with pytest.raises(ActionRefused, match="still being played"):
            await door.command("engine", "review", {"game": 1})
        door.new_game(moves=SCHOLARS_MATE)  # game 2, over: its review starts
        await until(lambda: review_state(daemon)["status"] == "running")
        await until(lambda: _reviewer(daemon).engine is not None)
        pid = _reviewer(daemon).engine.pid
        # Its engine runs behind the board for the CPU (nicer by 10).
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(
            19, os.getpriority(os.PRIO_PROCESS, 0) + 10
        )
        with pytest.raises(ActionRefused, match="game 1 is not over"):
            await door.command("engine", "review", {"game": 1})

        door.new_game()  # game 3 starts: the review stops, its engine ends
        await until(lambda: review_state(daemon)["status"] != "running")
        state = review_state(daemon)
        assert (state["status"], state["reason"]) == ("stopped", "a new game started")
        await until(lambda: not _alive(pid))
        reviewed = len(door.review(2))
        with pytest.raises(ActionRefused, match="hints off"):
            await door.command("engine", "review", {"game": 2})

        # A local game with hints on: the engine helps anyway, a review may run.
        door.set_options(hints=True)
        await door.command("engine", "review", {"game": 2})
        assert review_state(daemon)["status"] == "running"
        await until(lambda: _reviewer(daemon).engine is not None)
        door.set_options(hints=False)  # and stops when they are turned off
        await until(lambda: review_state(daemon)["status"] == "stopped")
        assert review_state(daemon)["reason"].startswith("a game is being played with hints")

        # An online game: never, hints or not.
        door.new_game(online=True, options={"hints": True})
        with pytest.raises(ActionRefused, match="online game"):
            await door.command("engine", "review", {"game": 2})
        assert len(door.review(2)) >= reviewed  # what was done is kept
        # ... and the page shows no engine score of any game meanwhile.
        view = review_view(door, 2)
        assert view["hidden"].startswith("an online game is being played")
        assert all(move["score"] is None for move in view["moves"])

    run_daemon(daemon, scenario)


def _reviewer(daemon):
    return dict(daemon._extensions)["engine"].reviewer


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow  # about 11 s: two reviews, each a moment after its game ended
def test_a_review_stopped_by_a_new_game_goes_on_after_the_next_game_s(tmp_path):
    daemon = make_daemon(tmp_path, "[engine]\nreview_depth = 0\nreview_nodes = 300000\n")
    door = daemon.door

    async def scenario() -> None:
        door.new_game(moves=SCHOLARS_MATE)  # game 2, over: its review starts in a moment
        await until(lambda: review_state(daemon)["status"] == "running")
        door.new_game()  # game 3 at once: game 2's review stops half way
        await until(lambda: review_state(daemon)["status"] == "stopped")
        stopped_at = len(door.review(2))
        assert stopped_at < len(SCHOLARS_MATE) + 1
        door.press("resign")  # game 3 over: its review, then game 2's goes on
        await until(lambda: review_state(daemon)["game"] == 3)
        await until(lambda: review_state(daemon) == {
            "game": 2, "status": "done", "done": 8, "total": 8, "reason": None})  # fmt: skip
        assert [r.ply for r in door.review(2)] == list(range(8))
        assert len(door.review(3)) == 1

    run_daemon(daemon, scenario)


def test_a_chess960_game_is_reviewed_by_its_rules(tmp_path):
    """Issue 35: a Chess960 game's review sets UCI_Chess960, so that its castlings (the
    king taking its rook) and the engine's better moves read by the game's rules."""
    # Position 96 (BBQNRNKR): the knights leave f1 and f8, both kings castle where they
    # stand (the rooks h1-f1, h8-f8), then the d-pawns.
    line = ["f1g3", "f8g6", "g1h1", "g8h8", "d2d4", "d7d5"]
    daemon = make_daemon(tmp_path, QUICK)

    async def scenario() -> None:
        daemon.door.new_game(variant="chess960", chess960=96, moves=line)
        daemon.door.press("resign")  # White, to move, resigns: the game is reviewed
        game_id = daemon.door.snapshot().game_id
        await until(lambda: review_state(daemon) == {
            "game": game_id, "status": "done", "done": 7, "total": 7, "reason": None
        })  # fmt: skip

    run_daemon(daemon, scenario)
    with Store.open(tmp_path / "games.sqlite") as store:
        stored = store.game(2)
        moves = review_moves(stored.start_fen, stored.ucis, store.review(2), stored.variant)[1]
    assert stored.variant == "chess960"
    assert [m.san for m in moves] == ["Ng3", "Ng6", "O-O", "O-O", "d4", "d5"]
    assert all(m.score is not None and m.best_san is not None for m in moves)
    judge = chess.Board(stored.start_fen, chess960=True)
    for move in moves:  # every better move the engine named is legal where it was named
        judge.parse_san(move.best_san)
        judge.push_uci(move.uci)
