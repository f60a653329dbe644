"""The games the hall keeps: every board's records, as the broker hands them over.

Pure state, no I/O: :meth:`HallGames.take` is given each message (topic and payload), and
the round's PGN and the page's summaries are read from it. A record replaces the one
before it for the same board and game (the latest wins), so the broker's retained
messages, given again after a restart of the hall or of the broker, rebuild the same
state, and a message given twice changes nothing.

>>> from board_driver.connectors.broadcast.record import GameRecord
>>> hall = HallGames("hall", round="1")
>>> r = GameRecord(board=2, game=9, moves=("e4",), ucis=("e2e4",))
>>> hall.take("hall/board/2/game/9", r.to_json())
True
>>> print(hall.games_pgn("1").splitlines()[3])
[Round "1"]
>>> hall.take("hall/board/2/game/9", r.to_json())   # the same again: no change
False
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

from board_driver.connectors.broadcast.record import GameRecord
from board_driver.connectors.broadcast.topics import OFFLINE, ONLINE, Topics

log = logging.getLogger("magboard")


@dataclass(frozen=True)
class Change:
    """What one message changed: a board's status, or one of its games."""

    board: int
    game: int | None


class HallGames:
    """Every board's games and status, under one topic prefix; ``round`` is the hall's
    round, which a game with no Round of its own belongs to."""

    def __init__(self, prefix: str, *, round: str) -> None:
        self.topics = Topics(prefix)
        self.round = round
        self.records: dict[tuple[int, int], GameRecord] = {}
        self.status: dict[int, str] = {}
        #: Counts every change: a page or a pusher compares it with the one it last saw.
        self.version = 0
        self.last_change: Change | None = None
        #: The newest changes, ``(version, change)``, for pages that catch up.
        self.changes: deque[tuple[int, Change]] = deque(maxlen=1000)
        self._texts: dict[tuple[int, int], str] = {}
        self._pgn_cache: dict[str, tuple[int, str]] = {}  # round -> (version, games.pgn)
        self._bad: set[tuple[int, int | None]] = set()

    def take(self, topic: str, payload: bytes | bytearray | str) -> bool:
        """Take one message; True when it changed something (see :attr:`last_change`)."""
        parsed = self.topics.parse(topic)
        if parsed is None:
            return False
        if isinstance(payload, bytes | bytearray):
            text = bytes(payload).decode("utf-8", "replace")
        else:
            text = str(payload)
        if parsed.kind == "status":
            if text not in (ONLINE, OFFLINE) or self.status.get(parsed.board) == text:
                return False
            self.status[parsed.board] = text
            return self._changed(Change(parsed.board, None))
        if parsed.kind != "record" or parsed.game is None:
            return False
        key = (parsed.board, parsed.game)
        if not text:  # an empty retained message: the record was removed from the broker
            if self.records.pop(key, None) is None:
                return False
            self._texts.pop(key, None)
            return self._changed(Change(*key))
        if self._texts.get(key) == text:
            return False
        try:
            record = GameRecord.from_json(text)
            if (record.board, record.game) != key:
                raise ValueError(f"names board {record.board} game {record.game}")
        except ValueError as why:
            if key not in self._bad:  # once per game, not once per message
                self._bad.add(key)
                log.warning("hall: %s: the record cannot be used (%s); ignored", topic, why)
            return False
        self._texts[key] = text
        self.records[key] = record
        return self._changed(Change(*key))

    def _changed(self, change: Change) -> bool:
        self.version += 1
        self.last_change = change
        self.changes.append((self.version, change))
        return True

    def changed_since(self, version: int) -> list[Change] | None:
        """The changes after ``version``, each once; None when they are no longer all
        known (the caller reads the whole state)."""
        if version >= self.version:
            return []
        if not self.changes or self.changes[0][0] > version + 1:
            return None
        seen: dict[Change, None] = {}
        for number, change in self.changes:
            if number > version:
                seen[change] = None
        return list(seen)

    # ------------------------------------------------------------------ reading

    def round_of(self, record: GameRecord) -> str:
        return record.round or self.round

    def rounds(self) -> list[str]:
        """Every round a game is in, the hall's own first."""
        others = {self.round_of(r) for r in self.records.values()} - {self.round}
        return [self.round, *sorted(others, key=_natural)]

    def games(self, round: str | None = None) -> list[GameRecord]:
        """The round's games (the hall's round by default), by board, then game."""
        wanted = self.round if round is None else round
        return [
            self.records[key]
            for key in sorted(self.records)
            if self.round_of(self.records[key]) == wanted
        ]

    def game_pgn(self, record: GameRecord) -> str:
        return record.pgn({"Round": self.round_of(record)})

    def games_pgn(self, round: str | None = None) -> str:
        """Every game of the round as one PGN text (``Result "*"`` while a game goes on;
        the board's number in ``Board``): what ``round-N/games.pgn`` serves. Kept until
        the next change, for the pollers that ask many times between two moves."""
        wanted = self.round if round is None else round
        cached = self._pgn_cache.get(wanted)
        if cached is not None and cached[0] == self.version:
            return cached[1]
        text = "\n".join(self.game_pgn(record) for record in self.games(wanted))
        if len(self._pgn_cache) > 16:
            self._pgn_cache.clear()
        self._pgn_cache[wanted] = (self.version, text)
        return text

    def summary(self, record: GameRecord) -> dict[str, Any]:
        """One game as the page shows it."""
        tags = record.tags()
        return {
            "board": record.board,
            "game": record.game,
            "round": self.round_of(record),
            "status": self.status.get(record.board, OFFLINE),
            "white": tags["White"],
            "black": tags["Black"],
            "event": tags["Event"],
            "fen": record.fen,
            "last_move": record.ucis[-1] if record.ucis else None,
            "last_san": record.moves[-1] if record.moves else None,
            "plies": record.plies,
            "result": record.result,
            "termination": record.termination,
            # The board's clocks as they stood after the last move (None: no clock).
            "clocks": dict(record.clocks) if record.clocks is not None else None,
            "time_control": tags.get("TimeControl"),
        }

    def state(self, round: str | None = None) -> dict[str, Any]:
        """The page's whole state: the round, the rounds there are, and its games."""
        wanted = self.round if round is None else round
        return {
            "round": wanted,
            "rounds": self.rounds(),
            "version": self.version,
            "games": [self.summary(r) for r in self.games(wanted)],
            "boards": {str(b): s for b, s in sorted(self.status.items())},
        }


def _natural(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 30, name)
