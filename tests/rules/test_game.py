"""Game: automatic endings, draw claims (allowed and refused), resignation, agreement."""

from __future__ import annotations

import pytest

from rules import (
    BLACK,
    TERMINATIONS,
    WHITE,
    ClaimRefused,
    Game,
    IllegalMoveError,
    Move,
    Outcome,
    Position,
)

SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def play(game: Game, sans: list[str]) -> Game:
    for san in sans:
        game.push_san(san)
    return game


def game_from(fen: str) -> Game:
    return Game(Position.from_fen(fen))


def test_checkmate_wins_and_ends_the_game():
    game = play(Game(), ["f3", "e5", "g4", "Qh4"])
    assert game.outcome() == Outcome("checkmate", BLACK)
    assert game.outcome().result() == "0-1"
    assert game.san_moves() == ["f3", "e5", "g4", "Qh4#"]
    with pytest.raises(IllegalMoveError, match=r"the game is over \(checkmate, 0-1\)"):
        game.push(Move.from_uci("a2a3"))


def test_stalemate():
    game = game_from("7k/8/6Q1/8/8/8/8/K7 w - - 0 1")
    game.push_uci("g6f7")
    assert game.outcome() == Outcome("stalemate", None)
    assert game.outcome().result() == "1/2-1/2"


def test_insufficient_material_ends_the_game():
    game = game_from("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1")
    assert game.outcome() is None
    game.push_san("Kxd2")
    assert game.outcome() == Outcome("insufficient_material", None)


def test_the_start_is_kept_apart_from_the_current_position():
    start = Position.from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    game = Game(start)
    game.push_san("O-O")
    assert game.start.fen() == "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    assert start.fen() == game.start.fen()
    assert game.position.fen() == "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"
    assert game.moves == [Move.from_uci("e1g1")] and game.moves[0].is_castling
    assert game.pop() == Move.from_uci("e1g1")
    assert game.position.fen() == game.start.fen()
    with pytest.raises(IndexError, match="no move to take back"):
        game.pop()


def test_push_refuses_illegal_moves_with_the_reason():
    with pytest.raises(IllegalMoveError, match="illegal move e2e5: the pawn on e2 cannot go"):
        Game().push(Move.from_uci("e2e5"))


# ---------------------------------------------------------------- repetition


def test_threefold_is_claimed_by_the_side_to_move_in_the_position_reached():
    game = play(Game(), SHUFFLE)
    assert not game.can_claim_threefold()
    with pytest.raises(ClaimRefused) as info:
        game.claim_draw()
    assert "this position has stood 2 times (a threefold repetition needs 3)" in str(info.value)
    assert "4 half-moves have passed" in str(info.value)
    play(game, SHUFFLE)
    assert game.outcome() is None  # a claim, not automatic
    assert game.can_claim_threefold()
    assert game.claim_draw() == Outcome("threefold_repetition", None)
    assert game.outcome() == Outcome("threefold_repetition", None)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.push_san("e4")
    with pytest.raises(ClaimRefused, match="already over"):
        game.claim_draw()
    game.pop()  # taking back the last move also takes back the claim
    assert game.outcome() is None


def test_threefold_claim_with_the_intended_move():
    game = play(Game(), SHUFFLE + SHUFFLE[:3])  # Black to move; Ng8 would repeat
    assert not game.can_claim_threefold()
    assert game.can_claim_threefold(Move.from_uci("b8c6")) is False
    with pytest.raises(IllegalMoveError, match="no piece on g8"):
        game.can_claim_threefold(Move.from_uci("g8f6"))
    assert game.can_claim_threefold(Move.from_uci("f6g8"))
    assert game.claim_draw(Move.from_uci("f6g8")) == Outcome("threefold_repetition", None)
    assert len(game.moves) == 8  # the declared move is played


def test_a_refused_claim_with_a_move_leaves_the_move_played():
    game = play(Game(), SHUFFLE)
    with pytest.raises(ClaimRefused, match=r"the declared move e4 stands \(FIDE 9\.5\.3\)"):
        game.claim_draw(Move.from_uci("e2e4"))
    assert game.moves[-1] == Move.from_uci("e2e4")


def test_fivefold_repetition_is_automatic():
    game = play(Game(), SHUFFLE * 3)
    assert game.outcome() is None
    game = play(game, SHUFFLE)
    assert game.outcome() == Outcome("fivefold_repetition", None)


