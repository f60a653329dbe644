"""What the fake Lichess holds: accounts, challenges and games, and their JSON forms.

Written from the official API description (``lichess-org/api``: ``doc/specs``), schema
by schema: ``GameEventInfo`` (event stream), ``GameFullEvent`` / ``GameStateEvent``
(board game stream), ``ChallengeJson``, ``UserExtended`` (account). python-chess (a test
dependency) judges the moves, independently of the product's own rules core.

Clocks run in real time, as on the server: a side's clock starts once both sides have
made their first move, and the time a side took is taken off when it moves (plus the
increment). A clock that reaches zero ends the game (``outoftime``).
"""

from __future__ import annotations

import secrets
import string
import time
from dataclasses import dataclass, field
from typing import Any

import chess

STARTPOS = chess.STARTING_FEN
ALPHABET = string.ascii_letters + string.digits
VARIANT_NAMES = {
    "standard": ("Standard", "Std"),
    "chess960": ("Chess960", "960"),
    "fromPosition": ("From Position", "FEN"),
    "crazyhouse": ("Crazyhouse", "ZH"),
    "atomic": ("Atomic", "Atom"),
}
#: The statuses' ids (GameStatusId.yaml, in the order of GameStatusName.yaml).
STATUS_IDS = {
    "created": 10,
    "started": 20,
    "aborted": 25,
    "mate": 30,
    "resign": 31,
    "stalemate": 32,
    "timeout": 33,
    "draw": 34,
    "outoftime": 35,
    "cheat": 36,
    "noStart": 37,
    "unknownFinish": 38,
    "variantEnd": 60,
}


def new_id(length: int = 8) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def now_ms() -> int:
    return int(time.time() * 1000)


def speed_of(limit_s: int | None, increment_s: int | None, days: int | None) -> str:
    """Lichess's speed from the estimated duration (limit + 40 x increment)."""
    if limit_s is None:
        return "correspondence"
    total = limit_s + 40 * (increment_s or 0)
    if total < 30:
        return "ultraBullet"
    if total < 180:
        return "bullet"
    if total < 480:
        return "blitz"
    if total < 1500:
        return "rapid"
    return "classical"


@dataclass
class Account:
    username: str
    rating: int = 1500
    title: str | None = None
    #: Challenges from others: accepted at once, declined, or left waiting (None).
    answers_challenges: str | None = None  # "accept" | "decline" | None

    @property
    def id(self) -> str:
        return self.username.lower()

    def light(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.username, "rating": self.rating, "title": self.title}

    def profile(self) -> dict[str, Any]:
        perf = {"games": 10, "rating": self.rating, "rd": 60, "prog": 0}
        return {
            "id": self.id,
            "username": self.username,
            "perfs": {s: dict(perf) for s in ("blitz", "rapid", "classical", "correspondence")},
            "createdAt": 1_700_000_000_000,
            "seenAt": now_ms(),
            "url": f"https://lichess.org/@/{self.username}",
            "playTime": {"total": 0, "tv": 0},
            "count": {"all": 10, "rated": 5, "draw": 1, "loss": 4, "win": 5, "playing": 0},
        }


@dataclass
class AiPlayer:
    level: int

    @property
    def id(self) -> None:
        return None

    @property
    def username(self) -> str:
        return f"Stockfish level {self.level}"


Player = Account | AiPlayer


@dataclass
class Challenge:
    id: str
    challenger: Account
    dest: Account
    rated: bool
    limit_s: int | None
    increment_s: int | None
    days: int | None
    color: str  # white | black | random (the challenger's)
    variant: str = "standard"
    fen: str | None = None
    status: str = "created"
    decline_reason: str | None = None

    def time_control(self) -> dict[str, Any]:
        if self.limit_s is not None:
            inc = self.increment_s or 0
            minutes = self.limit_s / 60
            shown = f"{minutes:g}+{inc}"
            return {"type": "clock", "limit": self.limit_s, "increment": inc, "show": shown}
        if self.days is not None:
            return {"type": "correspondence", "daysPerTurn": self.days}
        return {"type": "unlimited"}

    def json(self, viewer: Account) -> dict[str, Any]:
        speed = speed_of(self.limit_s, self.increment_s, self.days)
        name, short = VARIANT_NAMES.get(self.variant, (self.variant, self.variant))
        out = {
            "id": self.id,
            "url": f"https://lichess.org/{self.id}",
            "status": self.status,
            "challenger": self.challenger.light(),
            "destUser": self.dest.light(),
            "variant": {"key": self.variant, "name": name, "short": short},
            "rated": self.rated,
            "speed": speed,
            "timeControl": self.time_control(),
            "color": self.color,
            "perf": {"icon": "", "name": speed.capitalize()},
            "direction": "out" if viewer is self.challenger else "in",
        }
        if self.fen:
            out["initialFen"] = self.fen
        if self.decline_reason:
            out["declineReason"] = "I'm not accepting challenges at the moment."
            out["declineReasonKey"] = self.decline_reason
        return out


