"""The board's clock in the daemon: the :class:`~board_driver.clock.keeper.Timekeeper` of
the game on the board, the timer for its flag, its low-time lights, and its changes
stored with the moves.

- It follows every step's events (:meth:`DaemonClock.follow`, first thing in the
  daemon's ``after``): a move let go switches the clock at the edge of the hand's release.
- Its flag timer is judged in its place among the board's events: a switch change still
  maturing before the flag's moment is waited for (it may be the move let go in time);
  then whatever the tracker had due before the flag is judged, the board is judged as
  for a button, and the flag falls if the time has run out.
- Its changes (:meth:`pending`) are written by the recorder in the same transaction as the
  move that made them; after a restart the clock comes back from them, paused at the last
  stored move, and says so (a ``clock`` event with ``by: "restart"`` and a log line); the
  first move let go then starts it again, as does *resume*.
- Online games have no clock of the board's: the server keeps theirs.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import rules
from board_driver.clock.control import parse_time_control
from board_driver.clock.keeper import ClockEntry, Timekeeper, without_clock
from board_driver.clock.lights import LowTimeLights
from board_driver.clock.texts import clock_text
from board_driver.door import HUMAN, SIDES
from board_driver.service.journal_lines import Decided
from rules import BLACK, WHITE

log = logging.getLogger("magboard")

Event = dict[str, Any]


class DaemonClock:
    """The clock of the game on ``daemon``'s board (see the module docstring)."""

    def __init__(self, daemon: Any) -> None:
        self.daemon = daemon
        self.keeper: Timekeeper | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due: int | None = None
        self._lights: LowTimeLights | None = None

    # ------------------------------------------------------------------ the game's clock

    def load(
        self,
        stored: list[ClockEntry],
        replayed: list[tuple[list[Event], tuple[str, ...]]] = (),  # type: ignore[assignment]
        stored_line: tuple[str, ...] | None = None,
    ) -> list[Event]:
        """The game on the board was loaded (the daemon's start, a game resumed): its
        clock as the store left it, paused at its last stored move (``stored_line``, when
        the game on the board went on from it: the hands journal replayed). Each replayed
        step (its events, and the line after it) is then followed with the clock held
        paused: a replayed move gets its ``%clk`` (the time it took, while the daemon was
        away, is not known: not charged). Returns the events."""
        tracker = self.daemon.tracker
        control = self._control(tracker.options)
        self.keeper = None
        if control is None:
            return []
        line = tuple(map(str, tracker.game.moves)) if stored_line is None else stored_line
        replayed = list(replayed)
        if any(e.get("type") == "new_game" for found, _ in replayed for e in found):
            replayed, stored = [], []  # another game on the board: a clock of its own
        at = rules.Game.from_record(tracker.game.start.copy(), list(line))
        at.dead_position_ends = tracker.game.dead_position_ends
        if stored:
            options = tracker.options
            self.keeper = Timekeeper.restored(
                control,
                stored,
                game=at,
                switch=options.clock_switch,
                illegal_move=options.illegal_move,
            )
        else:
            options = tracker.options
            self.keeper = Timekeeper(
                control, game=at, switch=options.clock_switch, illegal_move=options.illegal_move
            )
        self.seats_changed()
        keeper = self.keeper
        for found, after in replayed:
            keeper.game = rules.Game.from_record(tracker.game.start.copy(), list(after))
            keeper.game.dead_position_ends = tracker.game.dead_position_ends
            keeper.follow_replayed(found)
        keeper.game = tracker.game
        keeper.clks = (keeper.clks + [None] * len(tracker.game.moves))[: len(tracker.game.moves)]
        if keeper.clock.state != "paused":
            return []
        now = self.daemon.now_ms()
        plies = len(tracker.game.moves)
        log.warning(
            "clock: paused at ply %d, as stored before the restart (white %s, black %s): "
            "resume it on the page or with the pause button, or the next move starts it",
            plies,
            clock_text(keeper.remaining(WHITE, now)),
            clock_text(keeper.remaining(BLACK, now)),
        )
        return [keeper.clock_event(now, "pause", "restart")]

    def _control(self, options: Any) -> Any:
        if self.daemon.online:
            return None  # the server's clock counts
        try:
            return parse_time_control(options.clock)
        except ValueError:
            return None

    def options_changed(self, before: Any) -> list[Event]:
        """The game's options changed: a new time control (or switch, or illegal-move
        rule) sets the clock anew, paused, with the control's times."""
        options = self.daemon.tracker.options
        keys = ("clock", "clock_switch", "illegal_move")
        if all(getattr(before, k) == getattr(options, k) for k in keys):
            return []
        old = self.keeper
        control = self._control(options)
        now = self.daemon.now_ms()
        if control is None:
            self.keeper = None
            if old is not None:
                old.stored(len(old.take_entries()))
            self._update_lights()
            return [{"t": now, "type": "clock", "action": "set", "control": "none"}]
        game = self.daemon.tracker.game
        keeper = self._new_keeper(control, clks=old.clks if old is not None else None)
        if old is not None:
            keeper.carry(old.take_entries())
        if game.moves and game.outcome() is None:
            keeper.clock.state = "paused"
            keeper.reason = "set"
        log.info("clock: %s (%s)", control.name(), control.describe())
        return [{**keeper.clock_event(now, "set", "page"), "control": control.name()}]

    def _new_keeper(self, control: Any, clks: list[int | None] | None = None) -> Timekeeper:
        """A fresh clock of ``control`` for the game on the board, as its options say."""
        tracker = self.daemon.tracker
        options = tracker.options
        self.keeper = Timekeeper(
            control,
            game=tracker.game,
            switch=options.clock_switch,
            illegal_move=options.illegal_move,
            clks=clks,
        )
        self.seats_changed()
        return self.keeper

    def seats_changed(self) -> None:
        """Who sits where changed: only people at the board are penalised for an illegal
        move (a person executing an engine's move wrongly is not the engine's fault)."""
        if self.keeper is not None:
            seats = self.daemon.door.seats
            colors = {"white": WHITE, "black": BLACK}
            self.keeper.people = {colors[s] for s in SIDES if seats.get(s, HUMAN) == HUMAN}

    # ------------------------------------------------------------------ each step

    def follow(self, events: list[Event]) -> list[Event]:
        """Follow a step's events; returns the events the clock adds (a penalty, a game
        lost for a second illegal move)."""
        if any(e.get("type") == "new_game" for e in events):
            tracker = self.daemon.tracker
            old = self.keeper
            control = self._control(tracker.options)
            self.keeper = None
            if control is not None:
                self._new_keeper(control)
            if old is not None:
                old.stored(len(old.take_entries()))  # the old game's: kept only in memory
            return []
        if self.keeper is None:
            return without_clock(events)
        if self.keeper.game is not self.daemon.tracker.game:
            return []  # a tracker given another game (loaded): its clock comes by load()
        return self.keeper.after(_Kept(self.daemon), events)

    def pending(self) -> list[ClockEntry]:
        """The changes not stored yet (the recorder writes them with the step's moves)."""
        return self.keeper.take_entries() if self.keeper is not None else []

    def stored(self, count: int) -> None:
        if self.keeper is not None:
            self.keeper.stored(count)

    def reading(self) -> dict[str, Any] | None:
        """The clock now, for the snapshot (None: no clock)."""
        if self.keeper is None:
            return None
        return self.keeper.reading(self.daemon.now_ms())

    # ------------------------------------------------------------------ actions

    def act(self, action: str, t: int, **args: Any) -> list[Event]:
        """``pause``, ``resume`` or ``adjust`` (``white_ms``, ``black_ms``) from a page;
        ValueError says why not."""
        keeper = self.keeper
        if keeper is None:
            raise ValueError("this game has no clock (game options: clock)")
        if action == "pause":
            events = keeper.pause(t, args.get("by", "page"))
        elif action == "resume":
            events = keeper.resume(t, args.get("by", "page"))
        elif action == "adjust":
            events = keeper.adjust(
                int(args["white_ms"]), int(args["black_ms"]), t, args.get("by", "page")
            )
        else:
            raise ValueError(f"clock: {action!r} is not pause, resume or adjust")
        for event in events:
            log.info(
                "clock: %s by %s (white %s, black %s)",
                event["action"],
                event["by"],
                clock_text(event["white_ms"]),
                clock_text(event["black_ms"]),
            )
        return events

    # ------------------------------------------------------------------ the flag's timer

    def schedule(self) -> None:
        """Wake when the running clock's flag would fall (after every step)."""
        due = self.keeper.due() if self.keeper is not None else None
        self._update_lights()
        if due == self._timer_due:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_due = due
        loop = self.daemon.loop
        if due is not None and loop is not None:
            self._timer = loop.call_at(self.daemon.loop_time(due), self._flag_due, due)

    def _flag_due(self, due: int) -> None:
        self._timer = None
        self._timer_due = None
        daemon = self.daemon
        intake = daemon.intake
        if intake is not None:
            maturing = intake.debouncer.maturing_since()
            if maturing is not None and maturing < due:
                # The board changed before this moment (a piece let go, maybe): judge once
                # that change is known, when it matures or bounces away.
                until = intake.debouncer.next_due() or daemon.now_ms()
                self._timer_due = due
                self._timer = daemon.loop.call_at(daemon.loop_time(until + 1), self._flag_due, due)
                return
        keeper = self.keeper
        if keeper is None or keeper.due() != due:
            self.schedule()
            return
        tracker = daemon.tracker
        daemon.after(tracker.tick(due))  # what fell due before the flag first
        arbiter = _Kept(daemon)
        if self.keeper is keeper and keeper.switch == "board" and keeper.due() == due:
            daemon.after(arbiter.judge_now(due))  # a move let go in time stops the clock
        flagged = keeper.flagged(due) if self.keeper is keeper else None
        if flagged is not None:
            side = "white" if flagged == WHITE else "black"
            log.info("clock: %s's flag fell", side)
            daemon.after(arbiter.forfeit(flagged, "timeout", due))
        self.schedule()

    # ------------------------------------------------------------------ lights

    def _update_lights(self) -> None:
        if self._lights is None:
            low = self.daemon.config.clock.low_time_s
            if low <= 0 or self.daemon.loop is None:
                return
            self._lights = LowTimeLights(self.daemon.door, low, "clock", self._time_left)
        self._lights.update()

    def _time_left(self) -> int | None:
        """The running clock's time, when people at the board play that side."""
        keeper = self.keeper
        if keeper is None or not keeper.clock.running or keeper.game.outcome() is not None:
            return None
        turn = keeper.clock.turn
        if turn not in keeper.people:
            return None
        return keeper.remaining(turn, self.daemon.now_ms())

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._lights is not None:
            self._lights.stop()


class _Kept:
    """The tracker, as the clock acts on it: each judgement and forfeit is a line of the
    hands journal first, so that a restart replays it in its place among the hands."""

    def __init__(self, daemon: Any) -> None:
        self.daemon = daemon
        self.game = daemon.tracker.game

    def judge_now(self, t: int) -> list[Event]:
        self.daemon.keep(Decided(t, "judge"))
        return self.daemon.tracker.judge_now(t)

    def forfeit(self, color: Any, termination: str, t: int) -> list[Event]:
        side = "white" if color == WHITE else "black"
        self.daemon.keep(Decided(t, f"forfeit {side} {termination}"))
        return self.daemon.tracker.forfeit(color, termination, t)
