"""One module per ``magboard`` subcommand; see :mod:`board_driver.cli`."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable

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
