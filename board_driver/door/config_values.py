"""The checks a config value goes through: each takes ``(key, value)`` and returns the
value converted, or raises :class:`Bad` with the rest of the message.

The daemon's own sections (:mod:`board_driver.service.config`) and every extension's
section (:mod:`board_driver.door.extension`) use these, so every bad value reads the same way:

>>> integer(1, 65535)("port", 70000)
Traceback (most recent call last):
...
board_driver.door.config_values.Bad: 70000 is not between 1 and 65535
>>> one_of("gpiod", "sim")("backend", "gpio")
Traceback (most recent call last):
...
board_driver.door.config_values.Bad: "gpio" is not one of "gpiod", "sim"
>>> quote("x" * 100)
'"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..." (100 characters)'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

#: A key's check: (key, value) -> the value converted, or raise :class:`Bad`.
Check = Callable[[str, Any], Any]
#: A value quoted in a message is cut to this many characters.
QUOTE_LIMIT = 40


class Bad(Exception):
    """One bad value; the message completes ``[section] key: ...``."""


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """A value as a message shows it: strings in double quotes, control characters
    escaped, cut to ``limit`` characters (a 100 MB token is not printed whole)."""
    if isinstance(value, str):
        shown = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in value[:limit])
        if len(value) > limit:
            return f'"{shown}..." ({len(value)} characters)'
        return f'"{shown}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def one_of(*choices: str) -> Check:
    def check(_key: str, value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise Bad(f"{quote(value)} is not one of " + ", ".join(f'"{c}"' for c in choices))
        return value

    return check


def integer(
    low: int | None = None, high: int | None = None, choices: tuple[int, ...] = ()
) -> Check:
    def check(_key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Bad(f"{quote(value)} is not a whole number")
        if choices and value not in choices:
            raise Bad(f"{value} is not one of " + ", ".join(map(str, choices)))
        if low is not None and high is not None and not low <= value <= high:
            raise Bad(f"{quote(value)} is not between {low} and {high}")
        if low is not None and value < low:
            raise Bad(f"{quote(value)} is less than {low}")
        return value

    return check


def number(low: float, high: float, *, open_low: bool = False) -> Check:
    def check(_key: str, value: Any) -> float:
        # math.isnan of an int past a float's range is an OverflowError: ints are compared
        # exactly, only a float can be NaN.
        if isinstance(value, bool) or not isinstance(value, int | float) or (
            isinstance(value, float) and math.isnan(value)
        ):
            raise Bad(f"{quote(value)} is not a number")
        if not low <= value <= high or (open_low and value == low):
            raise Bad(f"{quote(value)} is not between {low:g} and {high:g}")
        return float(value)

    return check


def boolean(_key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise Bad(f"{quote(value)} is not true or false")
    return value


def text(_key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise Bad(f"{quote(value)} is not a string")
    if "\0" in value:
        raise Bad(f"{quote(value)} holds a NUL character")
    return value


#: What the daemon does with a file a key names (:class:`FilePath`).
FILE_USES = {
    "kept": "read and written in place",
    "written": "written by the daemon",
    "secret": "read, and private to its owner",
}


class FilePath:
    """The check of a key that names a file the daemon uses, and how (``use``, one of
    :data:`FILE_USES`): ``magboard config check`` and ``magboard run`` check every such
    file the same way before the start (:mod:`board_driver.service.config.paths`), judging
    folders not made yet by the nearest one that exists; ``run`` makes them (but a
    secret's) before the extension starts. A relative path is taken from the folder
    magboard runs in, as the store's is.

    >>> FilePath("secret")("token_file", "/etc/magboard/lichess-token")
    '/etc/magboard/lichess-token'
    """

    def __init__(self, use: str) -> None:
        if use not in FILE_USES:
            raise ValueError(f"a file's use is one of {', '.join(FILE_USES)}, not {use!r}")
        self.use = use

    def __call__(self, key: str, value: Any) -> str:
        return text(key, value)

    def __repr__(self) -> str:
        return f"FilePath({self.use!r})"


def host(key: str, value: Any) -> str:
    """An address to listen on: an IP address, or a host name of labels up to 63
    characters each, 253 in all."""
    import ipaddress

    name = text(key, value)
    if name == "":
        return name
    try:
        ipaddress.ip_address(name)
        return name
    except ValueError:
        pass
    labels = name.rstrip(".").split(".")
    if len(name) > 253 or not all(
        0 < len(label) <= 63 and label.replace("-", "").isalnum() and label.isascii()
        for label in labels
    ):
        raise Bad(f"{quote(name)} is not an IP address or a host name")
    return name


def pin(_key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 53:
        raise Bad(f"{quote(value)} is not a BCM GPIO number (0..53)")
    return value


def optional_pin(_key: str, value: Any) -> int | None:
    if value is False:
        return None  # no such pin
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 53:
        raise Bad(f"{quote(value)} is not a BCM GPIO number (0..53), or false for none")
    return value


def line(key: str, value: Any) -> int | str:
    """A GPIO line: a BCM number, or a name as the chip labels it."""
    if isinstance(value, str) and value.strip():
        return text(key, value)
    return pin(key, value)


def lines(count: int) -> Check:
    def check(key: str, value: Any) -> tuple[int | str, ...]:
        if not isinstance(value, list) or len(value) != count:
            raise Bad(
                f"{quote(value)} is not a list of {count} BCM GPIO numbers (or line names)"
            )
        found = tuple(line(key, v) for v in value)
        if len(set(found)) != count:
            raise Bad(f"{list(found)} names a line twice")
        return found

    return check


def rgb(_key: str, value: Any) -> tuple[int, int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in value)
    ):
        raise Bad(f"{quote(value)} is not [red, green, blue] with each 0..255")
    return (value[0], value[1], value[2])
