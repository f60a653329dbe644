"""SAN: written with minimal disambiguation and +/#, read leniently, errors that say why."""

from __future__ import annotations

import pytest

from rules import Position, SanError


def san_of(fen: str, uci: str) -> str:
    pos = Position.from_fen(fen)
    return pos.san(pos.parse_uci(uci))


@pytest.mark.parametrize(
    ("fen", "uci", "san"),
    [
        ("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "b1d2", "Nbd2"),  # by file
        ("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3", "R1a3"),  # same file: by rank
        ("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "a1b2", "Qa1b2"),  # both needed
        ("4k3/8/8/3b4/8/5N2/8/1N5K w - - 0 1", "b1d2", "Nd2"),  # the rival is pinned
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1", "O-O"),
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1", "O-O-O"),
        ("r3k3/8/8/8/8/8/8/4K3 b q - 0 1", "e8c8", "O-O-O"),
        ("8/8/8/8/8/8/8/R3K1k1 w Q - 0 1", "e1c1", "O-O-O+"),
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", "exd5"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", "exd6"),
        ("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q", "e8=Q+"),
        ("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8n", "e8=N"),
        ("3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7d8r", "exd8=R+"),
        ("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "d8h4", "Qh4#"),
        ("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "h1h8", "Rh8+"),
        ("4k3/8/8/8/8/8/4p3/4K3 w - - 0 1", "e1e2", "Kxe2"),
    ],
)
def test_san_written(fen, uci, san):
    assert san_of(fen, uci) == san
    assert Position.from_fen(fen).parse_san(san).uci() == uci


@pytest.mark.parametrize(
    ("fen", "text", "uci"),
    [
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "0-0", "e1g1"),
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "0-0-0", "e1c1"),
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "O-O-O+", "e1c1"),
        ("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e8Q", "e7e8q"),
        ("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e8=q", "e7e8q"),
        ("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e8(N)", "e7e8n"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "exd6e.p.", "e5d6"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "exd6 e.p.", "e5d6"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "ed6", "e5d6"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "Pe4", "e2e4"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e2-e4", "e2e4"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "Ng1f3", "g1f3"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "Nf3!?", "g1f3"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", " Nf3 ", "g1f3"),
        ("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nfd2", "f3d2"),
        ("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "N3d2", "f3d2"),
    ],
)
def test_san_read_leniently(fen, text, uci):
    assert Position.from_fen(fen).parse_san(text).uci() == uci


@pytest.mark.parametrize(
    ("fen", "text", "message"),
    [
        ("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nd2", "ambiguous SAN 'Nd2': could be Nbd2, Nfd2"),
        ("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e8", "a pawn reaching e8 must promote"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "Zf3", "cannot read SAN 'Zf3': expected e.g."),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "", "cannot read SAN ''"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "O-O", "castling kingside is not legal for White"),
        ("4k3/8/8/8/8/8/8/4K3 b - - 0 1", "O-O-O", "castling queenside is not legal for Black"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "Nd2",
            "illegal SAN 'Nd2': no such legal move for White in rnbqkbnr/",
        ),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e5", "no such legal move"),
    ],
)
def test_san_errors_say_why(fen, text, message):
    with pytest.raises(SanError) as info:
        Position.from_fen(fen).parse_san(text)
    assert message in str(info.value)


def test_san_of_an_illegal_move_is_refused():
    from rules import IllegalMoveError, Move

    with pytest.raises(IllegalMoveError, match="cannot write SAN for e2e5: not legal"):
        Position().san(Move.from_uci("e2e5"))
    with pytest.raises(SanError, match="SAN must be text, not int"):
        Position().parse_san(5)


def test_san_leaves_the_position_unchanged():
    pos = Position.from_fen("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2")
    before = pos.fen()
    for move in pos.legal_moves():
        pos.san(move)
    assert pos.fen() == before and pos.move_stack == []
