"""What the page shows, as one JSON-able snapshot of the daemon: game, sensors, lights.

Squares are listed a1 = 0 .. h8 = 63 throughout, as in scans and frames. ``pieces`` is the
game's position (one letter a square, ``.`` = empty); ``sensed`` is the board the
switches report (after debouncing) as 16 hex digits; ``leds`` is the steady frame the
LEDs show (including a move's white flash), with its blink mask.
"""

from __future__ import annotations

from typing import Any

from board_driver.arbiter.tracker import START_OCCUPANCY


class PageState:
    """What the page remembers between snapshots: what the tracker only announces.

    A standing draw offer and a new game waiting for its pieces are events, not
    queryable state; they are followed here from the events the daemon announces.
    """

    def __init__(self) -> None:
        self.draw_offer: str | None = None
        self.setup_pending = False
        #: The engine's last failure, until it plays, gives a hint or is set anew.
        self.engine_error: str | None = None

    def follow(self, events: list[dict]) -> None:
        for event in events:
            kind = event.get("type")
            if kind == "draw_offer":
                self.draw_offer = event.get("side")
            elif kind == "move" and self.draw_offer and event.get("side") != self.draw_offer:
                self.draw_offer = None  # the other side played instead of accepting
            elif kind in ("takeback", "game_over", "new_game", "new_game_pending"):
                self.draw_offer = None
            if kind == "engine_error":
                self.engine_error = str(event.get("message", ""))
            elif kind in ("engine_move", "engine_changed", "hint", "new_game"):
                self.engine_error = None
            if kind == "new_game_pending":
                self.setup_pending = True
            elif kind == "new_game":
                self.setup_pending = False


def _board_state(frame: Any) -> str:
    """``ok``, or the daemon's own state its edge lights show: ``starting``, ``link_lost``
    (the serial bridge) or ``fault`` (the board cannot be read)."""
    from board_driver.service.daemon import FAULT_FRAME, LINK_LOST_FRAME, STARTING_FRAME

    for name, pattern in (
        ("fault", FAULT_FRAME),
        ("link_lost", LINK_LOST_FRAME),
        ("starting", STARTING_FRAME),
    ):
        if frame == pattern:
            return name
    return "ok"


def _side(color: bool) -> str:
    return "white" if color else "black"


def setup_target(daemon: Any, page: PageState) -> int:
    """The pieces the lights are asking for: the start position while a new game waits
    for its pieces (or after a game, once pieces are moved), else the game's position."""
    tracker = daemon.tracker
    position = tracker.game.position
    committed = position.occupancy()
    over = tracker.game.outcome() is not None
    if page.setup_pending or (over and tracker.board != committed):
        return START_OCCUPANCY
    return committed


def _move_words(position: Any, move: Any) -> dict[str, Any]:
    """A move's details (as in ``engine_move`` events) and the moving piece's name."""
    from board_driver.arbiter.expected import describe_move

    details = describe_move(position, move)
    piece = position.piece_at(move.from_square)
    details["piece"] = piece.symbol().lower() if piece is not None else None
    if move.captured_square is not None:
        victim = position.piece_at(move.captured_square)
        details["captured_piece"] = victim.symbol().lower() if victim is not None else None
    return details


def engine_snapshot(daemon: Any, page: PageState) -> dict[str, Any] | None:
    """The engine's side, level and what it is doing, for the page's *Opponent* part.

    ``status`` is ``none`` (no engine side), ``thinking``, ``to_play`` (its move waits to
    be played on the board: ``move`` says which), ``error`` (``error`` says why) or
    ``waiting`` (for the human's move). ``hint`` is a hint standing lit, with its words.
    """
    if getattr(daemon, "engine", None) is None:
        return None
    tracker = daemon.tracker
    position = tracker.game.position
    state = daemon.engine_state()
    expected, hint = tracker.expected, tracker.hint
    if state["side"] == "none":
        status = "none"
    elif state["thinking"]:
        status = "thinking"
    elif expected is not None:
        status = "to_play"
    elif page.engine_error:
        status = "error"
    else:
        status = "waiting"
    state.update(
        status=status,
        error=page.engine_error,
        move=_move_words(position, expected) if expected is not None else None,
        hint=_move_words(position, hint) if hint is not None else None,
    )
    return state


def snapshot(daemon: Any, page: PageState) -> dict[str, Any]:
    """The page's whole state, for ``/api/state`` and every WebSocket update."""
    tracker = daemon.tracker
    game = tracker.game
    position = game.position
    outcome = game.outcome()
    frame = daemon.current_frame()
    pieces = "".join(
        p.symbol() if (p := position.piece_at(sq)) is not None else "." for sq in range(64)
    )
    options = tracker.options
    moves = game.san_moves()
    sim = daemon.hw.sim_board
    playing = outcome is None and not page.setup_pending
    last = game.moves[-1] if game.moves else None
    can_promote = playing and (
        any(m.promotion is not None for m in position.legal_moves())
        or (last is not None and last.promotion is not None)
    )
    return {
        "board_state": _board_state(frame),
        "game_id": daemon.game_id,
        "start_fen": game.start.fen(),
        "first_move": game.start.fullmove_number,
        "first_side": _side(game.start.turn),
        "fen": position.fen(),
        "turn": _side(position.turn),
        "moves": moves,
        "check": outcome is None and position.is_check(),
        "result": outcome.result() if outcome else "*",
        "termination": outcome.termination if outcome else None,
        "winner": None if outcome is None or outcome.winner is None else _side(outcome.winner),
        "in_sync": bool(tracker.in_sync),
        "setup_pending": page.setup_pending,
        "draw_offer": page.draw_offer,
        "pieces": pieces,
        "sensed": f"{tracker.board:016x}",
        "target": f"{setup_target(daemon, page):016x}",
        "leds": {"colours": "".join(frame.colours), "blink": f"{frame.blink:016x}"},
        "options": {
            "touch_move": options.touch_move,
            "takeback": options.takeback,
            "hints": options.hints,
        },
        "sim": sim is not None,
        "sim_pieces": f"{sim.pieces:016x}" if sim is not None else None,
        "can_promote": can_promote,
        "engine": engine_snapshot(daemon, page),
        "can_take_back": bool(
            sim is not None and options.takeback and moves and tracker.in_sync and playing
        ),
    }
