"""``magboard demo``: the rules core at work, until the simulated board exists."""

from __future__ import annotations

import argparse


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="play a short game with the rules core")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print("magboard: the rules core is not built yet.")
    return 0
