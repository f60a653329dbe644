"""What the tracker's parts share: the state a :class:`~.tracker.Tracker` holds and the
steps its parts call on one another, declared once.

The tracker is one object put together from its parts (:mod:`.hands`, :mod:`.rereading`,
:mod:`.amendments`, :mod:`.takebacks`, :mod:`.controls`, :mod:`.setup`, :mod:`.expected`,
:mod:`.lights`), each a class of its own that :class:`~.tracker.Tracker` inherits. Each
part is a :class:`TrackerParts`, so that the type checker reads every part against this
one description of the whole; nothing here runs (the state is set by
``Tracker.__init__``, the steps are defined by the parts and the tracker). Two small
records of that state live here too: a :class:`Choice` of the hands' reading, and a
:class:`CastlingAmendment`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from board_driver.arbiter.footprint import Footprint
from rules import Move

if TYPE_CHECKING:
    from board_driver.arbiter.feedback import Colours
    from board_driver.arbiter.kinds import SetupGuide
    from board_driver.arbiter.options import GameOptions, Timing
    from board_driver.arbiter.reading import MoveReading
    from board_driver.physical.events import BoardEvent
    from rules import Color, Game, Outcome, Position

#: A game event, as :mod:`.game_events` builds them (the same type: a JSON-able dict).
Event = dict[str, Any]
#: The tracker's state saved before a choice (see :mod:`.rereading`): its attributes, the
#: occupancies, the moves and the choices.
Snapshot = tuple[dict[str, Any], list[int], list[Any], list[Any]]


@dataclass(frozen=True, slots=True)
class Choice:
    """A reading taken on the way, that what follows may overturn (:mod:`.rereading`)."""

    kind: str  # snatch, release, deferred, reach, touch or stood (see rereading)
    t: int
    square: int  # the square lifted (for a release: the square the piece rests on)
    index: int  # the event of the log it was taken at (a release: the next one)
    before: Snapshot  # the state just before it


@dataclass(frozen=True, slots=True)
class CastlingAmendment:
    """A rook move that becomes castling if its king follows (rook first), or a Chess960
    king's step onto its castling square that becomes castling if its rook follows (king
    first): :mod:`.amendments`."""

    castling: Move
    footprint: Footprint  # the castling's, from the position before the first move
    before: int  # the occupancy before the first move
    follower: int  # the square of the piece still to move: the king's, or the rook's

    @property
    def rook_first(self) -> bool:
        return self.follower == self.castling.from_square


class TrackerParts:
    """The tracker as each of its parts sees it (see the module docstring)."""

    # The game, its options, and the board standing (``Tracker.__init__``).
    game: Game
    next_start: Callable[[], Position]
    options: GameOptions
    timing: Timing
    colours: Colours
    board: int
    _occupancies: list[int]
    _outcome: Outcome | None
    # The move being read (``Tracker._new_turn``).
    _position: Position
    _committed: int
    _reading: MoveReading
    _out_of_sync: bool
    _out_since: int
    _announced: tuple[int, int] | None
    _why: str | None
    _whys_said: set[str]
    _deferred: tuple[int, int, int] | None
    # When to judge.
    _deadline: int | None
    _quick: int | None
    _quickly: bool
    # The hands read again (rereading).
    _log: list[BoardEvent]
    _seen: int
    _choices: list[Choice]
    _forced: tuple[str, int, int] | None
    _early_tried: tuple[int, int, int] | None
    _rereading: str
    _recording: bool
    _standing: bool
    _hindsight: dict[int, int] | None
    # The last move's windows (amendments), controls and the other side.
    _castle_amend: CastlingAmendment | None
    _promotion_square: int | None
    _choice: int | None
    _pending_choice: int | None
    _held_choice: tuple[int, int] | None  # chosen while a new piece is off, not yet judged
    _warned: int | None
    _setup: SetupGuide | None
    _keep_game: bool
    _setup_said: tuple[Any, ...] | None
    _early_said: set[int]
    _draw_offer: Color | None
    _other_side: Color | None
    _expected: Move | None
    _hint: Move | None
    _required: tuple[Move, ...] | None
    _required_mates: bool

    if TYPE_CHECKING:
        # Steps of the tracker (tracker.py).
        def tick(self, t_ms: int) -> list[Event]: ...
        def _dispatch(self, event: BoardEvent) -> list[Event]: ...
        def _new_turn(self) -> None: ...
        def _fresh_reading(self, start_board: int | None = None) -> MoveReading: ...
        def _playing(self) -> bool: ...
        def _acceptable(self, move: Move) -> bool: ...
        def _complete(self) -> Footprint | None: ...
        def _on_the_way(self, *, sliding: bool = False, still: bool = False) -> bool: ...
        def _judge(self, t: int) -> list[Event]: ...
        def _restored(self, t: int) -> list[Event]: ...
        def _after_move(self, t: int, was_over: Outcome | None) -> list[Event]: ...
        def _push(self, move: Move) -> tuple[str, Color]: ...
        def _pop(self) -> tuple[Move, str]: ...
        def _commit(self, fp: Footprint, t: int) -> list[Event]: ...

        # Of the hands (hands.py).
        def _lift(self, t: int, sq: int) -> list[Event]: ...
        def _place(self, t: int, sq: int) -> list[Event]: ...
        def _note_lift(self, t: int, sq: int) -> None: ...

        # Of the hands read again (rereading.py).
        def _read_again(
            self,
            t: int,
            *,
            choices_only: bool = False,
            whole: bool = False,
            choices: list[Choice] | None = None,
            unseen_only: bool = False,
        ) -> list[Event] | None: ...
        def _captured_where_it_stood(self, t: int, sq: int) -> list[Event]: ...
        def _choose_reading(self, kind: str, t: int, square: int) -> bool: ...
        def _forget_choices(self) -> None: ...

        # Of the last move's windows (amendments.py).
        def _close_windows(self, sq: int) -> None: ...
        def _forget_windows(self) -> None: ...
        def _promoted_piece_back(self, t: int) -> list[Event]: ...
        def _held_choice_set_down(self, sq: int, taken: bool) -> None: ...
        def _in_window(self, sq: int) -> bool: ...
        def _castling_shown(self) -> bool: ...
        def _swapped_back(self) -> bool: ...
        def _at_position(self) -> bool: ...
        def _amend_castling(self, t: int) -> list[Event]: ...

        # Of take-backs (takebacks.py) and the other side (expected.py).
        def _takeback_shown(self) -> bool: ...
        def _takeback_depth(self, quick: bool = False) -> int: ...
        def _take_back(self, depth: int, t: int) -> list[Event]: ...
        def _hint_squares(self) -> int: ...
        def meets(self, move: Move) -> bool: ...
