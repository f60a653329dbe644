"""An online game as the server sees it: who plays, the clocks, the moves, the result.

Built from the Board API's game stream (``gameFull`` first, then ``gameState`` lines);
the moves are kept as the board names them (castling as the king's move, ``e1g1``, even
when the server writes it king-to-rook, ``e1h1``).

>>> full = {"type": "gameFull", "id": "5IrD6Gzz", "variant": {"key": "standard"},
...         "speed": "rapid", "rated": False, "createdAt": 1745112707998,
...         "white": {"id": "ann", "name": "Ann", "rating": 1751},
...         "black": {"id": "bob", "name": "Bob", "rating": 1021},
...         "initialFen": "startpos", "clock": {"initial": 600000, "increment": 5000},
...         "state": {"type": "gameState", "moves": "e2e4 e7e5", "wtime": 600000,
...                   "btime": 598000, "winc": 5000, "binc": 5000, "status": "started"}}
>>> game = OnlineGame.from_full(full, "ann")
>>> game.color, game.moves, game.clock_running
('white', ('e2e4', 'e7e5'), True)
>>> game.headers("https://lichess.org")["TimeControl"]
'600+5'
>>> game.ending() is None
True
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any

import rules

#: The variants the board plays (a game from a position is standard chess; a Chess960
#: game's castling is the king taking its rook, as Lichess writes it in every variant).
PLAYABLE_VARIANTS = ("standard", "fromPosition", "chess960")
#: How a finished game's status reads as the board's termination (None: the board finds
#: the ending itself from the moves: mate and stalemate).
ENDINGS: dict[str, str | None] = {
    "mate": None,
    "stalemate": None,
    "resign": "resignation",
    "draw": "agreement",
    "outoftime": "timeout",
    "timeout": "abandoned",  # the opponent left and the other side claimed the game
    "noStart": "abandoned",
    "cheat": "abandoned",
    "unknownFinish": "abandoned",
    "variantEnd": "abandoned",
    "insufficientMaterialClaim": "agreement",
    "aborted": "aborted",
}


def millis(value: Any) -> int:
    """A duration in ms, whether the client left it as a number or made it a timedelta."""
    if isinstance(value, dt.timedelta):
        return int(value.total_seconds() * 1000)
    return int(value or 0)


def epoch_ms(value: Any) -> int:
    if isinstance(value, dt.datetime):
        return int(value.timestamp() * 1000)
    return int(value or 0)


def board_moves(
    start_fen: str, moves: list[str] | tuple[str, ...], variant: str = "standard"
) -> tuple[str, ...]:
    """The server's moves as the board names them (in standard chess castling king to rook
    becomes the king's two-square move; in Chess960, ``variant="chess960"``, it stays the
    king taking its rook). ValueError if one is not legal (names which)."""
    position = rules.Position.from_fen(start_fen, variant=variant)
    out = []
    for ply, text in enumerate(moves, 1):
        move = _castling(position, text)
        if move is None:
            try:
                move = position.parse_uci(text)
            except ValueError as exc:
                raise ValueError(f"the server's move {ply} ({text}) is not legal: {exc}") from exc
        out.append(str(move))
        position = position.copy()
        position.push(move)
    return tuple(out)


def _castling(position: rules.Position, text: str) -> rules.Move | None:
    """The castling a king-to-own-rook text (``e1h1``) names, or None."""
    for move in position.legal_moves():
        if (
            move.is_castling
            and move.rook_from is not None
            and text[:4] == rules.square_name(move.from_square) + rules.square_name(move.rook_from)
        ):
            return move
    return None


@dataclass(frozen=True)
class Seat:
    """One side of an online game: a player (``name``, ``rating``, ``title``) or the AI."""

    name: str
    rating: int | None = None
    title: str | None = None
    ai_level: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        ai = data.get("aiLevel")
        if ai is not None:
            return cls(f"Stockfish level {ai}", ai_level=int(ai))
        return cls(
            str(data.get("name") or data.get("id") or "?"), data.get("rating"), data.get("title")
        )

    def json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rating": self.rating,
            "title": self.title,
            "ai_level": self.ai_level,
        }


@dataclass(frozen=True)
class OnlineGame:
    """The server's view of one Board API game, from our side (``color``)."""

    id: str
    color: str
    variant: str
    speed: str
    rated: bool
    start_fen: str
    white: Seat
    black: Seat
    initial_ms: int | None
    increment_ms: int
    days: int | None
    created_ms: int
    moves: tuple[str, ...] = ()
    wtime: int = 0
    btime: int = 0
    status: str = "started"
    winner: str | None = None
    draw_offer: str | None = None  # the side whose offer stands
    takeback_offer: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_full(
        cls, full: dict[str, Any], account_id: str, *, color: str | None = None
    ) -> OnlineGame:
        """From a ``gameFull`` line; ``account_id`` (or ``color``, when known before the
        account is) says which side is ours."""
        white, black = full.get("white", {}), full.get("black", {})
        if color in ("white", "black"):
            pass
        elif account_id and str(white.get("id", "")).lower() == account_id.lower():
            color = "white"
        elif account_id and str(black.get("id", "")).lower() == account_id.lower():
            color = "black"
        else:
            raise ValueError(f"{account_id or 'this account'} plays neither side")
        fen = full.get("initialFen") or "startpos"
        clock = full.get("clock") or None
        game = cls(
            id=str(full["id"]),
            color=color,
            variant=str((full.get("variant") or {}).get("key", "standard")),
            speed=str(full.get("speed", "")),
            rated=bool(full.get("rated")),
            start_fen=rules.STARTING_FEN if fen == "startpos" else fen,
            white=Seat.from_json(white),
            black=Seat.from_json(black),
            initial_ms=None if clock is None else millis(clock.get("initial")),
            increment_ms=0 if clock is None else millis(clock.get("increment")),
            days=full.get("daysPerTurn"),
            created_ms=epoch_ms(full.get("createdAt")),
        )
        return game.with_state(full.get("state") or {})

    def with_state(self, state: dict[str, Any]) -> OnlineGame:
        """The game after a ``gameState`` line."""
        text = str(state.get("moves") or "")
        moves = board_moves(self.start_fen, text.split(), self.rules) if self.playable else ()
        draw = "white" if state.get("wdraw") else "black" if state.get("bdraw") else None
        takeback = (
            "white" if state.get("wtakeback") else "black" if state.get("btakeback") else None
        )
        return replace(
            self,
            moves=moves,
            wtime=millis(state.get("wtime")),
            btime=millis(state.get("btime")),
            status=str(state.get("status", "started")),
            winner=state.get("winner"),
            draw_offer=draw,
            takeback_offer=takeback,
        )

    # ------------------------------------------------------------------ reading

    @property
    def playable(self) -> bool:
        return self.variant in PLAYABLE_VARIANTS

    @property
    def rules(self) -> str:
        """The rules the board plays it by: ``"chess960"`` or ``"standard"``."""
        return "chess960" if self.variant == "chess960" else "standard"

    @property
    def opponent_color(self) -> str:
        return "black" if self.color == "white" else "white"

    @property
    def opponent(self) -> Seat:
        return self.white if self.color == "black" else self.black

    @property
    def over(self) -> bool:
        return self.status not in ("created", "started")

    def turn(self) -> str:
        """The side to move on the server."""
        starts_white = self.start_fen.split()[1] == "w"
        white_to_move = (len(self.moves) % 2 == 0) == starts_white
        return "white" if white_to_move else "black"

    @property
    def clock_running(self) -> bool:
        """Lichess starts a clock once each side has made its first move."""
        return self.initial_ms is not None and not self.over and len(self.moves) >= 2

    def ending(self) -> tuple[str | None, str | None] | None:
        """``(termination, winner)`` once the game is over (termination None: mate or
        stalemate, which the board finds itself), else None."""
        if not self.over:
            return None
        return ENDINGS.get(self.status, "abandoned"), self.winner

    def time_control(self) -> str:
        """PGN's TimeControl: ``600+5``; ``-`` for correspondence (no clock)."""
        if self.initial_ms is None:
            return "-"
        return f"{self.initial_ms // 1000}+{self.increment_ms // 1000}"

    def pace(self) -> str:
        """The pace as Lichess shows it: ``10+5`` (minutes + seconds a move), ``3 days``
        (correspondence), ``unlimited``.

        >>> clock = {"initial": 600_000, "increment": 5_000}
        >>> game = OnlineGame.from_full({"id": "g", "white": {"id": "ann"}, "clock": clock}, "ann")
        >>> game.pace(), replace(game, initial_ms=30_000, increment_ms=0).pace()
        ('10+5', '0.5+0')
        >>> replace(game, initial_ms=None, days=3).pace()
        '3 days'
        """
        if self.initial_ms is not None:
            return f"{self.initial_ms / 60_000:g}+{self.increment_ms // 1000}"
        if self.days:
            return f"{self.days} day{'s' if self.days != 1 else ''}"
        return "unlimited"

    def headers(self, base_url: str) -> dict[str, str]:
        """The stored game's PGN headers (the Result is the board's, set at the end)."""
        when = dt.datetime.fromtimestamp(self.created_ms / 1000, dt.UTC)
        kind = "Rated" if self.rated else "Casual"
        speed = self.speed.capitalize() if self.speed else "Online"
        headers = {
            "Event": f"{kind} {speed.lower()} game",
            "Site": f"{base_url.rstrip('/')}/{self.id}",
            "Date": when.strftime("%Y.%m.%d"),
            "White": self.white.name,
            "Black": self.black.name,
            "TimeControl": self.time_control(),
            "UTCDate": when.strftime("%Y.%m.%d"),
            "UTCTime": when.strftime("%H:%M:%S"),
        }
        for colour, seat in (("White", self.white), ("Black", self.black)):
            if seat.rating is not None:
                headers[f"{colour}Elo"] = str(seat.rating)
            if seat.title:
                headers[f"{colour}Title"] = str(seat.title)
        return headers

    def clock_json(self, at_ms: int, now_ms: int | None = None) -> dict[str, Any] | None:
        """The clocks for the page: ms left as of ``at_ms`` (the daemon's clock, when the
        state arrived), which one runs, and the daemon's ``now``: the page counts the
        running one down from there."""
        if self.initial_ms is None:
            return None
        return {
            "white_ms": self.wtime,
            "black_ms": self.btime,
            "running": self.turn() if self.clock_running else None,
            "at": at_ms,
            "increment_ms": self.increment_ms,
            "now": now_ms if now_ms is not None else at_ms,
        }
