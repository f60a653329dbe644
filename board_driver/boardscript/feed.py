"""Playing a board script into the simulated board in real time (``magboard run --script``).

``lift``/``place``/``scan`` change the simulated board's pieces, so the daemon sees them
through the normal sensing and debounce path; ``choose``/``button`` reach the tracker as a
button or the web page would. Times are the script's: ``@ms`` from the start of the script,
otherwise ``gap`` after the event before. A line that arrives late (typed, or piped slowly)
is played at once, keeping its spacing to the next.

A script with a ``fen`` or ``option`` line starts a new game from it, on a board set up to
match. One without goes on with the current game on the pieces standing, so its lifts and
places are checked against those pieces, not the start position (a script of raw
``scan`` lines gives the whole board each time, and needs no such check):

>>> script, skip = parse_on_board("lift e4\\nplace e5\\n", "<doc>", 0xFFFF00001000EFFF)
>>> [type(item).__name__ for item in script.items[skip:]]
['Lift', 'Place']
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import AsyncIterator, Iterable
from typing import Any, TextIO

from board_driver.boardscript.script import (
    START_OCCUPANCY,
    Scan,
    Script,
    ScriptError,
    ScriptReader,
    Wait,
)
from board_driver.boardscript.script import parse_script as _parse_script
from board_driver.physical.events import Button, Choose, Lift, Place
from board_driver.physical.squares import square_name, squares_of
from rules import STARTING_FEN

log = logging.getLogger("magboard")

_EVENT_KEYWORDS = ("lift", "place", "choose", "button", "scan", "wait")


def _is_event(line: str) -> bool:
    content = line.split("#", 1)[0].strip()
    return content.startswith("@") or content.split(" ", 1)[0] in _EVENT_KEYWORDS


def _keyword(line: str) -> str:
    """The keyword of a script line, after any ``@ms`` time ("" for none)."""
    words = line.split("#", 1)[0].split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else ""


def starts_new_game(header: Script) -> bool:
    """Whether a script's header sets up a game of its own (a ``fen`` or ``option`` line)."""
    return bool(header.options) or header.fen != STARTING_FEN or header.variant != "standard"


def parse_on_board(text: str, name: str, standing: int) -> tuple[Script, int]:
    """Parse ``text`` as played on a board whose pieces are ``standing``.

    The board-script parser checks each lift and place against the pieces of the
    script's start position. For a script that goes on with the current game, lines at
    time 0 are put in after the header that take those pieces to ``standing``; their items
    are the first ``skip`` of the script and are not played. Errors name the line of
    ``text``. A script that starts a new game is parsed as it is (``skip`` = 0).
    """
    lines = text.splitlines()
    first_event = next((i for i, line in enumerate(lines) if _is_event(line)), len(lines))
    header = _parse_script("\n".join(lines[:first_event]), name)
    if starts_new_game(header) or any(_keyword(line) == "scan" for line in lines):
        # A scan gives the whole board: it needs no lines taking the pieces to it (and
        # the parser does not mix scans with lift/place).
        return _parse_script(text, name), 0
    preamble = [f"@0 lift {square_name(sq)}" for sq in squares_of(START_OCCUPANCY & ~standing)]
    preamble += [f"@0 place {square_name(sq)}" for sq in squares_of(standing & ~START_OCCUPANCY)]
    combined = [*lines[:first_event], *preamble, *lines[first_event:]]
    try:
        return _parse_script("\n".join(combined), name), len(preamble)
    except ScriptError as error:
        line = error.line - len(preamble) if error.line > first_event else error.line
        raise ScriptError(name, line, error.problem) from None


async def text_lines(text: str) -> AsyncIterator[str]:
    for line in text.splitlines():
        yield line


#: Lines read ahead of the one being played; past that the reader waits (the pipe's
#: writer too), so a long pipe costs no memory.
READ_AHEAD = 256


