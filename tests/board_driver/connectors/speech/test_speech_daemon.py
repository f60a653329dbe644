"""The board speaking through the real daemon (``magboard run --sim --script -``, a process
each) with the real espeak-ng writing every utterance to the file sink, and the real
Stockfish playing Black: every utterance's words and their order, each WAV decoded and
heard, the same words in the log at ``--verbose``, and the questions asked with the
board's buttons."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from board_driver.connectors.speech.voices import espeak_program
from board_driver.physical.squares import square
from board_driver.players.engine import EngineNotFound, find_engine
from tests.board_driver.connectors.speech.sink import Sink, heard
from tests.board_driver.daemon_process import DaemonProcess, write_config

try:
    STOCKFISH: Path | None = find_engine()
except EngineNotFound:
    STOCKFISH = None

pytestmark = pytest.mark.skipif(
    espeak_program() is None, reason="espeak-ng is not installed (apt-get install espeak-ng)"
)
needs_stockfish = pytest.mark.skipif(STOCKFISH is None, reason="Stockfish is not installed")
SAID = re.compile(r"speech (\d+): (.*)$")
#: White to move: Rb8+ leaves Black one reply, Be8, and Rxe8 mates. The rook on a1 cannot
#: pass its own pawn: a1-a4 is illegal.
MATE_IN_TWO = "7k/6pp/1R6/1b6/8/8/P7/R3K3 w - - 0 1"


def start(directory: Path, speech: str, more: str = "") -> tuple[DaemonProcess, Sink]:
    write_config(directory, f"[speech]\nenabled = true\noutput = \"{directory / 'said'}\"\n"
                            f"{speech}\n{more}")  # fmt: skip
    proc = DaemonProcess(directory, "--verbose")
    proc.wait_ready(timeout=30)
    return proc, Sink(directory / "said")


def logged(proc: DaemonProcess) -> list[str]:
    found = (SAID.search(line) for line in proc.output().splitlines())
    return [m[2] for m in found if m]


@needs_stockfish
def test_a_game_against_stockfish_said_in_order_and_heard(tmp_path):
    engine = '[engine]\nside = "black"\nskill = 0\ndepth = 1\nmovetime_ms = 0\n'
    proc, sink = start(tmp_path, "", engine)
    try:
        proc.send(f"fen {MATE_IN_TWO}", "gap 150", "wait 10")  # an event ends the header
        sink.wait_for("New game. White to move.")
        proc.send("lift a1", "place a4")  # blocked by its own pawn
        sink.wait_for("Illegal: the rook on a1 cannot go to a4; put it back on a1.")
        proc.send("lift a4", "place a1")
        sink.wait_for("The board matches again.")
        proc.send("lift b6", "place b8")
        said = sink.wait_for("Black plays bishop to e8: move the bishop from b5 to e8.")
        # Said the moment the engine chose it: the bishop still stands on b5.
        assert "Done." not in said and proc.sim_pieces() >> square("b5") & 1
        proc.send("lift b5", "place e8")
        sink.wait_for("Done.")
        proc.send("lift e8", "lift b8", "place e8")  # the victim first
        said = sink.wait_for("Checkmate. White wins.")
    finally:
        proc.terminate()
    assert said == [
        "The board is ready. White to move.",
        "New game. White to move.",
        "Illegal: the rook on a1 cannot go to a4; put it back on a1.",
        "The board matches again.",
        # FIDE 4.3 after an illegal move: the replacing move is the touched rook's.
        "Touch-move: the rook on a1 was touched first.",
        "Rook to b8, check.",
        "Black plays bishop to e8: move the bishop from b5 to e8.",
        "Done.",
        "Rook takes e8, checkmate.",
        "Checkmate. White wins.",
    ]
    assert logged(proc) == said  # the same words in the log at --verbose, in order
    seconds = [heard(sink, n) for n in sink.numbers()]
    assert seconds[-1] > 1.0 and sum(seconds) > 15


def test_asking_the_board_with_its_buttons_in_french(tmp_path):
    """Two people at the board, the board speaking French; touch-move enforced, so a piece
    lifted to be named that counted as a touch would refuse every other move."""
    proc, sink = start(tmp_path, 'language = "fr"')
    try:
        proc.send("option touch_move enforce", "option clock 5+0", "gap 150", "wait 10")
        sink.wait_for("Nouvelle partie. Trait aux blancs.")
        proc.send("button say_square", "lift g1", "place g1")
        sink.wait_for("Cavalier blanc g1.")
        proc.send("lift e2", "place e4")  # the knight lifted and put back binds nothing
        sink.wait_for("e4.")
        proc.send("button say_file", "lift e7", "place e7")
        sink.wait_for("Colonne e : roi blanc e1, pion blanc e4, pion noir e7 et roi noir e8.")
        proc.send("lift e7", "place e5", "lift f2", "place f4")
        sink.wait_for("f4.")
        proc.send("button say_rank", "lift e5", "place e5")
        sink.wait_for("Rangée 5 : pion noir e5.")
        proc.send("button say_moves", "button say_material", "button say_clocks")
        said = sink.wait_for(lambda texts: any(t.startswith("Blancs : 5 minutes")
                                               or t.startswith("Blancs : 4 minutes")
                                               for t in texts))  # fmt: skip
        proc.send("lift d8", "place h4")  # Qh4+
        sink.wait_for("Dame h4, échec.")
        proc.send("lift h4", "place h6")  # the queen goes on: a second move of Black's
        sink.wait_for(lambda texts: any(t.startswith("Illégal") for t in texts[len(said):]))
        proc.send("lift h6", "place h4", "button say_move")
        said = sink.wait_for(lambda texts: texts[-1] == "Les noirs ont joué dame h4, échec.")
    finally:
        proc.terminate()
    asks = [t for t in said if t.startswith(("Derniers", "Blancs"))]
    assert asks[0] == (
        "Derniers coups : coup 1, les blancs : e4 ; les noirs : e5 ; coup 2, les blancs : f4."
    )
    assert asks[1] == (
        "Blancs : une dame, 2 tours, 2 fous, 2 cavaliers, 8 pions. "
        "Noirs : une dame, 2 tours, 2 fous, 2 cavaliers, 8 pions. Le matériel est égal."
    )
    five = r"(?:5 minutes|4 minutes \d+ secondes?)"  # both clocks ran a few seconds
    assert re.fullmatch(rf"Blancs : {five}\. Noirs : {five}\.", asks[2]), asks[2]
    assert "Soulevez une pièce et reposez-la : l'échiquier la nomme." in said
    assert not any("pièce touchée" in t.lower() for t in said)
    assert logged(proc) == said
    for number in sink.numbers():
        heard(sink, number)


@needs_stockfish
@pytest.mark.slow
def test_a_whole_game_against_stockfish_every_move_said_in_order(tmp_path):
    """Long: a game of up to 80 plies, every move said, the engine's before it is made."""
    import random

    import chess

    from board_driver.spoken import Words
    from tests.board_driver.players.test_engine_daemon import hand_lines, human_choice

    engine = '[engine]\nside = "black"\nskill = 0\ndepth = 1\nmovetime_ms = 0\n'
    proc, sink = start(tmp_path, "", engine)
    words = Words("en")
    board = chess.Board()
    rng = random.Random(36)
    expected: list[str] = []
    try:
        proc.send("gap 120", "wait 10")
        sink.wait_for("The board is ready. White to move.")
        while not board.is_game_over() and len(board.move_stack) < 80:
            if board.turn == chess.WHITE:
                move = human_choice(board, rng)
                san = board.san(move)
                proc.send(*hand_lines(board, move))
                spoken = words.move(san, en_passant=board.is_en_passant(move))
                expected.append(words.say("move.said", move=spoken))
                board.push(move)
                wait_said(sink, len(expected))
                continue
            said = sink.wait_for(lambda texts: moves_said(texts)[len(expected):] != [])
            instruction = moves_said(said)[len(expected)]
            assert instruction.startswith("Black plays "), instruction
            match = re.search(r"move the \w+ from (\w\d) to (\w\d)", instruction)
            assert match, instruction
            move = next(m for m in board.legal_moves if chess.square_name(m.from_square) == match[1]
                        and chess.square_name(m.to_square) == match[2])  # fmt: skip
            san = board.san(move)
            expected.append(instruction)
            done = words.say("done")
            if san.endswith(("+", "#")):
                done = words.say("move.check" if san.endswith("+") else "move.mate", move=done)
            expected.append(words.say("move.said", move=done))
            proc.send(*hand_lines(board, move))
            board.push(move)
            wait_said(sink, len(expected))
        if board.is_game_over():
            winner = {True: "White wins", False: "Black wins", None: "Draw"}[board.outcome().winner]
            sink.wait_for(lambda texts: winner.lower() in texts[-1].lower())
    finally:
        proc.terminate()
    assert moves_said(sink.texts()) == expected
    assert logged(proc) == sink.texts()


def wait_said(sink: Sink, count: int) -> None:
    sink.wait_for(lambda texts: len(moves_said(texts)) >= count)


def moves_said(texts: list[str]) -> list[str]:
    """The utterances about moves: a move's words, the engine's move, done."""
    skip = ("The board", "New game", "Illegal", "Touch-move", "Checkmate", "Stalemate", "Draw",
            "White wins", "Black wins", "White's flag", "Black's flag")  # fmt: skip
    return [t for t in texts if not t.startswith(skip)]


def test_low_time_and_the_flag_are_said(tmp_path):
    proc, sink = start(tmp_path, "low_time_s = 2")
    try:
        proc.send("option clock 4s+0", "gap 150", "lift e2", "place e4")  # Black's clock runs
        said = sink.wait_for("Black's flag has fallen. White wins on time.")
    finally:
        proc.terminate()
    assert said[-3] == "e4." and said[-1] == "Black's flag has fallen. White wins on time."
    # Said when the time falls below 2 s: "2 seconds" (a loaded machine may say "1 second").
    assert re.fullmatch(r"Black: (2 seconds|1 second) left\.", said[-2]), said
