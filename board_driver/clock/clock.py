"""A chess clock's arithmetic: two times, whose runs, increments, delays and stages.

Pure: every call says what time it is (``t``, in ms on any one clock: the daemon's, a
script's), so the clock is tested with times written down, and replays give the same
readings every time.

>>> from rules import BLACK, WHITE
>>> from board_driver.clock.control import parse_time_control
>>> clock = ChessClock(parse_time_control("3+2"))
>>> clock.state, clock.remaining(WHITE, 0)
('waiting', 180000)
>>> clock.switch(1_000)         # White's first move: free, Black's clock starts
180000
>>> clock.remaining(BLACK, 6_000), clock.turn == BLACK
(175000, True)
>>> clock.switch(6_000)         # Black took 5 s: 2 s come back after the move
177000
>>> clock.flag_at()             # White's time runs out then, if White never moves
186000
"""

from __future__ import annotations

from dataclasses import dataclass

from board_driver.clock.control import TimeControl
from rules import BLACK, WHITE, Color

#: ``waiting``: not started (the first move is free); ``running``; ``paused`` (by the
#: players, an arbiter, a restart); ``stopped`` (the game is over).
STATES = ("waiting", "running", "paused", "stopped")


@dataclass(slots=True)
class _Saved:
    """What a switch changed, to set it back (a take-back, a move read again)."""

    state: dict
    released: int
    ply: int


