"""A restart in the middle of a move: the hands kept replayed, and what the board cannot tell
asked rather than guessed (issue 24).

When the daemon starts again (after a crash, a kill, a power cut), the pieces may differ
from the stored game. Two sources say what happened:

- **The journal** (:mod:`.hands_journal`): the events of the move in progress, as the
  tracker was given them. :func:`.replay.replay_journal` plays them through a tracker
  made from the stored game at the journal's anchor, so the board is judged as it would
  have been: a capture whose victim was lifted first is that capture, though the
  occupancy is the same before and after.
- **The occupancy** alone, for what happened while nothing was kept (the pieces moved while
  the daemon was away, or no journal). :func:`readings` lists every way of reading it: up
  to two moves played from the stored position, perhaps with a piece still in the hand.
  One reading is taken as it is; several are asked (:class:`Question`), never one of them
  stored by a guess. The hands that follow may tell (:meth:`Question.decided`): the queen
  then set down on g4 was in the hand, not on h5.

From ``6Q1/4k1p1/...`` with the queen's square g8 found empty, the board cannot tell
``Qxg7+`` (g7 was full before and after) from the queen still in the hand:

>>> from rules import Game, Position
>>> from board_driver.physical.squares import square
>>> game = Game(Position.from_fen("6Q1/4k1p1/2n4r/4p3/4p3/p5Pp/PP2NP1P/1R4K1 w - - 2 32"))
>>> standing = game.position.occupancy() & ~(1 << square("g8"))
>>> [r.words(game.position, standing) for r in readings(game.position, standing)]
['nothing yet: the piece from g8 is in the hand', 'Qxg7+']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from board_driver.arbiter.footprint import Footprint
from board_driver.arbiter.tracker import Tracker
from board_driver.physical.events import BoardEvent, Lift, Place
from board_driver.physical.squares import square_name, squares_of
from rules import QUEEN, Game, Move, Position

#: Moves played while nothing was kept, read from the occupancy: at most this many.
MAX_UNSEEN_PLIES = 2
#: The most squares one move changes (castling: king and rook, from and to).
_MOVE_SQUARES = 4


@dataclass(frozen=True)
class Reading:
    """One way to read the occupancy found: ``moves`` played while nothing was kept, and
    (``in_hand``) a piece still in the hand after them."""

    moves: tuple[Move, ...]
    in_hand: bool

    def words(self, position: Position, standing: int) -> str:
        """The reading as a player reads it: ``Qxg7+``, ``Qxg7+ Ke8``, ``nothing yet: the
        piece from g8 is in the hand``."""
        board = position.copy()
        sans = []
        for move in self.moves:
            sans.append(board.san(move))
            board.push(move)
        text = " ".join(sans) or "nothing yet"
        if self.in_hand:
            off = " ".join(square_name(sq) for sq in squares_of(board.occupancy() & ~standing))
            text += f"{',' if sans else ':'} the piece from {off} is in the hand"
        return text


def readings(position: Position, standing: int) -> list[Reading]:
    """Every reading of ``standing`` from ``position`` (see the module docstring): lines of
    up to :data:`MAX_UNSEEN_PLIES` legal moves that leave exactly ``standing``, or leave a
    board on its way to one more move (a piece in the hand). Promotions read as a queen (a
    late ``choose`` amends them). Nothing from a position already matching."""
    found: list[Reading] = []
    _visit(position, standing, (), found)
    return found


def _visit(position: Position, standing: int, line: tuple[Move, ...], found: list[Reading]) -> None:
    before = position.occupancy()
    if before == standing:
        if line:
            found.append(Reading(line, False))
        return
    differing = bin(before ^ standing).count("1")
    legal = [m for m in position.legal_moves() if m.promotion in (None, QUEEN)]
    # A piece in the hand is the side to move's (a capture's victim lifted first is not a
    # reading of its own: the capture is, once made), after fewer moves than the most.
    own = position.occupancy(position.turn)
    if (
        differing <= _MOVE_SQUARES
        and len(line) < MAX_UNSEEN_PLIES
        and not before & ~standing & ~own
    ):
        prints = [Footprint.of(m, before) for m in legal]
        if any(fp.after != standing and fp.on_the_way(before, standing) for fp in prints):
            found.append(Reading(line, True))
    if len(line) >= MAX_UNSEEN_PLIES or differing > _MOVE_SQUARES * (MAX_UNSEEN_PLIES - len(line)):
        return
    last = len(line) + 1 == MAX_UNSEEN_PLIES
    emptied = before & ~standing
    for move in legal:
        if last and not emptied >> move.from_square & 1:
            continue  # nothing after it fills its square again: it must stand empty
        after = position.copy()
        after.push(move)
        _visit(after, standing, (*line, move), found)


@dataclass
class Question:
    """What the board cannot tell after a restart, asked on the page and the lights until
    answered: ``choices`` (the readings), the board when asked, and the board's events
    since (held back from the tracker, given to it once the answer comes)."""

    choices: list[Reading]
    position: Position
    standing: int
    board: int
    held: list[BoardEvent] = field(default_factory=list)

    def options(self) -> tuple[str, ...]:
        """The readings in words, in the order :meth:`answer` numbers them."""
        return tuple(choice.words(self.position, self.standing) for choice in self.choices)

    def words(self) -> str:
        """The question, as the page shows it."""
        emptied = squares_of(self.position.occupancy() & ~self.standing)
        where = " ".join(square_name(sq) for sq in emptied) or "the board"
        readings_ = " or ".join(f"({i + 1}) {text}" for i, text in enumerate(self.options()))
        return (
            f"After the restart the board cannot tell what happened on {where}: {readings_}. "
            "Say which on the page, or put the pieces back as stored and play the move again."
        )

    def squares(self) -> int:
        """The squares to light: those that differ, and where a reading's move lands."""
        mask = self.position.occupancy() ^ self.standing
        for choice in self.choices:
            for move in choice.moves[:1]:
                mask |= 1 << move.to_square
        return mask

    def note(self, event: BoardEvent) -> None:
        """A board event while the question stands: kept for after the answer."""
        if isinstance(event, Lift):
            self.board &= ~(1 << event.square)
        elif isinstance(event, Place):
            self.board |= 1 << event.square
        self.held.append(event)

    def decided(self, game: Game, options: Any, timing: Any) -> int | None:
        """The reading the hands since the question leave possible (its number), or None
        while they leave more than one (or none). A reading is possible when the game it
        makes, given the held lifts and places and judged once the board is still, is in
        sync: the queen in the hand then set down on g4 rules out ``Qxh5``, after which a
        piece would have come from nowhere. Two readings both possible stay asked, however
        alike what they lead to: telling them apart would be a guess."""
        if not self.held:
            return None
        possible = []
        played = [str(m) for m in game.moves]
        for number, choice in enumerate(self.choices):
            line = played + [str(m) for m in choice.moves]
            trial_game = Game.from_record(game.start.copy(), line)
            trial_game.dead_position_ends = game.dead_position_ends
            trial = Tracker(trial_game, options=options, timing=timing, board=self.standing)
            try:
                for event in self.held:
                    trial.handle(event)
            except ValueError:
                continue  # an event the board cannot make after this reading
            trial.tick(self.held[-1].t_ms + timing.settle_ms + 1)
            if trial.in_sync:
                possible.append(number)
        return possible[0] if len(possible) == 1 else None
