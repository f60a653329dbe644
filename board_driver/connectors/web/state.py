"""What the page shows, as one JSON-able snapshot of the board: game, sensors, lights.

Made from the door's :class:`~board_driver.door.Snapshot`. Squares are listed a1 = 0 ..
h8 = 63 throughout, as in scans and frames. ``pieces`` is the game's position (one letter
a square, ``.`` = empty); ``sensed`` is the board the switches report (after debouncing)
as 16 hex digits; ``leds`` is the steady frame the LEDs show (including a move's white
flash), with its blink mask.
"""

from __future__ import annotations

from typing import Any

from board_driver.arbiter.expected import describe_move
from board_driver.arbiter.words import side_name
from board_driver.clock.control import parse_time_control
from board_driver.door import Snapshot
from rules import STARTING_FEN, WHITE, Position

START_OCCUPANCY = Position.from_fen(STARTING_FEN).occupancy()


class PageState:
    """What the page remembers between snapshots that the board only announces: the
    engine's last failure, until it plays, gives a hint or is set anew; and the hall
    broadcast's link (``state`` and ``message`` of its last ``broadcast`` event)."""

    def __init__(self) -> None:
        self.engine_error: str | None = None
        self.broadcast: dict[str, str] | None = None

    def follow(self, events: list[dict]) -> None:
        for event in events:
            kind = event.get("type")
            if kind == "broadcast":
                self.broadcast = {"state": str(event.get("state", "")),
                                  "message": str(event.get("message", ""))}
            elif kind == "engine_error":
                self.engine_error = str(event.get("message", ""))
            elif kind in ("engine_move", "engine_changed", "hint", "new_game"):
                self.engine_error = None


def setup_target(snap: Snapshot) -> int:
    """The pieces the lights are asking for: the position being set up while a game waits
    for its pieces (the start position after a game, once pieces are moved), else the
    game's position."""
    committed = snap.position().occupancy()
    over = snap.result != "*"
    if snap.setup_pending and snap.setup is not None:
        return Position.from_fen(snap.setup["fen"], variant=snap.variant).occupancy()
    if snap.setup_pending or (over and snap.sensed != committed):
        return START_OCCUPANCY
    return committed


def _move_words(position: Position, uci: str) -> dict[str, Any]:
    """A move's details (as in ``engine_move`` events) and the moving piece's name."""
    move = position.parse_uci(uci)
    details = describe_move(position, move)
    piece = position.piece_at(move.from_square)
    details["piece"] = piece.symbol().lower() if piece is not None else None
    if move.captured_square is not None:
        victim = position.piece_at(move.captured_square)
        details["captured_piece"] = victim.symbol().lower() if victim is not None else None
    return details


def engine_pace(state: dict[str, Any], clock: dict[str, Any] | None) -> str:
    """What decides how long the engine thinks, in words: the game's clock when there is
    one (the engine plays on it: :meth:`EngineLevel.limit_with`), else its level's limit.

    >>> engine_pace({"depth": None, "movetime_ms": 1000}, None)
    '1 s a move'
    >>> engine_pace({"depth": 8, "movetime_ms": 1000}, {"state": "running", "control": "3+2"})
    'on its clock (3+2), depth 8 at most'
    """
    depth = state.get("depth")
    deep = f"depth {depth}" if depth else ""
    if clock is not None and clock.get("state") != "stopped":
        return f"on its clock ({clock.get('control')})" + (f", {deep} at most" if deep else "")
    movetime = state.get("movetime_ms")
    time = ""
    if movetime:
        seconds = movetime / 1000
        time = f"{seconds:g} s a move" if movetime % 100 == 0 else f"{movetime} ms a move"
    return " or ".join(part for part in (time, deep) if part) or "no limit"


def engine_snapshot(snap: Snapshot, page: PageState) -> dict[str, Any] | None:
    """The engine's side, level and what it is doing, for the page's *Opponent* part.

    ``status`` is ``none`` (no engine side), ``thinking``, ``to_play`` (its move waits to
    be played on the board: ``move`` says which), ``error`` (``error`` says why) or
    ``waiting`` (for the human's move). ``hint`` is a hint standing lit, with its words.
    ``pace`` says what decides how long it thinks (:func:`engine_pace`).
    """
    state = snap.player_states.get("engine")
    if state is None:
        return None
    state = dict(state)
    position = snap.position()
    engine_to_move = snap.players.get(snap.turn) == "engine"
    if state["side"] == "none":
        status = "none"
    elif state["thinking"]:
        status = "thinking"
    elif snap.expected is not None and engine_to_move:
        status = "to_play"
    elif page.engine_error:
        status = "error"
    else:
        status = "waiting"
    state.update(
        status=status,
        error=page.engine_error,
        expected=snap.expected,
        hint=snap.hint,
        move=_move_words(position, snap.expected) if snap.expected is not None else None,
        pace=engine_pace(state, dict(snap.clock) if snap.clock is not None else None),
    )
    state["hint"] = _move_words(position, snap.hint) if snap.hint is not None else None
    return state


