"""``magboard replay SCRIPT... [--json | --pgn] [--frames]``: a board script, as the daemon sees it.

Each script is replayed from a fresh start. ``--json`` prints one JSON object per script
and line (see ``docs/board-script.md``), ``--pgn`` the games as PGN; without either, a
short account for people. A script that cannot be read is reported with its line, and
the command exits 2 before replaying anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from board_driver.boardscript.script import (
    Script,
    ScriptError,
    parse_script,
    read_script_file,
    script_file_problem,
)
from board_driver.user_files import UnusableFile

STDIN_NAME = "<stdin>"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay board scripts and print the game the board would see",
        description=(
            "Replay board scripts (see docs/board-script.md) through debounce, the move "
            "tracker and the rules, and print what the daemon would have committed and "
            "announced. '-' reads a script from standard input."
        ),
    )
    parser.add_argument("scripts", nargs="+", metavar="SCRIPT", help="a board script, or -")
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--json", action="store_true", help="one JSON object per script, one per line"
    )
    output.add_argument("--pgn", action="store_true", help="print the games as PGN")
    parser.add_argument(
        "--frames",
        action="store_true",
        help="add each event's steady LED frame ('leds': 8 rows, rank 8 first; not with --pgn)",
    )

    def run_checked(args: argparse.Namespace) -> int:
        if args.pgn and args.frames:  # one group cannot say it: --frames goes with --json
            parser.error("argument --frames: not allowed with argument --pgn (PGN has no frames)")
        return run(args)

    parser.set_defaults(func=run_checked)


def read_scripts(paths: list[str]) -> tuple[list[Script], list[str]]:
    """Parse every script given; returns the scripts and the error messages."""
    scripts: list[Script] = []
    errors: list[str] = []
    for path in paths:
        name = STDIN_NAME if path == "-" else path
        try:
            text = sys.stdin.read() if path == "-" else read_script_file(path)
        except (OSError, UnicodeDecodeError) as error:
            errors.append(f"{name}: cannot read the script: {error}")
            continue
        except UnusableFile as error:
            errors.append(f"{name}: cannot read the script: {script_file_problem(error)}")
            continue
        try:
            scripts.append(parse_script(text, name))
        except ScriptError as error:
            errors.append(str(error))
    return scripts, errors


def run(args: argparse.Namespace) -> int:
    scripts, errors = read_scripts(args.scripts)
    if errors:
        for message in errors:
            print(f"magboard replay: {message}", file=sys.stderr)
        return 2
    # Imported after reading, so that a bad script is reported even without the game code.
    from board_driver.boardscript.replay import replay_script

    for index, script in enumerate(scripts):
        result = replay_script(script, frames=args.frames)
        if args.json:
            print(json.dumps(result.to_json(), separators=(",", ":")), flush=True)
        elif args.pgn:
            if index:
                print()
            print(result.pgn().rstrip("\n"), flush=True)
        else:
            print(_account(result.to_json(), frames=args.frames), flush=True)
    return 0


#: Event keys the account for people leaves out (``--json`` has them all).
_NOT_IN_ACCOUNT = frozenset({"t", "type", "leds", "fen", "uci", "from", "to", "ply"})


def _account(data: dict[str, Any], *, frames: bool) -> str:
    """The default output: the script's announcements and its outcome, for people."""
    lines = [f"{data['script']}:"]
    for event in data["events"]:
        details = " ".join(
            f"{key}={value}" for key, value in event.items() if key not in _NOT_IN_ACCOUNT
        )
        lines.append(f"  {event['t'] / 1000:8.3f} s  {event['type']:<17} {details}".rstrip())
        if frames and "leds" in event:
            lines.extend(f"{'':14}{row}" for row in event["leds"])
    termination = f" ({data['termination']})" if data["termination"] else ""
    lines.append(f"  moves: {' '.join(data['moves']) or '-'}")
    lines.append(f"  result: {data['result']}{termination}")
    lines.append(f"  fen: {data['fen']}")
    lines.append(f"  in sync: {'yes' if data['in_sync'] else 'no'}")
    if data.get("clock"):
        from board_driver.clock.texts import clock_words

        lines.append(f"  {clock_words(data['clock'])}")
    return "\n".join(lines)
