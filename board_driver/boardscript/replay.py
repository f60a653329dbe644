"""Replaying a board script through the daemon's own path: debounce, tracker, rules, feedback.

:func:`replay_script` builds a fresh :class:`~board_driver.arbiter.tracker.Tracker` from the
script's header and plays every item into it; :func:`drive` plays a script's items into a
tracker you already have. The result holds what ``magboard replay`` prints.

>>> from board_driver.boardscript.script import parse_script
>>> result = replay_script(parse_script("lift e2\\nplace e4\\nlift e7\\nplace e5\\n"))
>>> result.moves, result.result, result.in_sync
(['e4', 'e5'], '*', True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from board_driver.arbiter.tracker import GameOptions, Timing, Tracker
from board_driver.boardscript.script import Scan, Script, Wait
from board_driver.events import BoardEvent, Lift, Place
from board_driver.physical.debounce import DEFAULT_DEBOUNCE_MS, Debouncer
from rules import STARTING_FEN, Game, Position


@dataclass(slots=True)
class ReplayResult:
    """What a replay ends with: the game as the daemon committed it, and what it announced."""

    name: str
    game: Game
    in_sync: bool
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def moves(self) -> list[str]:
        """The committed moves in SAN, in order."""
        return self.game.san_moves()

    @property
    def fen(self) -> str:
        """The position after the last committed move."""
        return self.game.position.fen()

    @property
    def result(self) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` while the game goes on."""
        outcome = self.game.outcome()
        return outcome.result() if outcome else "*"

    @property
    def termination(self) -> str | None:
        """How the game ended (``checkmate``, ``resignation``, ...), None while it goes on."""
        outcome = self.game.outcome()
        return outcome.termination if outcome else None

    def to_json(self) -> dict[str, Any]:
        """The object ``magboard replay --json`` prints (board-script.md, "What replay prints")."""
        return {
            "script": self.name,
            "moves": self.moves,
            "fen": self.fen,
            "result": self.result,
            "termination": self.termination,
            "in_sync": self.in_sync,
            "events": self.events,
        }

    def pgn(self) -> str:
        """The game as PGN."""
        return self.game.pgn({"Event": f"magboard replay {self.name}"})


def tracker_for(script: Script, *, timing: Timing | None = None) -> Tracker:
    """A fresh tracker for ``script``: its starting position and its options."""
    start = Position() if script.fen == STARTING_FEN else Position.from_fen(script.fen)
    options = GameOptions(**script.options)
    return Tracker(Game(start), options=options, timing=timing or Timing())


def drive(
    tracker: Tracker,
    script: Script,
    *,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    frames: bool = False,
    finish: bool = True,
) -> list[dict[str, Any]]:
    """Play ``script``'s items into ``tracker``; returns the game events it announced.

    Raw ``scan`` items go through a :class:`Debouncer` that starts from the tracker's
    board; the matrix is taken to read the last scan until the next one, so each change
    matures ``debounce_ms`` after it was last seen. The tracker is ticked up to each
    event's time before it is handed the event. With ``finish`` (the end of a script:
    the board is left alone for good) whatever is still pending is judged. With
    ``frames`` every announced event carries ``leds``: the steady frame after it.
    """
    announced: list[dict[str, Any]] = []
    now = 0

    def note(found: list[dict[str, Any]]) -> None:
        if not found:
            return
        if frames:
            rows = tracker.frame().rows()
            found = [{**event, "leds": rows} for event in found]
        announced.extend(found)

    def hand(events: Iterable[BoardEvent]) -> None:
        nonlocal now
        for event in events:
            if event.t_ms > now:
                now = event.t_ms
                note(tracker.tick(now))
            note(tracker.handle(event))

    debouncer = None
    if script.uses_scans:
        if any(isinstance(item, Lift | Place) for item in script.items):
            raise ValueError(
                f"{script.name}: a script gives raw scans or lift/place events, not both"
            )
        debouncer = Debouncer(debounce_ms, initial=tracker.board)
    for item in script.items:
        if debouncer is not None and not isinstance(item, Lift | Place):
            # Changes that matured while the matrix kept reading the last scan.
            hand(debouncer.tick(item.t_ms))
        if isinstance(item, Scan):
            assert debouncer is not None
            hand(debouncer.feed(item.t_ms, item.bitmap))
        elif isinstance(item, Wait):
            if item.t_ms > now:
                now = item.t_ms
                note(tracker.tick(now))
        else:
            hand([item])
    if debouncer is not None:
        while (due := debouncer.next_due()) is not None:
            hand(debouncer.tick(due))
    if finish:
        end = max(now, script.end_ms)
        note(tracker.finish(end))
    return announced


def replay_script(
    script: Script,
    *,
    frames: bool = False,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    timing: Timing | None = None,
) -> ReplayResult:
    """Replay ``script`` from a fresh start, as ``magboard replay`` does.

    A script from a finished position announces ``game_over`` first, at t=0.
    """
    tracker = tracker_for(script, timing=timing)
    events = tracker.starting_events(0)
    if frames:
        rows = tracker.frame().rows()
        events = [{**event, "leds": rows} for event in events]
    events += drive(tracker, script, debounce_ms=debounce_ms, frames=frames)
    return ReplayResult(script.name, tracker.game, tracker.in_sync, events)