def test_en_passant_counts_only_when_the_capture_is_legal():
    # 9.2.3: after 1. e4 no e.p. capture is possible, so the position is the same as
    # the one after 1. e4 Nf6 2. Nf3 Ng8 3. Ng1 (Black to move, same pieces and rights).
    game = play(Game(), ["e4"])
    key = game.position.repetition_key()
    play(game, ["Nf6", "Nf3", "Ng8", "Ng1"])
    assert game.position.repetition_key() == key
    # After ...d5 a white pawn on e5 can take e.p.: that position differs from the
    # same placement reached later, when the capture is no longer possible.
    game = game_from("4k3/3p4/8/4P3/8/8/8/4K1N1 b - - 0 1")
    game.push_san("d5")
    with_ep = game.position.repetition_key()
    cycle = ["Nf3", "Ke7", "Ng1", "Ke8"]
    play(game, cycle)
    assert game.position.board_fen() == "4k3/8/8/3pP3/8/8/8/4K1N1"
    assert game.position.repetition_key() != with_ep
    play(game, cycle * 3)  # the placement has stood 5 times, the same position only 4
    assert game.outcome() is None
    game.push_san("Nf3")  # the position after Nf3 stands for the fifth time
    assert game.outcome() == Outcome("fivefold_repetition", None)


# ---------------------------------------------------------------- fifty and seventy-five


def test_fifty_moves_claim():
    game = game_from("4k3/8/8/8/8/8/8/4K2R w K - 98 80")
    assert not game.can_claim_fifty_moves()
    with pytest.raises(ClaimRefused, match="98 half-moves have passed without a capture"):
        game.claim_draw()
    assert game.can_claim_fifty_moves(Move.from_uci("h1h2")) is False
    game.push_san("Rh2")
    assert game.can_claim_fifty_moves(Move.from_uci("e8d8"))
    game.push_san("Kd8")
    assert game.can_claim_fifty_moves()
    assert game.outcome() is None
    assert game.claim_draw() == Outcome("fifty_moves", None)


def test_fifty_moves_claim_with_the_move_that_completes_them():
    game = game_from("4k3/8/8/8/8/8/8/4K2R w K - 99 80")
    assert game.claim_draw(Move.from_uci("h1h2")) == Outcome("fifty_moves", None)


def test_seventy_five_moves_end_the_game_unless_the_last_move_mates():
    game = game_from("4k3/8/8/8/8/8/8/4K2R w K - 149 120")
    game.push_san("Rh2")
    assert game.outcome() == Outcome("seventyfive_moves", None)
    mate = game_from("7k/8/6K1/8/8/8/8/R7 w - - 149 120")
    mate.push_san("Ra8")
    assert mate.position.halfmove_clock == 150
    assert mate.outcome() == Outcome("checkmate", WHITE)
    assert game_from("4k3/8/8/8/8/8/8/4K2R w K - 150 120").outcome().termination == (
        "seventyfive_moves"
    )


def test_no_draw_can_be_claimed_once_the_game_is_over():
    mate = game_from("7k/8/6K1/8/8/8/8/R7 w - - 106 120")
    mate.push_san("Ra8")  # mate, with 107 half-moves on the clock
    assert mate.outcome() == Outcome("checkmate", WHITE)
    assert mate.can_claim_fifty_moves() is False
    # The start position stands for the third time, then White resigns: over.
    repeated = play(Game(), SHUFFLE * 2)
    assert repeated.can_claim_threefold()
    repeated.resign(WHITE)
    assert repeated.can_claim_threefold() is False
    assert repeated.can_claim_threefold(Move.from_uci("g1f3")) is False
    fifty = game_from("4k3/8/8/8/8/8/8/4K2R w K - 99 80")
    fifty.agree_draw()
    assert fifty.can_claim_fifty_moves(Move.from_uci("h1h2")) is False


# ---------------------------------------------------------------- recorded endings


def test_resignation_and_agreement():
    game = play(Game(), ["e4"])
    assert game.resign(WHITE) == Outcome("resignation", BLACK)
    assert game.outcome().result() == "0-1"
    with pytest.raises(ValueError, match=r"cannot agree a draw: the game is already over"):
        game.agree_draw()
    game = Game()
    assert game.resign(BLACK).result() == "1-0"
    game = Game()
    assert game.agree_draw() == Outcome("agreement", None)
    with pytest.raises(ValueError, match="cannot resign: the game is already over"):
        game.resign(WHITE)


def test_an_ending_from_outside_the_board_is_recorded_and_taken_back_with_the_move():
    game = play(Game(), ["e4", "e5"])
    assert game.end("timeout", WHITE) == Outcome("timeout", WHITE)
    assert game.outcome().result() == "1-0"
    with pytest.raises(ValueError, match="already over"):
        game.end("abandoned", BLACK)
    game.pop()
    assert game.outcome() is None
    aborted = Game().end("aborted", WHITE)
    assert aborted == Outcome("aborted", None) and aborted.result() == "*"
    with pytest.raises(ValueError, match="cannot end the game with stalemate"):
        Game().end("stalemate", None)


