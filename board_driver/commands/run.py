"""``magboard run``: the daemon, on the Pi's hardware or against the simulated board."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, ClassVar

from board_driver.boardscript.feed import parse_on_board
from board_driver.boardscript.record import record
from board_driver.boardscript.script import ScriptError, read_script_file, script_file_problem
from board_driver.connectors.terminal import terminal_view
from board_driver.service.config import Config, ConfigError, default_config_path, load_config
from board_driver.service.config.paths import file_problems
from board_driver.service.daemon import Daemon, DaemonError, exit_status
from board_driver.service.hardware import Hardware, HardwareError, gpio_present, open_hardware
from board_driver.service.recorder import StoreInUseError, lock_store
from board_driver.service.store import StoreError
from board_driver.service.store_errors import EXIT_STORE_IN_USE
from board_driver.user_files import UnusableFile

log = logging.getLogger("magboard")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the board: sensing, move tracking, LEDs, the games store",
        description=(
            "Run the daemon. With --sim (or no config file and no GPIO here) it runs against "
            "the simulated board, whose pieces live in a state file of their own; drive it "
            "with --script FILE, or --script - to type or pipe board-script lines "
            "(lift e2, place e4, choose n, button resign, wait 500, @1200 lift g8)."
        ),
    )
    parser.add_argument("--sim", action="store_true", help="every hardware port on the simulator")
    parser.add_argument(
        "--script",
        metavar="FILE",
        help="play a board script into the simulated board in real time ('-': standard input)",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="write what hands do (lifts, places, buttons, choices, with their times) as a "
        "board script that `magboard replay` reads: for a bug report, on a real board too",
    )
    parser.add_argument("--config", metavar="PATH", help="config file (default: see `config`)")
    add_instance_argument(parser)
    parser.add_argument("--verbose", "-v", action="store_true", help="log every event and frame")
    parser.set_defaults(func=run)


#: The most boards ``--instance`` runs on one machine.
MAX_INSTANCE = 99


def add_instance_argument(parser: argparse.ArgumentParser, default: Any = None) -> None:
    parser.add_argument(
        "--instance",
        metavar="N",
        type=_instance_number,
        default=default,
        help="one of several boards on this machine (1 to 99): its own store and simulated "
        "board in instance-N of the state directory, its page on [web] port + N",
    )


def _instance_number(text: str) -> int:
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_INSTANCE):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 1 to {MAX_INSTANCE}")
    return int(text)


def load_instance_config(args: argparse.Namespace) -> Config:
    """The config file, as instance ``--instance`` when given (ConfigError if it cannot)."""
    config = load_config(args.config)
    number = getattr(args, "instance", None)
    return config if number is None else config.with_instance(number)


def setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if os.environ.get("JOURNAL_STREAM"):
        # journald adds the time; a <N> prefix gives each line its priority.
        handler.setFormatter(_JournalFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s.%(msecs)03d magboard: %(message)s", "%H:%M:%S")
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.INFO)


class _JournalFormatter(logging.Formatter):
    PRIORITY: ClassVar[dict[str, int]] = {
        "DEBUG": 7,
        "INFO": 6,
        "WARNING": 4,
        "ERROR": 3,
        "CRITICAL": 2,
    }

    def format(self, record: logging.LogRecord) -> str:
        return f"<{self.PRIORITY.get(record.levelname, 6)}>{record.getMessage()}"


def _fail(message: str, code: int) -> int:
    print(f"magboard: {message}", file=sys.stderr)
    return code


def _failed(exc: Exception, code: int) -> int:
    """The daemon's error: said already by its log (before "stopped"), else here."""
    return code if getattr(exc, "logged", False) else _fail(str(exc), code)


def choose_config(args: argparse.Namespace) -> Config:
    """The config to run with: the file, --sim, or the simulator when nothing else fits."""
    config = load_instance_config(args)
    if args.sim or args.script:
        return config.with_sim()
    if config.source is None and not config.is_sim and not gpio_present():
        config = config.with_sim()
        log.warning(
            "no config file (%s) and no GPIO on this machine: running against the simulated "
            "board. Its pieces are in %s; move them with `magboard run --sim --script -` "
            "(type lift e2, place e4, ...). For a real board write the config file.",
            args.config or os.environ.get("MAGBOARD_CONFIG") or default_config_path(),
            config.sim_state_file(),
        )
    return config


