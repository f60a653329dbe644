"""A restart's first step: the hands journal replayed, from its anchor, through a tracker of
its own, and what it leads to taken only when it agrees with the store.

The journal (:mod:`.hands_journal`) holds every event the tracker was given since its
anchor, and every decision made beside the board (a take-back, an ending, options,
headers, a new game, the answer to a question): while the store works, usually the hands
of one move; while it could not be written (a full disk), everything the store lacks.
:func:`replay_journal` plays them again, step by step as the daemon did, and notes the line
of moves after each step. The store synced its line after some step: the replay must pass
through the stored line (a replay that never does was not what happened, and is refused:
the journal is then set aside and the board starts from the store and the pieces). What
follows the last passage is what the store lacks: the moves, take-backs, endings and new
games to store now, announced as game events (:attr:`Replayed.events`).

Nothing a journal holds can stop a start: an event the tracker refuses is passed over as
it was the first time, and any other failure is :class:`ReplayRefused`, never a traceback.

>>> import rules
>>> from board_driver.arbiter.tracker import Timing
>>> from board_driver.physical.events import Lift, Place
>>> from board_driver.service.hands_journal import Kept
>>> stored = rules.Game.from_record(rules.Position(), ["e2e4"])
>>> hands = (Lift(100, 51), Place(400, 35))                  # d7-d5, not yet judged
>>> kept = Kept(1, "T", 1, "", None, hands, start_fen=rules.STARTING_FEN, line=("e2e4",))
>>> done = replay_journal(kept, stored, timing=Timing())
>>> [e["san"] for e in done.events if e["type"] == "move"], done.final_t
(['d5'], 651)
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import rules
from board_driver.arbiter.game_events import pushed_events
from board_driver.arbiter.setup import new_game_event
from board_driver.arbiter.tracker import GameOptions, Timing, Tracker
from board_driver.physical.events import Lift, Place
from board_driver.service.hands_journal import Kept
from board_driver.service.journal_lines import (
    Asked,
    Decided,
    Expect,
    JournalEvent,
    data_of,
    headers_of,
    newgame_of,
    read_of,
    setup_of,
    start_of,
)

log = logging.getLogger("magboard")

#: The options a journal's ``options`` lines may set (GameOptions' fields).
OPTION_NAMES = tuple(f.name for f in dataclasses.fields(GameOptions))


class ReplayRefused(Exception):
    """The journal cannot be replayed (the message says why); the start goes on from the
    store and the pieces, the journal set aside."""


@dataclass
class Replayed:
    """What a journal's replay leads to."""

    #: The tracker at the end of the replay (its game: the game on the board).
    tracker: Tracker
    #: The game events the store lacks (from the stored line's last passage on).
    events: list[dict]
    #: The same, step by step, each with the line of moves after it (for the clock).
    steps: list[tuple[list[dict], tuple[str, ...]]]
    #: The moment the replay ends (the daemon's clock goes on from it).
    final_t: int
    #: The game on the board is played online (its server decides its result).
    online: bool = False
    #: A question asked after a restart and not answered: its line, and the lifts and
    #: places held since.
    question: tuple[Asked, list[Any]] | None = None
    #: PGN headers set for the game on the board (``""`` removes one), in order.
    headers: dict[str, str] = field(default_factory=dict)
    #: Lines of the journal passed over (an option this magboard does not know, ...).
    warnings: list[str] = field(default_factory=list)
    #: The game on the board is the stored one, gone on (no new game in the journal).
    same_game: bool = True
    #: Extensions' texts kept with the game on the board (``None`` removes one), by name.
    data: dict[str, dict[str, str | None]] = field(default_factory=dict)
    #: When a new game followed: the stored game's headers, texts and options set before it.
    stored_headers: dict[str, str] = field(default_factory=dict)
    stored_data: dict[str, dict[str, str | None]] = field(default_factory=dict)
    stored_options: GameOptions | None = None


def replay_journal(
    kept: Kept,
    stored: rules.Game,
    *,
    options: GameOptions | None = None,
    timing: Timing,
    online: bool = False,
    seat: Callable[[Tracker], None] = lambda _tracker: None,
    next_start: Callable[[], rules.Position] = rules.Position,
) -> Replayed:
    """Replay ``kept`` from its anchor (see the module docstring). ``stored`` is the game
    the store has (its line is the one the replay must pass through), ``options`` its
    options, ``online`` whether it is played online; ``seat`` is told of every tracker made
    (the players not at the board sit at it). A new game the tracker set up on the board
    starts from the position the journal's ``start`` line kept (a Chess960 array drawn at
    random comes back the same), or, in a journal without one, from ``next_start()``.
    :class:`ReplayRefused` says why not."""
    try:
        replay = _Replay(kept, stored, options or GameOptions(), timing, online, seat, next_start)
        return replay.run()
    except ReplayRefused:
        raise
    except Exception as exc:  # anything a journal holds: refused in words, never raised on
        raise ReplayRefused(f"its replay failed ({type(exc).__name__}: {exc})") from exc


