"""What the store hands out: a stored game with its moves, corrections and clock, and a
game's summary in the list of games.

They are plain frozen records, read from the store by :mod:`board_driver.service.store`
and turned into chess and PGN by :mod:`board_driver.service.store_pgn`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from board_driver.clock.keeper import ClockEntry


@dataclass(frozen=True)
class StoredMove:
    ply: int  # 1 = White's first move
    uci: str
    san: str
    t: str


@dataclass(frozen=True)
class Correction:
    ply: int
    kind: str  # "takeback" | "amend"
    old_uci: str | None
    new_uci: str | None
    t: str


@dataclass(frozen=True)
class StoredGame:
    id: int
    started: str
    start_fen: str
    options: dict[str, str] = field(default_factory=dict)
    moves: list[StoredMove] = field(default_factory=list)
    result: str = "*"
    termination: str | None = None
    finished: str | None = None
    corrections: list[Correction] = field(default_factory=list)
    #: PGN headers set for the game (see :meth:`Store.set_headers`).
    headers: dict[str, str] = field(default_factory=dict)
    #: What each extension keeps with the game, by extension name.
    data: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The file it was read from (for messages).
    path: str = ""
    #: Every change of its clock, in order (empty for a game without one).
    clock: list[ClockEntry] = field(default_factory=list)

    @property
    def ucis(self) -> list[str]:
        return [m.uci for m in self.moves]

    @property
    def variant(self) -> str:
        """The rules it is played by: ``"standard"`` or ``"chess960"`` (kept among its
        options; a game stored without one is standard chess)."""
        return self.options.get("variant", "standard")

    @property
    def over(self) -> bool:
        """The game has a result (a take-back past its end reopens it)."""
        return self.result != "*"


@dataclass(frozen=True)
class GameSummary:
    id: int
    started: str
    plies: int
    result: str
    termination: str | None

    @property
    def over(self) -> bool:
        return self.result != "*"
