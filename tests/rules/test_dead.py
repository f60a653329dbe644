"""Dead positions and unwinnable sides (rules/dead.py): positions built by hand, each
with the reason for its answer; insufficient material against python-chess (the oracle
for that, and only that); and soundness: wherever a mate is shown possible by a line of
legal moves, the side that mates is never called unwinnable."""

from __future__ import annotations

import io
import itertools
import random

import chess
import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import BLACK, WHITE, FenError, Game, Position
from rules.dead import _locked_bounds, _slide
from rules.tables import RAYS
from tests.conftest import SHARED_DATA

# ---------------------------------------------------------------- built by hand

DEAD = [
    # Four pawn pairs head to head on a, c, e, g. Each king is shut in behind its own
    # pawns: the squares of the fourth (fifth) rank it could pass by are attacked by an
    # enemy pawn that can never move. No pawn can ever capture: nothing comes near.
    ("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1", "a locked wall, kings only"),
    # The same with a bishop each. White's runs on dark squares, its pawns stand on dark
    # squares and block every dark diagonal across; Black's pawns stand on light squares
    # a dark bishop never attacks. Black's bishop (light) likewise. Nobody can check.
    ("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1", "bishops that can reach nothing"),
    # Bishops all on light squares, no pawns: the checked king always has a dark flight
    # square (insufficient material, the simple case of a dead position).
    ("4k3/8/8/8/8/8/8/3bKB2 w - - 0 1", "same-coloured bishops"),
    # The white king can take the four black pawns of the fifth rank (no pawn guards
    # them), but that opens nothing: the white pawns behind then walk up to their own
    # sixth-rank pawns, which stand head to head with Black's; the black king is shut
    # in on the eighth rank. Pawns a king may take only vanish: they never promote.
    ("1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - - 0 1", "pawns only a king takes"),
    # Black must take the rook (Kxa8 is the only move): bare kings. Dead now, although
    # White still has a rook: every series of legal moves goes through that capture.
    ("Rk6/8/2K5/8/8/8/8/8 b - - 0 1", "a rook that must be taken"),
]

ALIVE = [
    # h3xg4 is possible: after it the white g-pawn runs to g8 and queens.
    ("4k3/8/8/p1p1p3/P1P1P1p1/7P/8/4K3 w - - 0 1", "a lever"),
    # The f1 knight jumps the wall and can take a pawn, or be taken by one.
    ("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4KN2 w - - 0 1", "a knight that can break in"),
    # A light bishop reaches c4 and attacks b5; Bxb5 or ...cxb4 opens the wall.
    ("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/3BK3 w - - 0 1", "a bishop that can attack the wall"),
    # Opposite-coloured bishops: the other side's bishop can block a flight square of
    # the colour the checking bishop never covers (Ka8 Bb8 / Kb6 Bd5 is mate).
    ("4k3/8/8/8/8/8/8/2b1KB2 w - - 0 1", "opposite-coloured bishops"),
    # The g- and h-files are open: the white king walks up the h-file to the black
    # side and takes g5 or e5... then a white pawn is free.
    ("4k3/8/8/p1p1p3/P1P1P3/8/8/4K3 w - - 0 1", "a king that can reach a pawn"),
    # A black knight can shut its own king in: Kh8 Ng8, and the bishop may yet mate.
    ("4k3/8/8/8/8/8/3n4/4KB2 w - - 0 1", "a knight the loser can block with"),
]


@pytest.mark.parametrize(("fen", "why"), DEAD, ids=[why for _, why in DEAD])
def test_dead_positions(fen, why):
    pos = Position.from_fen(fen)
    assert pos.is_dead(), why
    assert pos.unwinnable(WHITE) and pos.unwinnable(BLACK)


@pytest.mark.parametrize(("fen", "why"), ALIVE, ids=[why for _, why in ALIVE])
def test_positions_where_a_mate_is_still_possible(fen, why):
    pos = Position.from_fen(fen)
    assert not pos.is_dead(), why
    assert not (pos.unwinnable(WHITE) and pos.unwinnable(BLACK))


