"""Make ``schema-v1.sqlite``: a games store written by magboard's store of schema version 1.

The store module is taken from git as it stood at ``COMMIT`` (the last one with schema 1)
and run as it was, so the fixture is what a board in use today holds, not a copy made by
hand. Run from the repository's root, then commit the file:

    python tests/board_driver/service/store_fixtures/make_v1_store.py

The games: a finished mate with an amended promotion and a take-back, a resignation, an
unfinished game from a set-up position with an engine's options, and an empty game.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

COMMIT = "9704704"  # main before schema 2 (PGN headers, game data)
HERE = Path(__file__).resolve().parent
OUT = HERE / "schema-v1.sqlite"


def old_store_module():
    source = subprocess.run(
        ["git", "show", f"{COMMIT}:board_driver/service/store.py"],
        cwd=HERE,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix="_store_v1.py", delete=False) as out:
        out.write(source)
    spec = importlib.util.spec_from_file_location("store_v1", out.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules["store_v1"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    Path(out.name).unlink()
    return module


def main() -> None:
    sys.path.insert(0, str(HERE.parents[3]))  # the rules core the old module imports
    store_v1 = old_store_module()
    assert store_v1.SCHEMA_VERSION == 1
    OUT.unlink(missing_ok=True)
    with store_v1.Store.open(OUT) as store:
        mate = store.new_game(options={"touch_move": "warn", "takeback": "true"})
        store.sync_moves(mate, [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4")])
        store.sync_moves(mate, [("f2f3", "f3"), ("e7e5", "e5")])  # a take-back
        store.sync_moves(
            mate, [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4"), ("d8h4", "Qh4#")]
        )
        store.finish(mate, "0-1", "checkmate")

        resigned = store.new_game()
        store.sync_moves(resigned, [("d2d4", "d4"), ("d7d5", "d5"), ("c2c4", "c4")])
        store.finish(resigned, "1-0", "resignation")

        endgame = store.new_game(
            "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
            {"touch_move": "off", "engine_side": "black", "engine_name": "Stockfish 15.1"},
        )
        store.sync_moves(endgame, [("a7a8q", "a8=Q+")])
        store.sync_moves(endgame, [("a7a8r", "a8=R+"), ("e8d7", "Kd7")])  # amended

        store.new_game()  # started, no move yet
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
