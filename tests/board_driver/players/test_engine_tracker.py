"""The tracker when an engine plays one side: only its move is accepted, lit cyan."""

from __future__ import annotations

from board_driver.arbiter.tracker import GameOptions, Tracker
from board_driver.physical.events import Button, Lift, Place
from board_driver.physical.squares import square
from rules import BLACK, WHITE, Game, Position


class Board:
    """A tracker fed lifts and places 150 ms apart (quicker than the settle time), then
    left still."""

    def __init__(self, fen: str | None = None, *, engine: bool = BLACK, **options) -> None:
        game = Game(Position.from_fen(fen)) if fen else Game()
        self.tracker = Tracker(game, options=GameOptions(**options))
        self.tracker.set_other_side(engine)
        self.t = 0
        self.events: list[dict] = []

    def play(self, *lines: str) -> list[dict]:
        """Board-script lines (``lift e2``, ``place e4``); then the board is left still."""
        out: list[dict] = []
        for line in lines:
            self.t += 150
            word, name = line.split()
            event = Lift if word == "lift" else Place
            out += self.tracker.handle(event(self.t, square(name)))
        self.t += 300
        out += self.tracker.tick(self.t)
        self.events += out
        return out

    def expect(self, uci: str) -> list[dict]:
        self.t += 10
        return self.tracker.expect(uci, self.t)

    def rows(self) -> list[str]:
        return self.tracker.frame().rows()

    def sans(self) -> list[str]:
        return self.tracker.game.san_moves()


