"""The game events the tracker announces: each type named here once, and built here.

Game events are JSON-able dicts with ``t`` (ms) and ``type``:

==================== ================================================================
``move``             ``san uci fen from to side ply released`` (+ ``captured``,
                     ``rook_from`` ``rook_to``, ``en_passant``, ``promotion``;
                     ``replaces``: the SAN of the move it takes the place of: a rook
                     move that became castling, a move committed early that the hands
                     since show was not made). ``released``: when the hand let go of
                     the move's last piece (ms; ``t`` is when it was judged); with a
                     clock, ``clk``: the mover's time left after it (ms)
``check``            ``side`` (in check), ``king``, ``checkers`` (square names)
``game_over``        ``result termination winner`` (``winner`` null for a draw)
``game_resumed``     ``fen``: a late promotion choice undid an automatic ending
``illegal``          ``empty fill`` (square names, against the last position),
                     ``reason`` (``no_legal_move`` | ``touch_move``, then ``san`` of the
                     move refused, ``square`` owed a move, ``touched``); ``why``: the
                     reason in words, each reason once while the board is out of sync
``restored``         ``fen``: the board is back in sync (as it was, or on the way to a move)
``touch_move``       ``square mode played``: a move accepted against touch-move (warn)
``takeback``         ``san uci side fen``: the move undone, the position now
``promotion_amended`` like ``move``, with ``replaces``
``adjust``           ``side``: j'adoube announced
``draw_offer``       ``side``
``claim_refused``    ``reason``
``refused``          ``button reason``: a control that does not apply now
``clock_button``     ``button``: a clock button pressed (``clock``, ``clock_white``,
                     ``clock_black``, ``pause``), after the board was judged
``new_game_pending`` ``missing extra``: squares to fill and empty for the start position
``setup``            a position set up kind by kind (after ``new_game_pending``, or a
                     game begun on pieces standing elsewhere), said when what the lights
                     ask changes: ``fen``, ``number`` of ``groups`` (the group due, 0 once
                     all stand), ``group`` (``side piece squares missing unchecked``),
                     ``extra`` (squares to empty), ``wrong`` (``square holds wants``: the
                     board knows another piece stands there), ``early`` (``square side
                     piece``: filled before its kind was due)
``setup_early``      ``square side piece due``: a square filled before its kind was due
                     (``due``: the group lit then); the board cannot tell what stands there
``setup_done``       ``fen unchecked``: the position stands; ``unchecked`` lists the
                     squares (``square side piece``) whose piece the board cannot tell
``new_game``         ``fen``
``hint_requested``   (for an engine, when one plays)
``ask``              ``what``: a question asked with a button (``move``, ``moves``,
                     ``clocks``, ``material``, ``square``, ``rank``, ``file``: see
                     :data:`board_driver.physical.events.ASK_BUTTONS`), for the speech extension
==================== ================================================================

>>> from rules import Game
>>> game = Game()
>>> move = game.push_san("e4")
>>> event = move_event(game, 300, "move", move, "e4", True)
>>> event["type"], event["san"], event["side"], event["ply"]
('move', 'e4', 'white', 1)
"""

from __future__ import annotations

from typing import Any

from board_driver.arbiter.expected import move_details
from board_driver.arbiter.words import side_name
from board_driver.physical.squares import square_name, squares_of
from rules import Color, Game, Move, Outcome

Event = dict[str, Any]


def square_names(mask: int) -> list[str]:
    """The names of the squares set in ``mask``, a1 first."""
    return [square_name(sq) for sq in squares_of(mask)]


def move_event(
    game: Game,
    t: int,
    kind: str,
    move: Move,
    san: str,
    mover: Color,
    released: int | None = None,
) -> Event:
    """A ``move`` (or ``promotion_amended``) event for ``move``, just pushed onto ``game``;
    ``released``: when the hand let go of its last piece (a ``move``'s, ``t`` if unknown)."""
    event = {
        "t": t,
        "type": kind,
        **move_details(move, san, mover),
        "fen": game.position.fen(),
        "ply": len(game.moves),
    }
    if kind == "move":
        event["released"] = t if released is None else released
    return event


def check_event(game: Game, t: int) -> Event | None:
    """A ``check`` event when the side to move in ``game`` is in check, else None."""
    position = game.position
    if not position.is_check():
        return None
    return {
        "t": t,
        "type": "check",
        "side": side_name(position.turn),
        "king": square_name(position.king_square(position.turn)),
        "checkers": [square_name(sq) for sq in position.checkers()],
    }


def pushed_events(game: Game, moves: list[Move], t: int) -> list[Event]:
    """Push ``moves`` onto ``game`` (moves read from the pieces, not made before the
    tracker): the ``move`` event of each, and a ``check`` where one gives check."""
    events: list[Event] = []
    for move in moves:
        position = game.position
        san, mover = position.san(move), position.turn
        game.push(move)
        events.append(move_event(game, t, "move", move, san, mover))
        check = check_event(game, t)
        if check is not None:
            events.append(check)
    return events


def game_over_event(t: int, outcome: Outcome) -> Event:
    """A ``game_over`` event: the result, how it ended, and the winner (None: a draw)."""
    winner = None if outcome.winner is None else side_name(outcome.winner)
    return {
        "t": t,
        "type": "game_over",
        "result": outcome.result(),
        "termination": outcome.termination,
        "winner": winner,
    }


def takeback_event(game: Game, t: int, move: Move, san: str) -> Event:
    """A ``takeback`` event for ``move``, just popped from ``game``."""
    return {
        "t": t,
        "type": "takeback",
        "san": san,
        "uci": str(move),
        "side": side_name(game.position.turn),
        "fen": game.position.fen(),
    }


def touch_move_event(t: int, mode: str, square: int, played: str) -> Event:
    """A ``touch_move`` event: ``played`` was accepted though ``square`` was touched first."""
    return {
        "t": t,
        "type": "touch_move",
        "mode": mode,
        "square": square_name(square),
        "played": played,
    }
