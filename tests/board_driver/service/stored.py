"""Stores made and read as another process would, for the tests of what a start does with
the board's files."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import rules
from board_driver.service.store import Store


def store_game(path: Path, ucis: Sequence[str]) -> str:
    """A store at ``path`` holding one game of ``ucis`` (from the start position); returns
    the game's ``started`` stamp (what a hands journal names it by)."""
    with Store.open(path) as store:
        game_id = store.new_game()
        game, line = rules.Game(), []
        for uci in ucis:
            move = game.position.parse_uci(uci)
            line.append((uci, game.position.san(move)))
            game.push(move)
        store.sync_moves(game_id, line)
        return store.started(game_id)


def stored_ucis(path: Path, game_id: int = 1) -> list[str]:
    """Game ``game_id``'s moves in the store at ``path``, read-only."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT uci FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        return [uci for (uci,) in rows]
    finally:
        db.close()