@dataclass
class FakeGame:
    """One game on the fake server."""

    id: str
    white: Player
    black: Player
    rated: bool
    limit_ms: int | None
    increment_ms: int
    days: int | None
    source: str
    variant: str = "standard"
    initial_fen: str | None = None
    castling: str = "king_to_rook"  # how `moves` writes castling (see GameStateEvent)
    board: chess.Board = field(init=False)
    wtime: int = 0
    btime: int = 0
    turn_since: float | None = None  # monotonic time the running clock started
    status: str = "started"
    winner: str | None = None
    draw_offer: str | None = None
    takeback_offer: str | None = None
    created_at: int = field(default_factory=now_ms)
    full_ids: dict[str, str] = field(default_factory=dict)
    ucis: list[str] = field(default_factory=list)
    takebacks_allowed: bool = True

    def __post_init__(self) -> None:
        if self.variant == "chess960":
            # Lichess draws the start position unless one is given (X-FEN, as it answers).
            if self.initial_fen is None:
                start = chess.Board.from_chess960_pos(secrets.randbelow(960))
                self.initial_fen = start.fen()
            self.board = chess.Board(self.initial_fen, chess960=True)
        else:
            self.board = chess.Board(self.initial_fen or STARTPOS)
        if self.limit_ms is None:
            self.wtime = self.btime = 2_147_483_647  # correspondence: no clock
        else:
            self.wtime = self.btime = self.limit_ms
        for color in ("white", "black"):
            self.full_ids[color] = self.id + new_id(4)

    # ------------------------------------------------------------------ views

    @property
    def over(self) -> bool:
        return self.status not in ("created", "started")

    @property
    def speed(self) -> str:
        limit = None if self.limit_ms is None else self.limit_ms // 1000
        return speed_of(limit, self.increment_ms // 1000, self.days)

    def turn(self) -> str:
        return "white" if self.board.turn else "black"

    def player(self, color: str) -> Player:
        return self.white if color == "white" else self.black

    def color_of(self, account: Account) -> str | None:
        if self.white is account:
            return "white"
        if self.black is account:
            return "black"
        return None

    def clock_running(self) -> bool:
        return self.limit_ms is not None and not self.over and len(self.board.move_stack) >= 2

    def time_left(self, color: str, at: float | None = None) -> int:
        """ms left on ``color``'s clock now (its running time taken off)."""
        left = self.wtime if color == "white" else self.btime
        if self.clock_running() and self.turn() == color and self.turn_since is not None:
            left -= int(((at or time.monotonic()) - self.turn_since) * 1000)
        return max(0, left)

    def moves_text(self) -> str:
        return " ".join(self.ucis)

    def state(self) -> dict[str, Any]:
        """A ``GameStateEvent``: clocks as of the last move (the running side's too)."""
        out: dict[str, Any] = {
            "type": "gameState",
            "moves": self.moves_text(),
            "wtime": self.wtime,
            "btime": self.btime,
            "winc": self.increment_ms,
            "binc": self.increment_ms,
            "status": self.status,
        }
        if self.winner:
            out["winner"] = self.winner
        if self.draw_offer:
            out["wdraw" if self.draw_offer == "white" else "bdraw"] = True
        if self.takeback_offer:
            out["wtakeback" if self.takeback_offer == "white" else "btakeback"] = True
        return out

    def _event_player(self, player: Player) -> dict[str, Any]:
        if isinstance(player, AiPlayer):
            return {"aiLevel": player.level, "id": "", "name": player.username}
        return {
            "id": player.id,
            "name": player.username,
            "title": player.title,
            "rating": player.rating,
        }

    def full(self) -> dict[str, Any]:
        """A ``GameFullEvent``."""
        name, short = VARIANT_NAMES.get(self.variant, (self.variant, self.variant))
        out: dict[str, Any] = {
            "type": "gameFull",
            "id": self.id,
            "variant": {"key": self.variant, "name": name, "short": short},
            "speed": self.speed,
            "perf": {"name": self.speed.capitalize()},
            "rated": self.rated,
            "createdAt": self.created_at,
            "white": self._event_player(self.white),
            "black": self._event_player(self.black),
            "initialFen": self.initial_fen or "startpos",
            "state": self.state(),
        }
        if self.limit_ms is not None:
            out["clock"] = {"initial": self.limit_ms, "increment": self.increment_ms}
        if self.days is not None:
            out["daysPerTurn"] = self.days
        return out

    def event_info(self, account: Account) -> dict[str, Any]:
        """A ``GameEventInfo`` as ``account`` sees it (event stream, ongoing games)."""
        color = self.color_of(account)
        assert color is not None
        other = self.black if color == "white" else self.white
        if isinstance(other, AiPlayer):
            opponent: dict[str, Any] = {"id": None, "username": other.username, "ai": other.level}
        else:
            opponent = {"id": other.id, "username": other.username, "rating": other.rating}
        name, _short = VARIANT_NAMES.get(self.variant, (self.variant, self.variant))
        out: dict[str, Any] = {
            "fullId": self.full_ids[color],
            "gameId": self.id,
            "fen": self.board.fen(),
            "color": color,
            "lastMove": self.ucis[-1] if self.ucis else "",
            "source": self.source,
            "status": {"id": STATUS_IDS[self.status], "name": self.status},
            "variant": {"key": self.variant, "name": name},
            "speed": self.speed,
            "perf": self.speed,
            "rated": self.rated,
            "hasMoved": any(
                (i % 2 == 0) == (color == ("white" if self._starts_white() else "black"))
                for i in range(len(self.ucis))
            ),
            "opponent": opponent,
            "isMyTurn": not self.over and self.turn() == color,
            "compat": {"bot": False, "board": self.speed not in ("bullet", "ultraBullet")},
            "id": self.id,
        }
        if self.limit_ms is not None:
            out["secondsLeft"] = self.time_left(color) // 1000
        if isinstance(account, Account):
            out["rating"] = account.rating
        if self.winner:
            out["winner"] = self.winner
        return out

    def _starts_white(self) -> bool:
        return chess.Board(self.initial_fen or STARTPOS).turn == chess.WHITE

    # ------------------------------------------------------------------ changes

    def parse_move(self, uci: str) -> chess.Move:
        """The legal move ``uci`` names (e1g1 and e1h1 both castle): ValueError if none."""
        try:
            move = self.board.parse_uci(uci)
        except ValueError as exc:
            raise ValueError(f"Piece on {uci[:2]} cannot move to {uci[2:4]}") from exc
        return move

    def play(self, move: chess.Move) -> None:
        """Push ``move`` for the side to move, with the clocks and the automatic endings."""
        mover = self.turn()
        now = time.monotonic()
        if self.clock_running():
            left = self.time_left(mover, now) + self.increment_ms
            if mover == "white":
                self.wtime = left
            else:
                self.btime = left
        chess960 = self.castling == "king_to_rook" or self.variant == "chess960"
        text = self.board.uci(move, chess960=chess960)
        self.board.push(move)
        self.ucis.append(text)
        self.turn_since = now
        if self.draw_offer and self.draw_offer != mover:
            self.draw_offer = None  # a move declines the opponent's offer
        self.takeback_offer = None
        outcome = self.board.outcome(claim_draw=False)
        if outcome is not None:
            if outcome.termination == chess.Termination.CHECKMATE:
                self.finish("mate", mover)
            elif outcome.termination == chess.Termination.STALEMATE:
                self.finish("stalemate", None)
            else:
                self.finish("draw", None)

    def take_back(self, plies: int) -> None:
        for _ in range(plies):
            self.board.pop()
            self.ucis.pop()
        self.turn_since = time.monotonic()
        self.takeback_offer = None
        self.draw_offer = None

    def finish(self, status: str, winner: str | None) -> None:
        if self.clock_running() and self.turn_since is not None:
            mover = self.turn()
            left = self.time_left(mover)
            if mover == "white":
                self.wtime = left
            else:
                self.btime = left
        self.status = status
        self.winner = winner
        self.draw_offer = self.takeback_offer = None
