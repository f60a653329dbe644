"""Issue 35: Chess960 games on Lichess's Board API, through ``magboard run --sim --script -``
against the loopback fake of the API (driven by the real ``berserk``).

Lichess writes every castling as the king taking its rook, and a Chess960 game's start
position comes as the ``gameFull`` line's ``initialFen`` (X-FEN). The board plays the game
by Chess960's rules from that position, reads a castling made by hand as FIDE recommends,
and sends it in Lichess's notation; the store keeps the game as Chess960.
"""

from __future__ import annotations

import chess

from tests.board_driver.players.lichess.online_daemon import OnlineDaemon, fake_has

#: Start position 3: the king on f1 between its rooks on e1 and g1 (O-O: the king to g1,
#: the rook to f1, the two swapping squares).
POSITION_3 = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"


def castle_by_hand(daemon: OnlineDaemon, king: str, rook: str) -> None:
    """O-O as FIDE recommends: the king lifted first and held, the rook lifted, the rook
    set down on the king's square, then the king on the rook's."""
    stored = len(daemon.moves_logged())
    daemon.send(f"lift {king}", f"lift {rook}", f"place {king}", f"place {rook}")
    daemon.board.push(daemon.board.parse_uci(f"{king}{rook}"))
    daemon.wait_stored(stored + 1)


def test_a_chess960_game_castled_by_hand_is_sent_and_stored_as_lichess_writes_it(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    game_id = fake.start_game("Ann", "Bob", fen=POSITION_3, variant="chess960")
    assert daemon.game_on_board() == game_id
    state = daemon.wait_state(lambda s: s["variant"] == "chess960")
    assert state["start_fen"] == POSITION_3 and state["chess960"] == 3
    daemon.board = chess.Board(POSITION_3, chess960=True)
    daemon.hands("d1e3")
    daemon.their_move(game_id, "d8e6")
    daemon.hands("c1d3")
    daemon.their_move(game_id, "c8d6")
    castle_by_hand(daemon, "f1", "g1")
    fake_has(fake, game_id, ["d1e3", "d8e6", "c1d3", "c8d6", "f1g1"])
    assert fake.game(game_id).board.board_fen().endswith("BQ2RRKB")
    # Bob castles too: lit, said as castling, and played on the board for him.
    after = daemon.mark()
    fake.play(game_id, "f8g8")
    daemon.wait_log("lichess: Bob played O-O (f8g8): play it on the board", after=after)
    castle_by_hand(daemon, "f8", "g8")
    state = daemon.wait_state(lambda s: len(s["moves"]) == 6)
    assert state["moves"][-2:] == ["O-O", "O-O"] and state["in_sync"]
    pgn = daemon.pgn()
    assert '[Variant "Chess960"]' in pgn and f'[FEN "{POSITION_3}"]' in pgn
    assert "1. Ne3 Ne6 2. Nd3 Nd6 3. O-O O-O *" in " ".join(pgn.split())
    daemon.terminate()


def test_a_chess960_challenge_and_an_incoming_one_start_from_lichesss_position(fake, tmp_path):
    daemon = OnlineDaemon(tmp_path, fake)
    fake.account("Bob").answers_challenges = "accept"
    status, answer = daemon.act(
        "challenge", username="Bob", minutes=10, increment=0, color="white", variant="atomic"
    )
    assert status == 400 and "variant" in answer["error"], answer
    status, answer = daemon.act(
        "challenge", username="Bob", minutes=10, increment=0, color="white", variant="chess960"
    )
    assert status == 200, answer
    game_id = daemon.game_on_board()
    game = fake.game(game_id)
    assert game.variant == "chess960"
    state = daemon.wait_state(lambda s: s["variant"] == "chess960")
    # Lichess drew the start position: the board's game starts from it.
    assert state["start_fen"] == game.initial_fen
    assert state["chess960"] == chess.Board(game.initial_fen, chess960=True).chess960_pos()
    daemon.act("abort")
    daemon.wait_state(lambda s: s["player_states"]["lichess"]["game"]["status"] == "aborted")

    after = daemon.mark()
    challenge = fake.challenge("Bob", "Ann", variant="chess960", color="black")
    daemon.wait_state(lambda s: s["player_states"]["lichess"]["challenges"])
    status, answer = daemon.act("accept", id=challenge)
    assert status == 200, answer
    assert daemon.game_on_board(after=after) == challenge
    state = daemon.wait_state(lambda s: s["player_states"]["lichess"]["game"]["id"] == challenge)
    assert state["variant"] == "chess960" and state["start_fen"] == fake.game(challenge).initial_fen
    daemon.terminate()


def test_a_chess960_seek_real_time_or_correspondence_plays_the_position_lichess_drew(
    fake, tmp_path
):
    daemon = OnlineDaemon(tmp_path, fake)
    fake.seek_partner = fake.account("Bob")
    status, answer = daemon.act("seek", minutes=10, increment=0, variant="crazyhouse")
    assert status == 400 and "variant" in answer["error"], answer
    status, answer = daemon.act("seek", minutes=10, increment=0, variant="chess960")
    assert status == 200, answer
    game_id = daemon.game_on_board()
    game = fake.game(game_id)
    assert game.variant == "chess960"
    state = daemon.wait_state(lambda s: s["variant"] == "chess960")
    assert state["start_fen"] == game.initial_fen
    daemon.act("abort")
    daemon.wait_state(lambda s: s["player_states"]["lichess"]["game"]["status"] == "aborted")

    after = daemon.mark()
    status, answer = daemon.act("seek", days=3, variant="chess960")
    assert status == 200, answer
    game_id = daemon.game_on_board(after=after)
    assert fake.game(game_id).variant == "chess960"
    daemon.wait_state(lambda s: s["start_fen"] == fake.game(game_id).initial_fen)
    daemon.terminate()
