"""``magboard config check|show``: validate the config file, print the effective config."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from board_driver.commands import before_or_after_the_action
from board_driver.service.config import ConfigError, config_path, load_config, to_toml
from board_driver.service.config.paths import file_problems
from board_driver.service.discovery import installed
from board_driver.service.extensions import environment_problems


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "config",
        help="check the config file or show the effective config",
        description=(
            "The config file is --config PATH, else $MAGBOARD_CONFIG, else "
            "/etc/magboard/config.toml (optional: every key has a default)."
        ),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="validate the config; exit 0 if usable, 2 if not",
        description=(
            "Read the config file and name every bad key and every clash between keys "
            "(pins used twice, files run could not keep), ask each extension it turns on "
            "whether what it needs is there (validate_environment), and say which "
            "extensions are installed (and which were refused, and why); exit 0 if usable, "
            "2 if not, or if a section's extension was refused."
        ),
    )
    show = actions.add_parser(
        "show",
        help="print the effective config as TOML",
        description=(
            "Print every key with the value run would use (the file's, else the default), "
            "as TOML that reads back the same; secrets are masked."
        ),
    )
    before_or_after_the_action(parser, (check, show), _add_options)
    check.set_defaults(func=run_check)
    show.set_defaults(func=run_show)


def _add_options(parser: argparse.ArgumentParser, default: Any = None) -> None:
    parser.add_argument("--config", metavar="PATH", default=default, help="config file to read")
    parser.add_argument(
        "--sim",
        action="store_true",
        default=False if default is None else default,
        help="as with `magboard run --sim`",
    )


def _load(args: argparse.Namespace):
    config = load_config(args.config)
    return config.with_sim() if args.sim else config


def run_check(args: argparse.Namespace) -> int:
    path, _named = config_path(args.config)
    found = installed()  # said first: a refused extension may explain what follows
    for note in (*found.notes, *(str(refused) for refused in found.refused)):
        print(f"magboard: warning: {note}", file=sys.stderr)
    try:
        config = _load(args)
    except ConfigError as exc:
        print(f"magboard: config is not usable:\n{exc}", file=sys.stderr)
        return 2
    problems = file_problems(config)
    # What run asks each extension it starts, before it starts (a device, a library).
    refusing, warnings = environment_problems(config)
    problems += refusing
    source = str(config.source or path)
    if problems:
        text = "\n".join(f"{source}: {problem}" for problem in problems)
        print(f"magboard: config is not usable:\n{text}", file=sys.stderr)
        return 2
    for warning in warnings:
        print(f"magboard: warning: {warning}", file=sys.stderr)
    if config.notes:
        # A section whose extension was refused: run starts the board without it, but
        # what the file asks for would not happen. Said as a failure, so that a check
        # before a restart catches it.
        text = "\n".join(f"{source}: {note}" for note in config.notes)
        print(
            "magboard: config names an extension that was refused (run starts the board "
            f"without it):\n{text}",
            file=sys.stderr,
        )
        return 2
    where = str(config.source) if config.source else f"{path} (absent: every key at its default)"
    print(f"extensions found: {found.summary() or 'none'}")
    print(f"{where}: ok")
    return 0


def run_show(args: argparse.Namespace) -> int:
    try:
        config = _load(args)
    except ConfigError as exc:
        print(f"magboard: config is not usable:\n{exc}", file=sys.stderr)
        return 2
    source = config.source or f"{config_path(args.config)[0]} (absent)"
    # Paths in comments are written as TOML strings would be: a newline in one must not
    # end the comment.
    print(f"# effective config, read from {_one_line(source)}")
    print(f"# store: {_one_line(config.store_path())}")
    if config.is_sim:
        print(f"# simulated board: {_one_line(config.sim_state_file())}")
    print(to_toml(config), end="")
    return 0


def _one_line(value: object) -> str:
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in str(value))
