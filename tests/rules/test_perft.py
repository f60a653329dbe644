"""Perft: the number of positions n plies ahead, against published and precomputed counts.

Every position of ``perft.epd`` is tested by default to the deepest depth whose count is
at most ``DEFAULT_NODES``; every listed depth up to ``SLOW_NODES`` runs under ``-m slow``.
"""

from __future__ import annotations

import pytest

from rules import Position
from tests.conftest import SHARED_DATA

DEFAULT_NODES = 200_000
SLOW_NODES = 20_000_000


def _load_epd() -> list[tuple[str, str, dict[int, int]]]:
    cases = []
    for n, line in enumerate((SHARED_DATA / "perft.epd").read_text().splitlines(), 1):
        if not line.strip():
            continue
        fen, *ops = (part.strip() for part in line.split(";"))
        counts = {}
        name = f"line{n}"
        for op in ops:
            key, _, value = op.partition(" ")
            if key.startswith("D"):
                counts[int(key[1:])] = int(value)
            elif key == "id":
                name = value
        cases.append((name, fen, counts))
    return cases


CASES = _load_epd()


def test_the_data_has_all_220_positions():
    assert len(CASES) == 220


@pytest.mark.parametrize(("name", "fen", "counts"), CASES, ids=[c[0] for c in CASES])
def test_perft_matches(name, fen, counts):
    pos = Position.from_fen(fen)
    depths = [d for d, n in counts.items() if n <= DEFAULT_NODES] or [min(counts)]
    for depth in depths:
        assert pos.perft(depth) == counts[depth], f"{name} depth {depth}"
    assert pos.fen() == Position.from_fen(fen).fen()  # perft leaves the position as it was


# The six positions of the chessprogramming wiki (Perft Results), with the published
# counts, independent of the data file.
CPW = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [20, 400, 8902, 197281]),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        [48, 2039, 97862],
    ),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379]),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        [46, 2079, 89890],
    ),
]


@pytest.mark.parametrize(("fen", "counts"), CPW, ids=[f"cpw{i + 1}" for i in range(6)])
def test_chessprogramming_positions(fen, counts):
    pos = Position.from_fen(fen)
    assert [pos.perft(d) for d in range(1, len(counts) + 1)] == counts


@pytest.mark.slow
@pytest.mark.parametrize(("name", "fen", "counts"), CASES, ids=[c[0] for c in CASES])
def test_perft_deep(name, fen, counts):
    pos = Position.from_fen(fen)
    for depth, n in counts.items():
        if n <= SLOW_NODES:
            assert pos.perft(depth) == n, f"{name} depth {depth}"
