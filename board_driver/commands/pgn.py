"""``magboard pgn [GAME]``: a stored game as PGN (the newest by default)."""

from __future__ import annotations

import argparse
import sys

from board_driver.commands.games import add_store_arguments, open_store
from board_driver.service.config import ConfigError
from board_driver.service.store import StoreError, game_pgn


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "pgn",
        help="print a stored game as PGN",
        description=(
            "Print a stored game as PGN (the newest when no number is given; `all` for "
            "every game, one after the other), for a chess program or a website."
        ),
    )
    parser.add_argument(
        "game", nargs="?", help="game number (see `magboard games`); 'all' for every game"
    )
    parser.add_argument(
        "--evals",
        action="store_true",
        help="with the engine's review as [%%eval] comments and ?! ? ?? glyphs (docs/web.md)",
    )
    add_store_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        with open_store(args) as store:
            if args.game == "all":
                ids = [g.id for g in store.games()]
            elif args.game is None:
                latest = store.latest_game_id()
                ids = [] if latest is None else [latest]
            else:
                try:
                    ids = [int(args.game)]
                except ValueError:
                    print(f"magboard: {args.game!r} is not a game number", file=sys.stderr)
                    return 2
            if not ids:
                print("magboard: no games stored yet", file=sys.stderr)
                return 1
            texts = [
                game_pgn(store.game(i), review=store.review(i) if args.evals else None)
                for i in ids
            ]
    except (StoreError, ConfigError) as exc:
        print(f"magboard: {exc}", file=sys.stderr)
        return 1
    print("\n\n".join(t.rstrip("\n") for t in texts))
    return 0
