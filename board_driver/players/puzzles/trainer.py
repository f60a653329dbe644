"""A puzzle session at the board: the puzzles one after another, as Lichess's puzzle
trainer plays them, on the real pieces.

For each puzzle the board's game becomes the puzzle's position (:meth:`Table.new_game`),
set up by the lights kind by kind; the opponent's moves are lit as an engine's are (from
and to blinking cyan: the player makes them on the board, and only that move is accepted,
:meth:`Table.expect`); the player's move must be the solution's (or any move that mates,
as Lichess accepts: :meth:`Table.require`). A wrong move is refused: lit (what to put
back) and said, the puzzle counts as failed, and the player may try again once the pieces
are back, as on Lichess. A right move brings the reply. A hint lights the piece to move,
a second one the move. When the line is played out (or the player mates) the result is
kept (:meth:`Table.record`) and the next puzzle is set up.

On a real board, as on Lichess's trainer: touch-move is off (a piece may be lifted to
think and put back: only a move made counts), take-backs are off (a move is judged as it
is made; the board itself puts a wrong one back), and the ``new_game`` button gives up the
puzzle (failed, if not solved) and sets up the next.

The trainer decides; a :class:`Table` acts: the door in the daemon (:mod:`.seat`).
It looks at the state after each batch of events (:meth:`Trainer.follow`), so it asks for
what is due whatever happened in between.

Events announced (besides the board's): ``puzzle`` (a puzzle begins: ``id``, ``fen``,
``player``, ``rating``, ``themes``, ``moves`` (the player's moves to find), ``number``),
``puzzle_move`` (the opponent's move to make on the board: the details of an
``engine_move``), ``puzzle_turn`` (the player's move to find: ``side``, ``left``),
``puzzle_right`` / ``puzzle_wrong`` (``san``, ``uci``; ``left``), ``puzzle_hint``
(``level`` 1: ``square`` and ``piece`` to move; 2: the move's details too),
``puzzle_done`` (``id``, ``result``, ``mistakes``, ``hints``, ``streak``, ``rating``), and
``puzzles_over`` (``reason``, ``played``, ``solved``, ``streak``, ``rating``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from board_driver.arbiter.expected import describe_move
from board_driver.door.puzzles import PuzzleResult, progress
from board_driver.players.puzzles.source import Puzzle
from rules import Position

log = logging.getLogger("magboard")

#: The options a puzzle's game is played with (see the module docstring).
PUZZLE_OPTIONS = {"touch_move": "off", "takeback": False, "clock": "none"}


@dataclass(frozen=True)
class TableState:
    """The game on the board as the trainer needs it. ``key`` tells one game from another
    (the door's game number); ``awaiting``: the opponent's move is asked for."""

    key: object
    ucis: tuple[str, ...]
    setting_up: bool
    awaiting: bool
    expected: str | None
    result: str
    winner: str | None
    termination: str | None


class Table(Protocol):
    """The board as the trainer acts on it."""

    def state(self) -> TableState: ...

    def new_game(self, puzzle: Puzzle) -> None:
        """A new game from the puzzle's position (set up by the lights), its opponent's
        side given to the trainer, played with :data:`PUZZLE_OPTIONS`."""

    def expect(self, uci: str) -> None: ...

    def require(self, uci: str) -> None:
        """The player's next move must be ``uci`` or a move that mates."""

    def show_hint(self, uci: str | None, *, piece_only: bool = False) -> None: ...

    def take_back(self, plies: int) -> None: ...

    def announce(self, event: dict[str, Any]) -> None: ...

    def record(self, result: PuzzleResult) -> None: ...

    def results(self) -> list[PuzzleResult]: ...

    def leave(self) -> None:
        """The session is over: the opponent's side goes back to people."""


@dataclass
class Attempt:
    """The puzzle being played."""

    puzzle: Puzzle
    number: int
    key: object = None
    mistakes: int = 0
    hints: int = 0
    hint_level: int = 0  # for the move to find now: 0, 1 (the piece shown), 2 (the move)
    hint_ply: int = -1
    required_ply: int = -1  # the ply whose move was required of the player
    right_said: int = 0  # the plies whose right move was said
    wrong: str | None = None  # a wrong move standing on the board, to put back
    begun: bool = False  # its position stands


#: What ``puzzles`` gives while the next puzzle is still being looked for: the trainer
#: waits, and :meth:`Trainer.found` begins it.
LOOKING = "looking"


class Trainer:
    """The session: ``puzzles`` gives the next puzzle (None when there is none left,
    :data:`LOOKING` while it is being looked for)."""

    def __init__(self, table: Table, puzzles: Callable[[], Puzzle | str | None]):
        self.table = table
        self._next = puzzles
        self.looking = False  # the next puzzle is being looked for
        self.attempt: Attempt | None = None
        self.played = 0
        self.over: str | None = None  # why the session ended
        self.last: dict[str, Any] | None = None  # the last puzzle_done
        self._seen: TableState | None = None  # the table's state when last looked at

    def _state(self) -> TableState:
        """The table's state now, kept for :meth:`describe` (a page's view must not ask
        the board: the door's snapshot holds it)."""
        self._seen = self.table.state()
        return self._seen

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """The first puzzle is set up."""
        self._begin_next()

    def found(self) -> None:
        """The puzzle looked for is found (or the reading ended): it is begun, if the
        session still waits for it."""
        if self.looking and self.over is None and self.attempt is None:
            self._begin_next()

    def stop(self, reason: str) -> None:
        """The session ends (the puzzle being played is left as it is, unrecorded)."""
        if self.over is not None:
            return
        self.attempt = None
        self.over = reason
        record = progress(self._results())
        self.table.announce(
            {
                "type": "puzzles_over",
                "reason": reason,
                "played": self.played,
                "solved": record["solved"],
                "streak": record["streak"],
                "rating": record["rating"],
            }
        )
        self.table.leave()

    def _results(self) -> list[PuzzleResult]:
        try:
            return self.table.results()
        except Exception as exc:  # the store unreadable: progress shows what it can
            log.warning("puzzles: cannot read the results: %s", exc)
            return []

    def _begin_next(self) -> None:
        try:
            puzzle = self._next()
        except (OSError, ValueError) as exc:  # the file went away, became unreadable
            self.stop(f"the puzzles cannot be read: {exc}")
            return
        if puzzle == LOOKING:  # begun when found (found), the board not held meanwhile
            self.looking = True
            return
        self.looking = False
        if puzzle is None:
            self.stop("no puzzle left")
            return
        assert not isinstance(puzzle, str)
        self.played += 1
        attempt = Attempt(puzzle, self.played)
        self.attempt = attempt
        self.table.new_game(puzzle)
        attempt.key = self._state().key
        log.info(
            "puzzle %d: %s (%s, rated %s, %s) from %s",
            attempt.number,
            puzzle.id,
            puzzle.player_side,
            puzzle.rating if puzzle.rating is not None else "-",
            " ".join(puzzle.themes) or "no themes",
            puzzle.source or "-",
        )
        self.table.announce({"type": "puzzle", **puzzle.to_dict(), "number": attempt.number})
        self._act()

    def resume(
        self, puzzle: Puzzle, number: int, mistakes: int = 0, hints: int = 0,
        wrong: str | None = None,
    ) -> None:  # fmt: skip
        """Go on with ``puzzle``, the game on the board already (the daemon restarted
        during it): at the point its moves stand, its ``mistakes`` and ``hints`` so far
        kept, as puzzle ``number`` of the run; ``wrong``: a wrong move (SAN) standing on
        the board, still to put back (refused again after the restart: counted once)."""
        self.played = number
        attempt = Attempt(puzzle, number, mistakes=mistakes, hints=hints, wrong=wrong)
        state = self._state()
        attempt.key = state.key
        attempt.right_said = len(state.ucis)  # said before the restart
        self.attempt = attempt
        log.info("puzzle %d: %s goes on at ply %d (%d wrong, %d hints)", number, puzzle.id,
                 len(state.ucis), mistakes, hints)  # fmt: skip
        self.table.announce(
            {"type": "puzzle", **puzzle.to_dict(), "number": number, "resumed": True}
        )
        self._act()

    # ------------------------------------------------------------------ following the board

    def follow(self, events: list[dict[str, Any]]) -> None:
        """The board announced ``events``: note what they say, then do what is due."""
        for event in events:
            if self.attempt is None:
                return
            kind = event.get("type")
            if kind == "illegal" and event.get("reason") == "refused":
                self._wrong(event)
            elif kind == "restored":
                self.attempt.wrong = None
            elif kind == "hint_requested":
                self._hint()
            elif kind == "new_game_pending":
                self._give_up()
                return
        self._act()

    def _act(self) -> None:
        attempt = self.attempt
        if attempt is None:
            return
        state = self._state()
        if state.key != attempt.key:
            self.stop("another game is on the board")
            return
        if state.setting_up:
            return
        puzzle = attempt.puzzle
        attempt.begun = True
        played, line = tuple(state.ucis), puzzle.moves
        ply = len(played)
        mated = self._mated_by_player(state)  # any mate counts, as on Lichess
        if played != line[:ply] and not mated:
            self._unasked(played)
            return
        if ply and puzzle.is_players(ply - 1) and attempt.right_said < ply:
            attempt.right_said = ply
            left = 0 if mated else self._left(ply)
            details = self._details(played, ply - 1)
            self.table.announce({"type": "puzzle_right", **details, "left": left})
        if ply >= len(line) or mated:
            self._done()
            return
        if state.result != "*":
            self.stop(f"the game ended ({state.termination})")
            return
        if puzzle.is_players(ply):
            if attempt.required_ply != ply:
                attempt.required_ply = ply
                self.table.require(line[ply])
                side = puzzle.player_side
                self.table.announce({"type": "puzzle_turn", "side": side, "left": self._left(ply)})
        elif state.awaiting and state.expected is None:
            details = self._details(line, ply)
            self.table.announce({"type": "puzzle_move", **details, "id": puzzle.id})
            self.table.expect(line[ply])

    def _left(self, ply: int) -> int:
        """The player's moves still to find from ply ``ply`` on."""
        assert self.attempt is not None
        puzzle = self.attempt.puzzle
        return sum(1 for i in range(ply, len(puzzle.moves)) if puzzle.is_players(i))

    def _details(self, moves: tuple[str, ...], index: int) -> dict[str, Any]:
        """Move ``index`` of ``moves`` from the puzzle's position, as events describe it."""
        assert self.attempt is not None
        position = Position.from_fen(self.attempt.puzzle.fen)
        for uci in moves[:index]:
            position.push(position.parse_uci(uci))
        return describe_move(position, position.parse_uci(moves[index]))

    def _mated_by_player(self, state: TableState) -> bool:
        assert self.attempt is not None
        return state.termination == "checkmate" and state.winner == self.attempt.puzzle.player_side

    def _wrong(self, event: dict[str, Any]) -> None:
        attempt = self.attempt
        assert attempt is not None
        if self._standing_again(str(event.get("san"))):
            return  # refused again after a restart: counted once
        attempt.mistakes += 1
        attempt.wrong = str(event.get("san"))
        log.info("puzzle %s: %s is not the move (wrong move %d)", attempt.puzzle.id,
                 event.get("san"), attempt.mistakes)  # fmt: skip
        wrong = {"san": event.get("san"), "uci": event.get("uci"), "mistakes": attempt.mistakes}
        self.table.announce({"type": "puzzle_wrong", **wrong})

    def _standing_again(self, san: str | None) -> bool:
        """Is ``san`` the wrong move still standing, met again after a restart (counted once
        already)? Putting it back clears it (``restored``), so the same mistake made again
        counts again."""
        wrong = self.attempt.wrong if self.attempt is not None else None
        return wrong is not None and wrong == san

    def _unasked(self, played: tuple[str, ...]) -> None:
        """A move committed that the line does not have (it can only come from a path the
        board's requirement did not cover): counted wrong, taken back."""
        attempt = self.attempt
        assert attempt is not None
        line = attempt.puzzle.moves
        common = next((i for i, (a, b) in enumerate(zip(played, line, strict=False)) if a != b),
                      min(len(played), len(line)))  # fmt: skip
        extra = len(played) - common
        if extra <= 0:
            return
        if extra == 1 and self._standing_again(self._details(played, common).get("san")):
            # Read from the hands after a restart (no requirement then): taken back.
            self.table.take_back(extra)
            return
        attempt.mistakes += 1
        self.table.announce({"type": "puzzle_wrong", "san": None, "uci": played[-1],
                             "mistakes": attempt.mistakes})  # fmt: skip
        self.table.take_back(extra)

    def _hint(self) -> None:
        attempt = self.attempt
        assert attempt is not None
        state = self._state()
        ply = len(state.ucis)
        puzzle = attempt.puzzle
        if (
            state.setting_up
            or state.key != attempt.key
            or ply >= len(puzzle.moves)
            or not puzzle.is_players(ply)
            or tuple(state.ucis) != puzzle.moves[:ply]
        ):
            self.table.announce(
                {"type": "refused", "button": "hint", "reason": "no move of yours to find now"}
            )
            return
        if attempt.hint_ply != ply:
            attempt.hint_ply, attempt.hint_level = ply, 0
        attempt.hint_level = min(2, attempt.hint_level + 1)
        attempt.hints += 1
        details = self._details(puzzle.moves, ply)
        uci = puzzle.moves[ply]
        position = Position.from_fen(puzzle.fen)
        for earlier in puzzle.moves[:ply]:
            position.push(position.parse_uci(earlier))
        piece = position.piece_at(position.parse_uci(uci).from_square)
        event: dict[str, Any] = {"type": "puzzle_hint", "level": attempt.hint_level,
                                 "square": details["from"]}  # fmt: skip
        if piece is not None:
            event["piece"] = ("pawn", "knight", "bishop", "rook", "queen", "king")[
                piece.piece_type - 1
            ]
        if attempt.hint_level >= 2:
            event.update(details)
        self.table.show_hint(uci, piece_only=attempt.hint_level < 2)
        self.table.announce(event)

    def _give_up(self) -> None:
        """The ``new_game`` button during a puzzle: it is given up, the next one set up."""
        attempt = self.attempt
        assert attempt is not None
        if attempt.begun or attempt.mistakes or attempt.hints:
            attempt.mistakes = max(attempt.mistakes, 1)
            self._done(given_up=True)
        else:
            self._begin_next()  # not begun: nothing to count

    def _done(self, *, given_up: bool = False) -> None:
        attempt = self.attempt
        assert attempt is not None
        puzzle = attempt.puzzle
        result = "failed" if attempt.mistakes else "helped" if attempt.hints else "solved"
        state = self._state()
        game_id = state.key if isinstance(state.key, int) else None
        record = PuzzleResult(
            puzzle.id, puzzle.source or "-", puzzle.rating, puzzle.themes, result,
            attempt.mistakes, attempt.hints, game_id,
        )  # fmt: skip
        try:
            self.table.record(record)
        except Exception as exc:  # kept by the store when it works again, or lost: said
            log.error("puzzles: cannot keep the result of %s: %s", puzzle.id, exc)
        stats = progress(self._results())
        event = {
            "type": "puzzle_done",
            "id": puzzle.id,
            "result": result,
            "given_up": given_up,
            "mistakes": attempt.mistakes,
            "hints": attempt.hints,
            "streak": stats["streak"],
            "best_streak": stats["best_streak"],
            "rating": stats["rating"],
            "solved": stats["solved"],
            "played": stats["played"],
        }
        if given_up:
            event["solution"] = list(puzzle.solution_sans())
        log.info("puzzle %s %s (%d wrong, %d hints); streak %d, rating %d", puzzle.id,
                 "given up" if given_up else result, attempt.mistakes, attempt.hints,
                 stats["streak"], stats["rating"])  # fmt: skip
        self.last = event
        self.attempt = None
        self.table.announce(event)
        self._begin_next()

    # ------------------------------------------------------------------ for a page

    def describe(self) -> dict[str, Any]:
        """What a page shows: ``status`` (``setup``, ``opponent``: its move to make on
        the board, ``your_move``, ``wrong``: a wrong move to put back, ``over``), the
        ``puzzle`` (without its answer), its ``number``, ``mistakes``, ``hints``,
        ``left`` (moves to find), the ``last`` puzzle's outcome and the ``progress``."""
        attempt = self.attempt
        out: dict[str, Any] = {"last": self.last, "over": self.over}
        if attempt is None:
            out["status"] = "over" if self.over else "looking" if self.looking else "idle"
            return out
        state = self._seen
        ply = len(state.ucis) if state is not None else 0
        puzzle = attempt.puzzle
        if state is None or state.setting_up or not attempt.begun:
            status = "setup"
        elif attempt.wrong is not None:
            status = "wrong"
        elif ply < len(puzzle.moves) and not puzzle.is_players(ply):
            status = "opponent"
        else:
            status = "your_move"
        out.update(
            status=status,
            puzzle={**puzzle.to_dict(), "number": attempt.number},
            mistakes=attempt.mistakes,
            hints=attempt.hints,
            hint_level=attempt.hint_level if attempt.hint_ply == ply else 0,
            wrong=attempt.wrong,
            left=self._left(ply),
        )
        return out
