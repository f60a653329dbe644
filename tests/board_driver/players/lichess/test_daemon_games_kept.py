"""Online games kept in the store across restarts and devices, through the real daemon:
correspondence games played one at a time (an adjourned one found again after a
restart), a game begun on another device with its earlier moves, a variant refused."""

from __future__ import annotations

from tests.board_driver.daemon_process import run_magboard
from tests.board_driver.players.lichess.online_daemon import OnlineDaemon, fake_has


def stored_games(daemon: OnlineDaemon) -> list[str]:
    result = run_magboard("games", "--config", str(daemon.config))
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[1:]  # under the header, a line a game


def test_correspondence_games_one_at_a_time_and_an_adjourned_one_found_after_a_restart(
    fake, tmp_path
):
    daemon = OnlineDaemon(tmp_path, fake)
    first = fake.start_game("Ann", "Bob", clock=None, days=3)
    assert daemon.game_on_board() == first
    daemon.hands("e2e4")
    daemon.their_move(first, "e7e5")
    # A second correspondence game starts: it waits on the page, the first stays.
    after = daemon.mark()
    second = fake.start_game("Bob", "Ann", clock=None, days=3)
    daemon.wait_log(f"Lichess game {second} (correspondence against Bob) waits", after=after)
    games = daemon.wait_state(lambda s: len(s["player_states"]["lichess"]["games"]) == 2)
    listed = {g["id"]: g["on_board"] for g in games["player_states"]["lichess"]["games"]}
    assert listed == {first: True, second: False}
    # Chosen on the page: it is put on the board, the first adjourned (kept in the store).
    assert daemon.act("play", id=second)[0] == 200
    assert daemon.game_on_board(after=after) == second
    daemon.send("lift e4", "place e2", "lift e5", "place e7")  # the lights guide the set-up
    daemon.wait_log("board matches the game again", after=after)
    first_board, daemon.board = daemon.board, daemon.board.root()
    daemon.their_move(second, "d2d4")
    second_board = daemon.board
    daemon.terminate()

    # After a restart the board goes on with the second; the first waits on the page ...
    again = OnlineDaemon(tmp_path, fake)
    again.board = second_board
    again.wait_log("ready: game 3 at ply 1")
    again.wait_log(f"Lichess game {first} (correspondence against Bob, your turn) waits")
    again.hands("g8f6")
    fake_has(fake, second, ["d2d4", "g8f6"])
    # ... and, chosen again, is the same stored game, resumed with its moves.
    after = again.mark()
    assert again.act("play", id=first)[0] == 200
    again.wait_log(f"lichess: game {first} resumed on the board", after=after)
    assert again.state()["game_id"] == 2
    again.send("lift d4", "place d2", "lift f6", "place g8", "lift e2", "place e4")
    again.send("lift e7", "place e5")
    again.wait_log("board matches the game again", after=after)
    again.board = first_board
    again.hands("g1f3")
    fake_has(fake, first, ["e2e4", "e7e5", "g1f3"])
    assert "1. e4 e5 2. Nf3 *" in " ".join(again.pgn("2").split())
    assert len(stored_games(again)) == 3  # the local game, and one stored game each
    again.terminate()


def test_a_game_begun_on_another_device_is_kept_with_its_earlier_moves(fake, tmp_path):
    game_id = fake.start_game("Ann", "Bob")
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6"):  # played on the phone, the board off
        fake.play(game_id, uci)
    daemon = OnlineDaemon(tmp_path, fake)
    assert daemon.game_on_board() == game_id
    state = daemon.wait_state(lambda s: s["moves"] == ["e4", "e5", "Nf3", "Nc6"])
    # The pieces stand at the start: the lights guide them to the game's position.
    assert not state["in_sync"]
    assert daemon.lights("e2", "e4", "g1", "f3", state=state) == "RBRB"
    after = daemon.mark()
    daemon.send("lift e2", "place e4", "lift e7", "place e5")
    daemon.send("lift g1", "place f3", "lift b8", "place c6")
    daemon.wait_log("board matches the game again", after=after)
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6"):
        daemon.board.push_uci(uci)
    daemon.hands("f1b5")
    fake_has(fake, game_id, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"])
    assert "1. e4 e5 2. Nf3 Nc6 3. Bb5 *" in " ".join(daemon.pgn().split())
    daemon.terminate()


def test_a_variant_game_is_refused_with_a_message_and_the_board_plays_on(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    daemon.wait_log("lichess: connected")
    fake.start_game("Ann", "Bob", variant="crazyhouse")  # Chess960 is played: see its tests
    daemon.wait_log("is Crazyhouse: the board plays standard chess (from the usual start or")
    state = daemon.wait_state(lambda s: "Crazyhouse" in s["player_states"]["lichess"]["message"])
    assert not state["online"] and state["game_id"] == 1
    daemon.hands("e2e4")  # the local game goes on
    daemon.terminate()
