"""Push-buttons beside the board, each press becoming a board-script event.

===============  ===========================================================
button           event
===============  ===========================================================
``adjust``       ``Button(t, "adjust")``: *j'adoube*, I am only adjusting
``promote``      ``Choose(t, piece)``: each press picks the next promotion piece
                 in the cycle queen -> knight -> rook -> bishop -> queen (the
                 first press gives a knight, the commonest under-promotion)
``claim_draw``   ``Button(t, "claim_draw")``
``resign``       ``Button(t, "resign")`` (by the side to move)
``new_game``     ``Button(t, "new_game")``
``hint``         ``Button(t, "hint")``
``clock_white``  ``Button(t, "clock_white")``: White's side of the clock (with
                 ``[clock] switch = "buttons"`` White presses it after moving)
``clock_black``  ``Button(t, "clock_black")``
``pause``        ``Button(t, "pause")``: stops the running clock; again: resumes
``say_move``     ``Button(t, "say_move")``: the board says the last move again (or
                 what it waits for); ``say_moves``, ``say_clocks``,
                 ``say_material``: the last few moves, both clocks, the material;
                 ``say_square``, ``say_rank``, ``say_file``: the next piece lifted
                 and put back is named (or its rank or file read), touching nothing
                 (``[speech]``, ``docs/speech.md``)
===============  ===========================================================

Buttons are wired from a GPIO to ground (the Pi's pull-up holds the line high; a press
pulls it low) and read through the same GPIO library as the matrix, debounced: a press
counts once the line has been low for ``debounce_ms``, and the next only after it has been
released as long. Builders without buttons lose nothing: the web page offers every control.

Any source of presses (GPIO here; the serial bridge's button packets) turns names into
events with :class:`ButtonPresses`, and fits :class:`ButtonSource`::

    >>> events = []
    >>> presses = ButtonPresses(events.append)
    >>> presses.press("promote", 100); presses.press("resign", 200)
    >>> events
    [Choose(t_ms=100, piece='n'), Button(t_ms=200, name='resign')]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from board_driver.physical.events import ASK_BUTTONS, BoardEvent, Button, Choose
from board_driver.physical.gpiolines import open_chip, open_lines
from board_driver.physical.hwlib import require_library
from board_driver.physical.pinmap import DEFAULT_BUTTON_PINS, check_distinct
from board_driver.physical.sensing.loop import monotonic_ms

#: The buttons magboard knows, in the order the guide lists them.
BUTTONS = (
    "adjust",
    "promote",
    "claim_draw",
    "resign",
    "new_game",
    "hint",
    "clock_white",
    "clock_black",
    "pause",
    *ASK_BUTTONS,
)
#: What successive presses of ``promote`` choose.
PROMOTION_CYCLE = ("q", "n", "r", "b")

EventCallback = Callable[[BoardEvent], object]  # what it returns is not used


class ButtonConfigError(ValueError):
    """A ``[buttons]`` option is wrong."""


@runtime_checkable
class ButtonSource(Protocol):
    """Anything that produces button events: GPIO buttons, the serial bridge."""

    def start(self, on_event: EventCallback) -> None:
        """Begin delivering events to ``on_event`` (possibly from another thread)."""
        ...

    def close(self) -> None:
        """Stop delivering events and release the hardware."""
        ...


class ButtonPresses:
    """Turns button names into events; keeps the promotion cycle's position."""

    def __init__(self, on_event: EventCallback) -> None:
        self.on_event = on_event
        self._promotion = 0

    def press(self, name: str, t_ms: int) -> None:
        """Deliver the event for one press of button ``name`` at ``t_ms``."""
        if name not in BUTTONS:
            raise ButtonConfigError(f"unknown button {name!r} (known: {', '.join(BUTTONS)})")
        if name == "promote":
            self._promotion = (self._promotion + 1) % len(PROMOTION_CYCLE)
            event: BoardEvent = Choose(t_ms, PROMOTION_CYCLE[self._promotion])
        else:
            event = Button(t_ms, name)
        self.on_event(event)


class ButtonDebouncer:
    """Turns a stream of "which buttons are down" readings into presses.

    >>> d = ButtonDebouncer(("resign",), debounce_ms=30)
    >>> d.feed(0, 0), d.feed(10, 1), d.feed(30, 1), d.feed(40, 1), d.feed(50, 1)
    ([], [], [], ['resign'], [])
    """

    def __init__(self, names: tuple[str, ...], *, debounce_ms: int = 30) -> None:
        self.names = names
        self.debounce_ms = debounce_ms
        self._stable = 0
        self._candidate = 0
        self._since = [0] * len(names)
        self._primed = False

    def feed(self, t_ms: int, down: int) -> list[str]:
        """``down`` has bit *i* set while button ``names[i]`` is held; returns new presses."""
        if not self._primed:
            # A button held down at start (or stuck) is not a press.
            self._stable = self._candidate = down
            self._primed = True
            return []
        pressed = []
        for i, name in enumerate(self.names):
            bit = 1 << i
            now = down & bit
            if now != self._candidate & bit:
                self._candidate ^= bit
                self._since[i] = t_ms
            if now != self._stable & bit and t_ms - self._since[i] >= self.debounce_ms:
                self._stable ^= bit
                if now:
                    pressed.append(name)
        return pressed


