"""Setting up a new game: the ``new_game`` button, or all 32 pieces put home after a game.

Until the start position stands, the lights show the squares still to fill (blue) and to
empty (red); when it stands, the new game begins (``new_game``). After a game has ended
the board is frozen for moves, and setting the pieces home starts the next one without a
button. :class:`NewGameSetup` is the part of :class:`~board_driver.arbiter.tracker.Tracker`
that does this.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from board_driver.arbiter.game_events import Event, square_names
from board_driver.arbiter.parts import TrackerParts
from rules import Game, Position

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

    _new_game_pending: bool
    _pending_start: Position | None  # the start position of the game being set up
    _keep_game: bool = False  # the game waiting is the one to play (wait_for_pieces)

    def wait_for_pieces(self, t: int) -> list[Event]:
        """This game, from a start position (the standard one or a Chess960 one) with no
        move yet, was begun on pieces that stand elsewhere (the last game's): as after
        ``new_game``, nothing is read as a move until all 32 stand home, and then this game
        begins (no other is made)."""
        if self.board == START_OCCUPANCY or self.game.moves or self._outcome is not None:
            return []
        start = self.game.start
        if start.chess960_number() is None or (
            start.variant == "standard" and start.fen() != Game().start.fen()
        ):
            raise ValueError("wait_for_pieces: a game from a start position only")
        self._keep_game = True
        self._pending_start = start
        return self._button_new_game(t)

    def _button_new_game(self, t: int) -> list[Event]:
        self._new_game_pending = True
        if self._pending_start is None:
            # Drawn now (a Chess960 array), so that the set-up is guided to the one played.
            self._pending_start = self.next_start()
        if self.board == START_OCCUPANCY:
            return self._start_new_game(t)
        start = self._pending_start
        event: Event = {
            "t": t,
            "type": "new_game_pending",
            "missing": square_names(START_OCCUPANCY & ~self.board),
            "extra": square_names(self.board & ~START_OCCUPANCY),
            "fen": start.fen(),
            "variant": start.variant,
        }
        return [event]

    def _judge_setup(self, t: int) -> list[Event]:
        """After the game (or ``new_game``): all 32 pieces home start a new game."""
        if self.board == START_OCCUPANCY and (
            self._new_game_pending or self.board != self._committed
        ):
            return self._start_new_game(t)
        return []

    def _start_new_game(self, t: int) -> list[Event]:
        start, self._pending_start = self._pending_start, None
        if not self._keep_game:
            self.game = Game(start if start is not None else self.next_start())
        self._keep_game = False
        self._occupancies = [START_OCCUPANCY]
        self._outcome = None
        self._forget_windows()
        self._choice = None
        self._warned = None
        self._draw_offer = None
        self._new_game_pending = False
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
