"""A game: the start, the moves, and how it ends (FIDE Laws 2023, Articles 5, 6 and 9).

Automatic endings (checkmate, stalemate, a dead position, fivefold repetition,
seventy-five moves) are found by :meth:`Game.outcome` on its own. A dead position by
insufficient material keeps that name; any other (locked pawns that no piece can break
through, ...) is ``dead_position``. Threefold repetition and the fifty-move rule are
draws only when the side to move claims them (:meth:`Game.claim_draw`); resignation and
agreement are recorded, and so are endings decided outside the board (:meth:`Game.end`,
:meth:`Game.flag_fall`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ._pgn_writer import write_pgn
from .core import Color, Move
from .errors import ClaimRefused, IllegalMoveError
from .position import Position

TERMINATIONS = (
    "checkmate",
    "stalemate",
    "insufficient_material",
    "dead_position",
    "fivefold_repetition",
    "seventyfive_moves",
    "threefold_repetition",
    "fifty_moves",
    "resignation",
    "agreement",
    # Decided outside the board (a clock, an arbiter, a server): recorded with Game.end().
    "timeout",
    "rules_infraction",
    "abandoned",
    "aborted",
)
#: Endings recorded from outside the board, with Game.end().
EXTERNAL_TERMINATIONS = (
    "timeout",
    "rules_infraction",
    "abandoned",
    "aborted",
    "resignation",
    "agreement",
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``termination`` (one of :data:`TERMINATIONS`) and ``winner``
    (:data:`WHITE`, :data:`BLACK`, or ``None`` for a draw)."""

    termination: str
    winner: Color | None

    def result(self) -> str:
        """``'1-0'``, ``'0-1'``, ``'1/2-1/2'``, or ``'*'`` for an aborted game (no result)."""
        if self.termination == "aborted":
            return "*"
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner else "0-1"


