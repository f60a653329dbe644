"""Board scripts for the hall's end-to-end tests: games of selfplay.pgn played briskly and
plainly by hand (victim first on a capture, king then rook when castling, the promotion
piece chosen before the pawn lands): whole timed scripts, or each move's lines to pipe
into a daemon one move at a time.

python-chess (the oracle) decides the squares; the daemon's own rules decide the moves.
"""

from __future__ import annotations

import io

import chess
import chess.pgn

from tests.conftest import SHARED_DATA

#: Milliseconds between the events of one move.
WITHIN_MS = 100
LETTER = {chess.QUEEN: "q", chess.ROOK: "r", chess.BISHOP: "b", chess.KNIGHT: "n"}


def selfplay_games() -> list[chess.pgn.Game]:
    stream = io.StringIO((SHARED_DATA / "selfplay.pgn").read_text())
    games = []
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    return games


def shortest_games(count: int) -> list[chess.pgn.Game]:
    """The ``count`` shortest games that end on the board (mate or a draw the board sees)."""
    games = [g for g in selfplay_games() if g.headers.get("Result") in ("1-0", "0-1")]
    return sorted(games, key=lambda g: len(list(g.mainline_moves())))[:count]


def hand_events(board: chess.Board, move: chess.Move) -> list[str]:
    """What hands do for ``move`` on ``board`` (before it is pushed)."""
    name = chess.square_name
    if board.is_castling(move):
        rook_from, rook_to = {
            chess.G1: (chess.H1, chess.F1), chess.C1: (chess.A1, chess.D1),
            chess.G8: (chess.H8, chess.F8), chess.C8: (chess.A8, chess.D8),
        }[move.to_square]
        return [f"lift {name(move.from_square)}", f"place {name(move.to_square)}",
                f"lift {name(rook_from)}", f"place {name(rook_to)}"]
    events = []
    if board.is_en_passant(move):
        victim = move.to_square + (-8 if board.turn == chess.WHITE else 8)
        events.append(f"lift {name(victim)}")
    elif board.is_capture(move):
        events.append(f"lift {name(move.to_square)}")
    events.append(f"lift {name(move.from_square)}")
    if move.promotion:
        events.append(f"choose {LETTER[move.promotion]}")
    events.append(f"place {name(move.to_square)}")
    return events


def move_lines(moves: list[chess.Move], start: chess.Board | None = None) -> list[list[str]]:
    """Each move's script lines (untimed: ``gap`` apart), from ``start`` (the start
    position by default)."""
    board = (start or chess.Board()).copy()
    out = []
    for move in moves:
        out.append(hand_events(board, move))
        board.push(move)
    return out


def header_lines(start: chess.Board | None = None, *, new_game: bool = True) -> list[str]:
    """A script's header: ``fen`` (a new game for it, unless ``new_game`` is False) and the
    gap between the events of a move."""
    fen = [f"fen {(start or chess.Board()).fen()}"] if new_game else []
    return [*fen, f"gap {WITHIN_MS}"]


def sans(moves: list[chess.Move], start: chess.Board | None = None) -> list[str]:
    board = (start or chess.Board()).copy()
    out = []
    for move in moves:
        out.append(board.san(move))
        board.push(move)
    return out
