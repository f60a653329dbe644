"""Chess960 (FIDE Guidelines II): the 960 start positions, castling by its rules, X-FEN
and Shredder-FEN, UCI either way, SAN, repetition and PGN; each checked on positions
built by hand for the reason in its name (the differential tests check them at scale)."""

from __future__ import annotations

import io
import pickle
import random

import chess
import chess.pgn
import pytest

from rules import (
    BLACK,
    STARTING_FEN,
    WHITE,
    FenError,
    Game,
    IllegalMoveError,
    Move,
    PgnError,
    Position,
    VariantError,
    chess960,
    parse_square,
    read_pgn,
    square_name,
)


def p960(fen: str) -> Position:
    return Position.from_fen(fen, variant="chess960")


def castlings(pos: Position) -> dict[str, Move]:
    return {pos.san(m): m for m in pos.legal_moves() if m.is_castling}


def squares(move: Move) -> tuple[str, str, str, str]:
    """The king's from and to, the rook's from and to: what the tracker reads."""
    assert move.rook_from is not None and move.rook_to is not None
    return tuple(  # type: ignore[return-value]
        square_name(sq) for sq in (move.from_square, move.to_square, move.rook_from, move.rook_to)
    )


# ---------------------------------------------------------------- start positions


def test_every_start_position_is_python_chess_s_by_number():
    for number in range(960):
        theirs = chess.Board.from_chess960_pos(number)
        rank = theirs.board_fen().split("/")[-1]
        assert chess960.back_rank(number) == rank
        assert chess960.number_of(rank) == number
        pos = Position.from_chess960(number)
        assert pos.fen() == theirs.fen()
        assert pos.variant == "chess960"
        assert pos.chess960_number() == number


def test_the_numbering_s_landmarks():
    assert chess960.back_rank(518) == "RNBQKBNR"  # the standard array
    assert Position.from_chess960(518).fen() == STARTING_FEN
    assert chess960.back_rank(0) == "BBQNNRKR"
    assert chess960.back_rank(959) == "RKRNNQBB"
    assert len({chess960.back_rank(n) for n in range(960)}) == 960


@pytest.mark.parametrize("number", [-1, 960, 1.0, "518", True, None])
def test_a_number_outside_0_to_959_is_refused(number):
    with pytest.raises(VariantError, match="does not exist: they are numbered 0 to 959"):
        Position.from_chess960(number)


@pytest.mark.parametrize(
    ("rank", "why"),
    [
        ("RNBQKBN", "exactly the eight pieces"),
        ("RNBQKBNN", "exactly the eight pieces"),
        ("rnbqkbnr", "exactly the eight pieces"),
        ("RNBKBQNR", "bishops must stand on squares of opposite colours"),
        ("KRNBQNBR", "king must stand between the two rooks"),
    ],
)
def test_a_back_rank_that_breaks_the_rules_says_which(rank, why):
    with pytest.raises(VariantError, match=why):
        chess960.number_of(rank)


def test_a_random_start_comes_from_the_source_given():
    class Dice:
        def __init__(self, value: int) -> None:
            self.value = value
            self.asked: list[int] = []

        def randrange(self, start: int, /) -> int:
            self.asked.append(start)
            return self.value

    dice = Dice(518)
    assert Position.random_chess960(dice).fen() == STARTING_FEN
    assert dice.asked == [960]  # one draw among all 960
    # A seeded source gives the same positions again; all of them are reachable.
    first = [Position.random_chess960(random.Random(s)).chess960_number() for s in range(50)]
    again = [Position.random_chess960(random.Random(s)).chess960_number() for s in range(50)]
    assert first == again and len(set(first)) > 40
    rng = random.Random(1)
    assert len({chess960.random_number(rng) for _ in range(20_000)}) == 960