@pytest.mark.parametrize(
    ("fen", "move", "other"),
    [
        # g3-g4 closes the last file; until then the white king can walk to h4 and take
        # g5 (no pawn that never moves defends it). Any other move leaves that walk open.
        ("4k3/8/8/p1p1p1p1/P1P1P3/6P1/8/4K3 w - - 0 1", "g4", "Kf2"),
        # Black has just played ...g7-g5: hxg6 en passant is possible now and only now,
        # and frees a white pawn on g6. Declined, the wall is shut for good.
        ("4k3/8/7p/p1p1p1pP/P1P1P1P1/8/8/4K3 w - g6 0 2", "Kd1", "hxg6"),
        # The king takes the last piece that could break the wall.
        ("4k3/8/8/p1p1p1p1/P1P1P1P1/8/4r3/4K3 w - - 0 1", "Kxe2", "Kd1"),
    ],
)
def test_positions_one_tempo_away_from_being_dead(fen, move, other):
    pos = Position.from_fen(fen)
    assert not pos.is_dead()
    pos.push(pos.parse_san(move))
    assert pos.is_dead()
    pos.pop()
    pos.push(pos.parse_san(other))
    assert not pos.is_dead()


def test_one_side_can_be_unable_to_mate_while_the_other_can():
    # A lone white king against king and queen: White can never mate; Black can.
    pos = Position.from_fen("4k3/8/8/8/8/8/8/3qK3 w - - 0 1")
    assert pos.unwinnable(WHITE) and not pos.unwinnable(BLACK)
    assert not pos.is_dead()
    # A knight and king cannot mate a king with only queens beside it (python-chess's
    # rule), but the queens can mate.
    pos = Position.from_fen("4k3/3qq3/8/8/8/8/8/4KN2 w - - 0 1")
    assert pos.unwinnable(WHITE) and not pos.unwinnable(BLACK)


def test_checkmate_and_stalemate():
    mated = Position.from_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1")
    assert mated.is_checkmate()
    assert not mated.unwinnable(WHITE)  # White has mated: it was winnable
    assert mated.unwinnable(BLACK)
    assert not mated.is_dead()
    # A mate found by the search (Black has no move): not dead either.
    assert not Position.from_fen("8/p3p3/P1p1Pp2/2P2P2/5P2/3K4/6P1/3k3Q b - - 0 1").is_dead()
    stalemate = Position.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stalemate.is_stalemate()
    assert stalemate.unwinnable(WHITE) and stalemate.is_dead()


# ---------------------------------------------------------------- insufficient material

_EXTRA = ["N", "B", "R", "Q", "P", "n", "b", "r", "q", "p"]


def _small_material_positions():
    """Kings plus up to two more men, and up to four bishops, on seeded random squares."""
    rng = random.Random(14)
    sets = [()] + [(m,) for m in _EXTRA] + list(itertools.combinations_with_replacement(_EXTRA, 2))
    sets += [tuple(rng.choice("Bb") for _ in range(n)) for n in (3, 4) for _ in range(20)]
    for men in sets:
        for _ in range(10):
            squares = rng.sample(range(64), 2 + len(men))
            board = chess.Board(None)
            board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
            for sq, symbol in zip(squares[2:], men, strict=True):
                if symbol in "Pp" and chess.square_rank(sq) in (0, 7):
                    sq ^= 8  # pawns never stand on the first or last rank
                if board.piece_at(sq) is None:
                    board.set_piece_at(sq, chess.Piece.from_symbol(symbol))
            board.turn = rng.choice([chess.WHITE, chess.BLACK])
            if board.is_valid():
                yield board


def test_every_insufficient_material_case_agrees_with_python_chess():
    seen = 0
    insufficient = 0
    for board in _small_material_positions():
        pos = Position.from_fen(board.fen())
        seen += 1
        assert pos.is_insufficient_material() == board.is_insufficient_material(), board.fen()
        for color in (chess.WHITE, chess.BLACK):
            if board.has_insufficient_material(color):
                assert pos.unwinnable(color), (board.fen(), color)
        if board.is_insufficient_material():
            insufficient += 1
            assert pos.is_dead()
            outcome = Game(pos).outcome()
            if not board.is_checkmate() and not board.is_stalemate():
                assert outcome.termination == "insufficient_material", board.fen()
    assert seen > 500 and insufficient > 100


