"""What the LEDs show: the game's frame, composed with the daemon's own patterns, a
committed move's flash and the connectors' layers, and driven blinking on the loop.

Where two wants meet on one square, the more urgent wins (``docs/architecture.md``):

1. the daemon's own patterns on the edge squares: starting, bridge link lost and hardware
   fault replace the whole frame; store failing lights the edge over the game's lights;
2. a committed move's white flash (:data:`FLASH_S`, transient);
3. the board's guidance to put it right (squares blinking red: empty; blue: fill);
4. connector layers (:meth:`Lights.layer`), the first made first;
5. the rest of the game's frame: check, a move half done, the move to execute, hints.

>>> from board_driver.physical.frame import Frame
>>> lights = Lights(show=lambda frame, on: None)
>>> game = Frame.off().with_square(28, "c", blink=True)
>>> layer = lights.layer("app")
>>> layer.show(Frame.off().with_square(28, "g").with_square(12, "g"))
>>> composed = lights.compose(game)
>>> composed.colours[28], composed.colours[12]
('g', 'g')
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from board_driver.physical.frame import Frame
from board_driver.physical.squares import squares_of

#: The 28 squares around the edge of the board.
EDGE_SQUARES = tuple(sq for sq in range(64) if sq < 8 or sq >= 56 or sq % 8 in (0, 7))
EDGE_MASK = sum(1 << sq for sq in EDGE_SQUARES)
#: Blinking: on for half the period, off for the other half.
BLINK_PERIOD_S = 0.5
#: How long a committed move's squares flash white.
FLASH_S = 0.3
#: The guidance to put the board right: these letters, blinking.
_GUIDANCE = ("r", "b")


def edge_frame(letter: str, *, blink: bool = False) -> Frame:
    """A frame with only the edge squares lit, for the daemon's own states."""
    colours = tuple(letter if sq in EDGE_SQUARES else "." for sq in range(64))
    return Frame(colours, EDGE_MASK if blink else 0)


STARTING_FRAME = edge_frame("b")
LINK_LOST_FRAME = edge_frame("y", blink=True)
FAULT_FRAME = edge_frame("r", blink=True)
STORE_FAILING_FRAME = edge_frame("o", blink=True)
#: The daemon's own patterns, by the name the door's snapshot gives them.
PATTERNS = {
    "fault": FAULT_FRAME,
    "store_failing": STORE_FAILING_FRAME,
    "link_lost": LINK_LOST_FRAME,
    "starting": STARTING_FRAME,
}


class Layer:
    """A connector's own lights (:class:`board_driver.door.LightLayer`)."""

    def __init__(self, name: str, changed: Callable[[], None]) -> None:
        self.name = name
        self.frame: Frame | None = None
        self._changed = changed

    def show(self, frame: Frame | None) -> None:
        if frame != self.frame:
            self.frame = frame
            self._changed()


class Lights:
    """Composes and shows frames. ``show(frame, phase_on)`` drives the LEDs (a frame at
    one phase of its blinking); ``game_frame()`` gives the game's frame now;
    ``on_change(frame)`` is told of each new composed frame (not of blink phases)."""

    def __init__(
        self,
        show: Callable[[Frame, bool], None],
        *,
        game_frame: Callable[[], Frame] = Frame.off,
        on_change: Callable[[Frame], None] | None = None,
    ) -> None:
        self._show = show
        self._game_frame = game_frame
        self._on_change = on_change
        self.pattern: Frame | None = STARTING_FRAME
        #: A pattern on the edge squares over the game's lights (the store failing).
        self.warning: Frame | None = None
        self._flash: int = 0
        self._layers: list[Layer] = []
        self._shown: tuple[Frame, bool] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Blink and end flashes with ``loop``'s timers from now on."""
        self._loop = loop

    # ------------------------------------------------------------------ wants

    @property
    def pattern_name(self) -> str:
        """``ok``, or the name of the daemon's own pattern lit (see :data:`PATTERNS`)."""
        for name, pattern in PATTERNS.items():
            if pattern in (self.pattern, self.warning):
                return name
        return "ok"

    def set_pattern(self, pattern: Frame | None) -> None:
        """Light one of the daemon's own patterns (None: the game again)."""
        self.pattern = pattern
        self.refresh()

    def set_warning(self, pattern: Frame | None) -> None:
        """Light a pattern over the game's lights, on its lit squares only (None: off)."""
        self.warning = pattern
        self.refresh()

    def flash(self, squares: int) -> None:
        """Flash ``squares`` (a mask) white for :data:`FLASH_S`."""
        self._flash = squares
        self._later("flash", FLASH_S, self._end_flash)
        self.refresh()

    def layer(self, name: str) -> Layer:
        """A connector's layer, below the layers made before it."""
        layer = Layer(name, self.refresh)
        self._layers.append(layer)
        return layer

    # ------------------------------------------------------------------ composing

    def compose(self, game: Frame) -> Frame:
        """The frame to show, given the game's (see the module docstring for the order)."""
        if self.pattern is not None:
            return self.pattern
        frame = game
        guidance = sum(
            1 << sq
            for sq in squares_of(game.blink)
            if game.colours[sq] in _GUIDANCE
        )
        for layer in reversed(self._layers):  # the first layer made ends on top
            if layer.frame is None:
                continue
            for sq, letter in enumerate(layer.frame.colours):
                if letter != "." and not guidance >> sq & 1:
                    frame = frame.with_square(sq, letter, blink=bool(layer.frame.blink >> sq & 1))
        for sq in squares_of(self._flash):
            frame = frame.with_square(sq, "w")
        if self.warning is not None:
            for sq, letter in enumerate(self.warning.colours):
                if letter != ".":
                    frame = frame.with_square(sq, letter, blink=bool(self.warning.blink >> sq & 1))
        return frame

    def current(self) -> Frame:
        """The frame shown now (blinking squares as lit)."""
        return self.compose(self._game_frame())

    def refresh(self) -> None:
        """Show what is wanted now; blink while something blinks."""
        frame = self.current()
        loop_time = self._loop.time() if self._loop is not None else time.monotonic()
        on = frame.blink == 0 or (loop_time % BLINK_PERIOD_S) < BLINK_PERIOD_S / 2
        if (frame, on) != self._shown:
            new_frame = self._shown is None or self._shown[0] != frame
            self._shown = (frame, on)
            self._show(frame, on)
            if new_frame and self._on_change is not None:
                self._on_change(frame)
        if frame.blink and self._loop is not None:
            # Wake at the next phase change only while something blinks.
            half = BLINK_PERIOD_S / 2
            self._later("blink", half - (loop_time % half) + 0.001, self._blink)
        else:
            self._cancel("blink")

    def close(self) -> None:
        for name in list(self._timers):
            self._cancel(name)

    # ------------------------------------------------------------------ timers

    def _end_flash(self) -> None:
        self._timers.pop("flash", None)
        self._flash = 0
        self.refresh()

    def _blink(self) -> None:
        self._timers.pop("blink", None)
        self.refresh()

    def _later(self, name: str, delay: float, callback: Callable[[], None]) -> None:
        self._cancel(name)
        if self._loop is not None:
            self._timers[name] = self._loop.call_later(delay, callback)

    def _cancel(self, name: str) -> None:
        handle = self._timers.pop(name, None)
        if handle is not None:
            handle.cancel()
