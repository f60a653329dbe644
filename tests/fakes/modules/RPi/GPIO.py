"""Fake ``RPi.GPIO`` acting on the fake hardware world.

Same constants and calls as the real module: ``setmode(BCM|BOARD)``, ``getmode()``,
``setwarnings``, ``setup(channel|list, IN|OUT, pull_up_down=..., initial=...)``,
``input``, ``output(channel|list, value|list)``, ``cleanup(channel|list|None)``, with
the real module's errors for a missing mode, an unset channel, output to an input.
"""

from __future__ import annotations

from tests.fakes import world as _world

BOARD = 10
BCM = 11
OUT = 0
IN = 1
LOW = 0
HIGH = 1
PUD_OFF = 20
PUD_DOWN = 21
PUD_UP = 22
VERSION = "0.7.1-fake"
RPI_INFO = {"P1_REVISION": 3, "TYPE": "Pi 4 Model B", "PROCESSOR": "BCM2711"}

_state = {"mode": None, "warnings": True, "setup": {}}  # setup: BCM pin -> IN/OUT
# BOARD numbering -> BCM, for the header pins only.
_BOARD_TO_BCM = {3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23,
                 18: 24, 19: 10, 21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 29: 5, 31: 6, 32: 12,
                 33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21}  # fmt: skip


def _reset() -> None:
    _state.update(mode=None, warnings=True, setup={})


def _channels(channel) -> list[int]:
    return list(channel) if isinstance(channel, list | tuple) else [channel]


def _bcm(channel: int) -> int:
    mode = _state["mode"]
    if mode is None:
        raise RuntimeError(
            "Please set pin numbering mode using GPIO.setmode(GPIO.BOARD) or GPIO.setmode(GPIO.BCM)"
        )
    if mode == BOARD:
        if channel not in _BOARD_TO_BCM:
            raise ValueError("The channel sent is invalid on a Raspberry Pi")
        return _BOARD_TO_BCM[channel]
    if not 0 <= channel <= 27:
        raise ValueError("The channel sent is invalid on a Raspberry Pi")
    return channel


def setwarnings(flag: bool) -> None:
    _state["warnings"] = bool(flag)


def setmode(mode: int) -> None:
    if mode not in (BOARD, BCM):
        raise ValueError("An invalid mode was passed to setmode()")
    if _state["mode"] is not None and _state["mode"] != mode:
        raise ValueError("A different mode has already been set!")
    _state["mode"] = mode


def getmode() -> int | None:
    return _state["mode"]


def setup(channel, direction: int, pull_up_down: int = PUD_OFF, initial: int | None = None) -> None:
    world = _world.current()
    if direction not in (IN, OUT):
        raise ValueError("An invalid direction was passed to setup()")
    if direction == OUT and pull_up_down != PUD_OFF:
        raise ValueError("pull_up_down parameter is not valid for outputs")
    if direction == IN and initial is not None:
        raise ValueError("initial parameter is not valid for inputs")
    for ch in _channels(channel):
        pin = _bcm(ch)
        p = world.pins[pin]
        p.owner = "RPi.GPIO"
        if direction == OUT:
            p.mode, p.drive = "out", "push_pull"
            if initial is not None:
                p.level = 1 if initial else 0
        else:
            p.mode = "in"
            p.bias = {PUD_UP: "up", PUD_DOWN: "down", PUD_OFF: None}[pull_up_down]
        _state["setup"][pin] = direction
    world.calls.append(("RPi.GPIO", "setup", tuple(_channels(channel))))


def input(channel: int) -> int:
    pin = _bcm(channel)
    if pin not in _state["setup"]:
        raise RuntimeError("You must setup() the GPIO channel first")
    world = _world.current()
    world.calls.append(("RPi.GPIO", "input", pin))
    return world.level(pin)


def output(channel, value) -> None:
    world = _world.current()
    channels = _channels(channel)
    values = _channels(value) if isinstance(value, list | tuple) else [value] * len(channels)
    if len(values) != len(channels):
        raise RuntimeError("Number of channels != number of values")
    for ch, v in zip(channels, values, strict=True):
        pin = _bcm(ch)
        if _state["setup"].get(pin) is None:
            raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
        if _state["setup"][pin] != OUT:
            raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
        world.pins[pin].level = 1 if v else 0
    world.calls.append(("RPi.GPIO", "output", tuple(channels)))


def cleanup(channel=None) -> None:
    world = _world.current()
    pins = list(_state["setup"]) if channel is None else [_bcm(c) for c in _channels(channel)]
    for pin in pins:
        if pin in _state["setup"]:
            del _state["setup"][pin]
            p = world.pins[pin]
            p.mode, p.bias, p.owner = "in", None, None
    if not _state["setup"]:
        _state["mode"] = None