# ---------------------------------------------------------------- soundness


def _helpmate(pos: Position, color: bool, plies: int, budget: list[int]) -> list | None:
    """A line of at most ``plies`` legal moves after which ``color`` has mated, found by
    depth-first search with both sides cooperating (``budget``: positions left)."""
    if pos.is_checkmate():
        return [] if pos.turn != color else None
    if plies == 0 or budget[0] <= 0:
        return None
    budget[0] -= 1
    moves = pos.legal_moves()
    if plies == 1 and pos.turn != color:
        return None  # the last move must be the mating side's
    for move in moves:
        pos.push(move)
        if plies == 1 and not pos.is_check():
            pos.pop()
            continue
        line = _helpmate(pos, color, plies - 1, budget)
        pos.pop()
        if line is not None:
            return [move, *line]
    return None


def _find_helpmate(pos: Position, color: bool, most: int = 4, nodes: int = 1500):
    budget = [nodes]
    for plies in range(1, most + 1):
        line = _helpmate(pos, color, plies, budget)
        if line is not None:
            return line
    return None


def _random_fen(rng: random.Random) -> str:
    """Kings with a few pieces and no pawn; or locked walls of head-to-head pawns with a
    minor piece or two; or a mixture: many positions are locked, so that the analysis
    goes all the way to the test for a mating square."""
    board: list[str | None] = [None] * 64
    mode = rng.random()
    if mode < 0.4:
        pairs, gaps, men = 0, (1,), rng.choices("NBRQnbrq", k=rng.randint(1, 3))
    elif mode < 0.7:
        pairs, gaps, men = rng.randint(2, 6), (1,), rng.choices("BNbn", k=rng.randint(0, 2))
    else:
        pairs, gaps, men = rng.randint(0, 6), (1, 1, 2), rng.choices("NBRQnbrqPp", k=3)
    for file in rng.sample(range(8), pairs):
        rank = rng.randint(1, 5)
        gap = rng.choice(gaps)
        if rank + gap <= 6:
            board[rank * 8 + file] = "P"
            board[(rank + gap) * 8 + file] = "p"
    for symbol in men:
        sq = rng.randrange(8, 56) if symbol in "Pp" else rng.randrange(64)
        if board[sq] is None:
            board[sq] = symbol
    for king in "Kk":
        empty = [sq for sq in range(64) if board[sq] is None]
        board[rng.choice(empty)] = king
    rows = []
    for rank in range(7, -1, -1):
        row, gap = "", 0
        for sq in range(rank * 8, rank * 8 + 8):
            if board[sq] is None:
                gap += 1
                continue
            row += (str(gap) if gap else "") + board[sq]
            gap = 0
        rows.append(row + (str(gap) if gap else ""))
    return f"{'/'.join(rows)} {rng.choice('wb')} - - 0 1"


def _check_no_unwinnable_side_mates(fen: str, plies: int = 3, nodes: int = 400):
    """Asserts the property for ``fen``; returns (a helpmate was found, the pawns
    were locked)."""
    try:
        pos = Position.from_fen(fen)
    except FenError:
        return False, False
    found = False
    for color in (WHITE, BLACK):
        line = _find_helpmate(pos, color, plies, nodes)
        if line is None:
            continue
        found = True
        replay = pos.copy()
        for move in line:
            replay.push(move)
        assert replay.is_checkmate() and replay.turn != color  # the line is a real mate
        assert not pos.unwinnable(color), (fen, color, [m.uci() for m in line])
        assert not pos.is_dead(), fen
    return found, _locked_bounds(pos) is not None


def _random_mating_line(pos: Position, rng: random.Random, plies: int) -> list | None:
    """A random game from ``pos`` (checks preferred) that ends in mate within ``plies``,
    or None."""
    line = []
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            break
        checks = []
        for m in moves:
            pos.push(m)
            if pos.is_check():
                checks.append(m)
            pos.pop()
        move = rng.choice(checks if checks and rng.random() < 0.7 else moves)
        pos.push(move)
        line.append(move)
    mated = pos.is_checkmate()
    for _ in line:
        pos.pop()
    return line if mated else None


