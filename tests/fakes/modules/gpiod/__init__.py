"""Fake libgpiod v2 Python bindings (``gpiod`` 2.x), acting on the fake hardware world.

The public surface magboard uses, with the real module's behaviour: ``Chip(path)`` with
``get_info()``, ``line_offset_from_id()``, ``request_lines(config, consumer, ...)``;
``LineRequest.get_values/set_values/get_value/set_value/release``; ``LineSettings``;
``is_gpiochip_device``; module-level ``request_lines``. Lines are requested exclusively
(a second request is EBUSY); values are logical (``active_low`` inverts them); setting
an input is EPERM.
"""

from __future__ import annotations

import errno
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from tests.fakes import world as _world

from . import line
from .line import Bias, Clock, Direction, Drive, Edge, Value

__all__ = ["Chip", "ChipInfo", "LineRequest", "LineSettings", "is_gpiochip_device", "line"]
api_version = "2.2.0-fake"


class ChipClosedError(Exception):
    pass


class RequestReleasedError(Exception):
    pass


@dataclass(frozen=True)
class ChipInfo:
    name: str
    label: str
    num_lines: int


@dataclass
class LineSettings:
    direction: Direction = Direction.AS_IS
    edge_detection: Edge = Edge.NONE
    bias: Bias = Bias.AS_IS
    drive: Drive = Drive.PUSH_PULL
    active_low: bool = False
    debounce_period: timedelta = timedelta()
    event_clock: Clock = Clock.MONOTONIC
    output_value: Value = Value.INACTIVE


def is_gpiochip_device(path: str) -> bool:
    return str(path) in _world.current().chips


class Chip:
    def __init__(self, path: str) -> None:
        world = _world.current()
        spec = world.chips.get(str(path))
        if spec is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        self._spec = spec
        self._open = True

    def __enter__(self) -> Chip:
        self._check()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check(self) -> None:
        if not self._open:
            raise ChipClosedError()

    def close(self) -> None:
        self._check()
        self._open = False

    @property
    def path(self) -> str:
        return self._spec.path

    def get_info(self) -> ChipInfo:
        self._check()
        return ChipInfo(self._spec.name, self._spec.label, len(self._spec.line_names))

    def line_offset_from_id(self, id: int | str) -> int:
        self._check()
        names = self._spec.line_names
        if isinstance(id, str):
            if id in names:
                return names.index(id)
            try:
                offset = int(id)
            except ValueError:
                raise OSError(errno.ENOENT, "No such file or directory") from None
        else:
            offset = id
        if offset >= len(names):
            raise ValueError("line offset of out range")
        return offset

    def request_lines(
        self,
        config: dict,
        consumer: str | None = None,
        event_buffer_size: int | None = None,
        output_values: dict | None = None,
    ) -> LineRequest:
        self._check()
        settings_by_offset: dict[int, LineSettings] = {}
        lines: list[int | str] = []
        name_map: dict[str, int] = {}
        for key, settings in config.items():
            keys: Iterable = (key,) if isinstance(key, int | str) else key
            for item in keys:
                offset = self.line_offset_from_id(item)
                if offset in settings_by_offset:
                    raise ValueError(
                        f"line must be configured exactly once - offset {offset} repeats"
                    )
                settings_by_offset[offset] = settings or LineSettings()
                lines.append(item)
                if isinstance(item, str):
                    name_map[item] = offset
        for offset in settings_by_offset:
            if (self.path, offset) in _world.current().requested:
                raise OSError(errno.EBUSY, "Device or resource busy")
        if output_values:
            for item, value in output_values.items():
                settings_by_offset[self.line_offset_from_id(item)].output_value = value
        request = LineRequest(self._spec, settings_by_offset, lines, name_map)
        for offset in settings_by_offset:
            _world.current().requested[(self.path, offset)] = consumer or "?"
        request._apply_all()
        _world.current().calls.append(("gpiod", "request_lines", tuple(settings_by_offset)))
        return request


def request_lines(path: str, config: dict, consumer: str | None = None, **kwargs) -> LineRequest:
    with Chip(path) as chip:
        return chip.request_lines(config, consumer=consumer, **kwargs)


