"""Stored games as chess: a :class:`rules.Game` rebuilt from the store, and PGN text.

>>> from board_driver.service.store import Store
>>> store = Store.open(":memory:")
>>> game_id = store.new_game()
>>> store.sync_moves(game_id, [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4"), ("d8h4", "Qh4#")])
>>> store.set_headers(game_id, {"White": "Ada", "Black": "Grace"})
>>> print(game_pgn(store.game(game_id)).splitlines()[4:7])
['[White "Ada"]', '[Black "Grace"]', '[Result "0-1"]']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from board_driver.door.review import ReviewedPly, eval_comments, review_moves
from board_driver.service.store_errors import StoreDamagedError, damaged
from board_driver.service.store_records import StoredGame

if TYPE_CHECKING:
    import rules


def rebuild_game(stored: StoredGame) -> rules.Game:
    """The stored game as a :class:`rules.Game`, recorded endings included.

    :class:`StoreDamagedError` if a stored move is not legal where it stands, or the
    stored result does not fit the game.
    """
    import rules

    try:
        # A record replays even past a dead position (a server's game, or one stored
        # before the rules knew dead positions): see rules.Game.from_record.
        start = rules.Position.from_fen(stored.start_fen, variant=stored.variant)
        game = rules.Game.from_record(start, [move.uci for move in stored.moves])
    except ValueError as exc:
        raise _unplayable(stored, f"the stored moves do not replay ({exc})") from None
    if stored.termination and game.outcome() is None:
        try:
            if stored.termination == "resignation":
                # The loser resigned: the side that did not win.
                loser = rules.BLACK if stored.result == "1-0" else rules.WHITE
                game.resign(loser)
            elif stored.termination == "agreement":
                game.agree_draw()
            elif stored.termination in ("threefold_repetition", "fifty_moves"):
                game.claim_draw()
            elif stored.termination in ("timeout", "rules_infraction", "abandoned", "aborted"):
                # Decided outside the board (a clock, a server): the winner from the result.
                winner = {"1-0": rules.WHITE, "0-1": rules.BLACK}.get(stored.result)
                game.end(stored.termination, winner)
        except ValueError as exc:
            raise _unplayable(stored, f"the stored result does not fit ({exc})") from None
    return game


def game_pgn(
    stored: StoredGame, *, site: str = "magboard", review: list[ReviewedPly] | None = None
) -> str:
    """The game as PGN text, with the Seven Tag Roster (readable by python-chess) and the
    headers stored for it (:meth:`Store.set_headers`), which win over magboard's own; a
    game with a clock has its ``TimeControl`` and a ``[%clk h:mm:ss]`` after each move.

    ``review`` (:meth:`Store.review`): each reviewed move gets a ``[%eval ...]`` comment,
    and a marked one its glyph ($6 ?!, $2 ?, $4 ??) and the engine's better move."""
    game = rebuild_game(stored)
    comments: dict[int, str] = {}
    nags: dict[int, int] = {}
    if review:
        _start, moves = review_moves(stored.start_fen, stored.ucis, review, stored.variant)
        comments, nags = eval_comments(moves)
    clock_headers, clocks = _clock(stored, game)
    for ply, clk in clocks.items():  # the commands first, then the words
        comments[ply] = f"{clk} {comments[ply]}" if comments.get(ply) else clk
    date = stored.started[:10].replace("-", ".") if stored.started else "????.??.??"
    headers = {
        "Event": f"magboard game {stored.id}",
        "Site": site,
        "Date": date,
        "Round": "-",
        "White": "?",
        "Black": "?",
        "Result": stored.result,
    }
    headers.update(_legacy_engine_headers(stored.options))  # stores made before headers
    headers.update(clock_headers)
    headers.update(stored.headers)  # set for this game (by a page, an online server): they win
    headers["Result"] = stored.result
    if review and stored.data.get("review", {}).get("engine"):
        headers.setdefault("Annotator", stored.data["review"]["engine"])
    return game.pgn(headers, comments=comments, nags=nags)


def _clock(stored: StoredGame, game: rules.Game) -> tuple[dict[str, str], dict[int, str]]:
    """The PGN tags of the game's time control and each move's ``%clk`` comment (by ply),
    from its clock's stored changes (none for a game without a clock)."""
    from board_driver.clock.control import parse_time_control
    from board_driver.clock.keeper import Timekeeper
    from board_driver.clock.texts import clk_comments, pgn_headers

    try:
        control = parse_time_control(stored.options.get("clock", "none"))
    except ValueError:
        control = None  # not a control this magboard reads: the moves are still the game
    if control is None:
        return {}, {}
    keeper = Timekeeper.restored(control, stored.clock, game=game)
    return pgn_headers(control), clk_comments(keeper.clks)


def _unplayable(stored: StoredGame, what: str) -> StoreDamagedError:
    return damaged(stored.path or "the games database", f"game {stored.id}: {what}")


def _legacy_engine_headers(options: Mapping[str, str]) -> dict[str, str]:
    """PGN headers for an engine recorded the old way (``engine_side``, ``engine_name``...).

    >>> _legacy_engine_headers({"engine_side": "black", "engine_name": "Stockfish 15.1",
    ...                         "engine_level": "skill 3, depth 5", "engine_elo": "1500"})
    {'Black': 'Stockfish 15.1', 'BlackElo': '1500', 'BlackEngineLevel': 'skill 3, depth 5'}
    """
    side = options.get("engine_side", "none")
    if side not in ("white", "black"):
        return {}
    colour = side.capitalize()
    headers = {colour: options.get("engine_name", "?")}
    if options.get("engine_elo"):
        headers[f"{colour}Elo"] = options["engine_elo"]
    if options.get("engine_level"):
        headers[f"{colour}EngineLevel"] = options["engine_level"]
    return headers
