"""The board in a terminal: ``magboard run --sim`` at a keyboard draws it after each change.

A connector on the door like the page: it follows the board's events (lifts and places
included) and, once per change, draws the game's pieces (white in capitals, black in small
letters, as in FEN), what the switches sense, the lights under the squares, and a line of
words: whose move it is, what the lights ask, the last move, and the clock (the running
side marked ``>``, its time as it was at the change). A piece lifted is drawn in brackets,
``(P)``; a piece sensed where the game has none is ``?``.

>>> from board_driver.physical.frame import Frame
>>> print(render(".." * 32, 0, Frame.off(), colour=False).splitlines()[0])
8  .  .  .  .  .  .  .  .
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from board_driver.clock.texts import clock_words
from board_driver.physical.frame import COLOUR_NAMES, Frame
from board_driver.physical.squares import square_name
from rules.fen import piece_letters

log = logging.getLogger("magboard")

#: A committed move flashes white for 0.3 s (docs/architecture.md): the board is drawn once
#: after the flash, with the lights that stay.
FLASH_WAIT_S = 0.35
#: The LED colours on a screen (full scale: a 30 % brightness cap is for eyes over a board).
SCREEN_RGB = {
    "r": (220, 30, 30),
    "o": (240, 140, 0),
    "y": (230, 200, 0),
    "g": (30, 190, 60),
    "b": (40, 90, 240),
    "c": (0, 200, 220),
    "w": (235, 235, 235),
}
LIGHT_SQUARE, DARK_SQUARE = (181, 150, 110), (120, 90, 60)
LEGEND = (
    "The board: capitals white, small letters black; (P) a piece lifted; ? a piece sensed "
    "where the game has none (yet); a square's colour is its light."
)


def _pieces(fen: str) -> str:
    """64 letters, a1 first (``.`` = empty), from a FEN's board."""
    letters = piece_letters(fen)
    return "".join(letters.get(sq, ".") for sq in range(64))


def render(pieces: str, sensed: int, lights: Frame, *, colour: bool = True) -> str:
    """The board as text, rank 8 at the top: ``pieces`` 64 letters (a1 first), ``sensed``
    the switches' occupancy, ``lights`` the frame shown."""
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            sq = rank * 8 + file
            letter = pieces[sq]
            held = bool(sensed >> sq & 1)
            if letter == ".":
                mark = " ? " if held else (" . " if not colour else "   ")
            elif held:
                mark = f" {letter} "
            else:
                mark = f"({letter})"  # lifted: in a hand
            if not colour:
                cells.append(mark)
                continue
            led = lights.colours[sq]
            r, g, b = SCREEN_RGB.get(led) or (LIGHT_SQUARE if (rank + file) % 2 else DARK_SQUARE)
            fg = "255;255;255" if letter.isupper() else "0;0;0"
            blink = "\x1b[5m" if led != "." and lights.blink >> sq & 1 else ""
            cells.append(f"\x1b[48;2;{r};{g};{b}m\x1b[1;38;2;{fg}m{blink}{mark}\x1b[0m")
        lines.append((f"{rank + 1} " + "".join(cells)).rstrip())
    lines.append("   " + "  ".join("abcdefgh"))
    return "\n".join(lines)


def light_words(lights: Frame) -> str:
    """The lit squares in words: ``e2 blue blinking, e4 white``."""
    lit = []
    for sq, led in enumerate(lights.colours):
        if led != ".":
            blinking = " blinking" if lights.blink >> sq & 1 else ""
            lit.append(f"{square_name(sq)} {COLOUR_NAMES.get(led, led)}{blinking}")
    return ", ".join(lit)


#: Endings named as PGN tools and Lichess name them, where the rules' names differ.
ENDINGS = {"timeout": "time forfeit", "rules_infraction": "a second illegal move, FIDE 7.5.5"}


def status_words(snapshot: Any, events: Iterable[Mapping[str, Any]] = ()) -> list[str]:
    """What the board says now, in a few lines: the game, what the lights ask and why."""
    lines = []
    if snapshot.result != "*":
        ending = ENDINGS.get(snapshot.termination) or (snapshot.termination or "").replace("_", " ")
        if snapshot.termination == "timeout" and snapshot.winner is None:
            ending = "timeout vs insufficient material: the other side cannot mate"
        lines.append(f"Game over: {snapshot.result} ({ending})")
    else:
        turn = snapshot.turn.capitalize() + " to move" + (", in check" if snapshot.check else "")
        lines.append(turn)
    if snapshot.moves:
        lines[-1] += f" · last move: {snapshot.moves[-1]} (ply {len(snapshot.moves)})"
    clock = getattr(snapshot, "clock", None)
    if clock:
        lines.append(clock_words(clock))
    # The tracker's own words for what its lights ask, when the door gives them.
    asks = list(snapshot.asks)
    for event in events:
        if event.get("type") == "illegal" and event.get("why"):
            lines.append(f"Illegal: {event['why']}")
    if asks:
        lines.extend(asks)
    elif not snapshot.in_sync:
        parts = []
        if snapshot.empty:
            parts.append("take the piece off " + " ".join(snapshot.empty))
        if snapshot.fill:
            parts.append("put one on " + " ".join(snapshot.fill))
        lines.append("The board does not match the game: " + ", ".join(parts))
    words = light_words(snapshot.lights)
    if words:
        lines.append(f"Lights: {words}")
    return lines


def draw(snapshot: Any, events: Iterable[Mapping[str, Any]] = (), *, colour: bool = True) -> str:
    """The whole drawing for one change: the board, then its words."""
    board = render(_pieces(snapshot.fen), snapshot.sensed, snapshot.lights, colour=colour)
    return board + "\n" + "\n".join(status_words(snapshot, events)) + "\n"


async def terminal_view(door: Any, out: TextIO | None = None, *, colour: bool = True) -> None:
    """Draw the board behind ``door`` on ``out`` once per change, until cancelled."""
    out = out or sys.stdout
    subscription = door.subscribe(board=True, lights=True)
    try:
        out.write(LEGEND + "\n" + draw(door.snapshot(), colour=colour))
        out.flush()
        async for item in subscription:
            batch = [item]
            while (more := subscription.get_nowait()) is not None:
                batch.append(more)
            if any(e.get("type") == "move" for e in batch):
                await asyncio.sleep(FLASH_WAIT_S)  # the steady lights, not the flash
                while (more := subscription.get_nowait()) is not None:
                    batch.append(more)
            out.write(draw(door.snapshot(), batch, colour=colour))
            out.flush()
    except asyncio.CancelledError:
        pass
    except OSError as exc:  # the terminal went away: the board goes on
        log.warning("terminal view stopped: %s", exc)
    finally:
        subscription.close()