def check_button_pins(pins: Mapping[str, Any]) -> dict[str, int]:
    """The pin of each configured button; ``None``/``-1`` leaves a button out."""
    out = {}
    for name, pin in pins.items():
        if name not in BUTTONS:
            raise ButtonConfigError(
                f"[buttons] {name}: unknown button (known: {', '.join(BUTTONS)})"
            )
        if pin is None or pin == -1:
            continue
        if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= 53:
            raise ButtonConfigError(f"[buttons] {name}: {pin!r} is not a BCM GPIO number (0..53)")
        out[name] = pin
    check_distinct(**{f"[buttons] {name}": (pin,) for name, pin in out.items()})
    return out


class _GpiodReader:
    def __init__(self, pins: list[int], chip: str, dev_dir: str) -> None:
        gpiod = require_library("gpiod", backend="gpiod", package="gpiod", apt="python3-libgpiod")
        from gpiod.line import Bias, Direction, Value

        self._active = Value.ACTIVE
        path, self._offsets = open_lines(gpiod, chip, pins, dev_dir)
        settings = gpiod.LineSettings(direction=Direction.INPUT, bias=Bias.PULL_UP, active_low=True)
        with open_chip(gpiod, path) as handle:
            self._request = handle.request_lines(
                config={tuple(self._offsets): settings}, consumer="magboard-buttons"
            )

    def read(self) -> int:
        active = self._active
        down = 0
        for i, value in enumerate(self._request.get_values(self._offsets)):
            if value is active:
                down |= 1 << i
        return down

    def close(self) -> None:
        self._request.release()


class _RpiGpioReader:
    def __init__(self, pins: list[int]) -> None:
        from board_driver.physical.sensing.rpigpio import import_rpigpio

        self._gpio = gpio = import_rpigpio()
        self._pins = pins
        gpio.setup(pins, gpio.IN, pull_up_down=gpio.PUD_UP)

    def read(self) -> int:
        read, low = self._gpio.input, self._gpio.LOW
        return sum(1 << i for i, pin in enumerate(self._pins) if read(pin) == low)

    def close(self) -> None:
        self._gpio.cleanup(self._pins)


class GpioButtons:
    """A :class:`ButtonSource` reading buttons on GPIO lines, polled ``poll_hz`` times a second."""

    def __init__(
        self,
        pins: Mapping[str, Any] | None = None,
        *,
        gpio: str = "gpiod",
        chip: str = "",
        debounce_ms: int = 30,
        poll_hz: float = 100,
        dev_dir: str = "/dev",
        clock: Callable[[], int] = monotonic_ms,
    ) -> None:
        self.pins = check_button_pins(DEFAULT_BUTTON_PINS if pins is None else pins)
        self.names = tuple(self.pins)
        lines = list(self.pins.values())
        if gpio == "gpiod":
            self._reader: Any = _GpiodReader(lines, chip, dev_dir)
        elif gpio == "rpigpio":
            self._reader = _RpiGpioReader(lines)
        else:
            raise ButtonConfigError(f"[buttons] gpio must be 'gpiod' or 'rpigpio', got {gpio!r}")
        self.debouncer = ButtonDebouncer(self.names, debounce_ms=debounce_ms)
        self.clock = clock
        self.debouncer.feed(clock(), self._reader.read())  # what is held now is no press
        self.period = 1.0 / poll_hz
        self._presses: ButtonPresses | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def poll(self) -> list[str]:
        """Read the buttons once, deliver and return the presses completed now."""
        t_ms = self.clock()
        pressed = self.debouncer.feed(t_ms, self._reader.read())
        if self._presses is not None:
            for name in pressed:
                self._presses.press(name, t_ms)
        return pressed

    def start(self, on_event: EventCallback) -> None:
        self._presses = ButtonPresses(on_event)
        self._thread = threading.Thread(target=self._run, name="magboard-buttons", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.poll()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)
            self._thread = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None


def open_buttons(backend: str = "none", **options: Any) -> GpioButtons | None:
    """The ``[buttons]`` table: ``backend = "gpiod"`` or ``"rpigpio"`` gives
    :class:`GpioButtons` read with that library, with the button pins given (defaults from
    :data:`~board_driver.physical.pinmap.DEFAULT_BUTTON_PINS` when none is); ``"gpio"`` (the
    older name) reads with ``gpio = "gpiod"`` (default) or ``"rpigpio"``; ``"none"`` gives
    None. ``"bridge"`` buttons arrive over the serial link: the bridge feeds a
    :class:`ButtonPresses`.
    """
    if backend == "none":
        return None
    if backend == "bridge":
        raise ButtonConfigError(
            "[buttons] backend 'bridge': the bridge's button packets are fed to a "
            "ButtonPresses by firmware_bridge, not opened here"
        )
    if backend not in ("gpiod", "rpigpio", "gpio"):
        raise ButtonConfigError(
            "[buttons] backend must be 'gpiod', 'rpigpio', 'bridge' or 'none' "
            f"('gpio': the matrix's library), got {backend!r}"
        )
    if backend != "gpio":
        if options.get("gpio", backend) != backend:
            raise ButtonConfigError(f"[buttons] backend {backend!r} reads with {backend}")
        options = {**options, "gpio": backend}
    pins = {k: v for k, v in options.items() if k in BUTTONS}
    rest = {k: v for k, v in options.items() if k not in BUTTONS}
    allowed = {"gpio", "chip", "debounce_ms", "poll_hz", "dev_dir"}
    for key in rest:
        if key not in allowed:
            raise ButtonConfigError(f"[buttons]: unknown option {key!r}")
    return GpioButtons(pins or None, **rest)
