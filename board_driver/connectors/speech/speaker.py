"""The board's voice on the door: it follows the events, says what the narrator finds to
say, one utterance at a time, and never lags behind the game.

Two tasks on the daemon's loop, neither of which the board ever waits for: one follows
:meth:`~board_driver.door.Door.subscribe` (``board=True``, for the pieces lifted and put
back after ``say_square``) and hands each batch of events to the
:class:`~board_driver.spoken.narrator.Narrator`; the other speaks the queue through the
voice (a process, or speech-dispatcher's socket). The events of one step of the board come
as one batch, and what they say is queued whole.

**Never two at once, never behind the game.** The queue is spoken in order, one utterance
at a time. News of the game (a move, the move to make for the engine, an illegal position,
the end: :data:`~board_driver.spoken.utterance.URGENT`) makes older utterances stale, as
:func:`stale` says: a stale utterance still waiting is dropped, and one being spoken is cut
short (a new move cuts the list of moves being read, or the previous move's words; an
illegal position put right cuts the remedy; the engine's move waits for the player's own
move to be said). An answer to a question is cut by a newer question. A voice that takes no
time (the file sink) is never cut and drops nothing: it writes everything, in order.

The log at ``--verbose`` has every utterance (``speech 12: Knight takes e5, check.``), and
those cut short or dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Iterable
from typing import Any

from board_driver.spoken.narrator import Narrator, Utterance

log = logging.getLogger("magboard")

#: What makes an utterance of each kind stale: the kinds of newer news of the game.
_PAST = {"move", "done", "setup"}
SUPERSEDED_BY = {
    "move": _PAST,
    "done": _PAST,
    "check": _PAST,
    "touch_move": _PAST,
    "illegal": _PAST | {"illegal", "restored"},
    "restored": _PAST | {"illegal", "restored"},
    "to_play": _PAST | {"to_play"},
    "end": {"setup"},
    "setup": {"setup"},
}
#: Seconds the file sink is given, when the daemon stops, to write what it was given.
STOP_S = 3.0
#: The events that need no snapshot of the board to be told.
_BOARD_ONLY = frozenset({"lift", "place", "button", "choose", "lights"})


def stale(old: Utterance, newer: Iterable[Utterance]) -> bool:
    """Has ``old`` (waiting, or being said) been overtaken by the ``newer`` batch?

    >>> move, ask = Utterance("Knight to f3.", "move"), Utterance("Last moves: ...", "ask")
    >>> engine = Utterance("Black plays ...", "to_play")
    >>> stale(ask, [move]), stale(move, [engine]), stale(engine, [move]), stale(move, [ask])
    (True, False, True, False)
    """
    kinds = {u.kind for u in newer}
    if old.urgent:
        return bool(kinds & SUPERSEDED_BY.get(old.kind, set()))
    return any(u.urgent for u in newer) or (old.kind == "ask" and "ask" in kinds)


class Speaker:
    """Says the game aloud through ``voice`` (see the module docstring). ``fallback``: a
    voice to go on with if ``voice`` fails for good (espeak-ng when speech-dispatcher goes
    away); ``low_time_s``: below this on the running clock, the time left is said once."""

    def __init__(
        self,
        door: Any,
        narrator: Narrator,
        voice: Any,
        *,
        fallback: Any = None,
        low_time_s: int = 20,
    ) -> None:
        self.door = door
        self.narrator = narrator
        self.voice = voice
        self.fallback = fallback
        self.low_ms = low_time_s * 1000
        #: Utterances said so far (numbered from 1 in the log).
        self.said = 0
        self._pending: deque[Utterance] = deque()
        self._current: tuple[Utterance, asyncio.Task[None]] | None = None
        self._wake = asyncio.Event()
        self._events: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._clock_timer: asyncio.TimerHandle | None = None
        self._low_said: set[str] = set()

    async def start(self) -> Speaker:
        self._events = self.door.subscribe(board=True, maxsize=1024)
        snapshot = self.door.snapshot()
        self.submit(self.narrator.start(snapshot))
        self._watch_clock(snapshot)
        self._tasks = [
            asyncio.create_task(self._follow(), name="speech-follow"),
            asyncio.create_task(self._talk(), name="speech-talk"),
        ]
        return self

    async def stop(self) -> None:
        """Stop following and speaking. A voice that takes time is cut short; the file sink
        first writes what it was given (a few seconds at most): its record stays whole."""
        if self._clock_timer is not None:
            self._clock_timer.cancel()
        if self._events is not None:
            if not self.voice.takes_time:  # what the board said last is in the record too
                batch = []
                while (event := self._events.get_nowait()) is not None:
                    batch.append(event)
                if batch:
                    self._tell(batch)
            self._events.close()
        if not self.voice.takes_time:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_S):
                    while self._pending or self._current is not None:
                        await asyncio.sleep(0.01)
        if self._current is not None:
            self._current[1].cancel()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for voice in (self.voice, self.fallback):
            if voice is not None:
                with contextlib.suppress(Exception):
                    await voice.close()

    # ------------------------------------------------------------------ following

    async def _follow(self) -> None:
        events = self._events
        while True:
            try:
                batch = [await events.__anext__()]
            except StopAsyncIteration:
                return
            while (more := events.get_nowait()) is not None:
                batch.append(more)
            try:
                self._tell(batch)
            except Exception:  # a bug in the words must not silence the board for good
                log.exception("speech: cannot say %s", [e.get("type") for e in batch])

    def _tell(self, batch: list[dict[str, Any]]) -> None:
        snapshot = None
        if any(event.get("type") not in _BOARD_ONLY for event in batch):
            snapshot = self.door.snapshot()
        said: list[Utterance] = []
        for event in batch:
            said += self.narrator.follow(event, snapshot)
        self.submit(said)
        if snapshot is not None:
            self._watch_clock(snapshot)

    # ------------------------------------------------------------------ the clock

    def _watch_clock(self, snapshot: Any) -> None:
        """Say the running side's time once when it falls below ``low_time_s``; a timer
        for the moment it will."""
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        clock = getattr(snapshot, "clock", None)
        if not clock or self.low_ms <= 0 or snapshot.result != "*":
            return
        for side in ("white", "black"):
            if clock.get(f"{side}_ms", 0) > self.low_ms:
                self._low_said.discard(side)  # above it again (an increment, an adjustment)
        if clock.get("state") != "running":
            return
        side = clock.get("turn", "white")
        left = int(clock.get(f"{side}_ms", 0))
        if left > self.low_ms:
            delay = (left - self.low_ms) / 1000 + 0.05
            self._clock_timer = asyncio.get_running_loop().call_later(delay, self._clock_due)
        elif left > 0 and side not in self._low_said:
            self._low_said.add(side)
            seconds_up = -(-left // 1000) * 1000  # as a clock shows it: 19.6 s reads 20
            self.submit([self.narrator.low_time(side, seconds_up)])

    def _clock_due(self) -> None:
        self._clock_timer = None
        with contextlib.suppress(Exception):
            self._watch_clock(self.door.snapshot())

    # ------------------------------------------------------------------ the queue

    def submit(self, batch: Iterable[Utterance | None]) -> None:
        """Queue one batch of utterances (the events of one step): what it makes stale is
        dropped, or cut short if it is being said (a voice that takes time only)."""
        said = [u for u in batch if u is not None and u.text]
        if not said:
            return
        if self.voice.takes_time:
            kept = deque(u for u in self._pending if not stale(u, said))
            for dropped in [u for u in self._pending if u not in kept]:
                log.debug("speech: dropped, overtaken by the game: %s", dropped.text)
            self._pending = kept
            if self._current is not None and stale(self._current[0], said):
                self._current[1].cancel()
        self._pending.extend(said)
        self._wake.set()

    async def _talk(self) -> None:
        while True:
            while not self._pending:
                self._wake.clear()
                await self._wake.wait()
            utterance = self._pending.popleft()
            self.said += 1
            number = self.said
            log.debug("speech %d: %s", number, utterance.text)
            task = asyncio.create_task(self._speak(utterance.text, number))
            self._current = (utterance, task)
            try:
                await asyncio.wait({task})
            finally:
                self._current = None
            if task.cancelled():
                log.debug("speech %d: cut short", number)

    async def _speak(self, text: str, number: int) -> None:
        try:
            await self.voice.speak(text, number)
        except asyncio.CancelledError:
            raise
        except OSError as exc:  # the voice is gone (speech-dispatcher stopped, ...)
            if self.fallback is None:
                log.error("speech: %s: %s", self.voice.name, exc)
                return
            log.warning("speech: %s: %s; speaking with %s from now on",
                        self.voice.name, exc, self.fallback.name)  # fmt: skip
            with contextlib.suppress(Exception):
                await self.voice.close()
            self.voice, self.fallback = self.fallback, None
            await self.voice.speak(text, number)