def test_a_position_that_is_no_start_has_no_number():
    pos = Position.from_chess960(100)
    pos.push(pos.parse_san("e4"))
    assert pos.chess960_number() is None  # a pawn moved, Black to move
    pos.push(pos.parse_san("e5"))
    assert pos.chess960_number() is None
    assert p960("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Kkq - 0 1").chess960_number() is None


def test_standard_chess_is_the_default_and_unknown_variants_are_refused():
    assert Position().variant == "standard"
    assert Position("chess960").variant == "chess960"
    assert Position("chess960").fen() == STARTING_FEN
    with pytest.raises(VariantError, match="unknown variant 'atomic'"):
        Position.from_fen(STARTING_FEN, variant="atomic")
    with pytest.raises(VariantError, match="'standard' and 'chess960'"):
        Position("Chess960")


# ---------------------------------------------------------------- castling

# The FIDE forms of Chess960 castling (Guidelines II.3), one position each: the four
# squares of each castling (king from, king to, rook from, rook to) as the tracker reads them.
FORMS = [
    # King b1 and rook a1: O-O-O puts the king on c1, the rook on d1 (emptied squares
    # b1 a1, filled c1 d1). O-O with the rook on h1: the king crosses five squares.
    ("r3k2r/8/8/8/8/8/8/RK5R w HAha - 0 1", {"O-O-O": ("b1", "c1", "a1", "d1"),
                                              "O-O": ("b1", "g1", "h1", "f1")}),
    # King f1, rook g1: the king goes to g1 where the rook stood, the rook to f1 where the
    # king stood (nothing is emptied or filled on the board: both squares stay full).
    ("k7/8/8/8/8/8/8/4RKR1 w G - 0 1", {"O-O": ("f1", "g1", "g1", "f1")}),
    # King g1, rook h1: the king stays, only the rook moves (h1 to f1).
    ("4k3/8/8/8/8/8/8/6KR w H - 0 1", {"O-O": ("g1", "g1", "h1", "f1")}),
    # King c1 with the rook on b1: the king stays, the rook jumps over it to d1.
    ("4k3/8/8/8/8/8/8/1RK5 w B - 0 1", {"O-O-O": ("c1", "c1", "b1", "d1")}),
    # King d1 and rook c1: O-O-O, the king to c1 and the rook to d1, swapping squares.
    ("4k3/8/8/8/8/8/8/2RK4 w C - 0 1", {"O-O-O": ("d1", "c1", "c1", "d1")}),
    # King e1 and rook d1: the king moves two squares to c1 past the rook.
    ("4k3/8/8/8/8/8/8/3RK3 w D - 0 1", {"O-O-O": ("e1", "c1", "d1", "d1")}),
    # Black, mirrored: king f8 and rook g8 swap squares; king b8 and rook a8.
    ("1r3kr1/8/8/8/8/8/8/4K3 b g - 0 1", {"O-O": ("f8", "g8", "g8", "f8")}),
    ("rk5r/8/8/8/8/8/8/4K3 b ha - 0 1", {"O-O-O": ("b8", "c8", "a8", "d8"),
                                         "O-O": ("b8", "g8", "h8", "f8")}),
]  # fmt: skip


@pytest.mark.parametrize(("fen", "expected"), FORMS, ids=[f[0].split()[0] for f in FORMS])
def test_every_form_of_castling_puts_king_and_rook_on_the_usual_squares(fen, expected):
    pos = p960(fen)
    found = castlings(pos)
    assert {san: squares(m) for san, m in found.items()} == expected
    for move in found.values():
        before = pos.fen()
        pos.push(move)
        rank = "1" if pos.turn == BLACK else "8"
        king = "K" if pos.turn == BLACK else "k"
        rook = "R" if pos.turn == BLACK else "r"
        assert pos.piece_at(move.to_square).symbol() == king
        assert pos.piece_at(move.rook_to).symbol() == rook
        assert square_name(move.to_square)[0] in "cg" and square_name(move.rook_to)[0] in "df"
        assert square_name(move.to_square)[1] == rank
        # Both sides' rights of the castled side are gone; the other side's stay.
        assert pos.castling_rooks(not pos.turn) == []
        assert pos.pop() == move
        assert pos.fen() == before


