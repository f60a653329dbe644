"""The token that lets a browser change the game (read-only views need none).

The token is ``[web] token`` from the config, or one generated at the first start and
kept in ``web-token`` beside the games database (the state directory by default), so it
stays the same across restarts and is printed in the log (the Pi's journal).

>>> import tempfile, pathlib
>>> directory = pathlib.Path(tempfile.mkdtemp())
>>> first = load_token("", directory)
>>> first.generated, len(first.value) >= 20
(True, True)
>>> again = load_token("", directory)
>>> again.value == first.value, again.generated
(True, False)
>>> load_token("from-the-config", directory).value
'from-the-config'
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from board_driver.user_files import UnusableFile, read_text

TOKEN_FILE = "web-token"
#: The stored token is one line of a few dozen characters.
MAX_TOKEN_FILE_BYTES = 4096
#: What a stored token may contain: what ``secrets.token_urlsafe`` makes.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class Token:
    """The token, and where it came from (``path`` is None for the config's)."""

    value: str
    path: Path | None = None
    generated: bool = False

    def matches(self, offered: str) -> bool:
        """Constant-time comparison, so timing does not leak the token."""
        # A header's bytes that are not UTF-8 arrive as surrogates: compared as bytes too.
        return hmac.compare_digest(
            offered.encode("utf-8", "surrogateescape"), self.value.encode()
        )


def load_token(configured: str, directory: Path) -> Token:
    """The config's token, else the stored one, else a new one written to ``directory``.

    OSError if a new token cannot be written (the caller says the actions are off).
    """
    if configured:
        return Token(configured)
    path = directory / TOKEN_FILE
    try:
        stored = read_text(path, limit=MAX_TOKEN_FILE_BYTES).strip()
    except UnusableFile:  # none yet, or not one: a new one replaces it
        stored = ""
    if len(stored) >= 16 and set(stored) <= _TOKEN_CHARS:
        return Token(stored, path)
    value = secrets.token_urlsafe(18)
    directory.mkdir(parents=True, exist_ok=True)
    # Readable by the service's user only; written whole, then renamed into place.
    tmp = path.with_name(f".{TOKEN_FILE}-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(value + "\n")
    os.replace(tmp, path)
    return Token(value, path, generated=True)
