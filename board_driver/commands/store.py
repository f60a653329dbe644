"""``magboard store check`` and ``magboard store recover``: the games database itself.

``check`` reads the whole store and replays every game: ``ok`` and exit 0, or what is
wrong and where. ``recover`` is for a store the daemon refused as damaged: it saves every
game that can still be read to a PGN file, moves the damaged file aside (nothing is
deleted), and the daemon's next start makes a new store::

    $ magboard store recover
    saved 41 games to /var/lib/magboard/magboard.sqlite.recovered-20250301-101500.pgn
      game 42: plies from 31 on could not be read
    moved the damaged store to /var/lib/magboard/magboard.sqlite.damaged-20250301-101500
    the daemon makes a new store at its next start (`systemctl restart magboard`)
"""

from __future__ import annotations

import argparse
import sys

from board_driver.commands import before_or_after_the_action
from board_driver.commands.games import add_store_arguments, store_path
from board_driver.service.config import ConfigError
from board_driver.service.store import EXIT_STORE_REFUSED, StoreError, StoreRefusedError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "store",
        help="check the games database, or recover the games of a damaged one",
        description=(
            "The games database: `store check` reads it whole and replays every game; "
            "`store recover` saves what a damaged one holds as PGN and moves it aside."
        ),
    )
    actions = parser.add_subparsers(dest="store_action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="read the whole store and replay every game",
        description=(
            "Read the whole games database and replay every game through the rules: exit 0 "
            "and a count when all is well, 65 naming what is damaged."
        ),
    )
    check.set_defaults(func=run_check)
    recover = actions.add_parser(
        "recover",
        help="save the games of a damaged store as PGN and move the file aside",
        description=(
            "For a store the daemon refused as damaged: every game that can be read is "
            "written to a PGN file, and the damaged file is renamed NAME.damaged-STAMP "
            "(nothing is deleted); the daemon's next start makes a new store."
        ),
    )
    before_or_after_the_action(parser, (check, recover), add_store_arguments)
    recover.add_argument(
        "--out", metavar="FILE", help="PGN file to write (default: beside the store)"
    )
    recover.set_defaults(func=run_recover)


def _store_path(args: argparse.Namespace) -> str:
    return store_path(args)


def run_check(args: argparse.Namespace) -> int:
    from board_driver.service.store import Store, rebuild_game

    try:
        path = _store_path(args)
        with Store.open(path, create=False, readonly=True) as store:
            games = store.games()
            for summary in games:
                rebuild_game(store.game(summary.id))
            version = store.version
    except StoreRefusedError as exc:
        print(f"magboard: {exc}", file=sys.stderr)
        return EXIT_STORE_REFUSED
    except (StoreError, ConfigError) as exc:
        print(f"magboard: {exc}", file=sys.stderr)
        return 1
    plies = sum(g.plies for g in games)
    print(f"ok: {path}, {len(games)} games, {plies} plies, schema {version}")
    return 0


def run_recover(args: argparse.Namespace) -> int:
    from board_driver.service.store_recovery import recover

    try:
        report = recover(_store_path(args), args.out)
    except (StoreError, ConfigError) as exc:
        print(f"magboard: {exc}", file=sys.stderr)
        return 1
    print(f"the store was damaged: {report.damage}")
    print(f"saved {report.saved} game{'s' * (report.saved != 1)} to {report.pgn}")
    for note in report.partial + report.lost:
        print(f"  {note}")
    print(f"moved the damaged store to {report.moved_to}")
    print("the daemon makes a new store at its next start (`systemctl restart magboard`)")
    return 0
