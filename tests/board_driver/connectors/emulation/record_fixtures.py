"""Record the fixtures: the real drivers against the real daemon, one whole game each.

    python -m tests.board_driver.connectors.emulation.record_fixtures [--protocol dgt]
    python -m tests.board_driver.connectors.emulation.record_fixtures --only dgt-clock

Needs the drivers checked out under ``$MAGBOARD_EXT`` (see ``fixtures/README.md``) and
socat. Writes ``fixtures/<protocol>-<driver>.json`` and says what it checked.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from tests.board_driver.connectors.emulation.real_clients import CLIENTS, missing, play

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: The recorded games: (protocol, selfplay.pgn index, hands seed). Both have castling and
#: a promotion, captures in either order and slides; game 70's castling is rook first
#: (committed as a rook move, then amended), game 74's promoted pawn is swapped for the
#: new piece on its square.
RECORDED = {"dgt": (69, 18), "chesslink": (73, 18)}
#: Recordings with the board's clock running (issue 27): name -> (protocol, index, seed,
#: time control). PicoChess reads the clock's times through the board.
CLOCKED = {"dgt-clock": ("dgt", 69, 18, "5+3")}


def fixture_path(protocol: str, name: str | None = None) -> Path:
    suffix = name.split("-", 1)[1] if name else ""
    driver = CLIENTS[protocol]["name"].lower()
    return FIXTURES / f"{protocol}-{driver}{'-' + suffix if suffix else ''}.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--protocol", choices=sorted(RECORDED), action="append")
    parser.add_argument("--only", choices=sorted([*RECORDED, *CLOCKED]), action="append")
    args = parser.parse_args()
    FIXTURES.mkdir(exist_ok=True)
    failed = 0
    wanted = args.only or args.protocol or [*sorted(RECORDED), *sorted(CLOCKED)]
    for name in wanted:
        protocol, index, seed, clock = (
            CLOCKED[name] if name in CLOCKED else (name, *RECORDED[name], "none")
        )
        why = missing(protocol)
        if why:
            print(f"{name}: cannot record: {why}")
            failed += 1
            continue
        path = fixture_path(protocol, name if name in CLOCKED else None)
        with tempfile.TemporaryDirectory() as tmp:
            result = play(protocol, index, seed, Path(tmp), record=path, clock=clock)
        print(
            f"{name}: {len(result.moves)} moves, driver read {result.client_fen}, "
            f"game ended {result.final_fen}; LEDs {result.led_checks}; "
            f"problems: {result.problems or 'none'}; notes: {result.notes or 'none'}"
        )
        failed += bool(result.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
