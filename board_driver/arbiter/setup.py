"""Setting up a new game: the ``new_game`` button, a game begun from any position on the
pieces standing, or all 32 pieces put home after a game.

The switches cannot tell a rook from a knight, so a position is set up kind by kind
(:mod:`.kinds`): the white king, the white queen, the white rooks, ... then Black's. While
a group is due its squares still empty are lit (blue, steady), squares to empty red
(steady); a square the board knows holds another piece (the game before had it so)
blinks red until it is emptied, and a square filled before its kind is due blinks yellow
(the board knows that kind is not due yet, and cannot tell what was put there). Nothing
is read as a move meanwhile. When the board shows the position, with no piece it knows
is wrong, the game begins (``setup_done``; after the button, ``new_game`` too). The events
(``new_game_pending``, ``setup``, ``setup_early``, ``setup_done``) are listed in
:mod:`.game_events`.

After a game has ended the board is frozen for moves, and setting the pieces home starts
the next one without a button. :class:`NewGameSetup` is the part of
:class:`~board_driver.arbiter.tracker.Tracker` that does this.

>>> from rules import Game, Position
>>> from board_driver.physical.events import Place
>>> from board_driver.physical.squares import square
>>> from board_driver.arbiter.tracker import Tracker
>>> game = Game(Position.from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"))
>>> tracker = Tracker(game, board=0)             # an empty board
>>> [e["group"]["missing"] for e in tracker.wait_for_pieces(0)]
[['e1']]
>>> events = []
>>> for t, name in enumerate(["e1", "a1", "e8"]):
...     events += tracker.handle(Place(1000 * t, square(name)))
>>> events += tracker.finish(3000)
>>> [(e["type"], e["group"]["piece"] if e.get("group") else "") for e in events]
[('setup', 'rook'), ('setup', 'king'), ('setup_done', '')]
>>> tracker.in_sync, tracker.game.position.fen()
(True, '4k3/8/8/8/8/8/8/R3K3 w Q - 0 1')
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from board_driver.arbiter.game_events import Event, square_names
from board_driver.arbiter.kinds import SetupGuide, piece_dict
from board_driver.arbiter.parts import TrackerParts
from board_driver.physical.squares import square_name, squares_of
from rules import Game, Piece, Position

#: The occupancy of the start position: ranks 1, 2, 7 and 8 (every Chess960 start
#: position's too).
START_OCCUPANCY = Position().occupancy()
#: The rules a game is played by.
VARIANTS = ("standard", "chess960")


def start_position(
    variant: str = "standard",
    chess960: int | str | None = None,
    *,
    rng: random.Random | None = None,
) -> Position:
    """A new game's start position: the standard one, or Chess960 start position
    ``chess960`` (0-959, Scharnagl's numbering; 518 is the standard array) or ``"random"``
    (also None), drawn from ``rng`` (the system's randomness by default). ValueError says
    what is wrong.

    >>> start_position("chess960", 3).board_fen().split("/")[-1]
    'BQNNRKRB'
    >>> start_position("chess960", "random", rng=random.Random(7)).chess960_number()
    331
    >>> start_position("standard", 12)
    Traceback (most recent call last):
    ...
    ValueError: a start position number (12) is for variant "chess960", not "standard"
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r} is not one of {', '.join(map(repr, VARIANTS))}")
    if variant == "standard":
        if chess960 is not None:
            raise ValueError(
                f'a start position number ({chess960}) is for variant "chess960", not "standard"'
            )
        return Position()
    if chess960 is None or chess960 == "random":
        return Position.random_chess960(rng or random.SystemRandom())
    if isinstance(chess960, bool) or not isinstance(chess960, int) or not 0 <= chess960 <= 959:
        raise ValueError(
            f'a Chess960 start position is a number from 0 to 959 or "random", not {chess960!r}'
        )
    return Position.from_chess960(chess960)


#: What a new game set up on the board starts from (the ``new_game`` button, or the pieces
#: put home after a game): a function giving its start position.
StartPositions = Callable[[], Position]


class NewGameSetup(TrackerParts):
    """A new game waiting for its pieces (a Tracker part)."""

    _setup: SetupGuide | None  # the position being set up, kind by kind
    _keep_game: bool  # the game waiting is the tracker's own (wait_for_pieces)
    _setup_said: tuple[Any, ...] | None  # the set-up's state last announced
    _early_said: set[int]  # squares announced as filled before their kind was due

    @property
    def setting_up(self) -> bool:
        """Is a position being set up (nothing read as a move until it stands)?"""
        return self._setup is not None

    @property
    def setting_up_its_game(self) -> bool:
        """Is the tracker's own game waiting for its pieces (:meth:`wait_for_pieces`), not a
        game still to be made once a drawn position stands (the ``new_game`` button)?"""
        return self._setup is not None and self._keep_game

    def setup_state(self) -> dict[str, Any] | None:
        """The set-up as the ``setup`` event says it (:meth:`.kinds.SetupGuide.state`),
        None when no position is being set up."""
        return None if self._setup is None else self._setup.state()

    def known_pieces(self) -> dict[int, Piece]:
        """What the board knows stands on each square holding a piece: the position's
        pieces while the board shows it, what a set-up has placed kind by kind; nothing
        it cannot vouch for (the board out of sync, pieces in the hand)."""
        if self._setup is not None:
            return self._setup.known_pieces()
        if self.board != self._committed or self._out_of_sync:
            return {}
        position = self._position
        return {sq: p for sq in squares_of(self.board) if (p := position.piece_at(sq)) is not None}

    def to_put_right(self) -> tuple[int, int]:
        """Bitmaps of the squares to empty and to fill for the board to match the game (while
        a position is set up: its squares to empty, those holding a piece the board knows
        is wrong among them, and all its squares still empty)."""
        guide = self._setup
        if guide is not None:
            return guide.extra() | guide.wrong_squares(), guide.missing()
        return self.board & ~self._committed, self._committed & ~self.board

    def wait_for_pieces(self, t: int, known: dict[int, Piece] | None = None) -> list[Event]:
        """This game was begun on pieces that stand elsewhere (the last game's, an empty
        board): nothing is read as a move until its position stands, set up kind by kind,
        and then it goes on (``setup_done``; no other game is made). ``known``: what the
        board knows stands where (the last game's :meth:`known_pieces`). Returns the first
        ``setup`` event, or nothing when the pieces stand already (or the game is over)."""
        if self._outcome is not None:
            return []
        guide = SetupGuide(self._position, self.board, known)
        if guide.done():
            return []
        self._begin_setup(guide, keep_game=True)
        return self._setup_news(t)

    def _begin_setup(self, guide: SetupGuide, *, keep_game: bool) -> None:
        self._setup = guide
        self._keep_game = keep_game
        self._setup_said = None
        self._early_said = set()
        self._deadline = self._quick = None

    def _button_new_game(self, t: int) -> list[Event]:
        # Drawn now (a Chess960 array), so that the set-up is guided to the one played.
        guide = SetupGuide(self.next_start(), self.board, self.known_pieces())
        if guide.done():  # the start position stands already
            return self._start_new_game(t, guide.target)
        self._begin_setup(guide, keep_game=False)
        return [
            {
                "t": t,
                "type": "new_game_pending",
                "missing": square_names(START_OCCUPANCY & ~self.board),
                "extra": square_names(self.board & ~START_OCCUPANCY),
                "fen": guide.target.fen(),
                "variant": guide.target.variant,
            },
            *self._setup_news(t),
        ]

    def _judge_setup(self, t: int) -> list[Event]:
        """The board still while a position is being set up: the game begins once it
        stands, else what changed is said. After a game (no set-up asked for): all 32
        pieces home start a new game."""
        guide = self._setup
        if guide is not None:
            if guide.done():
                return self._setup_done(t)
            return self._setup_news(t)
        if self.board == START_OCCUPANCY and self.board != self._committed:
            return self._start_new_game(t, self.next_start())
        return []

    def _setup_news(self, t: int) -> list[Event]:
        """``setup_early`` for each square newly filled before its kind was due, then
        ``setup`` when what the lights ask changed since it was last said."""
        guide = self._setup
        assert guide is not None
        out: list[Event] = []
        early = guide.early_squares()
        due = guide.due()
        for sq in squares_of(early):
            if sq in self._early_said:
                continue
            self._early_said.add(sq)
            wants = guide.wants(sq)
            assert wants is not None and due is not None
            event: Event = {"t": t, "type": "setup_early", "square": square_name(sq)}
            event.update(piece_dict(wants), due=piece_dict(due.piece))
            out.append(event)
        self._early_said &= set(squares_of(early))
        state = guide.state()
        key = (state["number"], state["group"], state["extra"], state["wrong"], state["early"])
        if key != self._setup_said:
            self._setup_said = key
            out.append({"t": t, "type": "setup", **state})
        return out

    def _setup_done(self, t: int) -> list[Event]:
        guide = self._setup
        assert guide is not None
        self._setup = None
        done: Event = {"t": t, "type": "setup_done", "fen": guide.target.fen()}
        done["unchecked"] = guide.unchecked()
        if self._keep_game:
            self._keep_game = False
            self._new_turn()  # the move is read from the pieces standing now
            return [done]
        return [done, *self._start_new_game(t, guide.target)]

    def _start_new_game(self, t: int, start: Position) -> list[Event]:
        self.game = Game(start.copy())
        self._occupancies = [start.occupancy()]
        self._outcome = None
        self._forget_windows()
        self._choice = None
        self._warned = None
        self._draw_offer = None
        self._setup = None
        self._forget_choices()
        self._new_turn()
        return [new_game_event(t, self.game)]


def new_game_event(t: int, game: Game) -> Event:
    """The ``new_game`` event: the position it starts from (``fen``), its ``variant``, and
    for a Chess960 start position its number (``chess960``)."""
    start = game.start
    event: Event = {"t": t, "type": "new_game", "fen": game.position.fen()}
    event["variant"] = start.variant
    if start.variant == "chess960":
        event["chess960"] = start.chess960_number()
    return event