def run(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    try:
        config = choose_config(args)
    except ConfigError as exc:
        return _fail(f"config is not usable:\n{exc}", 2)
    for note in config.notes:
        log.warning("%s", note)
    problems = file_problems(config)
    if problems:  # the same words as `magboard config check`
        source = str(config.source or "the config")
        return _fail("config is not usable:\n" + "\n".join(f"{source}: {p}" for p in problems), 2)
    # The store first: a second daemon on it must touch nothing of the first's (its pieces,
    # its lights), and is said once, with a status systemd does not restart.
    try:
        lock = lock_store(config.store_path())
    except StoreInUseError as exc:
        return _fail(str(exc), EXIT_STORE_IN_USE)
    except StoreError as exc:
        return _fail(str(exc), 1)
    try:
        hardware = open_hardware(config)
    except HardwareError as exc:
        lock.close()
        return _fail(
            f"{exc}\n(check the config with `magboard config check`; "
            "`magboard run --sim` runs without hardware)",
            1,
        )
    text = None
    if args.script and args.script != "-":
        # Read once, checked whole before anything moves against the pieces standing.
        try:
            text = read_script_file(args.script)
            parse_on_board(text, args.script, hardware.sim_board.pieces)
        except UnusableFile as exc:
            hardware.close()
            return _fail(f"{args.script}: cannot read the script: {script_file_problem(exc)}", 2)
        except ScriptError as exc:
            hardware.close()
            return _fail(str(exc), 2)
    _attach_leds_file(config, hardware)
    script = args.script
    watchers: list[Callable[[Any], Coroutine[Any, Any, Any]]] = []
    if args.record:
        problem = _record_problem(Path(args.record))
        if problem:
            hardware.close()
            return _fail(f"--record {args.record}: {problem}", 2)
        watchers.append(functools.partial(record, path=Path(args.record)))
    if script is None and config.is_sim and sys.stdin is not None and sys.stdin.isatty():
        # A person at a terminal: read what they type, and draw the board for them.
        script = "-"
        watchers.append(functools.partial(terminal_view, colour=sys.stdout.isatty()))
        watchers.append(_say_what_to_type)  # once ready: a daemon refused says only why
    daemon = Daemon(
        config, hardware, script=script, script_text=text, web=True, watchers=watchers, lock=lock
    )
    try:
        return asyncio.run(daemon.run())
    except (StoreError, DaemonError) as exc:  # the status its log's "stopped (exit N)" said
        return _failed(exc, exit_status(exc))
    except KeyboardInterrupt:
        return 130


async def _say_what_to_type(_door: object) -> None:
    log.info("type board-script lines: lift e2, place e4, choose n, button new_game ...")


def _attach_leds_file(config: Config, hardware: Hardware) -> None:
    """With ``[sim] leds_file``, the simulated lights write what they show on every change."""
    path_text = config.sim.leds_file
    listeners = getattr(hardware.leds, "listeners", None)
    if not path_text or listeners is None:
        return
    path = Path(path_text).expanduser()
    failing: list[str] = []  # said once, not on every frame

    def write(colours: list) -> None:
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".leds-", dir=path.parent)
            with os.fdopen(fd, "w") as out:
                json.dump({"colours": [list(c) for c in colours]}, out)
            os.replace(tmp, path)
            failing.clear()
        except OSError as exc:  # a full disk: the lights go on, their file lags
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            if not failing:
                log.warning("[sim] leds_file: cannot write %s (%s)", path, exc.strerror or exc)
            failing.append(str(exc))

    listeners.append(write)
    write(list(hardware.leds.colours))


def _record_problem(path: Path) -> str | None:
    """Why a recording cannot be written to ``path``, or None (checked before the start)."""
    if path.is_dir():
        return "is a directory, not a file"
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot be written ({exc.strerror})"
    return None