def test_the_king_may_not_pass_through_an_attacked_square():
    # King b1 to g1 passes c1 d1 e1 f1: a black rook on e8 sees e1.
    pos = p960("4r1k1/8/8/8/8/8/8/1K5R w H - 0 1")
    assert castlings(pos) == {}
    # Blocked on e-file: castling is legal again.
    assert list(castlings(p960("4r1k1/4p3/8/8/8/8/8/1K5R w H - 0 1"))) == ["O-O"]


def test_the_king_may_not_castle_out_of_check_or_into_it():
    assert castlings(p960("1r4k1/8/8/8/8/8/8/RK6 w A - 0 1")) == {}  # b1 in check
    assert castlings(p960("2r3k1/8/8/8/8/8/8/RK6 w A - 0 1")) == {}  # c1 attacked
    assert list(castlings(p960("4r1k1/8/8/8/8/8/8/RK6 w A - 0 1"))) == ["O-O-O"]  # e1 is not passed


def test_an_attack_opened_by_the_castling_rook_leaving_forbids_castling():
    # King c1 stays, rook b1 goes to d1: the queen on a1 then sees c1.
    assert castlings(p960("6k1/8/8/8/8/8/8/qRK5 w B - 0 1")) == {}
    # The same with a knight on a1 (it attacks no square of the rank): legal.
    assert list(castlings(p960("6k1/8/8/8/8/8/8/nRK5 w B - 0 1"))) == ["O-O-O"]


def test_every_square_between_must_be_empty_but_for_king_and_rook():
    # King b1 to c1, rook a1 to d1: d1 must be empty.
    assert castlings(p960("6k1/8/8/8/8/8/8/RK1N4 w A - 0 1")) == {}
    # King g1 stays, rook b1 to d1... no: rook on the a side of g1 goes to d1, the king
    # to c1: c1 d1 e1 f1 must be empty; a bishop on e1 blocks.
    assert castlings(p960("6k1/8/8/8/8/8/8/1R2B1K1 w B - 0 1")) == {}
    assert list(castlings(p960("6k1/8/8/8/8/8/8/1R4K1 w B - 0 1"))) == ["O-O-O"]
    # The square beyond the rook's destination does not matter (a knight on a1, rook c1).
    assert list(castlings(p960("6k1/8/8/8/8/8/8/NRK5 w B - 0 1"))) == ["O-O-O"]


def test_rights_belong_to_rooks_not_to_sides():
    pos = p960("rkr5/pppppppp/8/8/8/8/PPPPPPPP/RKR5 w CAca - 0 1")
    assert pos.castling_rooks(WHITE) == [parse_square("a1"), parse_square("c1")]
    # After the c1 rook moves away and back, only a1 may castle.
    for uci in ["c1d1", "c8d8", "d1c1", "d8c8"]:
        pos.push(pos.parse_uci(uci))
    assert pos.castling_rooks(WHITE) == [parse_square("a1")]
    assert pos.fen().split()[2] == "Qq"
    # An inner rook's right beside an outer rook without one: X-FEN names its file.
    two = p960("1k6/8/8/8/8/8/8/1K4RR w G - 0 1")
    assert two.fen().split()[2] == "G" and two.fen(shredder=True).split()[2] == "G"
    assert squares(castlings(two)["O-O"]) == ("b1", "g1", "g1", "f1")


def test_a_captured_rook_loses_its_right_and_a_king_move_loses_both():
    pos = p960("r1k4r/8/8/8/8/8/6B1/R1K4R w HAha - 0 1")
    pos.push(pos.parse_san("Bxa8"))
    assert pos.fen().split()[2] == "KQk"
    pos.push(pos.parse_san("Kd8"))
    assert pos.fen().split()[2] == "KQ"


