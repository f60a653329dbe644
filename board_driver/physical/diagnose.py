"""Hardware bring-up checks behind ``magboard diagnose``.

What a builder runs first on a freshly soldered board: a live 8x8 view of what the
matrix senses (orientation applied, so the view must match the pieces), a check that the
board reads what it should (empty, or the start position), a ghosting test (three pieces
on the corners of a rectangle must not light the fourth), stuck and flickering squares,
and an LED walk that lights each LED in turn and names the square it should be under.

>>> print(sensed_view(0xFFFF00000000FFFF).splitlines()[0])
8  # # # # # # # #
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from board_driver.physical.leds.layout import StripLayout
from board_driver.physical.ports import RGB, LedPort, SensingPort
from board_driver.physical.sensing.health import SquareHealth
from board_driver.physical.sensing.loop import ScanLoop
from board_driver.physical.squares import square, square_name, squares_of

#: The three pieces of the ghosting test and the square that must stay empty.
GHOST_TEST_PIECES = ("a1", "b1", "a2")
GHOST_TEST_VICTIM = "b2"
EXPECTATIONS = {"empty": 0, "start": 0xFFFF00000000FFFF}
DESCRIBE = {"empty": "empty", "start": "set up for a game"}


def sensed_view(bitmap: int, expected: int | None = None) -> str:
    """8 lines, rank 8 first: ``#`` a piece sensed, ``.`` none; with ``expected``,
    ``X`` marks a piece sensed where none should be and ``?`` one missing."""
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            sq = rank * 8 + file
            sensed = bitmap >> sq & 1
            if expected is not None and sensed != expected >> sq & 1:
                cells.append("X" if sensed else "?")
            else:
                cells.append("#" if sensed else ".")
        lines.append(f"{rank + 1}  " + " ".join(cells))
    lines.append("   " + " ".join("abcdefgh"))
    return "\n".join(lines)


def names(squares: list[int]) -> str:
    return " ".join(square_name(sq) for sq in squares)


def check_expected(bitmap: int, expected: int, what: str) -> list[str]:
    """Problems where the board does not read ``expected`` (``what`` names it)."""
    problems = []
    extra = squares_of(bitmap & ~expected)
    missing = squares_of(expected & ~bitmap)
    if extra:
        problems.append(
            f"with the board {what}, a piece is sensed on {names(extra)}: a switch stuck "
            "closed, a short, a ghost (missing diode), or the orientation is wrong"
        )
    if missing:
        problems.append(
            f"with the board {what}, no piece is sensed on {names(missing)}: a switch stuck "
            "open, a magnet too weak or too far, a broken wire, a diode the wrong way round, "
            "or the orientation is wrong"
        )
    return problems


def check_count(bitmap: int) -> list[str]:
    """A board holds at most 32 pieces; more closed squares means ghosting."""
    count = bitmap.bit_count()
    if count > 32:
        return [
            f"{count} squares read closed, more than the 32 pieces there are: the matrix is "
            "ghosting (a missing or shorted diode)"
        ]
    return []


@dataclass
class GhostTest:
    """The ghosting test's verdict: ``passed`` True or False, or None when it could not be
    judged (b2 reads a piece before the third piece is set down: stuck, not a ghost)."""

    passed: bool | None
    problems: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """One line for people: ``passed``, ``FAILED`` or ``not judged``, and why."""
        pieces = ", ".join(GHOST_TEST_PIECES)
        if self.passed:
            return f"passed ({GHOST_TEST_VICTIM} stayed empty with pieces on {pieces})"
        if self.passed is None:
            return (
                f"not judged: {GHOST_TEST_VICTIM} reads a piece with none on it and nothing "
                "that could ghost there (see the problems below)"
            )
        return "FAILED (see the problems below)"


def ghost_test(port: SensingPort, arrange: Callable[[int, str], None] | None) -> GhostTest:
    """Pieces on a1, b1, a2 only: a matrix without working diodes also reads b2.

    In two steps, so that a switch stuck closed on b2 is not taken for a missing diode:
    first a1 and b1 only (nothing can ghost onto b2 yet: it must read empty), then a2 too.
    ``arrange(bitmap, words)`` puts exactly those pieces on the board (the simulator does
    it; for real hardware it asks the builder in ``words`` and waits); None: scan as it is.
    """
    victim = 1 << square(GHOST_TEST_VICTIM)
    first = (1 << square(GHOST_TEST_PIECES[0])) | (1 << square(GHOST_TEST_PIECES[1]))
    pieces = first | (1 << square(GHOST_TEST_PIECES[2]))
    if arrange is not None:
        arrange(first, f"pieces on {GHOST_TEST_PIECES[0]} and {GHOST_TEST_PIECES[1]} only")
        before = port.scan()
        if before & victim:
            return GhostTest(
                None,
                [
                    f"{GHOST_TEST_VICTIM} reads a piece with pieces on "
                    f"{GHOST_TEST_PIECES[0]} and {GHOST_TEST_PIECES[1]} only, which cannot "
                    f"ghost there: a switch stuck closed on {GHOST_TEST_VICTIM}, or a short "
                    "between its row and column (not a missing diode)"
                ],
            )
        arrange(pieces, f"a piece on {GHOST_TEST_PIECES[2]} too")
    bitmap = port.scan()
    if bitmap & victim and not bitmap & ~pieces & ~victim:
        return GhostTest(
            False,
            [
                f"ghosting: with pieces on {', '.join(GHOST_TEST_PIECES)} only, "
                f"{GHOST_TEST_VICTIM} reads closed too: the switches need a diode each "
                "(see hardware/README.md)"
            ],
        )
    if bitmap != pieces:
        problems = check_expected(bitmap, pieces, f"holding {', '.join(GHOST_TEST_PIECES)} only")
        return GhostTest(False, problems)
    return GhostTest(True)


@dataclass
class Watch:
    """What a watch of the matrix saw."""

    scans: int = 0
    changes: int = 0
    first: int = 0
    last: int = 0
    seen_closed: int = 0
    flickering: list[int] = field(default_factory=list)
    never_changed: list[int] = field(default_factory=list)


def watch(
    port: SensingPort,
    seconds: float,
    *,
    rate_hz: float = 200,
    on_change: Callable[[int], None] | None = None,
) -> Watch:
    """Scan for ``seconds`` (Ctrl-C ends early), tracking changes and square health.

    An error from ``port.scan()`` (OSError: the matrix cannot be read) ends the watch and
    is raised here.
    """
    if not seconds > 0:
        raise ValueError(f"seconds must be more than 0, got {seconds!r}")
    result = Watch()
    health = SquareHealth(log_problems=False)
    errors: list[BaseException] = []

    calls = 0

    def seen(t_ms: int, bitmap: int) -> None:
        nonlocal calls
        if calls == 0:
            result.first = bitmap
        elif bitmap != result.last:
            result.changes += 1
        calls += 1
        result.last = bitmap
        result.seen_closed |= bitmap
        health.feed(t_ms, bitmap)
        if on_change is not None:
            on_change(bitmap)

    loop = ScanLoop(port, seen, rate_hz=rate_hz, on_error=errors.append)
    loop.start()
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not errors:
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
    except KeyboardInterrupt:
        pass
    finally:
        loop.stop()
    if errors:
        raise errors[0]
    result.scans = loop.scans
    result.flickering = health.flickering()
    result.never_changed = health.never_changed()
    return result


def led_walk(
    leds: LedPort,
    layout: StripLayout,
    out: TextIO,
    *,
    colour: RGB = (76, 76, 76),
    delay_s: float = 0.3,
) -> int:
    """Light each LED in strip order, naming the square it should be under; returns the count.

    With 81 corner LEDs a square lights its four corners, so the walk goes square by square.
    """
    if not delay_s >= 0:
        raise ValueError(f"delay_s must be 0 or more, got {delay_s!r}")
    off: list[RGB] = [(0, 0, 0)] * 64
    steps = (
        [(f"LED {p:2d}", layout.square_of_pixel[p]) for p in range(64)]
        if layout.count == 64
        else [(f"square {square_name(sq)}", sq) for sq in range(64)]
    )
    for label, sq in steps:
        colours = list(off)
        colours[sq] = colour
        leds.show(colours)
        out.write(f"{label} -> {square_name(sq)}\n")
        out.flush()
        if delay_s:
            time.sleep(delay_s)
    leds.show(off)
    return len(steps)
