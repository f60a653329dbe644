"""``magboard diagnose``: bring up a board's matrix and LEDs, or try it on the simulator.

    magboard diagnose --sim --once                 # one look at the simulated board
    magboard diagnose --expect empty               # on the Pi: live view, checks, LED walk
    magboard diagnose --sim --no-diodes --once     # what a board without diodes does

Backend options come from the config file (``[sensing]`` and ``[leds]`` of
``/etc/magboard/config.toml``, or ``--config PATH``), so diagnose reads the board the way
the daemon will; an option given on the command line wins over the file.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from board_driver.physical import diagnose
from board_driver.physical.leds import open_leds
from board_driver.physical.leds.layout import StripLayout
from board_driver.physical.leds.render import Renderer
from board_driver.physical.leds.sim import SimulatedLeds, render_terminal
from board_driver.physical.sensing import open_sensing
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from board_driver.service.config import ConfigError, load_config

FAULTS = ("stuck_open", "stuck_closed", "flicker")
#: How specific a finding is (the most specific is said first): a square seen misbehaving
#: over time, squares that read wrong, the whole matrix, the LEDs.
SQUARE_SEEN, SQUARES, MATRIX, LEDS = range(4)


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


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _rate_hz(text: str) -> float:
    value = _number(text)
    if not 1 <= value <= 5000:
        raise argparse.ArgumentTypeError(f"scans a second must be 1..5000, got {text}")
    return value


def _settle_us(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 10_000:
        raise argparse.ArgumentTypeError(f"microseconds must be 0..10000, got {text}")
    return value


def _brightness(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"brightness must be 0.0..1.0, got {text}")
    return value


def _walk_ms(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 60_000:  # one LED lit for a minute is already far too long
        raise argparse.ArgumentTypeError(
            f"milliseconds must be 0 or more (60000 at most), got {text}"
        )
    return value


def _seconds(text: str) -> float:
    value = _number(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"seconds must be more than 0, got {text}")
    return value


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
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="the config file whose [sensing] and [leds] to use "
        "(default: $MAGBOARD_CONFIG or /etc/magboard/config.toml)",
    )
    # Options left unset (None) take the config file's value: see _apply_config.
    sensing = parser.add_argument_group("sensing ([sensing] in the config)")
    sensing.add_argument(
        "--sensing", choices=("gpiod", "rpigpio", "sim"), help="the GPIO library, or the simulator"
    )
    sensing.add_argument(
        "--rows", type=_pins, metavar="PINS", help="the 8 row GPIOs, rank 1 first: 4,17,27,..."
    )
    sensing.add_argument(
        "--columns", type=_pins, metavar="PINS", help="the 8 column GPIOs, file a first"
    )
    sensing.add_argument("--chip", help="gpiod chip label or path")
    sensing.add_argument(
        "--rotation",
        type=int,
        choices=(0, 90, 180, 270),
        help="the board turned clockwise on its base, in degrees",
    )
    sensing.add_argument(
        "--mirror", action=argparse.BooleanOptionalAction, help="the columns wired h to a"
    )
    sensing.add_argument(
        "--active-high",
        action=argparse.BooleanOptionalAction,
        help="pull-down wiring (diodes' bands towards the columns)",
    )
    sensing.add_argument(
        "--settle-us", type=_settle_us, help="microseconds between driving a row and reading"
    )
    sensing.add_argument("--rate-hz", type=_rate_hz, help="scans a second in the live view")
    sensing.add_argument("--dev-dir", default="/dev", help=argparse.SUPPRESS)  # tests' fake /dev
    leds = parser.add_argument_group("LEDs ([leds] in the config)")
    leds.add_argument(
        "--leds", choices=("neopixel_spi", "neopixel", "sim"), help="the LED backend to walk"
    )
    leds.add_argument(
        "--led-count", type=int, choices=(64, 81), help="one LED per square, or one per corner"
    )
    leds.add_argument(
        "--led-order", choices=("rows", "serpentine"), help="how the chain runs from rank to rank"
    )
    leds.add_argument(
        "--led-first", choices=("a1", "h1", "a8", "h8"), help="the square of the first LED"
    )
    leds.add_argument(
        "--led-along", choices=("rank", "file"), help="the chain runs along ranks or files"
    )
    leds.add_argument("--led-pin", type=int, help="GPIO for the neopixel backend")
    leds.add_argument("--brightness", type=_brightness, help="0.0..1.0, for the LED walk")
    run = parser.add_argument_group("what to run")
    when = run.add_mutually_exclusive_group()
    when.add_argument("--once", action="store_true", help="one scan, no live view")
    when.add_argument(
        "--seconds", type=_seconds, help="watch for N seconds (default: until Ctrl-C)"
    )
    run.add_argument(
        "--expect", choices=tuple(diagnose.EXPECTATIONS), help="what stands on the board now"
    )
    run.add_argument(
        "--no-ghost-test", action="store_true", help="skip the test for missing diodes"
    )
    run.add_argument("--no-walk", action="store_true", help="skip the LED walk")
    run.add_argument("--walk-ms", type=_walk_ms, default=300, help="time each LED stays lit")
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


def _apply_config(args: argparse.Namespace) -> str | None:
    """Fill the options not given on the command line from the config file.

    Returns a message when the file cannot be used (diagnose then stops, as the daemon would).
    """
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return f"{exc}\n(fix it, or name another file with --config)"
    sensing, leds = config.sensing, config.leds
    from_config = {
        "sensing": sensing.backend,
        "rows": list(sensing.rows),
        "columns": list(sensing.columns),
        "chip": sensing.chip,
        "rotation": sensing.rotation,
        "mirror": sensing.mirror,
        "active_high": not sensing.active_low,
        "settle_us": sensing.settle_us,
        "rate_hz": sensing.rate_hz,
        "leds": leds.backend,
        "led_count": leds.count,
        "led_order": leds.order,
        "led_first": leds.first,
        "led_along": leds.along,
        "led_pin": leds.pin,
        "brightness": leds.brightness,
    }
    for name, value in from_config.items():
        if getattr(args, name, None) is None:
            setattr(args, name, value)
    if not args.sim and "bridge" in (args.sensing, args.leds):
        return (
            "the config's backend is the serial bridge: its microcontroller scans and lights "
            "the board itself (see hardware/firmware/README.md); diagnose reads a matrix and "
            "LEDs wired to the Pi (--sensing/--leds), or the simulator (--sim)"
        )
    return None


def run_command(args: argparse.Namespace, out=None) -> int:
    out = out or sys.stdout
    if hasattr(out, "reconfigure"):
        # Each line as it is written, to a terminal or a file alike (a log of a long watch).
        out.reconfigure(line_buffering=True)
    problem = _apply_config(args)
    if problem:
        sys.stderr.write(f"magboard diagnose: {problem}\n")
        return 2
    interactive = not args.once and args.seconds is None and sys.stdin.isatty()
    # Each finding with how specific it is, the most specific said first: a square seen
    # misbehaving over time, then squares that read wrong, then guesses about the whole
    # matrix (more than 32 squares closed: ghosting), which a flickering square can cause.
    findings: list[tuple[int, str]] = []
    flickering = 0  # the squares seen flickering while watched
    closed_counts: list[int] = []  # boards whose count of closed squares is judged
    try:
        # Built before the matrix is read: a bad value stops the run before it starts.
        renderer = Renderer(brightness=args.brightness)
    except ValueError as exc:
        sys.stderr.write(f"magboard diagnose: {exc}\n")
        return 2
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
            checked = diagnose.check_expected(first, expected, diagnose.DESCRIBE[args.expect])
            findings += [(SQUARES, problem) for problem in checked]
        closed_counts.append(first)

        if not args.no_ghost_test:
            ghost = None
            if simulated:
                saved = port.pieces
                ghost = diagnose.ghost_test(
                    port, lambda bitmap, _words: setattr(port, "pieces", bitmap)
                )
                port.pieces = saved
            elif interactive:
                def ask(_bitmap: int, words: str) -> None:
                    input(f"ghost test: {words}, then press Enter ")

                ghost = diagnose.ghost_test(port, ask)
            else:
                out.write("ghost test: skipped (run interactively, or use --sim)\n")
            if ghost is not None:
                out.write(f"ghost test: {ghost.verdict}\n")
                findings += [
                    (MATRIX if problem.startswith("ghosting") else SQUARES, problem)
                    for problem in ghost.problems
                ]

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
            closed_counts.append(seen.last)
            if seen.flickering:
                flickering = sum(1 << sq for sq in seen.flickering)
                findings.append((SQUARE_SEEN, (
                    f"flickering faster than any hand: {diagnose.names(seen.flickering)} (a "
                    "loose wire, a cracked reed, or a magnet at the edge of the reed's range)"
                )))  # fmt: skip
            if seen.changes:
                out.write(
                    f"squares that never changed while watched ({len(seen.never_changed)}): "
                    f"{diagnose.names(seen.never_changed) or '-'}\n"
                )
    except OSError as exc:
        sys.stderr.write(f"magboard diagnose: cannot read the matrix: {exc}\n")
        return 2
    finally:
        port.close()

    # Counted without the flickering squares: a square caught closed by chance is not a
    # ghost.
    for bitmap in closed_counts:
        findings += [(MATRIX, problem) for problem in diagnose.check_count(bitmap & ~flickering)]
    if not args.no_walk:
        findings += [(LEDS, problem) for problem in _walk(args, out, renderer)]

    ranked = sorted(findings, key=lambda finding: finding[0])  # stable: in their order
    problems = list(dict.fromkeys(text for _, text in ranked))  # one finding from two checks
    if problems:
        out.write(f"{len(problems)} problem(s):\n")
        for problem in problems:
            out.write(f"  - {problem}\n")
        return 1
    out.write("no problems found\n")
    return 0


def _walk(args: argparse.Namespace, out, renderer: Renderer) -> list[str]:
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
    white = renderer.correct((255, 255, 255))
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