class Game:
    """A game from a start position, with its history and its ending.

    >>> g = Game()
    >>> for san in ['f3', 'e5', 'g4', 'Qh4']:
    ...     _ = g.push_san(san)
    >>> g.outcome()
    Outcome(termination='checkmate', winner=False)
    >>> g.san_moves()
    ['f3', 'e5', 'g4', 'Qh4#']

    A dead position ends the game at once, as a draw:

    >>> g = Game(Position.from_fen('4k3/8/8/p1p1p1p1/P1P1P1P1/8/4r3/4K3 w - - 0 1'))
    >>> g.outcome() is None
    True
    >>> _ = g.push_san('Kxe2')          # only the kings and locked pawns are left
    >>> g.outcome()
    Outcome(termination='dead_position', winner=None)

    ``dead_position_ends``: set it False when someone else decides the result (a
    server, in an online game): a dead position then does not end the game by itself,
    and :meth:`is_dead` tells it as a note. Insufficient material still ends it (every
    server knows that one).
    """

    def __init__(self, start: Position | None = None, *, dead_position_ends: bool = True) -> None:
        start = Position() if start is None else start
        self.start = start.copy()
        self.start._stack = []
        self.position = self.start.copy()
        self.moves: list[Move] = []
        self.dead_position_ends = dead_position_ends
        self._keys = [self.position.repetition_key()]
        self._recorded: list[Outcome | None] = [None]  # per ply: an ending recorded there
        self._dead: list[bool | None] = [None]  # per ply: is_dead(), once asked

    @classmethod
    def from_record(
        cls, start: Position | None, moves: Iterable[Move | str]
    ) -> Game:
        """The game of a record (a store, a server, a list of UCI moves): every move is
        played, even past a dead position, for records go on where the rules would have
        stopped (a server decided, or the record is older than the board's knowledge).
        :class:`IllegalMoveError` for a move that is not legal where it stands.

        :attr:`dead_position_ends` is then False when the record went on past a dead
        position (someone else decided the result), else True: a record that ends in a
        dead position ends there.

        >>> wall = Position.from_fen('4k3/8/8/p1p1p1p1/P1P1P1P1/8/4r3/4K3 w - - 0 1')
        >>> Game.from_record(wall, ['e1e2']).outcome()
        Outcome(termination='dead_position', winner=None)
        >>> game = Game.from_record(wall, ['e1e2', 'e8d8', 'e2d3'])
        >>> game.outcome(), game.is_dead(), game.dead_position_ends
        (None, True, False)
        """
        game = cls(start, dead_position_ends=False)
        for move in moves:
            game.push(game.position.parse_uci(move) if isinstance(move, str) else move)
        game.dead_position_ends = not game._played_past_dead()
        return game

    @property
    def variant(self) -> str:
        """The rules the game is played by: its start position's (``'standard'`` or
        ``'chess960'``, see :attr:`Position.variant`)."""
        return self.start.variant

    def _played_past_dead(self) -> bool:
        """Did the moves go on after a dead position? (Asked of the position before the
        last move: a game that ends in one did not play past it.)"""
        if not self.moves:
            return False
        before = self.position.copy()
        before.pop()
        return before.is_dead()

    # ------------------------------------------------------------------ moves

    def push(self, move: Move) -> Move:
        """Play a legal move; :class:`IllegalMoveError` otherwise, or once the game is over.

        Returns the move as the rules see it (with its flags)."""
        ended = self.outcome()
        if ended is not None:
            raise IllegalMoveError(
                f"illegal move {move.uci()}: the game is over "
                f"({ended.termination}, {ended.result()})"
            )
        move = self.position.legal_move(move)
        self.position.push(move)
        self.moves.append(move)
        self._keys.append(self.position.repetition_key())
        self._recorded.append(None)
        self._dead.append(None)
        return move

    def push_san(self, text: str) -> Move:
        """Play the move a SAN text names (see :meth:`Position.parse_san`)."""
        return self.push(self.position.parse_san(text))

    def push_uci(self, text: str) -> Move:
        """Play the move a UCI text names."""
        return self.push(self.position.parse_uci(text))

    def pop(self) -> Move:
        """Take back the last move (and any ending recorded after it)."""
        if not self.moves:
            raise IndexError("no move to take back")
        self._keys.pop()
        self._recorded.pop()
        self._dead.pop()
        self._recorded[-1] = None
        self.moves.pop()
        return self.position.pop()

    def san_moves(self) -> list[str]:
        """The moves in SAN, from the start."""
        pos = self.start.copy()
        out = []
        for m in self.moves:
            out.append(pos.san(m))
            pos.push(m)
        return out

    # ------------------------------------------------------------------ endings

    def outcome(self) -> Outcome | None:
        """The ending, if the game is over: recorded (resignation, agreement, a claimed
        draw, an ending from outside the board) or automatic (checkmate, stalemate,
        insufficient material, a dead position unless :attr:`dead_position_ends` is
        False, fivefold repetition, seventy-five moves). ``None`` while play goes on."""
        recorded = self._recorded[-1]
        if recorded is not None:
            return recorded
        pos = self.position
        has_moves = bool(pos._legal())
        if not has_moves:
            if pos.is_check():
                return Outcome("checkmate", not pos.turn)
            return Outcome("stalemate", None)
        if pos.is_insufficient_material():
            return Outcome("insufficient_material", None)
        if self.dead_position_ends and self.is_dead():
            return Outcome("dead_position", None)
        # 9.6.2: seventy-five moves, unless the last of them mated (handled above).
        if pos.halfmove_clock >= 150:
            return Outcome("seventyfive_moves", None)
        if self._repetitions() >= 5:
            return Outcome("fivefold_repetition", None)
        return None

    def is_dead(self) -> bool:
        """Is the current position dead: can neither side checkmate by any series of
        legal moves (FIDE 5.2.2)? Asked once per position (see :meth:`Position.is_dead`).
        True also when :attr:`dead_position_ends` is False and the game goes on."""
        dead = self._dead[-1]
        if dead is None:
            dead = self._dead[-1] = self.position.is_dead()
        return dead

    def _repetitions(self) -> int:
        """How often the current position has stood, looking back only as far as the
        last capture or pawn move: no position before one can come back."""
        span = self.position.halfmove_clock
        keys = self._keys[max(0, len(self._keys) - 1 - span) :]
        return keys.count(self._keys[-1])

    def can_claim_threefold(self, move: Move | None = None) -> bool:
        """May the side to move claim a draw by threefold repetition (FIDE 9.2)?

        Without ``move``: has the position just reached stood three times (9.2.1.2)?
        With ``move``: would that legal move make a position stand for the third time
        (9.2.1.1, a claim with an intended move, see :meth:`claim_draw`)?
        False once the game is over: nothing is left to claim."""
        if self.outcome() is not None:
            return False
        if move is None:
            return self._repetitions() >= 3
        repetitions, _ = self._after(move)
        return repetitions >= 3

    def can_claim_fifty_moves(self, move: Move | None = None) -> bool:
        """May the side to move claim a draw under the fifty-move rule (FIDE 9.3)?

        Without ``move``: have the last 50 moves of each player (100 half-moves) been
        made without a capture or a pawn move? With ``move``: would that move complete them?
        False once the game is over (a mate on the fiftieth move stands, 9.3)."""
        if self.outcome() is not None:
            return False
        if move is None:
            return self.position.halfmove_clock >= 100
        _, clock = self._after(move)
        return clock >= 100

    def _after(self, move: Move) -> tuple[int, int]:
        """(how often the position would have stood, halfmove clock) after a legal move."""
        pos = self.position
        move = pos.legal_move(move)
        pos.push(move)
        try:
            key = pos.repetition_key()
            span = pos.halfmove_clock
            keys = self._keys[max(0, len(self._keys) - span) :]
            return keys.count(key) + 1, pos.halfmove_clock
        finally:
            pos.pop()

    def claim_draw(self, move: Move | None = None) -> Outcome:
        """Claim a draw for the side to move by threefold repetition or the fifty-move rule.

        Without ``move`` the claim is about the position just reached. With ``move`` the
        claimant declares the move that makes the repetition or completes the fifty moves
        (9.2.1.1, 9.3.1): the move is played, and it stands even if the claim is refused
        (9.5.3). Records and returns the outcome; :class:`ClaimRefused` says why not.

        >>> g = Game()
        >>> for san in ['Nf3', 'Nf6', 'Ng1', 'Ng8'] * 2:
        ...     _ = g.push_san(san)
        >>> g.claim_draw()
        Outcome(termination='threefold_repetition', winner=None)
        """
        ended = self.outcome()
        if ended is not None:
            raise ClaimRefused(
                "draw claim refused: the game is already over "
                f"({ended.termination}, {ended.result()})"
            )
        played = ""
        if move is not None:
            san = self.position.san(self.position.legal_move(move))
            self.push(move)
            ended = self.outcome()
            if ended is not None:  # the declared move ended the game by itself
                return ended
            played = f"; the declared move {san} stands (FIDE 9.5.3)"
        if self._repetitions() >= 3:
            return self._record(Outcome("threefold_repetition", None))
        if self.position.halfmove_clock >= 100:
            return self._record(Outcome("fifty_moves", None))
        seen = self._repetitions()
        plies = self.position.halfmove_clock
        raise ClaimRefused(
            "draw claim refused: this position has stood "
            f"{seen} time{'s' if seen != 1 else ''} (a threefold repetition needs 3) and "
            f"{plies} half-move{'s have' if plies != 1 else ' has'} passed without a capture "
            f"or a pawn move (the fifty-move rule needs 100){played}"
        )

    def resign(self, color: Color) -> Outcome:
        """Record that ``color`` resigned; the other side wins."""
        self._ensure_playing("resign")
        return self._record(Outcome("resignation", not color))

    def agree_draw(self) -> Outcome:
        """Record a draw by agreement."""
        self._ensure_playing("agree a draw")
        return self._record(Outcome("agreement", None))

    def end(self, termination: str, winner: Color | None) -> Outcome:
        """Record an ending decided outside the board: a flag fall (``timeout``), an
        opponent who left (``abandoned``), an ``aborted`` game (result ``*``), or a
        resignation or agreement reported by a server.

        >>> from rules import BLACK, WHITE
        >>> game = Game()
        >>> game.end("timeout", BLACK).result()
        '0-1'
        >>> game.end("checkmate", WHITE)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: cannot end the game with checkmate: the board itself decides that ...
        """
        if termination not in EXTERNAL_TERMINATIONS:
            known = ", ".join(EXTERNAL_TERMINATIONS)
            raise ValueError(
                f"cannot end the game with {termination}: the board itself decides that "
                f"(endings from outside: {known})"
            )
        if termination == "aborted":
            winner = None
        self._ensure_playing(f"end the game ({termination})")
        return self._record(Outcome(termination, winner))

    def flag_fall(self, color: Color) -> Outcome:
        """Record that ``color``'s time ran out (FIDE 6.9): the opponent wins, unless
        the opponent cannot checkmate by any series of legal moves
        (:meth:`Position.unwinnable`): then it is a draw. The termination is ``timeout``
        either way.

        >>> from rules import BLACK, WHITE
        >>> Game().flag_fall(WHITE)
        Outcome(termination='timeout', winner=False)
        >>> bare = Game(Position.from_fen('4k3/8/8/8/8/8/8/Q3K3 b - - 0 1'))
        >>> bare.flag_fall(WHITE).result()   # a lone black king cannot mate
        '1/2-1/2'
        """
        return self.forfeit(color, "timeout")

    def forfeit(self, color: Color, termination: str = "timeout") -> Outcome:
        """Record that ``color`` loses by a rule of the clock or the arbiter: its flag fell
        (``timeout``, FIDE 6.9) or it completed a second illegal move
        (``rules_infraction``, FIDE 7.5.5). Either way the game is drawn instead when the
        opponent cannot checkmate by any series of legal moves (:meth:`Position.unwinnable`).

        >>> from rules import WHITE
        >>> Game().forfeit(WHITE, "rules_infraction").result()
        '0-1'
        """
        if termination not in ("timeout", "rules_infraction"):
            raise ValueError(f"forfeit: {termination!r} is not timeout or rules_infraction")
        opponent = not color
        winner = None if self.position.unwinnable(opponent) else opponent
        return self.end(termination, winner)

    def _ensure_playing(self, what: str) -> None:
        ended = self.outcome()
        if ended is not None:
            raise ValueError(
                f"cannot {what}: the game is already over ({ended.termination}, {ended.result()})"
            )

    def _record(self, outcome: Outcome) -> Outcome:
        self._recorded[-1] = outcome
        return outcome

    # ------------------------------------------------------------------ PGN

    def pgn(
        self,
        headers: dict[str, str] | None = None,
        *,
        comments: Mapping[int, str] | None = None,
        nags: Mapping[int, int] | None = None,
    ) -> str:
        """The game as PGN text (Seven Tag Roster first, SetUp/FEN for another start);
        ``comments`` and ``nags`` annotate moves by ply (1: the first move)."""
        return write_pgn(self, headers, comments=comments, nags=nags)


__all__ = ["EXTERNAL_TERMINATIONS", "TERMINATIONS", "Game", "Outcome"]