async def stream_lines(stream: TextIO) -> AsyncIterator[str]:
    """Lines of ``stream`` as they arrive, read on a thread that never holds up the exit."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue(READ_AHEAD)

    def put(item: str | None) -> bool:
        try:
            asyncio.run_coroutine_threadsafe(queue.put(item), loop).result()
        except (RuntimeError, concurrent.futures.CancelledError):
            return False  # the loop is gone: the daemon is stopping
        return True

    def reader() -> None:
        try:
            for line in stream:
                if not put(line):
                    return
        except (OSError, ValueError):
            pass
        put(None)

    threading.Thread(target=reader, name="magboard script input", daemon=True).start()
    while (line := await queue.get()) is not None:
        yield line


class ScriptFeeder:
    """Plays script lines, as they come, into ``board`` (a SimulatedBoard) through ``door``
    (the running board's :class:`~board_driver.door.Door`): pieces move on the simulated
    board, buttons and choices go through the door as a page's would.

    The simulated board is the one truth about its pieces: other hands move them too (the
    web page, the API, another script), so each line's lifts and places are checked
    against the pieces standing when the line is read, not against the pieces the script
    itself has moved so far.

    Each line is read once (:class:`ScriptReader`), so a long pipe costs the same per line
    at its end as at its start.
    """

    def __init__(self, door: Any, board: Any, debounce_ms: int = 30) -> None:
        self.door = door
        self.board = board
        self._changed_at: int | None = None  # the board's scan count at the hands' last change
        self.debounce_ms = debounce_ms
        self.start: float | None = None
        self.last_t_ms = 0
        self.last_real = 0.0

    async def play(self, lines: AsyncIterator[str] | Iterable[str], name: str) -> None:
        """Check and play each line in turn; a bad line is logged (naming it) and skipped."""
        reader = ScriptReader(name)
        begun = False
        async for raw in _aiter(lines):
            line = raw.rstrip("\n")
            if not begun and _is_event(line):
                # The header is complete: set up its game.
                await self._begin(reader.script)
                begun = True
            if begun and _keyword(line) != "scan":
                # The pieces as they stand now, whoever moved them since the last line.
                reader.set_standing(self.board.pieces)
            try:
                items = reader.feed(line)
            except ScriptError as error:
                log.error("script %s:%d: %s", name, error.line, error.problem)
                continue
            for item in items:
                await self._play(item, f"{name}:{reader.number}")
        if not begun and reader.number:
            await self._begin(reader.script)

    async def _begin(self, header: Script) -> None:
        loop = asyncio.get_running_loop()
        self.start = self.last_real = loop.time()
        self.last_t_ms = 0
        if starts_new_game(header):
            self._set_pieces(header.position().occupancy())
            # Let the scanner see the pieces set up before the new game takes them as given.
            await asyncio.sleep(max(0.1, 3 * self.debounce_ms / 1000))
            self.door.new_game(header.fen, variant=header.variant, options=dict(header.options))
            log.info("script: new game from %s", header.fen)

    def _set_pieces(self, bitmap: int) -> None:
        current = self.board.pieces
        for sq in squares_of(current & ~bitmap):
            self.board.lift(sq)
        for sq in squares_of(bitmap & ~current):
            self.board.place(sq)

    async def _play(self, item: Any, where: str = "") -> None:
        loop = asyncio.get_running_loop()
        assert self.start is not None
        spacing = (item.t_ms - self.last_t_ms) / 1000
        due = max(self.start + item.t_ms / 1000, self.last_real + spacing)
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        self.last_real = max(due, loop.time()) if delay > 0 else loop.time()
        self.last_t_ms = item.t_ms
        if isinstance(item, Choose | Button):
            await self._switches_seen()
        try:
            if isinstance(item, Lift):
                self.board.lift(item.square)
            elif isinstance(item, Place):
                self.board.place(item.square)
            elif isinstance(item, Scan):
                self._set_pieces(item.bitmap)
            elif isinstance(item, Choose):
                self.door.choose(item.piece)
            elif isinstance(item, Button):
                self.door.press(item.name)
        except ValueError as error:  # the pieces were moved by other hands meanwhile
            log.error("script %s: %s", where or "-", error)
        except OSError as error:  # the simulated board could not keep its pieces
            log.error(
                "script %s: %s (the pieces are moved; saving them is retried)", where or "-", error
            )
        if isinstance(item, Lift | Place | Scan):
            self._changed_at = self.board.scans
        if not isinstance(item, Wait):
            log.debug("script: %s", describe(item))

    async def _switches_seen(self) -> None:
        """A button or a choice is pressed on the board as the hands left it: once the
        switches were scanned after the hands' last change and that scan reached the loop.
        (On a busy machine the scanner thread can lag the script by more than the 40 ms a
        quick hand takes from the mating move to a button; a real board's scan takes 5.)"""
        changed_at = self._changed_at
        if changed_at is None or not self.board.scans:  # no change, or nothing scans it
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2.0  # a stopped scanner does not hold the script
        # Two scans on: the first may have begun before the change; the one after it was
        # delivered whole (its result posted to the loop) before the next began.
        while self.board.scans < changed_at + 2 and loop.time() < deadline:
            await asyncio.sleep(0.001)
        await asyncio.sleep(0)  # the delivered scan's callback runs before the press
        self._changed_at = None


async def _aiter(lines: AsyncIterator[str] | Iterable[str]) -> AsyncIterator[str]:
    if hasattr(lines, "__aiter__"):
        async for line in lines:  # type: ignore[union-attr]
            yield line
    else:
        for line in lines:  # type: ignore[union-attr]
            yield line


def describe(item: Any) -> str:
    """A script item as its script line (without the time)."""
    if isinstance(item, Lift | Place):
        return f"{type(item).__name__.lower()} {square_name(item.square)}"
    if isinstance(item, Choose):
        return f"choose {item.piece}"
    if isinstance(item, Button):
        return f"button {item.name}"
    if isinstance(item, Scan):
        return f"scan {item.bitmap:016x}"
    if isinstance(item, Wait):
        return f"wait {item.ms}"
    return repr(item)
