"""``magboard games``: the stored games, one line each."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from board_driver.commands.run import add_instance_argument, load_instance_config
from board_driver.service.config import ConfigError
from board_driver.service.store import Store, StoreError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "games",
        help="list the stored games",
        description=(
            "List the stored games, oldest first: number, start time (UTC), length in plies "
            "(a ply is one side's move: 1. e4 e5 is two plies) and result; a game not over is "
            "either on the board or adjourned (the page's game list can resume it). "
            "`magboard pgn N` prints one as PGN."
        ),
    )
    add_store_arguments(parser)
    parser.set_defaults(func=run)


def add_store_arguments(parser: argparse.ArgumentParser, default: Any = None) -> None:
    parser.add_argument(
        "--config", metavar="PATH", default=default, help="config file naming the store"
    )
    parser.add_argument(
        "--store",
        metavar="PATH",
        default=default,
        help="games database (default: [store] path of the config)",
    )
    add_instance_argument(parser, default)


def store_path(args: argparse.Namespace) -> str:
    """The store named by --store, else by the config (as ``--instance`` N when given)."""
    return str(args.store or load_instance_config(args).store_path())


def open_store(args: argparse.Namespace) -> Store:
    """The store named by --store, else by the config; read-only. Raises StoreError/ConfigError."""
    return Store.open(store_path(args), create=False, readonly=True)


def run(args: argparse.Namespace) -> int:
    try:
        with open_store(args) as store:
            games = store.games()
            on_board = store.game_on_board()
    except (StoreError, ConfigError) as exc:
        print(f"magboard: {exc}", file=sys.stderr)
        return 1
    if not games:
        print("no games stored yet")
        return 0
    print(f"{'game':>5}  {'started (UTC)':<19}  {'plies':>5}  result")
    for g in games:
        ending = f"{g.result} ({g.termination.replace('_', ' ')})" if g.termination else g.result
        if g.result == "*":
            ending = "* (on the board)" if g.id == on_board else "* (adjourned)"
        started = g.started[:19].replace("T", " ")
        print(f"{g.id:>5}  {started:<19}  {g.plies:>5}  {ending}")
    return 0