def clock_view(snap: Snapshot) -> dict[str, Any] | None:
    """The clock as the page shows it: the game's, or, while a new game waits for its
    pieces, the coming game's (its control's full times, ``waiting``, ``reason`` "setup"),
    not the last game's stopped clock."""
    clock = dict(snap.clock) if snap.clock is not None else None
    if not snap.setup_pending:
        return clock
    control = parse_time_control(str(snap.options.get("clock", "none")))
    if control is None:
        return None
    full = control.initial_ms
    # The coming game's side to move: a position set up from a FEN may have Black to move.
    coming_turn = WHITE  # the start position's, when no position is given
    if snap.setup is not None:
        coming_turn = Position.from_fen(snap.setup["fen"], variant=snap.variant).turn
    coming = {
        "control": control.name(),
        "pgn": control.pgn(),
        "describe": control.describe(),
        "mode": control.mode,
        "switch": snap.options.get("clock_switch", "board"),
        "illegal_move": snap.options.get("illegal_move", "guide"),
        "illegal": {"white": 0, "black": 0},
        "white_ms": full,
        "black_ms": full,
        "turn": side_name(coming_turn),
        "state": "waiting",
        "reason": "setup",
        "delay_ms": 0,
        "clks": [],
    }
    return {**(clock or {}), **coming}


def snapshot(snap: Snapshot, page: PageState) -> dict[str, Any]:
    """The page's whole state, for ``/api/state`` and every WebSocket update."""
    position = snap.position()
    pieces = "".join(
        p.symbol() if (p := position.piece_at(sq)) is not None else "." for sq in range(64)
    )
    playing = snap.result == "*" and not snap.setup_pending
    last_promoted = bool(snap.ucis) and len(snap.ucis[-1]) == 5
    can_promote = playing and (
        any(m.promotion is not None for m in position.legal_moves()) or last_promoted
    )
    start = Position.from_fen(snap.start_fen, variant=snap.variant)
    sim = snap.sim_pieces
    options = dict(snap.options)
    frame = snap.lights
    return {
        "board_state": snap.board_state,
        "game_id": snap.game_id,
        "start_fen": snap.start_fen,
        "variant": snap.variant,
        "chess960": snap.chess960,
        "first_move": start.fullmove_number,
        "first_side": "white" if start.turn else "black",
        "fen": snap.fen,
        "turn": snap.turn,
        "moves": list(snap.moves),
        # The last move's squares (UCI: from, to; a king's castling is its own two), lit
        # on the page as on Lichess.
        "last_move": [snap.ucis[-1][:2], snap.ucis[-1][2:4]] if snap.ucis else None,
        "check": snap.check,
        "result": snap.result,
        "termination": snap.termination,
        "winner": snap.winner,
        "in_sync": snap.in_sync,
        "setup_pending": snap.setup_pending,
        "draw_offer": snap.draw_offer,
        "pieces": pieces,
        "sensed": f"{snap.sensed:016x}",
        "target": f"{setup_target(snap):016x}",
        # While a position is set up: the squares whose piece the board knows is the wrong
        # one (full as they should be, so apart from sensed and target), to put right too.
        "setup_wrong": [w["square"] for w in (snap.setup or {}).get("wrong", ())]
        if snap.setup_pending
        else [],
        "leds": {"colours": "".join(frame.colours), "blink": f"{frame.blink:016x}"},
        "options": options,
        "players": dict(snap.players),
        "player_states": {name: dict(state) for name, state in snap.player_states.items()},
        "online": snap.online,
        "headers": dict(snap.headers),
        "sim": sim is not None,
        "sim_pieces": f"{sim:016x}" if sim is not None else None,
        "can_promote": can_promote,
        # What the lights ask, in the tracker's words, when the door gives them (a castling
        # rook still to move, an en-passant victim to lift, why a position is illegal).
        "asks": list(snap.asks),
        # After a restart, the readings of the pieces the board cannot choose between: the
        # page offers each (POST /api/answer {"reading": i}).
        "question": list(snap.question),
        # What the board says about its own files (a journal it could not replay, set aside).
        "notices": list(snap.notices),
        "engine": engine_snapshot(snap, page),
        # The board's chess clock (None without one): the page counts the running one
        # down from ``at``, when the snapshot was read.
        "clock": clock_view(snap),
        # The hall broadcast's link, when [broadcast] is on and has said something.
        "broadcast": page.broadcast,
        "can_take_back": bool(
            sim is not None and options["takeback"] and snap.moves and snap.in_sync and playing
        ),
    }
