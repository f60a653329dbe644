"""Recording what hands do as a board script (``magboard run --record FILE``).

The recording follows the running board through its door (``subscribe(board=True)``): every
lift and place the tracker took (after debouncing), every button and promotion choice (from
the board's buttons, the page or a script), each at its time. It starts with the game's
header, its position (``fen``) and its options, so that ``magboard replay FILE`` plays the
same game from a fresh start: on a real board as on the simulator, a bug report is a file
anyone can replay. Each line is written as it happens: a crash loses nothing recorded.

A game started from elsewhere in the middle (a FEN from the page, a resumed game, an online
game) cannot be said in a board script, whose header comes first: the recording goes on in
a file of its own, ``NAME-2.script`` beside ``NAME.script``, and the first one says so at
its end. Changes a script cannot carry (options changed from the page, a take-back decided
online) are written as comments where they happened.

>>> header_lines("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
...              {"touch_move": "warn", "takeback": True, "hints": False})
['fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'option touch_move warn', \
'option takeback on', 'option hints off']
>>> event_line({"t": 1200, "type": "lift", "square": "e2"}, 0)
'@1200 lift e2'
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

log = logging.getLogger("magboard")

#: The board events a script has a line for, and the key that names what they act on.
SCRIPT_EVENTS = {"lift": "square", "place": "square", "button": "name", "choose": "piece"}
#: Game events that start a game the script's header did not set up.
NEW_GAMES = ("new_game", "game_resumed")
#: The order options are written in (as in docs/board-script.md).
OPTIONS = ("touch_move", "takeback", "hints")
#: The clock's options, written when the game has a clock (its times start afresh in the
#: replay: a script carries the hands' times, from the recording's start).
CLOCK_OPTIONS = ("clock", "clock_switch", "illegal_move")


def header_lines(fen: str, options: Mapping[str, Any], variant: str = "standard") -> list[str]:
    """The script's header: the position (its variant's rules) and every option, as a
    replay needs them."""
    lines = [f"fen {fen}"]
    if variant != "standard":
        lines.insert(0, f"option variant {variant}")
    clocked = options.get("clock", "none") != "none"
    for name in OPTIONS + (CLOCK_OPTIONS if clocked else ()):
        if name in options:
            value = options[name]
            text = ("on" if value else "off") if isinstance(value, bool) else str(value)
            lines.append(f"option {name} {text}")
    return lines


def event_line(event: Mapping[str, Any], start_ms: int) -> str:
    """One board event as a timed script line (``@ms`` from the recording's start)."""
    kind = event["type"]
    return f"@{max(0, event['t'] - start_ms)} {kind} {event[SCRIPT_EVENTS[kind]]}"


class Recording:
    """Writes one board script after another into ``path`` (then ``NAME-2.script``, ...),
    from the door's board stream (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.files: list[Path] = []
        self._out: TextIO | None = None
        self._start_ms = 0
        self._last_ms = 0
        #: Moves committed since the script began: before the first, a new game from
        #: elsewhere starts the script over (what came before only set up pieces).
        self._moves = 0
        #: A ``new_game`` button was recorded: the new game that follows is the script's.
        self._new_game_pressed = False

    # ------------------------------------------------------------------ files

    def _next_path(self) -> Path:
        if not self.files:
            return self.path
        return self.path.with_name(f"{self.path.stem}-{len(self.files) + 1}{self.path.suffix}")

    def begin(self, snapshot: Any, now_ms: int, why: str) -> None:
        """Start a script at the game on the board (``snapshot``: the door's)."""
        path = self._next_path()
        if self._out is not None:
            self._write(f"# the recording goes on in {path.name}: {why}")
            self._out.close()
        self._out = path.open("w", encoding="utf-8")
        self.files.append(path)
        self._start_ms = self._last_ms = now_ms
        self._moves = 0
        self._new_game_pressed = False
        when = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        self._write(f"# recorded by magboard run --record, {when}: replay with magboard replay")
        game = f"game {snapshot.game_id}"
        if snapshot.moves:
            game += f", from ply {len(snapshot.moves)} ({' '.join(snapshot.moves[-6:])} before)"
        self._write(f"# {game}")
        if not snapshot.in_sync:
            self._write(
                "# the pieces did not match the game when the recording began: to put right "
                f"empty {' '.join(snapshot.empty) or '-'}, fill {' '.join(snapshot.fill) or '-'}"
            )
        variant = getattr(snapshot, "variant", "standard")
        for line in header_lines(snapshot.fen, snapshot.options, variant):
            self._write(line)
        log.info("recording the board to %s", path)

    def _write(self, line: str) -> None:
        assert self._out is not None
        self._out.write(line + "\n")
        self._out.flush()  # as it happens: a crash loses nothing recorded

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    # ------------------------------------------------------------------ events

    def follow(self, event: Mapping[str, Any], door: Any) -> None:
        """One item of the door's stream (board events and game events)."""
        kind = event.get("type")
        if kind in SCRIPT_EVENTS:
            t = max(int(event.get("t", self._last_ms)), self._last_ms)  # never backwards
            self._last_ms = t
            self._write(event_line({**event, "t": t}, self._start_ms))
            if kind == "button" and event.get("name") == "new_game":
                self._new_game_pressed = True
        elif kind == "move":
            self._moves += 1
        elif kind in NEW_GAMES:
            if self._new_game_pressed and kind == "new_game":
                self._new_game_pressed = False  # the button's game: the replay starts it too
            elif self._moves == 0:  # no move yet: the script starts over at this game
                self.close()
                self.files.pop()
                self.begin(door.snapshot(), door.now_ms(), "")
            else:
                self.begin(
                    door.snapshot(),
                    door.now_ms(),
                    f"a {kind.replace('_', ' ')} "
                    "from elsewhere, which a board script cannot start mid-way",
                )
        elif kind == "options":
            values = ", ".join(f"{k} {event.get(k)}" for k in OPTIONS if k in event)
            self._write(f"# options changed here from elsewhere ({values}): not replayed")
        elif kind == "overflow":
            self._write(f"# {event.get('lost')} events were lost here (the recorder fell behind)")


async def record(door: Any, path: Path) -> None:
    """Record the board behind ``door`` into ``path`` until cancelled (the daemon stops)."""
    recording = Recording(path)
    subscription = door.subscribe(board=True, maxsize=4096)
    try:
        recording.begin(door.snapshot(), door.now_ms(), "")
        async for event in subscription:
            recording.follow(event, door)
    except OSError as exc:
        log.error("recording to %s stopped: %s", path, exc)
    except asyncio.CancelledError:
        pass
    finally:
        subscription.close()
        recording.close()
        if recording.files:
            log.info("recorded: %s", ", ".join(str(p) for p in recording.files))