class ChessClock:
    """Two clocks and whose turn it is (see the module docstring).

    ``turn``: the side whose clock runs (or will, once started); ``white_ms``/``black_ms``:
    the times left (default: the control's first stage); ``moves``: the moves each side
    has made so far (for the stages: ``{WHITE: n, BLACK: n}``); ``state``: see
    :data:`STATES`.
    """

    def __init__(
        self,
        control: TimeControl,
        *,
        turn: Color = WHITE,
        white_ms: int | None = None,
        black_ms: int | None = None,
        moves: dict[Color, int] | None = None,
        state: str = "waiting",
    ) -> None:
        if state not in STATES:
            raise ValueError(f"clock state {state!r} is not one of {', '.join(STATES)}")
        self.control = control
        self.turn: Color = turn
        #: The time left for each side; for the side on turn, when its turn began (what
        #: it has used since is :attr:`used`, charged by :meth:`remaining`).
        self._left = {
            WHITE: control.initial_ms if white_ms is None else white_ms,
            BLACK: control.initial_ms if black_ms is None else black_ms,
        }
        self.moves = dict(moves) if moves else {WHITE: 0, BLACK: 0}
        self.state = state
        self.used = 0  # ms the side on turn has used, as of `since`
        self.since: int | None = None  # when its clock last started running
        self._history: list[_Saved] = []

    # ------------------------------------------------------------------ reading

    @property
    def running(self) -> bool:
        return self.state == "running"

    def elapsed(self, t: int) -> int:
        """The time the side on turn has used on this move by ``t`` (pauses left out)."""
        if self.since is None:
            return self.used
        return self.used + max(0, t - self.since)

    def _delay(self) -> int:
        return self.control.stage_of(self.moves[self.turn] + 1).bonus_ms

    def _charged(self, used: int) -> int:
        """What ``used`` ms of a move cost the clock: all of it, or under a simple delay
        only what went past the delay."""
        if self.control.mode == "delay":
            return max(0, used - self._delay())
        return used

    def remaining(self, color: Color, t: int) -> int:
        """``color``'s time left at ``t`` (below zero once its flag has fallen)."""
        if color != self.turn:
            return self._left[color]
        return self._left[color] - self._charged(self.elapsed(t))

    def delay_left(self, t: int) -> int:
        """Under a simple delay, how much of the delay the side on turn still has at ``t``
        (its clock counts down only after it); 0 otherwise."""
        if self.control.mode != "delay":
            return 0
        return max(0, self._delay() - self.elapsed(t))

    def flag_at(self) -> int | None:
        """When the running clock reaches zero (ms), or None when no clock runs."""
        if not self.running or self.since is None:
            return None
        budget = self._left[self.turn] - self.used
        if self.control.mode == "delay":
            budget += self._delay()  # the clock counts only after the delay
        return self.since + max(0, budget)

    # ------------------------------------------------------------------ running

    def start(self, t: int) -> None:
        """Start (or resume) the clock of the side on turn at ``t``."""
        if self.state in ("waiting", "paused"):
            self.state = "running"
            self.since = t

    def pause(self, t: int) -> None:
        """Stop the running clock at ``t``; :meth:`start` resumes it."""
        if self.state == "running":
            self.used = self.elapsed(t)
            self.since = None
            self.state = "paused"

    def stop(self, t: int) -> None:
        """The game is over: the clocks stand as they are at ``t``."""
        if self.state == "running":
            self.used = self.elapsed(t)
        self.since = None
        self.state = "stopped"

    def switch(self, t: int, ply: int = 0) -> int:
        """The side on turn completed its move at ``t`` (the ``ply`` of the game): its
        clock stops, takes its increment (or Bronstein's time back, or a new stage's time),
        and the other side's clock runs from ``t``. Returns the mover's time left after it.

        A clock still waiting starts now: the first move is free and takes no bonus. A
        paused clock stays paused (the other side's clock will run when it resumes).
        """
        self._history.append(_Saved(self._state(), t, ply))
        mover = self.turn
        if self.state == "waiting":
            left = self._left[mover]
            self.state = "running"
        else:
            used = self.elapsed(t)
            stage = self.control.stage_of(self.moves[mover] + 1)
            left = self._left[mover] - self._charged(used)
            if self.control.mode == "fischer":
                left += stage.bonus_ms
            elif self.control.mode == "bronstein":
                left += min(used, stage.bonus_ms)  # never more than the move took
        self.moves[mover] += 1
        left += self.control.added_after(self.moves[mover])
        self._left[mover] = left
        self.turn = not mover
        self.used = 0
        self.since = t if self.state == "running" else None
        return left

    def last_switch(self) -> tuple[int, int] | None:
        """``(ply, released)`` of the last switch that can be set back, or None."""
        if not self._history:
            return None
        saved = self._history[-1]
        return saved.ply, saved.released

    def unswitch(self, resume_at: int | None = None) -> None:
        """Set the last switch back. Without ``resume_at`` (a move read again, to be
        switched at another moment) the clocks are exactly as before the switch; with it
        (a take-back at ``resume_at``) they are as when that move was let go, and the
        mover's clock runs again from ``resume_at``. ValueError when there is none."""
        if not self._history:
            raise ValueError("no move on the clock to set back")
        saved = self._history.pop()
        self._restore(saved.state)
        if resume_at is not None and self.state == "running":
            self.used = self.elapsed(saved.released)
            self.since = resume_at

    def hand_to(self, color: Color, t: int) -> None:
        """The turn passes to ``color`` at ``t`` without a move on the clock (a take-back
        the clock cannot set back, a move made while the other clock ran): the side on
        turn is charged what it used, with no bonus."""
        if color == self.turn:
            return
        if self.state in ("running", "paused"):
            self._left[self.turn] -= self._charged(self.elapsed(t))
        self.turn = color
        self.used = 0
        self.since = t if self.running else None

    # ------------------------------------------------------------------ an arbiter

    def set_times(self, white_ms: int, black_ms: int, t: int) -> None:
        """Set both times as they are to read at ``t`` (the players' agreement, an arbiter)."""
        for color, ms in ((WHITE, white_ms), (BLACK, black_ms)):
            if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
                raise ValueError(f"clock time: {ms!r} is not a whole number of ms")
            self._left[color] = ms + (self._charged(self.elapsed(t)) if color == self.turn else 0)

    def add(self, color: Color, ms: int) -> None:
        """Give ``color`` ``ms`` more (FIDE 7.5.5's two minutes, an arbiter's correction)."""
        self._left[color] += ms

    # ------------------------------------------------------------------ state

    def _state(self) -> dict:
        return {
            "turn": self.turn,
            "left": dict(self._left),
            "moves": dict(self.moves),
            "state": self.state,
            "used": self.used,
            "since": self.since,
        }

    def _restore(self, saved: dict) -> None:
        self.turn = saved["turn"]
        self._left = dict(saved["left"])
        self.moves = dict(saved["moves"])
        self.state = saved["state"]
        self.used = saved["used"]
        self.since = saved["since"]

    def copy(self) -> ChessClock:
        """An independent copy."""
        other = ChessClock(self.control)
        other._restore(self._state())
        other._history = list(self._history)
        return other
