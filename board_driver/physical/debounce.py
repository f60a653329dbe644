"""Raw switch scans to ``Lift``/``Place`` events, with a debounce per square.

A reed switch bounces for a millisecond or three when a magnet arrives or leaves, and a
piece pushed across a square can close its switch for one scan. So a square's new state
is reported only once it has held for ``debounce_ms``; any change back before then
cancels it. The event's time is the moment the state matured (the last change plus
``debounce_ms``), not the moment it was noticed, so a replay gives the same times
whatever the scan rate.

>>> from board_driver.physical.squares import square
>>> d = Debouncer(30, initial=0)
>>> d.feed(100, 1 << square("e4"))   # a piece arrives on e4...
[]
>>> d.feed(101, 0)                    # ...bounces off...
[]
>>> d.feed(102, 1 << square("e4"))   # ...and stays
[]
>>> d.tick(140)
[Place(t_ms=132, square=28)]
>>> d.stable == 1 << square("e4")
True
"""

from __future__ import annotations

from board_driver.physical.events import Lift, Place
from board_driver.physical.squares import FULL_BOARD, squares_of

#: The design's default: a state must hold 30 ms before it counts.
DEFAULT_DEBOUNCE_MS = 30


class Debouncer:
    """Turns raw scans ``(t_ms, bitmap)`` into debounced ``Lift``/``Place`` events.

    ``initial`` is the occupancy standing when scanning starts (it produces no events).
    Feed every scan that differs from the last one with :meth:`feed`, and call
    :meth:`tick` when time passes without a new scan; both return the events that
    matured by then, in time order (at one instant, lifts before places, then by square).
    Times must not go backwards.
    """

    __slots__ = ("_debounce_ms", "_now", "_pending", "_raw", "_stable")

    def __init__(self, debounce_ms: int = DEFAULT_DEBOUNCE_MS, initial: int = 0) -> None:
        if debounce_ms < 0:
            raise ValueError(f"debounce_ms must be >= 0, got {debounce_ms}")
        if not 0 <= initial <= FULL_BOARD:
            raise ValueError(f"initial occupancy {initial:#x} is not a 64-bit bitmap")
        self._debounce_ms = debounce_ms
        self._stable = initial
        self._raw = initial
        # square -> time its raw state last changed, for squares whose raw state differs
        # from the stable one (the only squares that can produce an event).
        self._pending: dict[int, int] = {}
        self._now: int | None = None

    @property
    def debounce_ms(self) -> int:
        """How long a new state must hold before it is reported."""
        return self._debounce_ms

    @property
    def stable(self) -> int:
        """The debounced occupancy: what the events reported so far add up to."""
        return self._stable

    @property
    def raw(self) -> int:
        """The last scan fed."""
        return self._raw

    def maturing_since(self) -> int | None:
        """The edge (the last change) of the earliest change still maturing; None if none.
        Whoever judges the board must not judge past it: that change happened before."""
        return min(self._pending.values()) if self._pending else None

    def at_edges(self, events: list[Lift | Place]) -> list[Lift | Place]:
        """``events`` from :meth:`feed` or :meth:`tick` at the moment each change happened
        (its edge: the hand took or let go of the piece), not when it matured.

        >>> from board_driver.physical.squares import square
        >>> d = Debouncer(30, initial=0)
        >>> d.at_edges(d.feed(100, 1 << square("e4")) + d.tick(140))
        [Place(t_ms=100, square=28)]
        """
        shift = self._debounce_ms
        return [type(e)(e.t_ms - shift, e.square) for e in events]

    def next_due(self) -> int | None:
        """When the next event matures if no scan changes anything; None if none is on the way."""
        if not self._pending:
            return None
        return min(self._pending.values()) + self._debounce_ms

    def feed(self, t_ms: int, bitmap: int) -> list[Lift | Place]:
        """A scan read at ``t_ms``; returns the events that matured up to ``t_ms``."""
        if not 0 <= bitmap <= FULL_BOARD:
            raise ValueError(f"scan {bitmap:#x} is not a 64-bit bitmap")
        events = self.tick(t_ms)
        changed = bitmap ^ self._raw
        if changed:
            self._raw = bitmap
            for sq in squares_of(changed):
                if (bitmap ^ self._stable) >> sq & 1:
                    self._pending[sq] = t_ms
                else:
                    # Back to the reported state before maturing: a bounce or a flicker.
                    del self._pending[sq]
            if self._debounce_ms == 0:
                events += self.tick(t_ms)
        return events

    def tick(self, t_ms: int) -> list[Lift | Place]:
        """Time has passed to ``t_ms`` with no new scan; returns the events that matured."""
        if self._now is not None and t_ms < self._now:
            raise ValueError(f"time went backwards: {t_ms} ms after {self._now} ms")
        self._now = t_ms
        if not self._pending:
            return []
        deadline = t_ms - self._debounce_ms
        due = [(since, sq) for sq, since in self._pending.items() if since <= deadline]
        if not due:
            return []
        events: list[tuple[int, int, int, Lift | Place]] = []
        for since, sq in due:
            del self._pending[sq]
            self._stable ^= 1 << sq
            at = since + self._debounce_ms
            if self._stable >> sq & 1:
                events.append((at, 1, sq, Place(at, sq)))
            else:
                events.append((at, 0, sq, Lift(at, sq)))
        events.sort(key=lambda e: e[:3])
        return [e[3] for e in events]