def kinds(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def test_the_engines_move_is_lit_cyan_and_only_it_is_accepted() -> None:
    board = Board()
    board.play("lift e2", "place e4")
    assert board.tracker.awaiting
    board.expect("e7e5")
    assert not board.tracker.awaiting
    rows = board.rows()
    assert rows[1] == "....C..."  # e7
    assert rows[3] == "....C..."  # e5
    # d7-d5 is legal for Black, but not the engine's move: out of sync, d7 to be filled.
    out = board.play("lift d7", "place d5")
    assert kinds(out) == ["illegal"]
    assert (out[0]["empty"], out[0]["fill"]) == (["d5"], ["d7"])
    assert board.rows()[1] == "...BC..." and board.rows()[3] == "...RC..."
    assert board.sans() == ["e4"]
    assert kinds(board.play("lift d5", "place d7")) == ["restored"]
    out = board.play("lift e7", "place e5")
    assert kinds(out) == ["move"] and out[0]["san"] == "e5"
    assert board.tracker.expected is None and not board.tracker.awaiting  # the human's turn
    assert "C" not in "".join(board.rows())


def test_a_wrong_piece_lifted_is_guided_back_while_in_hand() -> None:
    board = Board()
    board.play("lift e2", "place e4")
    board.expect("g8f6")
    out = board.play("lift b8")  # held still in the hand: judged after the settle time
    assert kinds(out) == ["illegal"] and out[0]["fill"] == ["b8"]
    assert board.rows()[0] == ".B....C."
    assert kinds(board.play("place b8")) == ["restored"]
    assert kinds(board.play("lift g8", "place f6")) == ["move"]


def test_the_right_piece_to_the_wrong_square_says_what_to_put_right() -> None:
    board = Board()
    board.play("lift e2", "place e4")
    board.expect("e7e5")
    out = board.play("lift e7", "place e6")
    assert kinds(out) == ["illegal"] and (out[0]["empty"], out[0]["fill"]) == (["e6"], ["e7"])
    out = board.play("lift e6", "place e5")  # straight on to the right square
    assert kinds(out) == ["move"] and out[0]["san"] == "e5"


def test_a_move_made_while_the_engine_thinks_is_out_of_sync_not_a_move() -> None:
    board = Board()
    board.play("lift e2", "place e4")
    out = board.play("lift e7", "place e5")
    assert kinds(out) == ["illegal"]
    assert board.sans() == ["e4"] and not board.tracker.in_sync
    # The engine then chooses that very move: the board already shows it, so it counts.
    out = board.expect("e7e5")
    assert kinds(out) == ["move"] and board.sans() == ["e4", "e5"]


def test_a_second_human_move_is_not_taken_as_the_engines() -> None:
    board = Board()
    board.play("lift e2", "place e4")
    board.expect("e7e5")
    out = board.play("lift d2", "place d4")  # White again, before Black's move
    assert kinds(out) == ["illegal"] and board.sans() == ["e4"]


def test_castling_lights_both_rook_squares_and_may_be_played_rook_first() -> None:
    board = Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    board.play("lift a2", "place a3")
    board.expect("e8g8")
    assert board.rows()[0] == "r...CCCC".replace("r", ".")
    out = board.play("lift h8", "place f8", "lift e8", "place g8")
    assert kinds(out) == ["move"] and out[0]["san"] == "O-O"


def test_captures_light_the_victims_square_and_en_passant_too() -> None:
    board = Board("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1", engine=WHITE)
    assert not board.tracker.awaiting  # the engine is White, Black is to move
    board.tracker.set_other_side(BLACK)  # (the web page hands Black to the engine)
    assert board.tracker.awaiting
    board.expect("d7d5")
    board.play("lift d7", "place d5")
    board.tracker.set_other_side(WHITE)
    assert board.tracker.awaiting
    board.expect("e5d6")
    rows = board.rows()
    assert rows[2] == "...C...." and rows[3] == "...CC..."  # d6, and d5 (victim), e5
    out = board.play("lift e5", "place d6", "lift d5")
    assert kinds(out) == ["move"] and out[0]["san"] == "exd6"


def test_take_back_in_an_engine_game_undoes_the_pair() -> None:
    board = Board()
    board.play("lift e2", "place e4")
    board.expect("e7e5")
    board.play("lift e7", "place e5")
    assert board.sans() == ["e4", "e5"]
    # The engine's reply set back: half the pair, the board waits without complaint.
    assert board.play("lift e5", "place e7") == []
    assert board.sans() == ["e4", "e5"] and board.tracker.in_sync
    out = board.play("lift e4", "place e2")
    assert kinds(out) == ["takeback", "takeback"]
    assert board.sans() == [] and not board.tracker.awaiting


def test_take_back_while_the_engine_thinks_undoes_the_human_move() -> None:
    board = Board()
    board.play("lift e2", "place e4")
    assert board.tracker.awaiting
    out = board.play("lift e4", "place e2")
    assert kinds(out) == ["takeback"] and board.sans() == []
    assert not board.tracker.awaiting


def test_the_engine_as_white_moves_first() -> None:
    board = Board(engine=WHITE)
    assert board.tracker.awaiting
    assert kinds(board.play("lift e2", "place e4")) == ["illegal"]
    board.play("lift e4", "place e2")
    board.expect("d2d4")
    assert kinds(board.play("lift d2", "place d4")) == ["move"]


def test_touch_move_does_not_bind_the_hand_that_plays_the_engines_move() -> None:
    board = Board(touch_move="enforce")
    board.play("lift e2", "place e4")
    board.expect("e7e5")
    board.play("lift d7")
    board.play("place d7")
    out = board.play("lift e7", "place e5")
    assert kinds(out) == ["move"]
    # ...but it binds the person on their own turn again.
    board.play("lift g1", "place g1")
    assert kinds(board.play("lift d2", "place d4")) == ["illegal"]


def test_a_hint_is_lit_green_until_the_move_is_played() -> None:
    board = Board()
    board.tracker.show_hint("g1f3")
    rows = board.rows()
    assert rows[7] == "......g." and rows[5] == ".....g.."
    board.play("lift e2", "place e4")
    assert "g" not in "".join(board.rows())


def test_expect_refuses_outside_the_engines_turn_and_illegal_moves() -> None:
    board = Board()
    try:
        board.expect("e2e4")
    except ValueError as exc:
        assert "not the other side's turn" in str(exc)
    else:
        raise AssertionError("expect on the human's turn was accepted")
    board.play("lift e2", "place e4")
    try:
        board.expect("e7e4")
    except ValueError as exc:
        assert "e7e4" in str(exc)
    else:
        raise AssertionError("an illegal engine move was accepted")


def test_an_engine_promotion_is_played_as_chosen_by_the_engine() -> None:
    board = Board("8/8/8/8/8/8/p5kP/4K3 w - - 0 1")
    board.play("lift e1", "place d1")
    board.expect("a2a1n")
    assert board.rows()[6] == "C......." and board.rows()[7] == "C......."  # a2, a1
    out = board.play("lift a2", "place a1")
    assert kinds(out) == ["move"]
    assert (out[0]["san"], out[0]["promotion"]) == ("a1=N", "n")
    # The pawn swapped for a knight on a1 is not White's lift.
    assert kinds(board.play("lift a1", "place a1")) == []
    assert board.sans() == ["Kd1", "a1=N"]


def test_the_humans_rook_first_castling_amends_the_move_the_engine_answers() -> None:
    board = Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    board.play("lift h1", "place f1")
    assert board.sans() == ["Rf1"] and board.tracker.awaiting
    board.expect("a7a6")  # the engine answered the rook move...
    out = board.play("lift e1", "place g1")  # ...but the king follows: it was castling
    # (under touch_move warn, also a warning: a rook touched first may not castle)
    assert kinds(out) == ["touch_move", "move"]
    assert out[1]["san"] == "O-O" and out[1]["replaces"] == "Rf1"
    assert board.tracker.awaiting and board.tracker.expected is None  # ask the engine again


def test_resign_in_an_engine_game_is_the_persons_even_on_the_engines_turn() -> None:
    board = Board()  # the engine plays Black
    board.play("lift e2", "place e4")
    assert board.tracker.awaiting
    out = board.tracker.handle(Button(board.t + 10, "resign"))
    assert kinds(out) == ["game_over"]
    assert (out[0]["result"], out[0]["winner"]) == ("0-1", "black")


def test_a_chosen_move_not_yet_made_keeps_the_tracker_from_rest() -> None:
    """The engine's move chosen but not yet made on the board is a move in progress: the
    daemon's hands journal (which starts again only at rest) keeps it for a restart."""
    board = Board()
    board.play("lift e2", "place e4")
    assert board.tracker.at_rest()
    board.expect("e7e5")
    assert not board.tracker.at_rest()
    board.play("lift e7", "place e5")
    assert board.tracker.at_rest() and board.sans() == ["e4", "e5"]