def test_repetition_counts_which_rooks_may_castle():
    # The same pieces twice; the second time the g1 rook has lost its right.
    game = Game(p960("1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w HBhb - 0 1"))
    for san in ["Rc1", "Rc8", "Rb1", "Rb8"] * 2:
        game.push_san(san)
    # b-rooks went away and back: positions repeat among themselves, not with the start.
    assert game.position.board_fen() == game.start.board_fen()
    assert game.position.repetition_key() != game.start.repetition_key()
    assert game.position.fen().split()[2] == "Kk"
    assert game.can_claim_threefold() is False
    game.push_san("Rc1")
    game.push_san("Rc8")
    game.push_san("Rb1")
    game.push_san("Rb8")
    assert game.can_claim_threefold() is True


# ---------------------------------------------------------------- notation


def test_uci_is_king_takes_rook_in_chess960_and_king_to_square_in_standard_chess():
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    standard, c960 = Position.from_fen(fen), p960(fen)
    assert sorted(m.uci() for m in standard.legal_moves() if m.is_castling) == ["e1c1", "e1g1"]
    assert sorted(m.uci() for m in c960.legal_moves() if m.is_castling) == ["e1a1", "e1h1"]
    # Both read both, where no other move has that text.
    for pos in (standard, c960):
        assert pos.parse_uci("e1g1") == pos.parse_uci("e1h1")
        assert pos.parse_uci("e1c1") == pos.parse_uci("e1a1")
        assert pos.parse_uci("e1g1").is_castling
    assert not standard.parse_uci("e1g1").is_chess960_castling
    assert c960.parse_uci("e1g1").is_chess960_castling


def test_a_king_step_keeps_its_text_where_a_castling_lands_on_the_same_square():
    pos = p960("r3k2r/8/8/8/8/8/8/RK5R w HAha - 0 1")
    step = pos.parse_uci("b1c1")
    assert not step.is_castling and pos.san(step) == "Kc1"
    long = pos.parse_uci("b1a1")
    assert long.is_castling and pos.san(long) == "O-O-O" and long.to_square == step.to_square
    assert long != step and hash(long) != hash(step)
    # f1g1 with the rook on g1 can only be the castling: read as one.
    pos = p960("k7/8/8/8/8/8/8/4RKR1 w G - 0 1")
    assert pos.parse_uci("f1g1") == pos.parse_uci("f1g1") == Move.castling(5, 6)
    assert pos.parse_uci("f1g1").uci() == "f1g1"
    # Not legal: said so, naming castling.
    with pytest.raises(IllegalMoveError, match="castling is not allowed here"):
        p960("k7/8/8/8/8/8/8/4RKR1 w - - 0 1").parse_uci("f1g1")


def test_san_names_castling_by_the_rook_s_side_with_check_and_mate():
    # The rook lands on f1 and gives check along the f-file.
    pos = p960("5k2/8/8/8/8/8/8/4K2R w H - 0 1")
    assert pos.san(pos.parse_uci("e1h1")) == "O-O+"
    pos = p960("5k2/7R/8/8/8/8/8/R3K3 w A - 0 1")
    assert pos.san(pos.parse_san("O-O-O")) == "O-O-O"
    # Black's king is walled in by its own rooks and pawns: the rook on d1 mates.
    mate = p960("2rkr3/2p1p3/8/8/8/8/8/R3K3 w A - 0 1")
    assert mate.san(mate.parse_san("O-O-O")) == "O-O-O#"
    assert mate.parse_san("0-0-0") == mate.parse_san("O-O-O")


def test_moves_pickle_and_copy_as_themselves():
    for move in (Move.castling(5, 6), Move.castling(60, 56), Move.from_uci("e1g1")):
        again = pickle.loads(pickle.dumps(move))
        assert again == move and again.uci() == move.uci()
        assert squares(again) == squares(move) if move.is_castling else True
    assert repr(Move.castling(5, 6)) == "Move.castling(5, 6)"
    with pytest.raises(ValueError, match="one back rank"):
        Move.castling(4, 12)


