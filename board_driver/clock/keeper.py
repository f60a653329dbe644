"""The clock of a game on the board, kept from what the tracker announces.

A :class:`Timekeeper` follows the tracker's game events (:meth:`Timekeeper.after`) and
keeps a :class:`~board_driver.clock.clock.ChessClock`:

- **Who switches the clock.** By default the board: the mover's clock stops at the edge
  of the hand letting go of the move's last piece (the ``released`` time of the ``move``
  event), not when the move is committed a settle time later. With ``switch="buttons"``
  the players press their clock (``button clock``, ``clock_white``, ``clock_black``), as on
  a clock beside the board: a move not pressed leaves the mover's clock running.
- **A flag fall** (:meth:`Timekeeper.time_out`, at :meth:`Timekeeper.due`): the board is
  judged first, as for a button (a move whose pieces stand was made in time); then the
  player whose time has run out loses, unless the opponent cannot checkmate by any series
  of legal moves (FIDE 6.9: ``rules.Game.forfeit``), a draw. The first flag counts: the
  game is over, the clocks stop.
- **An illegal move** (``illegal_move="fide"``, FIDE 7.5.5): the first completed illegal
  move (the board showing no legal move once still) gives the opponent two minutes, the
  second loses the game (``rules_infraction``; drawn if the opponent cannot mate). The
  default, ``"guide"``, only guides the board back, as without a clock.
- **Pause, resume, adjust** (:meth:`pause`, :meth:`resume`, :meth:`adjust`) and a
  ``pause`` button: each logged.

Every change is an entry (:class:`ClockEntry`: the ply, what happened, both times) for the
store: :meth:`Timekeeper.restored` rebuilds the clock from them after a restart, paused at
the last stored move. ``clks`` are the ``%clk`` of each ply: the mover's time after it.

Pure, like the clock: the caller says what time it is, and hands in the tracker (anything
with ``game``, ``judge_now(t)`` and ``forfeit(color, termination, t)``).

>>> from rules import Game
>>> from board_driver.clock.control import parse_time_control
>>> game = Game()
>>> keeper = Timekeeper(parse_time_control("5+3"), game=game)
>>> move = {"t": 1250, "type": "move", "side": "white", "ply": 1, "released": 1000}
>>> _ = game.push_san("e4"); keeper.after(None, [move])
[]
>>> move["clk"], keeper.reading(1000)["turn"], keeper.due()
(300000, 'black', 301000)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from board_driver.clock.clock import ChessClock
from board_driver.clock.control import TimeControl
from rules import BLACK, WHITE, Color, Game

#: Who switches the clock: the board (at the hand's release) or the players' buttons.
SWITCHES = ("board", "buttons")
#: What an illegal move costs while a clock runs: nothing (the board guides it back), or
#: FIDE 7.5.5 (two minutes to the opponent, the second one loses).
ILLEGAL_MOVE_RULES = ("guide", "fide")
#: FIDE 7.5.5: what the opponent gets for the first illegal move.
PENALTY_MS = 120_000
#: The most a clock can show (five stages of ten hours, bonuses and penalties, and more).
MAX_CLOCK_MS = 1000 * 3600 * 1000
#: The board-script buttons of the clock: the running side's clock (``clock``), either
#: player's (``clock_white``, ``clock_black``), and pause/resume (``pause``).
CLOCK_BUTTONS = ("clock", "clock_white", "clock_black", "pause")

Event = dict[str, Any]


class Arbiter(Protocol):
    """What the timekeeper needs of the tracker."""

    game: Game

    def judge_now(self, t: int) -> list[Event]:
        """Judge the board as it stands at ``t``, as a button would."""
        ...

    def forfeit(self, color: Color, termination: str, t: int) -> list[Event]:
        """``color`` loses at ``t`` (``timeout``, ``rules_infraction``), unless its
        opponent cannot mate."""
        ...


@dataclass(frozen=True, slots=True)
class ClockEntry:
    """One change of the clock, as the store keeps it: after ``ply`` plies of the game,
    ``kind`` (``set``, ``start``, ``move``, ``takeback``, ``pause``, ``resume``,
    ``adjust``, ``penalty``, ``flag``, ``stop``, ``restart``), both times left then, and
    a note (the control for ``set``, the side for ``penalty``, who for ``pause``)."""

    ply: int
    kind: str
    white_ms: int
    black_ms: int
    note: str = ""


def side_name(color: Color) -> str:
    return "white" if color == WHITE else "black"


def _color(side: str) -> Color:
    return WHITE if side == "white" else BLACK


def moves_by_side(game: Game, since_ply: int = 0) -> dict[Color, int]:
    """How many moves each side has made in ``game`` after ply ``since_ply``."""
    first = game.start.turn
    counts = {WHITE: 0, BLACK: 0}
    for ply in range(since_ply + 1, len(game.moves) + 1):
        mover = first if ply % 2 else not first
        counts[mover] += 1
    return counts


class Timekeeper:
    """The clock of one game (see the module docstring)."""

    def __init__(
        self,
        control: TimeControl,
        *,
        game: Game,
        switch: str = "board",
        illegal_move: str = "guide",
        clock: ChessClock | None = None,
        clks: list[int | None] | None = None,
    ) -> None:
        if switch not in SWITCHES:
            raise ValueError(f"clock switch {switch!r} is not one of {', '.join(SWITCHES)}")
        if illegal_move not in ILLEGAL_MOVE_RULES:
            raise ValueError(
                f"illegal_move {illegal_move!r} is not one of {', '.join(ILLEGAL_MOVE_RULES)}"
            )
        self.control = control
        self.switch = switch
        self.illegal_move = illegal_move
        #: Who may lose time or the game for an illegal move (people at the board).
        self.people: set[Color] = {WHITE, BLACK}
        self._pending: list[ClockEntry] = []
        self._holding = False  # following replayed events: a pause after a restart stays
        self._start(game, clock, clks)

    def _start(
        self,
        game: Game,
        clock: ChessClock | None = None,
        clks: list[int | None] | None = None,
    ) -> None:
        """The clock of ``game`` (a new game: its control's times)."""
        self.game = game
        plies = len(game.moves)
        if clock is None:
            clock = ChessClock(self.control, turn=game.position.turn, moves=moves_by_side(game))
            if game.outcome() is not None:
                clock.state = "stopped"
        self.clock = clock
        self.clks: list[int | None] = list(clks or [])[:plies]
        self.clks += [None] * (plies - len(self.clks))
        #: Completed illegal moves (FIDE 7.5.5), by side.
        self.illegal = {WHITE: 0, BLACK: 0}
        #: Why the clock is paused, when it is (``restart``, ``page``, ``button``, ...).
        self.reason: str | None = None
        self._illegal_open = False
        self._note("set", self.control.name())

    # ------------------------------------------------------------------ after a restart

    @classmethod
    def restored(
        cls,
        control: TimeControl,
        entries: Iterable[ClockEntry],
        *,
        game: Game,
        switch: str = "board",
        illegal_move: str = "guide",
    ) -> Timekeeper:
        """The clock of ``game`` as its stored ``entries`` left it, paused at the last
        stored move (or stopped, if the game is over; waiting, if it never started)."""
        # Only entries a clock can have made (the store's rows are a file's: one of another
        # version, or edited, must not set a clock to years or below zero).
        entries = [
            e
            for e in entries
            if 0 <= e.ply <= len(game.moves)
            and 0 <= e.white_ms <= MAX_CLOCK_MS
            and 0 <= e.black_ms <= MAX_CLOCK_MS
        ]
        since = max((i for i, e in enumerate(entries) if e.kind == "set"), default=-1)
        set_ply = entries[since].ply if since >= 0 else 0
        clks: list[int | None] = [None] * len(game.moves)
        first = game.start.turn
        for entry in entries:
            if entry.kind == "move" and entry.ply >= 1:
                mover = first if entry.ply % 2 else not first
                clks[entry.ply - 1] = entry.white_ms if mover == WHITE else entry.black_ms
        last = entries[-1] if entries else None
        started = any(e.kind not in ("set",) for e in entries[since + 1 :]) or (
            len(game.moves) > set_ply
        )
        state = "stopped" if game.outcome() is not None else "paused" if started else "waiting"
        clock = ChessClock(
            control,
            turn=game.position.turn,
            white_ms=last.white_ms if last is not None else None,
            black_ms=last.black_ms if last is not None else None,
            moves=moves_by_side(game, set_ply),
            state=state,
        )
        keeper = cls(
            control, game=game, switch=switch, illegal_move=illegal_move, clock=clock, clks=clks
        )
        keeper._pending.clear()  # nothing was set: the clock comes back as it was stored
        for entry in entries[since + 1 :]:
            if entry.kind == "penalty" and entry.note in ("white", "black"):
                keeper.illegal[_color(entry.note)] += 1
        keeper.reason = "restart" if state == "paused" else None
        if state == "paused":
            keeper._note("restart")
        return keeper

    # ------------------------------------------------------------------ reading

    def due(self) -> int | None:
        """When a flag falls if nothing happens before (ms), or None. (Asked at every
        event: the clock, stopped by the game's end, says it without asking the rules.)"""
        return self.clock.flag_at()

    def remaining(self, color: Color, t: int) -> int:
        """``color``'s time left at ``t``, never below zero."""
        return max(0, self.clock.remaining(color, t))

    def reading(self, t: int) -> dict[str, Any]:
        """The clock at ``t``, JSON-able, for a page, a terminal, an app, an engine:
        ``white_ms``, ``black_ms``, ``turn`` (whose clock runs, or will), ``state``
        (``waiting``, ``running``, ``paused``, ``stopped``), ``reason`` (why paused),
        ``delay_ms`` (under a simple delay, what is left of the running move's delay),
        ``at`` (``t``), ``control`` and ``pgn`` (its names), ``describe``, ``mode``,
        ``switch``, ``illegal_move``, ``illegal`` (illegal moves so far, by side),
        ``clks`` (each ply's ``%clk``, ms or None), ``bonus_ms`` (the next move's bonus,
        by side), ``moves_to_go`` (moves to the next stage, by side, where there is one)."""
        clock = self.clock
        return {
            "control": self.control.name(),
            "pgn": self.control.pgn(),
            "describe": self.control.describe(),
            "mode": self.control.mode,
            "switch": self.switch,
            "illegal_move": self.illegal_move,
            "white_ms": self.remaining(WHITE, t),
            "black_ms": self.remaining(BLACK, t),
            "turn": side_name(clock.turn),
            "state": clock.state,
            "reason": self.reason if clock.state == "paused" else None,
            "delay_ms": clock.delay_left(t),
            "bonus_ms": {
                side_name(c): self.control.stage_of(clock.moves[c] + 1).bonus_ms
                for c in (WHITE, BLACK)
            },
            "moves_to_go": {
                side_name(c): n for c in (WHITE, BLACK) if (n := self._moves_to_go(c))
            },
            "illegal": {side_name(c): n for c, n in self.illegal.items()},
            "clks": list(self.clks),
            "at": t,
        }

    def _moves_to_go(self, color: Color) -> int | None:
        """The moves ``color`` has to make before its clock gets a new stage's time."""
        made = self.clock.moves[color]
        end = 0
        for stage in self.control.stages:
            if stage.moves is None:
                return None
            end += stage.moves
            if made < end:
                return end - made
        last = self.control.stages[-1].moves or 1
        return last - (made - end) % last

    def take_entries(self) -> list[ClockEntry]:
        """The entries not yet stored (they are then the caller's to store)."""
        return list(self._pending)

    def stored(self, count: int) -> None:
        """The first ``count`` entries of :meth:`take_entries` are stored."""
        del self._pending[:count]

    def carry(self, entries: list[ClockEntry]) -> None:
        """Entries of a clock this one replaces, not stored yet: stored first."""
        self._pending[:0] = entries

    def _note(self, kind: str, note: str = "", t: int | None = None) -> None:
        at = 0 if t is None else t
        self._pending.append(
            ClockEntry(
                len(self.game.moves),
                kind,
                self.remaining(WHITE, at),
                self.remaining(BLACK, at),
                note,
            )
        )

    # ------------------------------------------------------------------ following the game

    def after(self, arbiter: Arbiter | None, events: list[Event]) -> list[Event]:
        """Follow the tracker's events (a move let go switches the clock; a take-back
        sets it back; the game over stops it; an illegal move under FIDE 7.5.5 costs);
        returns the events it adds (``clock`` events; a ``game_over`` it caused)."""
        out: list[Event] = []
        released: int | None = None  # the last move's, in this batch
        for event in list(events):
            kind = event.get("type")
            t = int(event.get("t", 0))
            if kind == "move":
                released = self._moved(event, t)
                self._illegal_open = False
            elif kind == "takeback":
                self._taken_back(t)
                self._illegal_open = False
            elif kind == "game_over":
                self._over(event, t if released is None else min(t, released))
            elif kind == "game_resumed" and self.clock.state == "stopped":
                self.clock.state = "paused"
                self.clock.start(t)
            elif kind == "restored":
                self._illegal_open = False
            elif kind == "illegal":
                out += self._illegal(arbiter, t)
            elif kind == "clock_button":
                out += self._pressed(arbiter, str(event.get("button")), t)
            elif kind == "new_game" and arbiter is not None:
                self._start(arbiter.game)  # the same control, from the start
            elif kind == "new_game_pending" and self.clock.running:
                out += self.pause(t, "new game")  # the pieces go home: nobody's time runs
        return out

    def follow_replayed(self, events: list[Event]) -> None:
        """Events replayed after a restart (the hands journal's), followed with the clock
        held paused: a move gets its ``%clk`` and its entry, the mover's time as it was
        stored plus its bonus (the time it took, while the board was away, is not known).
        The clock's own buttons among them are not pressed again."""
        self._holding = True
        try:
            self.after(None, [e for e in events if e.get("type") != "clock_button"])
        finally:
            self._holding = False
        clock = self.clock
        if clock.running:  # a first move from a clock still waiting: free, as it was
            clock.pause(clock.since if clock.since is not None else 0)
            self.reason = "restart"

    def _moved(self, event: Event, t: int) -> int:
        clock = self.clock
        ply = int(event.get("ply", len(self.game.moves)))
        mover = _color(str(event.get("side")))
        released = int(event.get("released", t))
        self.clks += [None] * (ply - len(self.clks))
        del self.clks[ply:]
        # Switches of this ply or later belong to moves read again: set them back.
        while (last := clock.last_switch()) is not None and last[0] >= ply:
            clock.unswitch()
        if clock.state == "paused" and self.reason == "restart" and not self._holding:
            clock.state = "waiting"  # the first move after a restart starts the clock
            self.reason = None
        # Replayed (held), a move switches as its press did: the presses are not replayed.
        if (self.switch == "buttons" and not self._holding) or clock.state == "stopped":
            # A clock beside the board: a move switches nothing until its button is
            # pressed; the %clk stands as the mover's time now, until then.
            self.clks[ply - 1] = self.remaining(mover, released)
            return released
        clock.hand_to(mover, released)  # in step with the game, whatever came before
        left = clock.switch(released, ply)
        self.clks[ply - 1] = max(0, left)
        event["clk"] = max(0, left)
        self._note("move", t=released)
        return released

    def _taken_back(self, t: int) -> None:
        clock = self.clock
        plies = len(self.game.moves)
        del self.clks[plies:]
        if clock.state == "stopped":
            clock.state = "paused"
            self.reason = "takeback"
        set_back = False
        while (last := clock.last_switch()) is not None and last[0] > plies:
            clock.unswitch(resume_at=t)
            set_back = True
        if not set_back:
            clock.hand_to(self.game.position.turn, t)
        self._note("takeback", t=t)

    def _over(self, event: Event, t: int) -> None:
        if self.clock.state == "stopped":
            return
        self.clock.stop(t)
        timeout = event.get("termination") == "timeout"
        self._note("flag" if timeout else "stop", str(event.get("termination", "")), t=t)

    def _illegal(self, arbiter: Arbiter | None, t: int) -> list[Event]:
        opened, self._illegal_open = self._illegal_open, True
        if self.illegal_move != "fide" or opened or not self.clock.running:
            return []
        offender = self.game.position.turn
        if offender not in self.people or arbiter is None:
            return []
        self.illegal[offender] += 1
        if self.illegal[offender] >= 2:
            found = arbiter.forfeit(offender, "rules_infraction", t)
            return found + self.after(arbiter, found)
        opponent = not offender
        self.clock.add(opponent, PENALTY_MS)
        self._note("penalty", side_name(offender), t=t)
        return [
            {
                "t": t,
                "type": "clock",
                "action": "penalty",
                "side": side_name(offender),
                "to": side_name(opponent),
                "added_ms": PENALTY_MS,
                "why": (
                    f"An illegal move by {side_name(offender).capitalize()}: two minutes "
                    f"added to {side_name(opponent).capitalize()}'s clock (FIDE 7.5.5); "
                    "a second illegal move loses the game."
                ),
            }
        ]

    def _pressed(self, arbiter: Arbiter | None, button: str, t: int) -> list[Event]:
        clock = self.clock
        if button == "pause":
            if clock.running:
                return self.pause(t, "button")
            if clock.state == "paused":
                return self.resume(t, "button")
            return [_refused(t, button, "the clock has not started: it starts with the first move")]
        presser = {"clock_white": WHITE, "clock_black": BLACK}.get(button, clock.turn)
        if presser != clock.turn:
            return []  # a stopped clock's button: nothing happens, as on any clock
        moved = self.game.position.turn != presser
        if self.switch == "board":
            if clock.state == "waiting" and not moved:
                return self.resume(t, "button")
            return [
                _refused(
                    t,
                    button,
                    "the board switches the clock when a move is let go "
                    '([clock] switch = "buttons" for clock buttons)',
                )
            ]
        if not moved:
            return [_refused(t, button, "make your move first, then press the clock")]
        ply = len(self.game.moves)
        left = clock.switch(t, ply)
        self.clks += [None] * (ply - len(self.clks))
        if ply:
            self.clks[ply - 1] = max(0, left)
        self._note("move", t=t)
        return [{"t": t, "type": "clock", "action": "switch", "side": side_name(presser)}]

    # ------------------------------------------------------------------ the flag

    def time_out(self, arbiter: Arbiter, t: int) -> list[Event]:
        """The moment :meth:`due` named has come: the board is judged first (a move whose
        pieces stand was let go in time), then the flag falls if the time has run out."""
        due = self.due()
        if due is None or due > t:
            return []
        out: list[Event] = []
        if self.switch == "board":
            found = arbiter.judge_now(t)
            out += found + self.after(arbiter, found)
        flagged = self.flagged(t)
        if flagged is None:
            return out
        found = arbiter.forfeit(flagged, "timeout", t)
        return out + found + self.after(arbiter, found)

    def flagged(self, t: int) -> Color | None:
        """The side whose flag has fallen by ``t`` (its clock running, its time gone, the
        game not over), or None."""
        clock = self.clock
        if self.game.outcome() is not None or not clock.running:
            return None
        return clock.turn if clock.remaining(clock.turn, t) <= 0 else None

    # ------------------------------------------------------------------ an arbiter

    def pause(self, t: int, by: str = "page") -> list[Event]:
        """Stop the running clock (the players agree, an arbiter); ValueError if none runs."""
        if not self.clock.running:
            raise ValueError(f"the clock is {self.clock.state}, not running")
        self.clock.pause(t)
        self.reason = by
        self._note("pause", by, t=t)
        return [self.clock_event(t, "pause", by)]

    def resume(self, t: int, by: str = "page") -> list[Event]:
        """Start the clock of the side on turn (after a pause, a restart; or before the
        first move). ValueError when the game is over or the clock runs already."""
        state = self.clock.state
        if state not in ("paused", "waiting") or self.game.outcome() is not None:
            raise ValueError(f"the clock cannot start: it is {state}")
        self.clock.start(t)
        self.reason = None
        self._note("start" if state == "waiting" else "resume", by, t=t)
        return [self.clock_event(t, "start" if state == "waiting" else "resume", by)]

    def adjust(self, white_ms: int, black_ms: int, t: int, by: str = "page") -> list[Event]:
        """Set both times (the players' agreement, an arbiter's correction)."""
        if self.clock.state == "stopped":
            raise ValueError("the game is over: its clock stands")
        self.clock.set_times(white_ms, black_ms, t)
        self._note("adjust", by, t=t)
        return [self.clock_event(t, "adjust", by)]

    def clock_event(self, t: int, action: str, by: str) -> Event:
        """A ``clock`` event: ``action`` (``pause``, ``resume``, ``start``, ``adjust``,
        ``set``) ``by`` whom, and the clock as it is then."""
        return {
            "t": t,
            "type": "clock",
            "action": action,
            "by": by,
            "white_ms": self.remaining(WHITE, t),
            "black_ms": self.remaining(BLACK, t),
            "state": self.clock.state,
        }


def _refused(t: int, button: str, reason: str) -> Event:
    return {"t": t, "type": "refused", "button": button, "reason": reason}


def without_clock(events: list[Event]) -> list[Event]:
    """What a game with no clock answers to its clock's buttons: refused, saying why."""
    return [
        _refused(int(e.get("t", 0)), str(e.get("button")), "this game has no clock")
        for e in events
        if e.get("type") == "clock_button"
    ]


def timekeeper_for(options: Any, game: Game) -> Timekeeper | None:
    """The clock a game's options ask for (``clock``, ``clock_switch``, ``illegal_move``:
    see :class:`~board_driver.arbiter.options.GameOptions`), None for no clock."""
    from board_driver.clock.control import parse_time_control

    control = parse_time_control(options.clock)
    if control is None:
        return None
    return Timekeeper(
        control, game=game, switch=options.clock_switch, illegal_move=options.illegal_move
    )


def entries_from_rows(rows: Iterable[Mapping[str, Any]]) -> list[ClockEntry]:
    """Entries from the store's rows (``ply``, ``kind``, ``white_ms``, ``black_ms``, ``note``)."""
    return [
        ClockEntry(
            int(r["ply"]), str(r["kind"]), int(r["white_ms"]), int(r["black_ms"]), r["note"] or ""
        )
        for r in rows
    ]
