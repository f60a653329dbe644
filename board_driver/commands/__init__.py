"""The ``magboard`` command.

Each subcommand lives in its own module under :mod:`board_driver.commands`, which
provides ``add_parser(subparsers)``; the parser it adds sets ``func(args) -> int``.
Modules are imported only to build the parser, so a missing hardware library never
stops ``magboard --help``. :func:`before_or_after_the_action` is the options a command's
actions share.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Iterable, Sequence

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


#: Adds options to a parser; ``default`` is what an option not given leaves.
AddOptions = Callable[..., None]


def before_or_after_the_action(
    command: argparse.ArgumentParser,
    actions: Iterable[argparse.ArgumentParser],
    add: AddOptions,
) -> None:
    """Options a command's actions share, taken before the action or after it alike
    (``magboard config --config X check`` and ``magboard config check --config X``).

    ``add(parser, default=...)`` adds them to a parser: to the command with their
    defaults, to each action with none (so that an option given before the action is not
    overwritten by the action's default).

    >>> parser = argparse.ArgumentParser(prog="magboard")
    >>> command = parser.add_subparsers(dest="command").add_parser("config")
    >>> check = command.add_subparsers(dest="action").add_parser("check")
    >>> def add(p, default=None):
    ...     p.add_argument("--config", default=default)
    >>> before_or_after_the_action(command, [check], add)
    >>> parser.parse_args(["config", "--config", "x", "check"]).config
    'x'
    >>> parser.parse_args(["config", "check", "--config", "y"]).config
    'y'
    >>> parser.parse_args(["config", "check"]).config is None
    True
    """
    add(command)
    for action in actions:
        add(action, default=argparse.SUPPRESS)


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
