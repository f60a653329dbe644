"""FEN: read strictly (every error names its field and says what is wrong), written back."""

from __future__ import annotations

import pytest

from rules import STARTING_FEN, FenError, Position

START = STARTING_FEN.split()


def _with(field: int, value: str) -> str:
    parts = START[:]
    parts[field] = value
    return " ".join(parts)


@pytest.mark.parametrize(
    ("fen", "field", "message"),
    [
        ("", "fen", "has 0 fields, expected 6"),
        (" ".join(START[:5]), "fullmove", "missing fullmove"),
        (" ".join(START[:3]), "en passant", "missing en passant, halfmove, fullmove"),
        (STARTING_FEN + " extra", "fen", "extra text after the fullmove number"),
        (_with(0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP"), "placement", "has 7 ranks"),
        (_with(0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX"), "placement", "'X' is neither"),
        (
            _with(0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN"),
            "placement",
            "describes 7 squares",
        ),
        (_with(0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR"), "placement", "describes 9"),
        (_with(0, "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR"), "placement", "rank 6 ('9')"),
        (_with(0, "rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR"), "placement", "two digits"),
        (_with(1, "x"), "side", "must be 'w' or 'b'"),
        (_with(2, "KQkx"), "castling", "'x' is not one of K, Q, k, q"),
        (_with(2, "KKq"), "castling", "'K' appears twice"),
        (_with(3, "e9"), "en passant", "must be '-' or a square"),
        (_with(3, "e3"), "en passant", "must be on rank 6 when White is to move"),
        (_with(4, "-1"), "halfmove", "must be a whole number >= 0"),
        (_with(4, "½"), "halfmove", "must be a whole number"),
        (_with(4, "99999999999999999999999"), "halfmove", "cannot be: more half-moves than any"),
        (_with(4, "20001"), "halfmove", "cannot be: more half-moves than any game can play"),
        (_with(4, "3"), "halfmove", "halfmove clock 3 cannot be"),  # move 1: at most 2
        ("4k3/8/8/8/8/8/8/4K2R b K - 22 10", "halfmove", "(at most 21)"),
        (_with(5, "0"), "fullmove", "must be >= 1"),
        (_with(5, "x"), "fullmove", "must be a whole number >= 1"),
        (_with(5, "10001"), "fullmove", "fullmove number '10001' cannot be: no game lasts"),
    ],
)
def test_malformed_fields_are_named(fen, field, message):
    with pytest.raises(FenError, match="FEN") as info:
        Position.from_fen(fen)
    assert info.value.field == field
    assert message in str(info.value)


def test_a_halfmove_clock_up_to_two_a_full_move_is_accepted():
    # Hand-written FENs often say move 1 whatever came before: a little slack.
    assert Position.from_fen("4k3/8/8/8/8/8/8/4K2R w K - 2 1").halfmove_clock == 2
    assert Position.from_fen("4k3/8/8/8/8/8/8/4K2R b K - 21 10").halfmove_clock == 21
    assert Position.from_fen("4k3/8/8/8/8/8/8/4K2R w K - 150 75").halfmove_clock == 150


@pytest.mark.parametrize(
    ("fen", "field", "message"),
    [
        (
            "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
            "placement",
            "Black has no king",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w kq - 0 1",
            "placement",
            "White has 2 kings",
        ),
        ("4k3/8/8/8/8/8/8/8 w - - 0 1", "placement", "White has no king"),
        ("Pnbqkbnr/1ppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w Qkq - 0 1", "placement", "a pawn on a8"),
        ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "placement", "a pawn on a1"),
        ("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1", "placement", "Black has more than 8 pawns"),
        ("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "side", "Black is in check with White to move"),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling", "'K': no white rook on h1"),
        ("4k3/8/8/8/8/8/8/3K3R w K - 0 1", "castling", "'K': no white king on e1"),
        ("r3k3/8/8/8/8/8/8/4K3 w k - 0 1", "castling", "'k': no black rook on h8"),
        ("4k3/8/8/8/8/8/8/R3K3 w q - 0 1", "castling", "'q': no black rook on a8"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
            "en passant",
            "e6: no black pawn on e5",
        ),
        (
            "rnbqkb1r/pppp1ppp/4n3/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
            "en passant",
            "e6: the square is not empty",
        ),
        (
            "rnbqkbnr/ppppp1pp/8/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "en passant",
            "",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/4N3/PPPP1PPP/RNBQKB1R b KQkq e3 0 1",
            "en passant",
            "e3: the square is not empty",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPPNPPP/RNBQKB1R b KQkq e3 0 1",
            "en passant",
            "e2 is occupied",
        ),
    ],
)
def test_impossible_positions_are_refused(fen, field, message):
    if not message:  # a consistent e.p. square: accepted
        assert Position.from_fen(fen).ep_square is not None
        return
    with pytest.raises(FenError) as info:
        Position.from_fen(fen)
    assert info.value.field == field
    assert message in str(info.value)


def test_fen_error_is_a_value_error():
    with pytest.raises(ValueError, match="must be 'w' or 'b'"):
        Position.from_fen(_with(1, "W"))


def test_start_position_round_trips():
    assert Position().fen() == STARTING_FEN
    assert Position.from_fen(STARTING_FEN) == Position()


def test_ep_square_is_written_only_when_the_capture_is_legal():
    # After 1. e4 nothing can take e.p.: the square is dropped, as python-chess does.
    pos = Position()
    pos.push(pos.parse_san("e4"))
    assert pos.ep_square == 20
    assert pos.fen().split()[3] == "-"
    # A black pawn on d4 can take e.p. on e3.
    pos = Position.from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1")
    assert pos.fen().split()[3] == "e3"
    # ...but not when it is pinned against its king along the rank.
    pos = Position.from_fen("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1")
    assert pos.fen().split()[3] == "-"


def test_castling_rights_text_is_canonical():
    pos = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1")
    assert pos.castling_rights == "KQkq"
    assert pos.fen().split()[2] == "KQkq"
    assert Position.from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").castling_rights == "-"


def test_clocks_are_read_and_written():
    pos = Position.from_fen("4k3/8/8/8/8/8/8/4K2R w K - 37 112")
    assert (pos.halfmove_clock, pos.fullmove_number) == (37, 112)
    assert pos.fen().endswith(" 37 112")


def test_an_impossible_position_names_every_problem():
    with pytest.raises(FenError) as info:
        Position.from_fen("4k3/8/8/8/8/8/8/P3K3 w Kq e6 0 1")
    error = info.value
    assert error.field == "placement"
    assert [field for field, _ in error.problems] == [
        "placement",
        "castling",
        "castling",
        "en passant",
    ]
    assert "a pawn on a1" in str(error)
    assert "'K': no white rook on h1" in str(error)
    assert "'q': no black rook on a8" in str(error)
    assert "e6: no black pawn on e5" in str(error)


def test_fen_must_be_text():
    with pytest.raises(FenError, match="FEN must be text, not NoneType") as info:
        Position.from_fen(None)
    assert info.value.field == "fen"


@pytest.mark.parametrize("field", [4, 5])
def test_counters_thousands_of_digits_long_are_refused_quoting_only_their_start(field):
    # Python refuses int() of more than 4300 digits with an error of its own: the FEN
    # reader must say which field is wrong before that, and not echo 5000 digits back.
    digits = "7" * 5000
    with pytest.raises(FenError) as info:
        Position.from_fen(_with(field, digits))
    name = ("halfmove", "fullmove")[field - 4]
    assert info.value.field == name
    message = str(info.value)
    assert "(5000 characters) cannot be" in message
    assert "7" * 32 + "…" in message and "7" * 33 not in message
    assert len(message) < 200


def test_the_last_move_any_game_can_reach_is_read():
    # The 75-move rule ends the longest possible game on move 8849: move 10000 is the
    # limit, with room to spare; leading zeros are only zeros.
    assert Position.from_fen(_with(5, "10000")).fullmove_number == 10_000
    assert Position.from_fen(_with(5, "0" * 300 + "42")).fullmove_number == 42


def test_long_fields_are_quoted_short():
    with pytest.raises(FenError) as info:
        Position.from_fen("x" * 3000)
    assert "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (3000 characters) has 1 fields" in str(info.value)
    with pytest.raises(FenError) as info:
        Position.from_fen(_with(2, "K" * 500))
    assert info.value.field == "castling" and len(str(info.value)) < 150
