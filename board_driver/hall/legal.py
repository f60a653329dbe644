"""A record's moves replayed by ``rules`` from its start position: the hall serves only
legal games.

A board's account can publish anything on its own topics; the hall trusts none of it.
Every record's start position is read by ``rules`` (a FEN it cannot read, or a position
that cannot be, is refused), every move must be legal where it is played (by the rules of
the record's variant: Chess960's castling is the king taking its rook in UCI) and be the
SAN ``rules`` writes for it, and the position after the last move must be the record's
``fen``. What the hall serves is then what ``rules`` wrote: the start FEN as rules write
it, and the moves checked one by one.

Replaying a whole game for each record would cost the hall a game's length per move; it
keeps, per game, the position after the moves it last accepted (as a FEN: a few dozen
bytes, where a position with its history is kilobytes), and plays only what is new (after
a take-back, the game from its start).

>>> from board_driver.connectors.broadcast.record import GameRecord
>>> legal = LegalGames()
>>> after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
>>> r = GameRecord(board=1, game=1, moves=("e4",), ucis=("e2e4",), fen=after_e4)
>>> legal.check((1, 1), r) == r
True
>>> bad = GameRecord(board=1, game=1, moves=("e4", "Qxz9"), ucis=("e2e4", "d8h4"))
>>> legal.check((1, 1), bad)
Traceback (most recent call last):
...
ValueError: ply 2: d8h4 is not legal in rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace

from board_driver.connectors.broadcast.record import GameRecord
from board_driver.door.config_values import quote
from rules import Position


@dataclass
class _Played:
    given_start: str  # the start FEN as the record gave it
    variant: str  # the rules its FENs and moves are read by
    start: str  # as rules write it
    ucis: tuple[str, ...]
    fen: str  # the position after ``ucis``


class LegalGames:
    """Checks records by replaying their moves; remembers, per game key, where it got to."""

    def __init__(self) -> None:
        self._played: dict[Hashable, _Played] = {}

    def check(self, key: Hashable, record: GameRecord) -> GameRecord:
        """``record`` with its start FEN as ``rules`` writes it, if its game is legal and
        its SAN, UCI and FEN agree; ValueError names the first field or ply that is not."""
        played = self._played.pop(key, None)  # put back only once the record is good
        same = len(played.ucis) if played is not None else 0
        if (played is not None and played.given_start == record.start_fen
                and played.variant == record.variant and record.ucis[:same] == played.ucis):
            position, start = Position.from_fen(played.fen, variant=record.variant), played.start
        else:
            try:
                position = Position.from_fen(record.start_fen, variant=record.variant)
            except ValueError as why:
                raise ValueError(f"start_fen: {quote(record.start_fen)}: {why}") from None
            start = position.fen()
            same = 0
        for index in range(same, len(record.ucis)):
            uci, san = record.ucis[index], record.moves[index]
            try:
                move = position.parse_uci(uci)
            except ValueError:
                raise ValueError(f"ply {index + 1}: {uci} is not legal in {position.fen()}"
                                 ) from None
            written = position.san(move)
            if written != san:
                raise ValueError(f"ply {index + 1}: {quote(san)} is not {uci}, which is {written}")
            position.push(move)
        fen = position.fen()
        if fen != record.fen:
            raise ValueError(f"fen: {quote(record.fen)} is not the position after the moves "
                             f"({fen})")
        self._played[key] = _Played(record.start_fen, record.variant, start, record.ucis, fen)
        return record if start == record.start_fen else replace(record, start_fen=start)

    def forget(self, key: Hashable) -> None:
        self._played.pop(key, None)
