"""Writing the config back as TOML (``magboard config show``).

Every key is written, so the output is the whole effective config, and reading it back
gives the same config, secrets aside: a secret (a token, a password) is written as
``"(secret: N characters)"`` unless it is empty, so that ``config show`` can be pasted
into a bug report.

>>> from board_driver.service.config import Config, parse_config, to_toml
>>> parse_config(to_toml(Config())) == Config()
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

#: TOML basic-string escapes; any other control character is written as \\uXXXX.
_TOML_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def masked(value: str) -> str:
    """How a secret is shown: never its text, only whether it is set."""
    return f"(secret: {len(value)} characters)" if value else ""


def write_toml(
    config: Any, sections: list[str], secrets: Mapping[str, tuple[str, ...]]
) -> str:
    """The config's ``sections`` as TOML, every key written (an optional pin left out as
    ``false``), the ``secrets`` (section -> keys) masked."""
    lines: list[str] = []
    for name in sections:
        section = config.section(name)
        lines.append(f"[{name}]")
        nested = []
        for f in dataclasses.fields(section):
            value = getattr(section, f.name)
            if f.name in secrets.get(name, ()) and isinstance(value, str):
                lines.append(f"{f.name} = {_toml_value(masked(value))}")
            elif isinstance(value, Mapping):
                nested.append((f.name, value))
            elif value is not None:
                lines.append(f"{f.name} = {_toml_value(value)}")
            else:  # an optional pin left out: written so that it reads back as none
                lines.append(f"{f.name} = false")
        for sub, mapping in nested:
            lines.append("")
            lines.append(f"[{name}.{sub}]")
            lines.extend(f"{k} = {_toml_value(v)}" for k, v in mapping.items())
        lines.append("")
    return "\n".join(lines)


def _toml_char(char: str) -> str:
    if char in _TOML_ESCAPES:
        return _TOML_ESCAPES[char]
    if ord(char) < 0x20 or ord(char) == 0x7F:
        return f"\\u{ord(char):04x}"
    return char


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + "".join(_toml_char(c) for c in value) + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")
