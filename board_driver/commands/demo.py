"""``magboard demo``: a short famous game played through the rules core.

Until the simulated board exists, this is what shows the core at work: each move read
from SAN, judged, written back in SAN, then the final position, the outcome and the PGN.
"""

from __future__ import annotations

import argparse

import rules

#: Paul Morphy v. the Duke of Brunswick and Count Isouard, Paris opera, 1858.
OPERA_GAME_HEADERS = {
    "Event": "A Night at the Opera",
    "Site": "Paris FRA",
    "Date": "1858.??.??",
    "Round": "?",
    "White": "Paul Morphy",
    "Black": "Duke Karl / Count Isouard",
}
OPERA_GAME = (  # noqa: SIM905 (a game reads best as one line of SAN)
    "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 "
    "Bxb5+ Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#"
).split()


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="play a famous short game through the rules core and print it",
        description=(
            "Play Morphy's Opera Game (Paris 1858) through magboard's rules core: each "
            "move in SAN and UCI, the final position, the outcome and the PGN. No board needed."
        ),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game = rules.Game()
    print(f"{OPERA_GAME_HEADERS['White']} v. {OPERA_GAME_HEADERS['Black']}, Paris 1858\n")
    for text in OPERA_GAME:
        pos = game.position
        number = f"{pos.fullmove_number}." if pos.turn else f"{pos.fullmove_number}..."
        move = pos.parse_san(text)
        san = pos.san(move)
        game.push(move)
        print(f"{number:<6}{san:<8}{move.uci()}")
    print()
    print(game.position)
    print()
    outcome = game.outcome()
    if outcome is None:
        print("The game goes on.")
    else:
        winner = {rules.WHITE: "White", rules.BLACK: "Black", None: "nobody"}[outcome.winner]
        print(
            f"Outcome: {outcome.termination.replace('_', ' ')}, {outcome.result()} ({winner} wins)"
        )
    print()
    print(game.pgn(OPERA_GAME_HEADERS), end="")
    return 0
