"""Chess960 perft: the 960 positions of the standard Chess960 perft suite (one from each
start position, a few moves in, castling rights of every shape) against their published
counts, in ``data/chess960_perft.epd`` (its provenance is in its first lines).

By default every position to depth 2 and one in twenty to depth 3; under ``-m slow``
every position to depth 4 (580 million nodes, some ten minutes) and the first five
to depth 5 (74 million more).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import Position

DATA = Path(__file__).parent / "data" / "chess960_perft.epd"


def _load() -> list[tuple[str, str, dict[int, int]]]:
    cases = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, *ops = (part.strip() for part in line.split(";"))
        counts = {}
        name = ""
        for op in ops:
            key, _, value = op.partition(" ")
            if key.startswith("D"):
                counts[int(key[1:])] = int(value)
            elif key == "id":
                name = f"id{value}"
        cases.append((name, fen, counts))
    return cases


CASES = _load()


def test_the_suite_has_one_position_per_start_position_with_six_depths():
    assert len(CASES) == 960
    assert len({fen.split()[0] for _, fen, _ in CASES}) == 960
    assert all(sorted(counts) == [1, 2, 3, 4, 5, 6] for _, _, counts in CASES)


def test_every_position_to_depth_2_and_one_in_twenty_to_depth_3():
    for index, (name, fen, counts) in enumerate(CASES):
        pos = Position.from_fen(fen, variant="chess960")
        depths = (1, 2, 3) if index % 20 == 0 else (1, 2)
        for depth in depths:
            assert pos.perft(depth) == counts[depth], f"{name} depth {depth}: {fen}"
        assert pos.fen(shredder=True) == Position.from_fen(fen, variant="chess960").fen(
            shredder=True
        )  # perft leaves the position as it was


@pytest.mark.slow
@pytest.mark.parametrize(("name", "fen", "counts"), CASES, ids=[c[0] for c in CASES])
def test_perft_960_deep(name, fen, counts):
    pos = Position.from_fen(fen, variant="chess960")
    deepest = 5 if int(name[2:]) < 5 else 4
    for depth in range(3, deepest + 1):
        assert pos.perft(depth) == counts[depth], f"{name} depth {depth}"