def _soundness_run(seed: int, positions: int, plies: int, nodes: int) -> tuple[int, int, int]:
    rng = random.Random(seed)
    found = locked_and_found = dead = 0
    for _ in range(positions):
        fen = _random_fen(rng)
        has_mate, locked = _check_no_unwinnable_side_mates(fen, plies, nodes)
        found += has_mate
        locked_and_found += has_mate and locked
        try:
            pos = Position.from_fen(fen)
        except FenError:
            continue
        dead += pos.is_dead()
        # Longer helpmates, found by random play: every position on the way to the mate
        # is one from which the mating side can mate.
        for _ in range(3):
            line = _random_mating_line(pos, rng, 60)
            if line is None:
                continue
            found += 1
            winner = pos.turn if len(line) % 2 else not pos.turn
            walk = pos.copy()
            for move in line:
                assert not walk.unwinnable(winner), (walk.fen(), [m.uci() for m in line])
                walk.push(move)
    return found, locked_and_found, dead


def test_a_side_with_a_helpmate_is_never_unwinnable():
    found, locked_and_found, dead = _soundness_run(1, 200, plies=3, nodes=400)
    # Not vacuous: mates were found, also where the pawns were locked and the analysis
    # went as far as looking for a mating square; and some positions were proven dead.
    assert found > 30 and locked_and_found > 3 and dead > 10, (found, locked_and_found, dead)


@pytest.mark.slow
def test_a_side_with_a_helpmate_is_never_unwinnable_long():
    found, locked_and_found, dead = _soundness_run(7, 3000, plies=4, nodes=1500)
    assert found > 400 and locked_and_found > 50 and dead > 150, (found, locked_and_found, dead)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_property_a_helpmate_found_means_not_unwinnable(rng):
    _check_no_unwinnable_side_mates(_random_fen(rng))


def test_no_position_of_a_real_game_is_called_dead_and_the_mating_side_never_unwinnable():
    with open(SHARED_DATA / "selfplay.pgn") as handle:
        games = []
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    for game in games[::4]:  # a quarter of the games keeps the default run short
        board = game.board()
        pos = Position()
        winner = {"1-0": WHITE, "0-1": BLACK}.get(game.headers["Result"])
        for move in game.mainline_moves():
            assert not pos.is_dead(), pos.fen()
            if winner is not None:
                assert not pos.unwinnable(winner), pos.fen()
            board.push(move)
            pos.push(pos.parse_uci(move.uci()))


@pytest.mark.slow
def test_every_selfplay_position():
    text = (SHARED_DATA / "selfplay.pgn").read_text()
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        pos = Position()
        winner = {"1-0": WHITE, "0-1": BLACK}.get(game.headers["Result"])
        for move in game.mainline_moves():
            assert not pos.is_dead()
            assert winner is None or not pos.unwinnable(winner)
            pos.push(pos.parse_uci(move.uci()))


# ---------------------------------------------------------------- the bitboard slides


def test_slides_stop_on_the_first_blocker_as_the_move_tables_do():
    rng = random.Random(5)
    # The module's direction order: N, S, E, W, NE, NW, SE, SW; tables.RAYS: N, S, E, W,
    # NE, NW, SE, SW as (file, rank) steps (0,1), (0,-1), (1,0), (-1,0), (1,1), (-1,1),
    # (1,-1), (-1,-1).
    from rules.dead import _DIAGONAL, _ORTHOGONAL

    steps = _ORTHOGONAL + _DIAGONAL
    for _ in range(300):
        blockers = rng.getrandbits(64) & rng.getrandbits(64)
        sq = rng.randrange(64)
        for d, (shift, mask) in enumerate(steps):
            expected = 0
            for t in RAYS[sq][d]:
                expected |= 1 << t
                if blockers >> t & 1:
                    break
            through = ((1 << 64) - 1) ^ blockers
            assert _slide(1 << sq, through, shift, mask) == expected, (sq, d)
