"""What the store takes as a game's PGN header or an extension's text, checked before a
write so that a bad one changes nothing (each a ValueError that quotes it, cut short).

>>> header_name("White"), header_value("White", "Ann")
('White', 'Ann')
>>> header_value("White", "Ann\\nBob")
Traceback (most recent call last):
...
ValueError: PGN header White: "Ann\\x0aBob" holds a control character
"""

from __future__ import annotations

import re

from board_driver.door.config_values import quote

GAME_DATA_LIMITS = {"names": 32, "name_chars": 64, "value_chars": 4096}
_DERIVED_HEADERS = {"Result", "FEN", "SetUp"}


_HEADER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")


def header_name(name: object) -> str:
    if not isinstance(name, str) or not _HEADER_NAME.fullmatch(name):
        raise ValueError(
            f"PGN header name {quote(name)}: a letter, then letters, digits or _ (at most 40)"
        )
    if name in _DERIVED_HEADERS:
        raise ValueError(f"PGN header {name} is set by the game itself, not stored")
    return name


def header_value(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"PGN header {name}: {quote(value)} is not text")
    if len(value) > 255:
        raise ValueError(f"PGN header {name}: {quote(value)} is longer than 255 characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError(f"PGN header {name}: {quote(value)} holds a control character")
    return value


def data_key(what: str, key: object) -> str:
    limit = GAME_DATA_LIMITS["name_chars"]
    if not isinstance(key, str) or not 0 < len(key) <= limit or not key.isprintable():
        raise ValueError(f"game data {what} {quote(key)}: 1 to {limit} printable characters")
    return key


def data_value(key: str, value: object) -> str | None:
    limit = GAME_DATA_LIMITS["value_chars"]
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"game data {quote(key)}: {quote(value)} is not text")
    if len(value) > limit:
        raise ValueError(f"game data {quote(key)}: {len(value)} characters, more than {limit}")
    return value