# ---------------------------------------------------------------- FEN


@pytest.mark.parametrize(
    ("fen", "xfen", "shredder"),
    [
        ("rkr5/8/8/8/8/8/8/RKR5 w CAca - 0 1", "KQkq", "CAca"),
        ("rkr5/8/8/8/8/8/8/RKR5 w KQkq - 0 1", "KQkq", "CAca"),
        # An inner rook: X-FEN names the file, K names the outer one.
        ("1k1r2rr/8/8/8/8/8/8/1K1R2RR w Gg - 0 1", "Gg", "Gg"),
        ("r2k2rr/8/8/8/8/8/8/R2K2RR w GAga - 0 1", "GQgq", "GAga"),
        ("r2k2rr/8/8/8/8/8/8/R2K2RR w KQkq - 0 1", "KQkq", "HAha"),
        ("rr1k4/8/8/8/8/8/8/RR1K4 w Bb - 0 1", "Bb", "Bb"),
        ("rr1k4/8/8/8/8/8/8/RR1K4 w Q - 0 1", "Q", "A"),
    ],
)
def test_x_fen_and_shredder_fen_are_read_and_written(fen, xfen, shredder):
    pos = p960(fen)
    assert pos.fen().split()[2] == xfen
    assert pos.castling_rights == xfen
    assert pos.fen(shredder=True).split()[2] == shredder
    assert p960(pos.fen()) == pos == p960(pos.fen(shredder=True))
    board = chess.Board(fen, chess960=True)
    assert (pos.fen(), pos.fen(shredder=True)) == (board.fen(), board.fen(shredder=True))


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("1k6/8/8/8/8/8/8/RK6 w K - 0 1", "'K' names no rook: no white rook on the first rank "
                                          "on the h side of the king on b1"),
        ("1k6/8/8/8/8/8/8/R6K w - - 0 1", None),
        ("1k6/8/8/8/8/8/1K6/R7 w Q - 0 1", "'Q' needs the white king on the first rank"),
        ("1k6/8/8/8/8/8/1K6/R7 w A - 0 1", "White keeps a right to castle but its king is not "
                                          "on the first rank"),
        ("1k6/8/8/8/8/8/8/RK6 w C - 0 1", "FEN castling 'C': no white rook on c1"),
        ("1k6/8/8/8/8/8/8/RK6 w B - 0 1", "FEN castling 'B': no white rook on b1"),
        ("1k6/8/8/8/8/8/8/1K3RRR w FH - 0 1", r"White has 2 rights on the h side of its king "
                                              r"\(f1 and h1\)"),
        ("1k6/8/8/8/8/8/8/RK6 w QA - 0 1", "'Q' and 'A' both name the rook on a1"),
        ("1k6/8/8/8/8/8/8/RK6 w AA - 0 1", "'A' appears twice"),
        ("1k6/8/8/8/8/8/8/RK6 w x - 0 1", "'x' is not one of K, Q, k, q, a file letter"),
    ],
)  # fmt: skip
def test_castling_field_errors_name_the_rook_at_fault(fen, message):
    if message is None:
        assert p960(fen).castling_rights == "-"
        return
    with pytest.raises(FenError, match=message) as caught:
        p960(fen)
    assert caught.value.field == "castling"


def test_standard_chess_reads_shredder_fen_of_its_corner_rooks_only():
    assert Position.from_fen(STARTING_FEN.replace("KQkq", "HAha")).fen() == STARTING_FEN
    with pytest.raises(FenError, match="standard chess castles only with the rooks of the a-"):
        Position.from_fen("1k6/8/8/8/8/8/8/1R2K2R w B - 0 1")
    # Its own castling rules stand: the king on e1, the rook on the corner.
    with pytest.raises(FenError, match="FEN castling 'K': no white king on e1"):
        Position.from_fen("1k6/8/8/8/8/8/8/5K1R w K - 0 1")
    either = Position.from_fen("1k6/8/8/8/8/8/8/5K1R w K - 0 1", variant="chess960")
    assert either.castling_rights == "K"