class _Replay:
    def __init__(
        self,
        kept: Kept,
        stored: rules.Game,
        options: GameOptions,
        timing: Timing,
        online: bool,
        seat: Callable[[Tracker], None],
        next_start: Callable[[], rules.Position] = rules.Position,
    ) -> None:
        self.kept = kept
        # The start positions the tracker drew before the restart, in the order it drew them
        # (each ``start`` line follows the event that drew it): the replay's tracker draws
        # the same ones, in turn.
        self._starts = [
            start_of(e.what) for e in kept.events
            if isinstance(e, Decided) and e.what.startswith("start ")
        ]  # fmt: skip
        self._draw = next_start
        self.timing = timing
        self.online = online
        self.seat = seat
        self.stored_line = tuple(str(m) for m in stored.moves)
        anchor = kept.anchor_line(list(self.stored_line))
        try:
            game = rules.Game.from_record(stored.start.copy(), anchor)
        except ValueError as exc:
            raise ReplayRefused(f"its anchor's moves do not replay ({exc})") from None
        game.dead_position_ends = not online
        self.tracker = self._made(Tracker(game, options=options, timing=timing, board=kept.board))
        self.steps: list[tuple[list[dict], tuple[str, ...]]] = []
        self.passage: int | None = None
        self.same_game = True
        self.headers: dict[str, str] = {}
        self.stored_headers: dict[str, str] = {}
        self.stored_options: GameOptions | None = None
        self.data: dict[str, dict[str, str | None]] = {}
        self.stored_data: dict[str, dict[str, str | None]] = {}
        self.warnings: list[str] = []
        self._note([])

    def _made(self, tracker: Tracker) -> Tracker:
        self.seat(tracker)
        tracker.next_start = self._next_start  # after the seat: the daemon's would draw
        return tracker

    def _next_start(self) -> rules.Position:
        if not self._starts:
            self._warn("a new game's start position is not in the journal: drawn again")
            return self._draw()
        variant, fen = self._starts.pop(0)
        return rules.Position.from_fen(fen, variant=variant)

    def _line(self) -> tuple[str, ...]:
        return tuple(str(m) for m in self.tracker.game.moves)

    def _another_game(self, options: GameOptions) -> None:
        """A new game follows the stored one: what was set for the stored game is kept
        apart (its options, ``options``, as they were before it)."""
        if self.same_game:
            self.stored_headers, self.stored_options = self.headers, options
            self.stored_data = self.data
        self.same_game = False
        self.headers, self.data = {}, {}

    def _note(self, found: list[dict]) -> None:
        """A step done: its events, and the line after it. A new game made by the
        tracker (its pieces set up after ``button new_game``) is another game."""
        if any(e.get("type") == "new_game" for e in found):
            self._another_game(self.tracker.options)
        line = self._line()
        self.steps.append((found, line))
        if self.same_game and line == self.stored_line:
            self.passage = len(self.steps)

    def run(self) -> Replayed:
        events = list(self.kept.events)
        question: tuple[Asked, list[Any]] | None = None
        end_t = 0
        i = 0
        while i < len(events):
            event = events[i]
            end_t = max(end_t, event.t_ms)
            if isinstance(event, Asked):
                answer = next(
                    (
                        k
                        for k in range(i + 1, len(events))
                        if _is_read(events[k])
                    ),
                    None,
                )
                self._note(self.tracker.tick(event.t_ms))
                if answer is None:  # still asked when the daemon stopped: asked again
                    question = (event, events[i + 1 :])
                    self._apply_beside_the_board(events[i + 1 :])
                    end_t = max(end_t, *(e.t_ms for e in events[i:]))
                    break
                # The lifts and places while it stood were held back (given again, after
                # the answer's line, to the tracker it made); anything else was done.
                self._apply_beside_the_board(events[i + 1 : answer])
                i = answer
                continue
            self._note(self.tracker.tick(event.t_ms))
            self._note(self._apply(event))
            i += 1
        final_t = end_t + self.timing.settle_ms + 1 if events else 0
        if question is None:
            self._note(self.tracker.tick(final_t))
        if self.passage is None:
            led = " ".join(self._line()) or "no move"
            raise ReplayRefused(
                f"its {len(events)} events never lead through the stored moves "
                f"({' '.join(self.stored_line) or 'none'}; they lead to {led})"
            )
        new = self.steps[self.passage :]
        return Replayed(
            tracker=self.tracker,
            events=[e for found, _line in new for e in found],
            steps=new,
            final_t=final_t,
            online=self.online,
            question=question,
            headers=self.headers,
            warnings=self.warnings,
            same_game=self.same_game,
            stored_headers=self.stored_headers,
            stored_options=self.stored_options,
            data=self.data,
            stored_data=self.stored_data,
        )

    def _apply_beside_the_board(self, events: list[Any]) -> None:
        """What a question left to the tracker: everything but the board's lifts and places."""
        for event in events:
            if not isinstance(event, Lift | Place | Asked):
                self._note(self.tracker.tick(event.t_ms))
                self._note(self._apply(event))

    def _apply(self, event: JournalEvent) -> list[dict]:
        tracker = self.tracker
        try:
            if isinstance(event, Expect):
                return tracker.expect(event.uci, event.t_ms)
            if isinstance(event, Decided):
                return self._decide(event)
            if isinstance(event, Asked):
                return []  # the daemon's own line, never the tracker's
            return tracker.handle(event)
        except ValueError as exc:  # refused then too: the tracker kept its state
            log.debug("replay: %s refused (%s)", event, exc)
            return []

    def _decide(self, event: Decided) -> list[dict]:
        """A decision from beside the board, as the daemon applied it."""
        tracker, t = self.tracker, event.t_ms
        kind, _, rest = event.what.partition(" ")
        if kind == "takeback":
            return tracker.take_back(int(rest), t)
        if kind == "end":
            termination, winner = rest.split(" ")
            return tracker.end_game(termination, None if winner == "-" else winner == "white", t)
        if kind == "forfeit":
            side, termination = rest.split(" ")
            return tracker.forfeit(side == "white", termination, t)
        if kind == "judge":
            return tracker.judge_now(t)
        if kind == "setup":
            return tracker.wait_for_pieces(t, setup_of(event.what))
        if kind == "options":
            tracker.options = self._options(tracker.options, rest)
            return []
        if kind == "headers":
            self.headers.update(headers_of(rest))
            return []
        if kind == "data":
            extension, texts = data_of(rest)
            self.data.setdefault(extension, {}).update(texts)
            return []
        if kind == "newgame":
            return self._new_game(event)
        if kind == "read":
            return self._read(event)
        if kind == "start":
            return []  # taken by the tracker's draw it follows (_next_start)
        raise ValueError(f"not a decision: {event.what!r}")

    def _options(self, options: GameOptions, record: str) -> GameOptions:
        """``options`` changed as an ``options`` record says: a name this magboard does not
        know (a newer one's), or a value it refuses, is passed over with a warning."""
        for pair in record.split(","):
            name, _, value = pair.partition("=")
            if name not in OPTION_NAMES:
                self._warn(f"option {name[:40]!r} is not one this magboard knows: passed over")
                continue
            typed: Any = value
            if name in ("takeback", "hints"):
                if value not in ("true", "false"):
                    self._warn(f"option {name}: {value[:20]!r} is not true or false: passed over")
                    continue
                typed = value == "true"
            try:
                options = dataclasses.replace(options, **{name: typed})
            except (TypeError, ValueError) as exc:
                self._warn(f"option {name}: {exc}: passed over")
        return options

    def _warn(self, words: str) -> None:
        if len(self.warnings) < 20:
            self.warnings.append(words)

    def _new_game(self, event: Decided) -> list[dict]:
        """A new game set from beside the board (the page's FEN, an online game)."""
        fen, moves, online, record = newgame_of(event.what)
        pairs = record.split(",") if record else []
        variant = next((p[8:] for p in pairs if p.startswith("variant=")), "standard")
        record = ",".join(p for p in pairs if not p.startswith("variant="))
        if variant not in rules.VARIANTS:
            self._warn(f"variant {variant[:20]!r} is not one this magboard knows: standard chess")
            variant = "standard"
        options = self._options(self.tracker.options, record) if record else self.tracker.options
        game = rules.Game.from_record(rules.Position.from_fen(fen, variant=variant), moves)
        if online:
            game.dead_position_ends = False
        board = self.tracker.board
        known = self.tracker.known_pieces()  # what the board knew stood where
        self._another_game(self.tracker.options)
        self.tracker = self._made(Tracker(game, options=options, timing=self.timing, board=board))
        self.online = online
        found: list[dict] = [new_game_event(event.t_ms, game)]
        if online:
            found[0]["online"] = True
        found += self.tracker.starting_events(event.t_ms)
        if not moves and not online:  # its position set up by the lights, as it was live
            found += self.tracker.wait_for_pieces(event.t_ms, known)
        return found

    def _read(self, event: Decided) -> list[dict]:
        """Moves read from the pieces after a restart (or the reading answered), and the
        game going on from the pieces standing then."""
        moves, standing = read_of(event.what)
        game, t = self.tracker.game, event.t_ms
        found: list[dict] = []
        for uci in moves:  # one at a time: each parsed in the position it is played from
            found += pushed_events(game, [game.position.parse_uci(uci)], t)
        options = self.tracker.options
        self.tracker = self._made(
            Tracker(game, options=options, timing=self.timing, board=standing)
        )
        return found + self.tracker.starting_events(t)


def _is_read(event: JournalEvent) -> bool:
    """Is ``event`` the line that ends a question (what the pieces were read as)?"""
    return isinstance(event, Decided) and event.what.startswith("read ")