class LineRequest:
    def __init__(self, spec, settings: dict[int, LineSettings], lines, name_map) -> None:
        self._spec = spec
        self._settings = settings
        self._lines = lines
        self._name_map = name_map
        self._released = False
        self._values = {off: s.output_value for off, s in settings.items()}

    def __enter__(self) -> LineRequest:
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def __bool__(self) -> bool:
        return not self._released

    @property
    def offsets(self) -> list[int]:
        return list(self._settings)

    @property
    def lines(self) -> list[int | str]:
        return list(self._lines)

    @property
    def chip_name(self) -> str:
        return self._spec.name

    def _check(self) -> None:
        if self._released:
            raise RequestReleasedError()

    def _offset(self, item: int | str) -> int:
        if isinstance(item, str):
            if item not in self._name_map:
                raise ValueError(f"unknown line name: {item}")
            return self._name_map[item]
        if item not in self._settings:
            raise ValueError(f"offset {item} was not requested")
        return item

    def _pin(self, offset: int) -> int | None:
        return self._spec.bcm.get(offset)

    def _apply(self, offset: int) -> None:
        """Put one line's settings and value onto the world's pin."""
        pin = self._pin(offset)
        if pin is None:
            return
        s = self._settings[offset]
        p = _world.current().pins[pin]
        p.owner = "gpiod"
        if s.direction is Direction.OUTPUT:
            p.mode = "out"
            p.drive = {Drive.PUSH_PULL: "push_pull", Drive.OPEN_DRAIN: "open_drain",
                       Drive.OPEN_SOURCE: "open_source"}[s.drive]  # fmt: skip
            logical = 1 if self._values[offset] is Value.ACTIVE else 0
            p.level = logical ^ int(s.active_low)
        elif s.direction is Direction.INPUT:
            p.mode = "in"
        if s.bias is Bias.PULL_UP:
            p.bias = "up"
        elif s.bias is Bias.PULL_DOWN:
            p.bias = "down"
        elif s.bias is Bias.DISABLED:
            p.bias = None

    def _apply_all(self) -> None:
        for offset in self._settings:
            self._apply(offset)

    def get_values(self, lines: Iterable[int | str] | None = None) -> list[Value]:
        self._check()
        world = _world.current()
        lines = list(lines) if lines else list(self._lines)
        out = []
        for item in lines:
            offset = self._offset(item)
            pin = self._pin(offset)
            physical = world.level(pin) if pin is not None else 0
            logical = physical ^ int(self._settings[offset].active_low)
            out.append(Value.ACTIVE if logical else Value.INACTIVE)
        world.calls.append(("gpiod", "get_values", len(lines)))
        return out

    def get_value(self, line: int | str) -> Value:
        return self.get_values([line])[0]

    def set_values(self, values: dict[int | str, Value]) -> None:
        self._check()
        for item, value in values.items():
            offset = self._offset(item)
            if self._settings[offset].direction is not Direction.OUTPUT:
                raise PermissionError(errno.EPERM, "Operation not permitted")
            if not isinstance(value, Value):
                raise TypeError(f"expected gpiod.line.Value, got {value!r}")
            self._values[offset] = value
            self._apply(offset)
        _world.current().calls.append(("gpiod", "set_values", len(values)))

    def set_value(self, line: int | str, value: Value) -> None:
        self.set_values({line: value})

    def reconfigure_lines(self, config: dict) -> None:
        self._check()
        for key, settings in config.items():
            keys = (key,) if isinstance(key, int | str) else key
            for item in keys:
                offset = self._offset(item)
                self._settings[offset] = settings or LineSettings()
                self._values[offset] = self._settings[offset].output_value
                self._apply(offset)

    def release(self) -> None:
        self._check()
        # Like the kernel: the lines keep their last configuration; only ownership ends.
        for offset in self._settings:
            _world.current().requested.pop((self._spec.path, offset), None)
            pin = self._pin(offset)
            if pin is not None:
                _world.current().pins[pin].owner = None
        self._released = True
