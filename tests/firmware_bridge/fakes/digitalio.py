"""Fake CircuitPython ``digitalio``: the same classes and behaviour, levels from fakehw."""

from __future__ import annotations

from fakehw import hw


class Direction:
    INPUT = "Direction.INPUT"
    OUTPUT = "Direction.OUTPUT"


class Pull:
    UP = "Pull.UP"
    DOWN = "Pull.DOWN"


class DriveMode:
    PUSH_PULL = "DriveMode.PUSH_PULL"
    OPEN_DRAIN = "DriveMode.OPEN_DRAIN"


class DigitalInOut:
    def __init__(self, pin: object) -> None:
        hw.claim(pin, self)
        self._pin = pin
        self._direction = Direction.INPUT
        self._pull: str | None = None
        self._value = False
        self._deinited = False

    def _check(self) -> None:
        if self._deinited:
            raise ValueError("Object has been deinitialized and can no longer be used.")

    def is_driving_low(self) -> bool:
        return self._direction is Direction.OUTPUT and not self._value

    def switch_to_output(self, value: bool = False, drive_mode: str = DriveMode.PUSH_PULL) -> None:
        self._check()
        self._direction = Direction.OUTPUT
        self._pull = None
        self._value = bool(value)

    def switch_to_input(self, pull: str | None = None) -> None:
        self._check()
        self._direction = Direction.INPUT
        self._pull = pull

    @property
    def direction(self) -> str:
        self._check()
        return self._direction

    @direction.setter
    def direction(self, value: str) -> None:
        if value is Direction.OUTPUT:
            self.switch_to_output()
        else:
            self.switch_to_input()

    @property
    def pull(self) -> str | None:
        self._check()
        if self._direction is Direction.OUTPUT:
            raise AttributeError("Pull not used when direction is output.")
        return self._pull

    @pull.setter
    def pull(self, value: str | None) -> None:
        self._check()
        if self._direction is Direction.OUTPUT:
            raise AttributeError("Pull not used when direction is output.")
        self._pull = value

    @property
    def value(self) -> bool:
        self._check()
        if self._direction is Direction.OUTPUT:
            return self._value
        return hw.level(self._pin, self._pull)

    @value.setter
    def value(self, value: bool) -> None:
        self._check()
        if self._direction is not Direction.OUTPUT:
            raise AttributeError("Cannot set value when direction is input.")
        self._value = bool(value)

    def deinit(self) -> None:
        if not self._deinited:
            hw.release(self._pin)
            self._deinited = True

    def __enter__(self) -> DigitalInOut:
        return self

    def __exit__(self, *exc: object) -> None:
        self.deinit()
