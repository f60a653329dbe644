"""``magboard hall``: every board's live game from the hall's broker, as LiveChess-style PGN,
a page, and a Lichess broadcast push (``docs/hall.md``)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys

from board_driver.door.config_values import Bad, integer
from board_driver.hall import round_name
from board_driver.service.config import ConfigError, load_config


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hall",
        help="serve every board's game from the hall's broker (PGN folder, page, Lichess push)",
        description=(
            "Subscribe to the hall's MQTT broker and serve every board's live game: "
            "round-N/games.pgn for Lichess broadcasts and other relays, and a page with "
            "every board at once. Configured by the [hall] section; --round, --http-host "
            "and --http-port override it."
        ),
    )
    parser.add_argument("--config", metavar="PATH", help="config file (default: see `config`)")
    parser.add_argument("--round", metavar="R", help="the round (games.pgn's Round tag)")
    parser.add_argument("--http-host", metavar="HOST", help="address to serve on")
    parser.add_argument("--http-port", metavar="PORT", type=int, help="port to serve on")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from board_driver.commands.run import setup_logging

    setup_logging(False)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"magboard: {exc}", file=sys.stderr)
        return 2
    section = config.section("hall")
    changes = {}
    for option, key, check in (
        ("--round", "round", round_name),
        ("--http-port", "http_port", integer(1, 65535)),
    ):
        value = getattr(args, key)
        if value is not None:
            try:
                changes[key] = check(key, value)
            except Bad as why:
                print(f"magboard: {option}: {why}", file=sys.stderr)
                return 2
    if args.http_host is not None:
        changes["http_host"] = args.http_host
    section = dataclasses.replace(section, **changes)
    import importlib.util

    missing = [name for name in ("aiomqtt", "aiohttp") if importlib.util.find_spec(name) is None]
    if missing:
        print(f"magboard: the hall needs {' and '.join(missing)}: pip install 'magboard[hall]'",
              file=sys.stderr)
        return 1
    from board_driver.hall.app import Hall

    return asyncio.run(Hall(section).serve())
