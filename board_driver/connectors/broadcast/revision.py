"""Revisions: numbers a board gives its records, that only grow, across its restarts.

The hall keeps, of each game, the record with the highest revision it has seen (see
:mod:`.record`). So a board must never give a change a revision at or below one it gave
before, not even after a crash or a power cut. The first revision of a run is the larger
of the wall clock in milliseconds (a board whose state was lost, a new store, still comes
after its old records, as long as its clock is right) and one past the highest revision
the board ever reserved, which a small file beside the store keeps (a Raspberry Pi with no
real-time clock and no network may start with its clock behind). Revisions are reserved
in blocks: the file is written (in a thread, never on the board's loop) once at the start
and once every :data:`BLOCK` changes, before any revision of the block is used.

>>> import asyncio, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> async def run():
...     first = Revisions(folder / "revision", clock_ms=lambda: 1000)
...     a, b = await first.next(), await first.next()
...     again = Revisions(folder / "revision", clock_ms=lambda: 5)   # the clock went back
...     return a, b, await again.next()
>>> asyncio.run(run())
(1000, 1001, 2000)
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from board_driver.user_files import UnusableFile, read_text

log = logging.getLogger("magboard")

#: Revisions reserved at a time (one write of the file).
BLOCK = 1000
#: The file holds one revision and a newline.
MAX_REVISION_BYTES = 64


def _wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class Revisions:
    """Hands out revisions; ``path`` keeps the highest reserved (None: the clock only)."""

    def __init__(self, path: Path | None, *, clock_ms: Callable[[], int] | None = None):
        self.path = path
        self._clock_ms = clock_ms
        self._next: int | None = None
        self._reserved = -1
        self._lock = asyncio.Lock()

    async def next(self) -> int:
        """A revision higher than every one given before, by this board, ever."""
        async with self._lock:
            if self._next is None:
                saved = await asyncio.to_thread(self._read)
                now = (self._clock_ms or _wall_clock_ms)()
                self._next = max(now, saved + 1)
            if self._next > self._reserved:
                await self._reserve(self._next + BLOCK - 1)
            value = self._next
            self._next += 1
            return value

    async def _reserve(self, highest: int) -> None:
        if self.path is not None:
            try:
                await asyncio.to_thread(_write, self.path, highest)
            except OSError as exc:
                log.warning("broadcast: cannot keep the revision in %s (%s): after a restart "
                            "the hall orders this board's records by its clock alone",
                            self.path, exc.strerror or exc)
                self.path = None
        self._reserved = highest

    def _read(self) -> int:
        if self.path is None:
            return -1
        try:
            # A revision is a few digits: a FIFO or a device where the file should be is
            # refused, never waited on (the stop waited for ever) nor read without end.
            text = read_text(self.path, limit=MAX_REVISION_BYTES).strip()
        except UnusableFile as exc:
            if not exc.missing:
                log.warning("broadcast: %s; revisions start from the clock", exc)
            return -1
        if not (text.isascii() and text.isdigit() and len(text) < 19):
            log.warning("broadcast: %s does not hold a revision; revisions start from the "
                        "clock", self.path)
            return -1
        return int(text)


def _write(path: Path, value: int) -> None:
    """``value`` in ``path``, whole or not at all (a power cut leaves the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".revision-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(f"{value}\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the new name too survives a power cut
    finally:
        os.close(directory)