def test_positions_of_different_variants_differ():
    assert Position() != Position("chess960")
    assert repr(Position("chess960")).endswith("variant='chess960')")
    assert Position("chess960").copy().variant == "chess960"


# ---------------------------------------------------------------- PGN


def test_every_chess960_pgn_says_its_variant_and_start_and_python_chess_replays_it():
    rng = random.Random(960)
    castled = 0
    for number in (518, 0, 959, 777):
        game = Game(Position.from_chess960(number))
        while game.outcome() is None and len(game.moves) < 60:
            pos = game.position
            moves = pos.legal_moves()
            castles = [m for m in moves if m.is_castling]
            # Clear the back rank (knights, bishops, queen) to make way for castling.
            back = [m for m in moves if m.from_square >> 3 in (0, 7)
                    and pos.piece_at(m.from_square).symbol() in "NBQnbq"]  # fmt: skip
            game.push(rng.choice(castles or (back if back and rng.random() < 0.7 else moves)))
        castled += any(m.is_castling for m in game.moves)
        text = game.pgn({"White": "Ann"})
        headers = dict(line[1:-1].split(" ", 1) for line in text.split("\n\n")[0].splitlines())
        assert headers["Variant"] == '"Chess960"' and headers["SetUp"] == '"1"'
        assert headers["FEN"] == f'"{chess960.start_fen(number)}"'
        their = chess.pgn.read_game(io.StringIO(text))
        assert not their.errors and their.board().chess960
        assert [m.uci() for m in their.mainline_moves()] == [m.uci() for m in game.moves]
        ours = read_pgn(text)[0].game
        assert ours.start.variant == "chess960" and ours.moves == game.moves
        assert ours.position == game.position
    assert castled >= 3


def test_the_writer_owns_the_variant_tag():
    text = Game().pgn({"Variant": "Chess960", "FEN": "8/8/8/8/8/8/8/8 w - - 0 1"})
    assert "Variant" not in text and "FEN" not in text
    text = Game(Position.from_chess960(518)).pgn({"Variant": "Standard"})
    assert '[Variant "Chess960"]' in text and '[FEN "' + STARTING_FEN + '"]' in text


def test_chess960_pgn_is_read_with_its_variant_s_names_and_shredder_fen():
    # The king on f1 and the rook on g1 swap squares (a Shredder-FEN as published).
    start = "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9"
    for name in ("Chess960", "chess 960", "Fischerandom", "Fischer Random"):
        text = f'[Variant "{name}"]\n[SetUp "1"]\n[FEN "{start}"]\n\n9. O-O a6 *\n'
        game = read_pgn(text)[0].game
        assert game.start.variant == "chess960"
        assert [m.uci() for m in game.moves] == ["f1g1", "a7a6"]
    # Castled once, the king cannot castle again.
    with pytest.raises(PgnError, match=r"move 10\. O-O-O: illegal SAN 'O-O-O': castling queenside"):
        read_pgn(text.replace("*", "10. O-O-O *"))
    # Without a FEN: the standard array, under Chess960's rules.
    game = read_pgn('[Variant "Chess960"]\n\n1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O *')[0].game
    assert game.moves[-1].uci() == "e1h1"
    # Lichess's name for a standard game from a set-up position.
    game = read_pgn('[Variant "From Position"]\n[FEN "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]\n\n1. O-O *')
    assert game[0].game.moves[-1].uci() == "e1g1"
    with pytest.raises(PgnError, match="PGN game 1: Variant 'Atomic' is not played by these rules"):
        read_pgn('[Variant "Atomic"]\n\n1. e4 *')
    with pytest.raises(PgnError, match="bad FEN header: FEN castling 'B'"):
        read_pgn('[FEN "1k6/8/8/8/8/8/8/1R2K3 w B - 0 1"]\n\n*')
