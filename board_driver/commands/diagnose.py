"""``magboard diagnose``: bring up a board's matrix and LEDs, or try it on the simulator.

    magboard diagnose --sim --once                 # one look at the simulated board
    magboard diagnose --expect empty               # on the Pi: live view, checks, LED walk
    magboard diagnose --sim --no-diodes --once     # what a board without diodes does

Backend options take the config file's defaults (``[sensing]`` and ``[leds]``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from board_driver import diagnose
from board_driver.leds import open_leds
from board_driver.leds.layout import StripLayout
from board_driver.leds.render import Renderer
from board_driver.leds.sim import SimulatedLeds, render_terminal
from board_driver.pinmap import DEFAULT_COLUMNS, DEFAULT_ROWS
from board_driver.sensing import open_sensing
from board_driver.sensing.sim import SimulatedBoard
from board_driver.squares import square

FAULTS = ("stuck_open", "stuck_closed", "flicker")


def _pins(text: str) -> list[int]:
    try:
        pins = [int(part) for part in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 8 GPIO numbers like 4,17,27,...: {text!r}"
        ) from None
    if len(pins) != 8:
        raise argparse.ArgumentTypeError(f"expected 8 GPIO numbers, got {len(pins)}")
    return pins


def _fault(text: str) -> tuple[str, int]:
    kind, _, name = text.partition(":")
    if kind not in FAULTS:
        raise argparse.ArgumentTypeError(f"fault kind must be one of {', '.join(FAULTS)}")
    try:
        return kind, square(name)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diagnose",
        help="check the reed-switch matrix and the LEDs of a board",
        description=(
            "A live view of what the matrix senses, checks for ghosting, stuck and "
            "flickering squares, and an LED walk naming each LED's square."
        ),
    )
    sim = parser.add_argument_group("simulator")
    sim.add_argument("--sim", action="store_true", help="use the simulated board and LEDs")
    sim.add_argument("--no-diodes", action="store_true", help="simulate a matrix without diodes")
    sim.add_argument(
        "--fault",
        type=_fault,
        action="append",
        default=[],
        metavar="KIND:SQ",
        help=f"simulate a faulty square ({', '.join(FAULTS)}), e.g. flicker:d5",
    )
    sensing = parser.add_argument_group("sensing ([sensing] in the config)")
    sensing.add_argument("--sensing", default="gpiod", choices=("gpiod", "rpigpio", "sim"))
    sensing.add_argument("--rows", type=_pins, default=list(DEFAULT_ROWS), metavar="PINS")
    sensing.add_argument("--columns", type=_pins, default=list(DEFAULT_COLUMNS), metavar="PINS")
    sensing.add_argument("--chip", default="", help="gpiod chip label or path")
    sensing.add_argument("--rotation", type=int, default=0, choices=(0, 90, 180, 270))
    sensing.add_argument("--mirror", action="store_true")
    sensing.add_argument("--active-high", action="store_true", help="pull-down wiring")
    sensing.add_argument("--settle-us", type=float, default=10)
    sensing.add_argument("--rate-hz", type=float, default=200)
    sensing.add_argument("--dev-dir", default="/dev", help=argparse.SUPPRESS)  # tests' fake /dev
    leds = parser.add_argument_group("LEDs ([leds] in the config)")
    leds.add_argument("--leds", default="neopixel_spi", choices=("neopixel_spi", "neopixel", "sim"))
    leds.add_argument("--led-count", type=int, default=64, choices=(64, 81))
    leds.add_argument("--led-order", default="serpentine", choices=("rows", "serpentine"))
    leds.add_argument("--led-first", default="a1", choices=("a1", "h1", "a8", "h8"))
    leds.add_argument("--led-along", default="rank", choices=("rank", "file"))
    leds.add_argument("--led-pin", type=int, default=18, help="GPIO for the neopixel backend")
    leds.add_argument("--brightness", type=float, default=0.3)
    run = parser.add_argument_group("what to run")
    when = run.add_mutually_exclusive_group()
    when.add_argument("--once", action="store_true", help="one scan, no live view")
    when.add_argument("--seconds", type=float, help="watch for N seconds (default: until Ctrl-C)")
    run.add_argument(
        "--expect", choices=tuple(diagnose.EXPECTATIONS), help="what stands on the board now"
    )
    run.add_argument("--no-ghost-test", action="store_true")
    run.add_argument("--no-walk", action="store_true", help="skip the LED walk")
    run.add_argument("--walk-ms", type=float, default=300, help="time each LED stays lit")
    parser.set_defaults(func=run_command)


def _open_sensing(args: argparse.Namespace) -> Any:
    if args.sim or args.sensing == "sim":
        board = SimulatedBoard(diodes=not args.no_diodes)
        for kind, sq in args.fault:
            if kind == "flicker":
                board.flicker(sq)
            else:
                board.stick(sq, kind == "stuck_closed")
        return board
    options: dict[str, Any] = {
        "rows": args.rows,
        "columns": args.columns,
        "active_low": not args.active_high,
        "settle_us": args.settle_us,
        "rotation": args.rotation,
        "mirror": args.mirror,
    }
    if args.sensing == "gpiod":
        options["chip"] = args.chip
        options["dev_dir"] = args.dev_dir
    return open_sensing(args.sensing, **options)


def run_command(args: argparse.Namespace, out=None) -> int:
    out = out or sys.stdout
    interactive = not args.once and args.seconds is None and sys.stdin.isatty()
    problems: list[str] = []
    try:
        port = _open_sensing(args)
    except (ImportError, OSError, ValueError) as exc:
        sys.stderr.write(f"magboard diagnose: cannot open the matrix: {exc}\n")
        if not isinstance(exc, ValueError):
            sys.stderr.write("(to try diagnose without hardware: magboard diagnose --sim)\n")
        return 2
    simulated = isinstance(port, SimulatedBoard)
    out.write(f"sensing: {port!r}\n")
    try:
        first = port.scan()
        out.write("what the matrix senses now (# a piece, . none; rank 8 at the top):\n")
        expected = diagnose.EXPECTATIONS.get(args.expect) if args.expect else None
        out.write(diagnose.sensed_view(first, expected) + "\n")
        if expected is not None:
            problems += diagnose.check_expected(first, expected, diagnose.DESCRIBE[args.expect])
        problems += diagnose.check_count(first)

        if not args.no_ghost_test:
            if simulated:
                saved = port.pieces
                problems += diagnose.ghost_test(
                    port, lambda bitmap: setattr(port, "pieces", bitmap)
                )
                port.pieces = saved
                out.write("ghost test: pieces on a1, b1, a2 only; b2 must read empty\n")
            elif interactive:
                input("ghost test: put pieces on a1, b1 and a2 only, then press Enter ")
                problems += diagnose.ghost_test(port, None)
            else:
                out.write("ghost test: skipped (run interactively, or use --sim)\n")

        if not args.once:
            seconds = args.seconds if args.seconds is not None else 1e9
            live = out.isatty() if hasattr(out, "isatty") else False
            if interactive:
                out.write("watching: move pieces, sweep a magnet over every square; Ctrl-C ends\n")

            def redraw(bitmap: int) -> None:
                if live:
                    out.write("\x1b[9A" + diagnose.sensed_view(bitmap) + "\n")
                    out.flush()

            if live:
                out.write(diagnose.sensed_view(first) + "\n")
            seen = diagnose.watch(port, seconds, rate_hz=args.rate_hz, on_change=redraw)
            out.write(
                f"watched {seen.scans} scans, {seen.changes} changes; now:\n"
                + diagnose.sensed_view(seen.last)
                + "\n"
            )
            problems += diagnose.check_count(seen.last)
            if seen.flickering:
                problems.append(
                    f"flickering faster than any hand: {diagnose.names(seen.flickering)} (a "
                    "loose wire, a cracked reed, or a magnet at the edge of the reed's range)"
                )
            if seen.changes:
                out.write(
                    f"squares that never changed while watched ({len(seen.never_changed)}): "
                    f"{diagnose.names(seen.never_changed) or '-'}\n"
                )
    finally:
        port.close()

    if not args.no_walk:
        problems += _walk(args, out, simulated)

    problems = list(dict.fromkeys(problems))  # the same finding from two checks, once
    if problems:
        out.write(f"{len(problems)} problem(s):\n")
        for problem in problems:
            out.write(f"  - {problem}\n")
        return 1
    out.write("no problems found\n")
    return 0


def _walk(args: argparse.Namespace, out, simulated: bool) -> list[str]:
    layout = StripLayout(
        count=args.led_count, order=args.led_order, first=args.led_first, along=args.led_along
    )
    backend = "sim" if args.sim or args.leds == "sim" else args.leds
    options: dict[str, Any] = {
        "count": args.led_count,
        "order": args.led_order,
        "first": args.led_first,
        "along": args.led_along,
    }
    if backend == "neopixel":
        options["pin"] = args.led_pin
    try:
        leds = open_leds(backend, **options)
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        return [f"LEDs: {exc}"]
    white = Renderer(brightness=args.brightness).correct((255, 255, 255))
    out.write(f"LED walk ({layout.count} LEDs, {layout.order} from {layout.first}):\n")
    try:
        steps = diagnose.led_walk(leds, layout, out, colour=white, delay_s=args.walk_ms / 1000)
        if isinstance(leds, SimulatedLeds):
            out.write(f"the simulated LEDs were written {leds.writes} times; now:\n")
            out.write(render_terminal(leds.colours, colour=False) + "\n")
        out.write(f"walked {steps} steps; each LED should have lit under the square named\n")
    finally:
        leds.close()
    return []
