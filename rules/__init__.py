"""The laws of chess, pure: position, legal moves, check, outcomes, FEN, SAN, UCI, PGN.

No I/O, no clock, no hardware: everything here is a function of its arguments.

>>> import rules
>>> pos = rules.Position()
>>> len(pos.legal_moves()), pos.perft(3)
(20, 8902)
>>> move = pos.parse_san('Nf3')
>>> str(move), pos.san(move)
('g1f3', 'Nf3')
>>> pos.push(move)                 # in place; pop() takes it back
>>> pos.fen()
'rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1'
>>> pos.pop()
Move.from_uci('g1f3')

``Position.push`` trusts its move (perft speed); ``Game.push`` checks it. A game keeps
the history and knows how it ends:

>>> game = rules.Game()
>>> for san in ['e4', 'e5', 'Bc4', 'Nc6', 'Qh5', 'Nf6', 'Qxf7']:
...     _ = game.push_san(san)
>>> game.outcome()
Outcome(termination='checkmate', winner=True)
>>> game.outcome().result()
'1-0'
>>> game.san_moves()[-1]
'Qxf7#'

Draws that must be claimed are claimed by the side to move:

>>> game = rules.Game()
>>> for san in ['Nf3', 'Nf6', 'Ng1', 'Ng8'] * 2:
...     _ = game.push_san(san)
>>> game.can_claim_threefold(), game.outcome()
(True, None)
>>> game.claim_draw().result()
'1/2-1/2'

A dead position, where neither side can mate any more, ends the game by itself; a flag
fall is a loss unless the other side cannot mate (FIDE 5.2.2, 6.9):

>>> wall = rules.Position.from_fen('4k3/8/8/p1p1p1p1/P1P1P1P1/8/4r3/4K3 w - - 0 1')
>>> game = rules.Game(wall)
>>> _ = game.push_san('Kxe2')
>>> game.outcome()
Outcome(termination='dead_position', winner=None)
>>> rules.Game(wall).flag_fall(rules.BLACK).result()   # the rook may yet open the wall
'1-0'

Chess960 (FIDE Guidelines II) is a variant of the position; standard chess is the
default. Start positions go by Scharnagl's number (518 is the standard array), castling
by the rook's side, and a castling is written as the king taking its own rook (UCI_Chess960):

>>> game = rules.Game(rules.Position.from_chess960(3))
>>> game.position.board_fen().split('/')[-1]      # king f1, rooks e1 and g1
'BQNNRKRB'
>>> castling = game.push_san('O-O')                # the king and the g1 rook swap squares
>>> castling.uci(), [rules.square_name(sq) for sq in (castling.to_square, castling.rook_to)]
('f1g1', ['g1', 'f1'])
>>> game.position.fen()
'bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRRKB b kq - 1 1'

Bad input raises a precise :class:`ValueError` that says what and where:

>>> rules.Position.from_fen('8/8/8/8/8/8/8/K7 w - - 0 1')
Traceback (most recent call last):
...
rules.errors.FenError: FEN placement: Black has no king, needs exactly one
"""

from . import chess960
from .core import (
    BISHOP,
    BLACK,
    KING,
    KNIGHT,
    PAWN,
    PIECE_TYPES,
    QUEEN,
    ROOK,
    SQUARE_NAMES,
    WHITE,
    Color,
    Move,
    Piece,
    parse_square,
    square_file,
    square_name,
    square_rank,
)
from .errors import (
    ClaimRefused,
    FenError,
    IllegalMoveError,
    PgnError,
    SanError,
    VariantError,
)
from .fen import STARTING_FEN
from .game import EXTERNAL_TERMINATIONS, TERMINATIONS, Game, Outcome
from .pgn import PgnGame, read_pgn
from .position import VARIANTS, Position

__all__ = [
    "BISHOP",
    "BLACK",
    "EXTERNAL_TERMINATIONS",
    "KING",
    "KNIGHT",
    "PAWN",
    "PIECE_TYPES",
    "QUEEN",
    "ROOK",
    "SQUARE_NAMES",
    "STARTING_FEN",
    "TERMINATIONS",
    "VARIANTS",
    "WHITE",
    "ClaimRefused",
    "Color",
    "FenError",
    "Game",
    "IllegalMoveError",
    "Move",
    "Outcome",
    "PgnError",
    "PgnGame",
    "Piece",
    "Position",
    "SanError",
    "VariantError",
    "chess960",
    "parse_square",
    "read_pgn",
    "square_file",
    "square_name",
    "square_rank",
]
