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

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from board_driver.arbiter.tracker import GameOptions, Timing, Tracker
from board_driver.boardscript.script import Scan, Script, Wait
from board_driver.clock.keeper import Timekeeper, timekeeper_for, without_clock
from board_driver.clock.texts import clk_comments, pgn_headers
from board_driver.physical.debounce import DEFAULT_DEBOUNCE_MS, Debouncer
from board_driver.physical.events import BoardEvent, Lift, Place
from rules import Game


@dataclass(slots=True)
class ReplayResult:
    """What a replay ends with: the game as the daemon committed it, and what it announced."""

    name: str
    game: Game
    in_sync: bool
    events: list[dict[str, Any]] = field(default_factory=list)
    #: The game's clock (a script's ``option clock``), None without one.
    clock: Timekeeper | None = None
    #: The script's time when it ended (ms): when the clock is read.
    end_ms: int = 0

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
        """The object ``magboard replay --json`` prints (board-script.md, "What replay
        prints"); ``clock`` (the clock read when the script ended) only with a clock."""
        out: dict[str, Any] = {
            "script": self.name,
            "moves": self.moves,
            "fen": self.fen,
            "result": self.result,
            "termination": self.termination,
            "in_sync": self.in_sync,
            "events": self.events,
        }
        if self.clock is not None:
            out["clock"] = self.clock.reading(self.end_ms)
        return out

    def pgn(self) -> str:
        """The game as PGN (with its ``TimeControl`` and a ``%clk`` after every move,
        when it has a clock)."""
        headers = {"Event": f"magboard replay {self.name}"}
        if self.clock is None:
            return self.game.pgn(headers)
        headers.update(pgn_headers(self.clock.control))
        return self.game.pgn(headers, comments=clk_comments(self.clock.clks))


def tracker_for(script: Script, *, timing: Timing | None = None) -> Tracker:
    """A fresh tracker for ``script``: its starting position and its options."""
    start = script.position()
    settings: dict[str, Any] = dict(script.options)
    options = GameOptions(**settings)
    return Tracker(Game(start), options=options, timing=timing or Timing())


def drive(
    tracker: Tracker,
    script: Script,
    *,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    frames: bool = False,
    finish: bool = True,
    keeper: Timekeeper | None = None,
) -> list[dict[str, Any]]:
    """Play ``script``'s items into ``tracker``; returns the game events it announced.

    Raw ``scan`` items go through a :class:`Debouncer` that starts from the tracker's
    board; the matrix is taken to read the last scan until the next one, so each change
    matures ``debounce_ms`` after it was last seen. As in the daemon (its intake), a
    change reaches the tracker with the time of its edge, when the hand took or let go of
    the piece; the tracker is never ticked past the edge of a change still maturing; and
    a button, a choice or a wait that comes while a change is maturing happened after it:
    it waits for it. With ``finish`` (the end of a script: the board is left alone for
    good) whatever is still pending is judged. With ``frames`` every announced event
    carries ``leds``: the steady frame after it.

    With a ``keeper`` (the game's clock) every event is followed by it, as the daemon's
    clock follows them, and a flag falls at its moment, judged after the board as the
    daemon judges it. The clock stops with the script: a flag falls only within the
    script's time (a ``wait`` lets it run).
    """
    announced: list[dict[str, Any]] = []
    now = 0

    def note(found: list[dict[str, Any]], *, followed: bool = False) -> None:
        if keeper is not None and not followed:
            found = found + keeper.after(tracker, found)
        elif keeper is None:
            found = found + without_clock(found)
        if not found:
            return
        if frames:
            rows = tracker.frame().rows()
            found = [{**event, "leds": rows} for event in found]
        announced.extend(found)

    def flags(t: int) -> None:
        """Flags that fall by ``t``, each after what the tracker judges before it."""
        nonlocal now
        while keeper is not None and (due := keeper.due()) is not None and due <= t:
            if due > now:
                now = due
                note(tracker.tick(now))
            if keeper.due() == due:
                note(keeper.time_out(tracker, due), followed=True)

    def tick(t: int) -> None:
        nonlocal now
        if debouncer is not None and (edge := debouncer.maturing_since()) is not None:
            t = min(t, edge)  # a change still maturing happened at its edge
        flags(t)
        if t > now:
            now = t
            note(tracker.tick(now))

    def hand(events: Iterable[BoardEvent]) -> None:
        for event in events:
            tick(event.t_ms)
            note(tracker.handle(event))

    if not script.uses_scans:
        debouncer = None
        for item in script.items:
            if isinstance(item, Wait):
                tick(item.t_ms)
            elif not isinstance(item, Scan):  # a script without scans holds none
                hand([item])
        if finish:
            flags(max(now, script.end_ms))
            note(tracker.finish(max(now, script.end_ms)))
        return announced

    if any(isinstance(item, Lift | Place) for item in script.items):
        raise ValueError(f"{script.name}: a script gives raw scans or lift/place events, not both")
    debouncer = Debouncer(debounce_ms, initial=tracker.board)
    held: list[Any] = []  # buttons, choices and waits behind a change still maturing

    clock = 0  # the latest moment the script has reached (a change maturing included)

    def matured(events: list[Lift | Place]) -> None:
        nonlocal clock
        if events:
            clock = max(clock, events[-1].t_ms)
        hand(debouncer.at_edges(events))
        if held and debouncer.next_due() is None:
            release(max(now, clock))

    def release(at: int) -> None:
        waiting = list(held)
        held.clear()
        for item in waiting:
            outside(item, at)

    def outside(item: Any, at: int) -> None:
        if isinstance(item, Wait):
            tick(max(item.t_ms, at))
        else:
            hand([_retimed(item, max(item.t_ms, at))])

    for item in script.items:
        # Changes that matured while the matrix kept reading the last scan.
        matured(debouncer.tick(item.t_ms))
        if isinstance(item, Scan):
            matured(debouncer.feed(item.t_ms, item.bitmap))
        elif held or debouncer.next_due() is not None:
            held.append(item)
        else:
            outside(item, item.t_ms)
    while (due := debouncer.next_due()) is not None:
        matured(debouncer.tick(due))
    release(max(now, clock))
    if finish:
        flags(max(now, clock, script.end_ms))
        note(tracker.finish(max(now, clock, script.end_ms)))
    return announced


def _retimed(item: Any, t_ms: int) -> Any:
    """``item`` (a button or a choice, frozen) at ``t_ms``, when it could be judged."""
    return item if item.t_ms == t_ms else dataclasses.replace(item, t_ms=t_ms)


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
    keeper = timekeeper_for(tracker.options, tracker.game)
    events = tracker.starting_events(0)
    if keeper is not None:
        events += keeper.after(tracker, events)
    if frames:
        rows = tracker.frame().rows()
        events = [{**event, "leds": rows} for event in events]
    events += drive(tracker, script, debounce_ms=debounce_ms, frames=frames, keeper=keeper)
    end = max([script.end_ms, *(e["t"] for e in events)])
    return ReplayResult(script.name, tracker.game, tracker.in_sync, events, keeper, end)
