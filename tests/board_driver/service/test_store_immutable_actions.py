"""The page's actions while the store cannot be written, for real: its file made immutable
(``chattr +i``) under ``magboard run`` (issue 32, item 5, and its siblings).

``POST /api/headers`` answered 500 with a traceback and the headers were lost: it wrote to
the store directly, not through the path that keeps and retries. Now every action the page
has either works, keeping what it changed in memory and in the hands journal until the store
takes it, or is refused with the store's words (503) when it needs the store itself
(resuming a stored game). A stop that still cannot store says what it could not, and the next
start, with the store writable, stores exactly that: the headers, the options, a new game
from a FEN with its moves and its own headers.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from board_driver.service.store import Store
from tests.board_driver.connectors.web.daemon import WebDaemon
from tests.board_driver.daemon_process import no_daemon_left_running  # noqa: F401
from tests.board_driver.unwritable import immutable, immutable_capable_directory

FEN = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"


def _games(path: Path) -> dict[int, tuple[list[str], dict[str, str], dict[str, str], str]]:
    """Each game: its moves, headers, options and start, as another program reads them."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return {
            game_id: (
                [u for (u,) in db.execute(
                    "SELECT uci FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))],
                dict(db.execute("SELECT name, value FROM headers WHERE game_id = ?", (game_id,))),
                dict(db.execute("SELECT name, value FROM options WHERE game_id = ?", (game_id,))),
                fen,
            )
            for game_id, fen in db.execute("SELECT id, start_fen FROM games ORDER BY id")
        }  # fmt: skip


def test_every_action_while_the_store_is_immutable_is_kept_or_refused_then_stored(
    tmp_path: Path,
) -> None:
    with immutable_capable_directory(tmp_path) as directory:
        path = directory / "games.sqlite"
        with Store.open(path) as store:  # an adjourned game, and a new one on the board
            adjourned = store.new_game()
            store.sync_moves(adjourned, [("d2d4", "d4")])
            store.new_game()
        daemon = WebDaemon(directory)
        token = daemon.token
        status, _ = daemon.request("api/sim", {"steps": [["lift", "e2"], ["place", "e4"]]},
                                   token=token)  # fmt: skip
        assert status == 200
        daemon.wait_state(lambda s: s["moves"] == ["e4"])
        assert daemon.wait_for(lambda: "ply 1: e4 (e2e4) stored in game 2" in daemon.output())

        with immutable(path):
            status, answer = daemon.request(
                "api/headers", {"White": "Ann", "Black": "Bob"}, token=token
            )
            assert status == 200, answer
            assert daemon.state()["headers"] == {"White": "Ann", "Black": "Bob"}
            assert daemon.wait_for(lambda: "cannot store" in daemon.output())
            status, answer = daemon.request("api/options", {"hints": True}, token=token)
            assert status == 200, answer
            status, answer = daemon.request("api/resume", {"game": adjourned}, token=token)
            assert status == 503 and "once the store can be written" in answer["error"], answer
            for action, body in [
                ("api/engine", {"side": "none", "skill": 3}),  # the engine's texts, kept
                ("api/button", {"button": "draw_offer"}),
                ("api/clock", {"action": "pause"}),  # no clock: refused, as always
                ("api/player/engine/review", {"game": adjourned}),  # not over: refused
            ]:
                status, answer = daemon.request(action, body, token=token)
                assert status in (200, 409), (action, status, answer)
            status, answer = daemon.request("api/new_game", {"fen": FEN}, token=token)
            assert status == 200, answer
            status, answer = daemon.request("api/setup", {}, token=token)
            assert status == 200, answer
            status, answer = daemon.request("api/headers", {"Event": "Club night"}, token=token)
            assert status == 200, answer
            daemon.request("api/sim", {"steps": [["lift", "a1"], ["place", "a2"]]}, token=token)
            state = daemon.wait_state(lambda s: s["moves"] == ["Ra2"])
            assert state["board_state"] == "store_failing" and state["game_id"] is None
            assert state["headers"] == {"Event": "Club night"}
            daemon.stop()
            assert daemon.proc.returncode == 0
            out = daemon.output()
            assert "Traceback" not in out and " 500 " not in out, out
            said = next(line for line in out.splitlines() if "NOT STORED" in line)
            assert f"a new game from {FEN}" in said and "ply 1 (Ra2)" in said, said
            assert "the headers White, Black of game 2" in said, said
            assert "the options of game 2" in said and "the headers Event of the new game" in said
            assert "(the next start stores them)" in said, said
            unstored = directory / "games.sqlite.new-game-unstored.pgn"
            assert f"as PGN in {unstored}" in said and "Ra2" in unstored.read_text()

        again = WebDaemon(directory)
        try:
            state = again.wait_state(lambda s: s["moves"] == ["Ra2"] and s["game_id"] == 3)
            assert state["headers"] == {"Event": "Club night"} and state["start_fen"] == FEN
            assert again.wait_for(lambda: "its moves are stored now" in again.output())
            assert not unstored.exists()  # stored: the PGN that said it was not is gone
        finally:
            again.stop()
        games = _games(path)
        assert games[2][:2] == (["e2e4"], {"White": "Ann", "Black": "Bob"})
        assert games[2][2]["hints"] == "true"
        assert games[3] == (["a1a2"], {"Event": "Club night"}, games[3][2], FEN)
        assert games[3][2]["hints"] == "true"
        assert games[adjourned][0] == ["d2d4"]


ISSUE_FEN = "6Q1/4k1p1/2n4r/4p3/4p3/p5Pp/PP2NP1P/1R4K1 w - - 2 32"


def test_a_question_answered_by_the_hands_while_the_store_fails_keeps_what_it_lacks(
    tmp_path: Path,
) -> None:
    """Issue 32, item 7: while the store was failing, the pieces put back as stored (the
    answer to the question after a restart: nothing was played) started the journal again
    from the game on the board, ahead of the store: what the store lacked was lost at the
    next start. Now the journal starts again only when the store has everything."""
    import json

    import rules

    with immutable_capable_directory(tmp_path) as directory:
        path = directory / "games.sqlite"
        with Store.open(path) as store:
            store.new_game(ISSUE_FEN)
        stored = rules.Position.from_fen(ISSUE_FEN).occupancy()
        g8 = 1 << 62
        (directory / "sim-board.json").write_text(json.dumps({"pieces": f"{stored & ~g8:016x}"}))
        daemon = WebDaemon(directory)
        token = daemon.token
        state = daemon.wait_state(lambda s: s["question"])
        assert state["question"] == ["nothing yet: the piece from g8 is in the hand", "Qxg7+"]
        with immutable(path):
            status, answer = daemon.request("api/options", {"hints": True}, token=token)
            assert status == 200, answer
            daemon.wait_state(lambda s: s["board_state"] == "store_failing")
            daemon.request("api/sim", {"steps": [["place", "g8"]]}, token=token)  # put back
            daemon.wait_state(lambda s: not s["question"])
            assert daemon.wait_for(lambda: "nothing was played" in daemon.output())
            daemon.stop()
            said = next(line for line in daemon.output().splitlines() if "NOT STORED" in line)
            assert "the options of game 1" in said and "the next start stores them" in said, said
        again = WebDaemon(directory)
        try:
            state = again.wait_state(lambda s: s["options"]["hints"] is True)
            assert state["moves"] == [] and state["in_sync"] and not state["question"]
        finally:
            again.stop()
        with Store.open(path, readonly=True) as store:
            assert store.game(1).options["hints"] == "true" and store.game(1).ucis == []
