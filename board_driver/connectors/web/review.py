"""A stored game and its review as the page shows it: ``GET /api/games/<n>/review``.

Every move with the position after it (FEN), and, as far as the engine has reviewed the
game, its score there (White's win percentage for the chart), its mark (inaccuracy,
mistake, blunder: :mod:`board_driver.door.review`) and the engine's better move. While an online
game is being played no scores are shown (Lichess forbids engine help during a game): the
moves only, and ``hidden`` says why.
"""

from __future__ import annotations

from typing import Any

from board_driver.door import Door
from board_driver.door.review import Score, review_moves


def _score(score: Score | None, fen: str) -> dict[str, Any] | None:
    if score is None:
        return None
    white_to_move = fen.split()[1] == "w"
    return {
        "cp": score.cp,
        "mate": score.mate,
        "text": score.pgn(),
        "win": round(score.win_percent(white_to_move), 1),
    }


def review_view(door: Door, game_id: int) -> dict[str, Any]:
    """The page's view of stored game ``game_id`` and its review (LookupError if none)."""
    stored = door.game(game_id)
    snap = door.snapshot()
    hidden = None
    if snap.online and snap.result == "*":
        hidden = "an online game is being played: no engine scores until it is over"
    reviewed = [] if hidden else door.review(game_id)
    variant = getattr(stored, "variant", "standard")
    start, moves = review_moves(stored.start_fen, list(stored.ucis), reviewed, variant)
    engine = dict(snap.player_states.get("engine", {}))
    progress = dict(engine.get("review", {"status": "off"}))
    fields = stored.start_fen.split()
    return {
        "game": stored.id,
        "start_fen": stored.start_fen,
        "variant": variant,
        "first_move": int(fields[5]) if len(fields) > 5 else 1,
        "first_side": "white" if fields[1] == "w" else "black",
        "result": stored.result,
        "termination": stored.termination,
        "white": stored.headers.get("White", "?"),
        "black": stored.headers.get("Black", "?"),
        "on_board": stored.id == snap.game_id,
        "engine": stored.data.get("review", {}).get("engine"),
        "limit": stored.data.get("review", {}).get("limit"),
        "hidden": hidden,
        "start": _score(start, stored.start_fen),
        "moves": [
            {
                "ply": m.ply,
                "san": m.san,
                "uci": m.uci,
                "fen": m.fen,
                "score": _score(m.score, m.fen),
                "depth": m.depth,
                "mark": m.mark,
                "best": m.best,
                "best_san": m.best_san,
            }
            for m in moves
        ],
        "reviewed": sum(m.score is not None for m in moves) + (start is not None),
        "progress": progress if progress.get("game") == stored.id else None,
        "reviews": progress.get("status") != "off",
    }
