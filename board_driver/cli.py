"""The ``magboard`` command.

Each subcommand lives in its own module under :mod:`board_driver.commands`, which
provides ``add_parser(subparsers)``; the parser it adds sets ``func(args) -> int``.
Modules are imported only to build the parser, so a missing hardware library never
stops ``magboard --help``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Subcommand modules, in the order ``magboard --help`` lists them.
COMMAND_MODULES = (
    "board_driver.commands.run",
    "board_driver.commands.replay",
    "board_driver.commands.diagnose",
    "board_driver.commands.config",
    "board_driver.commands.games",
    "board_driver.commands.pgn",
    "board_driver.commands.store",
    "board_driver.commands.hall",
    "board_driver.commands.demo",
)


def version() -> str:
    """The installed package's version (``magboard --version``)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("magboard")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed: pip install -e .)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="magboard",
        description=(
            "A magnetic chessboard that knows the game. `magboard run --sim` plays on the "
            "simulated board; `magboard COMMAND --help` says more about each command."
        ),
    )
    parser.add_argument("--version", action="version", version=f"magboard {version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
