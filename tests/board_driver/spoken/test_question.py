"""The board's question after a restart, said in every language: the readings as the
daemon words them (:mod:`board_driver.service.resumption`) read back into moves and the
piece in the hand."""

from __future__ import annotations

from board_driver.physical.squares import square
from board_driver.service.resumption import Question, readings
from board_driver.spoken import Words
from board_driver.spoken.narrator import Narrator
from rules import Game, Position

# After a restart the queen's square g8 is found empty: Qxg7+ was played, or the queen is
# still in the hand (resumption's own example).
FEN = "6Q1/4k1p1/2n4r/4p3/4p3/p5Pp/PP2NP1P/1R4K1 w - - 2 32"


def the_question() -> Question:
    game = Game(Position.from_fen(FEN))
    standing = game.position.occupancy() & ~(1 << square("g8"))
    found = readings(game.position, standing)
    return Question(found, game.position.copy(), standing, standing)


def test_the_question_is_said_in_english_and_french():
    question = the_question()
    event = {"type": "question", "readings": list(question.options())}
    assert event["readings"] == ["nothing yet: the piece from g8 is in the hand", "Qxg7+"]
    english = Narrator(Words("en")).follow(event)[0].text
    assert english == (
        "After the restart the board cannot tell what happened: 1: nothing yet, the piece "
        "from g8 is in the hand or 2: queen takes g7, check. Put the pieces back as they "
        "were and play the move again, or answer on the page."
    )
    french = Narrator(Words("fr")).follow(event)[0].text
    assert "1 : rien encore, la pièce de g8 est dans la main ou 2 : dame prend g7, échec" in french


def test_a_question_standing_when_speech_starts_is_said_then():
    question = the_question()
    snapshot = type("S", (), {"fen": FEN, "result": "*", "question": question.options()})()
    said = [u.text for u in Narrator(Words("de")).start(snapshot)]
    assert said[0] == "Das Brett ist bereit. Weiß ist am Zug."
    assert "1: noch nichts, die Figur von g8 ist in der Hand oder 2: Dame schlägt g7, Schach" in (
        said[1]
    )


def test_a_move_to_make_for_the_engine_when_speech_starts_is_said_then():
    """After a restart the engine's move may already be lit: speech says it at once."""
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    snapshot = type("S", (), {"fen": after_e4, "result": "*", "question": (),
                              "expected": "g8f6"})()  # fmt: skip
    narrator = Narrator(Words("en"), snapshot=snapshot)
    said = [u.text for u in narrator.start(snapshot)]
    assert said == [
        "The board is ready. Black to move.",
        "Black plays knight to f6: move the knight from g8 to f6.",
    ]
    done = {"type": "move", "san": "Nf6", "uci": "g8f6"}
    assert [u.text for u in narrator.follow(done)] == ["Done."]


def test_pieces_that_do_not_stand_as_the_game_does_at_the_start_are_put_right():
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    snapshot = type("S", (), {"fen": start, "result": "*", "question": (), "in_sync": False,
                              "empty": ("e4",), "fill": ("e2",)})()  # fmt: skip
    said = [u.text for u in Narrator(Words("fr")).start(snapshot)]
    assert said == ["L'échiquier est prêt. Trait aux blancs.", "Ramenez le pion de e4 en e2."]
