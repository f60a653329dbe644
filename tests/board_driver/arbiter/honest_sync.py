"""Is a replay's ``in_sync`` honest? (board-script.md, "Left alone, the board is judged")

``in_sync`` is true only while the pieces sensed are the game's position, or a move still
being made explains the difference: one move of the side to move on its way, and at most
one piece of the other side in the hand besides (the start of its next move, lifted while
that move was made: "A lift of the other side's piece during the slide is the other
side's"). Both sides of that are worked out here without the tracker: the pieces sensed
from the script itself (its lifts and places, or its last raw scan: the matrix reads the
last scan for good), and what a move in progress may look like from python-chess's legal
moves.

>>> from board_driver.boardscript.script import parse_script
>>> script = parse_script("lift e2\\nplace e4\\nlift g8\\n")
>>> fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
>>> unexplained(sensed_at_end(script), fen) is None  # the knight in hand: on its way
True
>>> unexplained(sensed_at_end(parse_script("lift e2\\nplace e5\\n")), chess.STARTING_FEN)
'the board shows e5 filled, e2 emptied against the position'
"""

from __future__ import annotations

import chess

from board_driver.boardscript.script import Scan, Script
from board_driver.physical.events import Lift, Place


def sensed_at_end(script: Script) -> int:
    """The occupancy the board's switches show once ``script`` has ended."""
    board = int(chess.Board(script.fen, chess960=script.variant == "chess960").occupied)
    for item in script.items:
        if isinstance(item, Scan):
            board = item.bitmap
        elif isinstance(item, Lift):
            board &= ~(1 << item.square)
        elif isinstance(item, Place):
            board |= 1 << item.square
    return board


def _squares(mask: int) -> str:
    return ", ".join(chess.square_name(sq) for sq in chess.SquareSet(mask))


def _on_its_way(board: chess.Board, move: chess.Move, sensed: int) -> bool:
    """Could ``sensed`` be ``move`` half made: pieces in the hand, some already set down?"""
    occupied = int(board.occupied)
    lifts = chess.BB_SQUARES[move.from_square]
    places = chess.BB_SQUARES[move.to_square]
    comes_from = {move.to_square: move.from_square}  # each destination, and whose piece
    if board.is_en_passant(move):
        lifts |= chess.BB_SQUARES[move.to_square ^ 8]
    elif board.is_capture(move):
        lifts |= chess.BB_SQUARES[move.to_square]
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = board.is_kingside_castling(move)
        # python-chess writes a Chess960 castling as the king taking its rook.
        rook_from = move.to_square if board.chess960 else chess.square(7 if kingside else 0, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        king_to = chess.square(6 if kingside else 2, rank)
        places = chess.BB_SQUARES[king_to] | chess.BB_SQUARES[rook_to]
        lifts = chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[rook_from]
        comes_from = {king_to: move.from_square, rook_to: rook_from}
    if (sensed ^ occupied) & ~(lifts | places):
        return False  # a square the move does not touch
    arrived = sensed & ~occupied
    if arrived & ~places:
        return False  # a piece from nowhere
    # A piece set down on its destination has left its square (unless the other piece of
    # a Chess960 castling took its place there).
    return not any(
        arrived & chess.BB_SQUARES[to] and sensed & chess.BB_SQUARES[start] & ~places
        for to, start in comes_from.items()
    )


def unexplained(sensed: int, fen: str, *, chess960: bool = False) -> str | None:
    """None if ``sensed`` is the position of ``fen``, or that position with one legal move
    on its way (and perhaps one piece of the other side lifted); else what the board shows
    that nothing explains."""
    board = chess.Board(fen, chess960=chess960)
    occupied = int(board.occupied)
    if sensed == occupied:
        return None
    theirs = int(board.occupied_co[not board.turn])
    reaching = [0] + [chess.BB_SQUARES[sq] for sq in chess.SquareSet(theirs & ~sensed)]
    if any(
        _on_its_way(board, move, sensed | other) for other in reaching for move in board.legal_moves
    ):
        return None
    return (
        f"the board shows {_squares(sensed & ~occupied) or 'nothing'} filled, "
        f"{_squares(occupied & ~sensed) or 'nothing'} emptied against the position"
    )
