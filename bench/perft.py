"""Perft speed: our rules core against python-chess, same positions, same process.

Two figures:

* **bulk**: perft with the last ply counted in bulk (the number of legal moves at
  depth 1, not played). Ours: ``Position.perft``. python-chess: the same recursion,
  ``len(list(board.legal_moves))`` at depth 1.
* **make/unmake**: every leaf is played and taken back (``push``/``pop``) instead of
  counted, which weighs move making as much as move generation.

Run from the project root: ``python bench/perft.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chess  # python-chess: the reference, a dev dependency

from rules import Position

# The six positions of the chessprogramming wiki, with depths of ~0.1-1 M bulk nodes.
POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("cpw-3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    ("cpw-4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4),
    ("cpw-5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3),
    ("cpw-6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3),
]


def chess_perft(board: chess.Board, depth: int) -> int:
    """python-chess, mirroring Position.perft exactly: list the moves, count at depth 1."""
    if depth < 1:
        return 1
    moves = list(board.legal_moves)
    if depth == 1:
        return len(moves)
    nodes = 0
    for move in moves:
        board.push(move)
        nodes += chess_perft(board, depth - 1)
        board.pop()
    return nodes


def ours_make_unmake(pos: Position, depth: int) -> int:
    moves = pos.legal_moves()
    if depth == 1:
        for move in moves:
            pos.push(move)
            pos.pop()
        return len(moves)
    nodes = 0
    for move in moves:
        pos.push(move)
        nodes += ours_make_unmake(pos, depth - 1)
        pos.pop()
    return nodes


def chess_make_unmake(board: chess.Board, depth: int) -> int:
    moves = list(board.legal_moves)
    if depth == 1:
        for move in moves:
            board.push(move)
            board.pop()
        return len(moves)
    nodes = 0
    for move in moves:
        board.push(move)
        nodes += chess_make_unmake(board, depth - 1)
        board.pop()
    return nodes


def timed(fn, *args) -> tuple[int, float]:
    start = time.perf_counter()
    nodes = fn(*args)
    return nodes, time.perf_counter() - start


def run(quick: bool, repeat: int) -> dict[str, float]:
    """Print per-position figures and totals; return the two total ratios.

    Each measurement is the best of ``repeat`` runs, ours and python-chess's taken in
    turn, so a busy machine disturbs both alike."""
    totals = {key: [0, 0.0] for key in ("ours_bulk", "chess_bulk", "ours_mu", "chess_mu")}
    header = (
        f"{'position':<10} {'depth':>5} {'nodes':>9}  {'ours n/s':>10} {'chess n/s':>10} "
        f"{'ratio':>6}"
    )
    for label, figure in (("bulk", "bulk"), ("make/unmake", "mu")):
        how = "counted in bulk" if figure == "bulk" else "played and taken back"
        print(f"\n{label}: last ply {how}")
        print(header)
        if figure == "bulk":
            ours_fn, chess_fn = Position.perft, chess_perft
        else:
            ours_fn, chess_fn = ours_make_unmake, chess_make_unmake
        for name, fen, depth in POSITIONS:
            if quick:
                depth -= 1
            t1 = t2 = float("inf")
            for _ in range(repeat):
                n1, t = timed(ours_fn, Position.from_fen(fen), depth)
                t1 = min(t1, t)
                n2, t = timed(chess_fn, chess.Board(fen), depth)
                t2 = min(t2, t)
            assert n1 == n2, f"{name}: ours {n1} != python-chess {n2}"
            totals[f"ours_{figure}"][0] += n1
            totals[f"ours_{figure}"][1] += t1
            totals[f"chess_{figure}"][0] += n2
            totals[f"chess_{figure}"][1] += t2
            print(
                f"{name:<10} {depth:>5} {n1:>9}  {n1 / t1:>10.0f} {n2 / t2:>10.0f} {t2 / t1:>5.2f}x"
            )
    ratios = {}
    print()
    for figure, label in (("bulk", "bulk"), ("mu", "make/unmake")):
        ours_nodes, ours_time = totals[f"ours_{figure}"]
        chess_nodes, chess_time = totals[f"chess_{figure}"]
        ratio = chess_time / ours_time
        ratios[figure] = ratio
        print(
            f"{label:<12} ours {ours_nodes / ours_time:>9.0f} nodes/s   "
            f"python-chess {chess_nodes / chess_time:>9.0f} nodes/s   ratio {ratio:.2f}x"
        )
    return ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one ply less everywhere")
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs (default 1)")
    args = parser.parse_args()
    print(f"python-chess {chess.__version__}, Python {sys.version.split()[0]}")
    run(args.quick, max(1, args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