def test_termination_names_are_the_board_script_names():
    assert set(TERMINATIONS) == {
        "checkmate", "stalemate", "insufficient_material", "dead_position",
        "fivefold_repetition",
        "seventyfive_moves", "threefold_repetition", "fifty_moves", "resignation", "agreement",
        # decided outside the board (a clock, an arbiter, an online server)
        "timeout", "rules_infraction", "abandoned", "aborted",
    }  # fmt: skip
    with pytest.raises(AttributeError):
        Outcome("agreement", None).winner = WHITE


# ---------------------------------------------------------------- dead positions, clocks

LAST_PIECE = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/4r3/4K3 w - - 0 1"  # Kxe2 leaves a dead position


def test_a_dead_position_ends_the_game_as_a_draw():
    game = game_from(LAST_PIECE)
    assert game.outcome() is None and not game.is_dead()
    game.push_san("Kxe2")
    assert game.is_dead()
    assert game.outcome() == Outcome("dead_position", None)
    assert game.outcome().result() == "1/2-1/2"
    with pytest.raises(IllegalMoveError, match=r"the game is over \(dead_position, 1/2-1/2\)"):
        game.push_san("Kd7")
    with pytest.raises(ClaimRefused, match="already over"):
        game.claim_draw()
    game.pop()  # taken back: the rook is on e2 again and play goes on
    assert game.outcome() is None


def test_insufficient_material_keeps_its_name():
    # Bishops all on light squares: dead, and named as it always was.
    game = game_from("4k3/8/8/8/8/8/3r4/3bKB2 w - - 0 1")
    game.push_san("Kxd2")
    assert game.is_dead()
    assert game.outcome() == Outcome("insufficient_material", None)
    assert game_from("4k3/8/8/8/8/8/8/4K3 w - - 0 1").outcome().termination == (
        "insufficient_material"
    )


def test_a_game_set_up_in_a_dead_position_is_over_from_the_start():
    game = game_from("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1")
    assert game.outcome() == Outcome("dead_position", None)


def test_when_a_server_decides_the_result_a_dead_position_is_only_a_note():
    game = Game(Position.from_fen(LAST_PIECE), dead_position_ends=False)
    game.push_san("Kxe2")
    assert game.is_dead()  # the board can show it
    assert game.outcome() is None  # ...but the game goes on
    play(game, ["Kd8", "Kd3", "Kc7"])
    assert game.is_dead() and game.outcome() is None
    assert game.end("timeout", WHITE) == Outcome("timeout", WHITE)  # the server's word
    assert game.outcome().result() == "1-0"
    # Switched back on, the rules decide again (the recorded ending stands meanwhile).
    game.pop()
    game.dead_position_ends = True
    assert game.outcome() == Outcome("dead_position", None)
    # Insufficient material is an ending every server knows: it still ends the game.
    bare = game_from("k7/8/8/8/8/8/1r6/K7 w - - 0 1")
    bare.dead_position_ends = False
    bare.push_san("Kxb2")
    assert bare.outcome() == Outcome("insufficient_material", None)


def test_a_flag_fall_loses_unless_the_opponent_cannot_mate():
    game = play(Game(), ["e4", "e5"])
    assert game.flag_fall(WHITE) == Outcome("timeout", BLACK)
    assert game.outcome().result() == "0-1"
    # Black has only its king: White's flag falls, and it is a draw (FIDE 6.9).
    lone = game_from("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1")
    assert lone.flag_fall(WHITE) == Outcome("timeout", None)
    assert lone.outcome().result() == "1/2-1/2"
    # A knight and king cannot mate a king with only queens beside it; the queens can.
    queens = "4k3/3qq3/8/8/8/8/8/4KN2 w - - 0 1"
    assert game_from(queens).flag_fall(BLACK) == Outcome("timeout", None)
    assert game_from(queens).flag_fall(WHITE) == Outcome("timeout", BLACK)
    # Black's king is shut in behind a locked wall that White's bishop cannot cross or
    # attack (a dead position set up: it is over already, so ask the position).
    wall = Position.from_fen("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1")
    assert wall.unwinnable(WHITE) and wall.unwinnable(BLACK)


def test_a_flag_cannot_fall_once_the_game_is_over():
    game = play(Game(), ["f3", "e5", "g4", "Qh4"])
    with pytest.raises(ValueError, match=r"cannot end the game \(timeout\): the game is already"):
        game.flag_fall(WHITE)
