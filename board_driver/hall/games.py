"""The games the hall keeps: every board's records, as the broker hands them over.

Pure state, no I/O: :meth:`HallGames.take` is given each message (topic and payload), and
the round's PGN and the page's summaries are read from it.

**The newest wins.** A record names its game (the board's stored game number) and its
revision, which the board makes larger with every change. Of a board's game the hall keeps
the record of the highest revision it has seen and ignores an older one, whatever order the
broker hands them in: retained messages restored by a broker from an older save, a board
restarted from its store, two copies in flight. So the broker's retained messages, given
again after a restart of the hall or of the broker, rebuild the same state, a message given
twice changes nothing, and no game ever goes back to fewer moves (but by a take-back, which
is a newer revision) or from its result back to ``*``. A board's newest game is the one with
the highest number: an older game of that board with no move (a game left before its first
move, which the board removed from the broker) is not shown.

**Nothing is trusted.** A record longer than a record can be, or nested deeper, or with a
field out of shape, or whose moves ``rules`` does not find legal from its start position,
is dropped and named once in the log; its board is shown as having bad data, and every
other board goes on. See :meth:`GameRecord.from_json` and :mod:`.legal`.

>>> from board_driver.connectors.broadcast.record import GameRecord
>>> after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
>>> hall = HallGames("hall", round="1")
>>> r = GameRecord(board=2, game=9, revision=5, moves=("e4",), ucis=("e2e4",), fen=after_e4)
>>> hall.take("hall/board/2/game/9", r.to_json())
True
>>> print(hall.games_pgn("1").splitlines()[3])
[Round "1"]
>>> hall.take("hall/board/2/game/9", r.to_json())   # the same again: no change
False
>>> older = GameRecord(board=2, game=9, revision=4)    # an older save of the broker's
>>> hall.take("hall/board/2/game/9", older.to_json()), hall.games()[0].plies
(False, 1)
"""

from __future__ import annotations

import hashlib
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

from board_driver.connectors.broadcast.record import MAX_RECORD_BYTES, GameRecord
from board_driver.connectors.broadcast.topics import OFFLINE, ONLINE, Topics
from board_driver.hall.legal import LegalGames

log = logging.getLogger("magboard")

#: The most games the hall keeps of one board (its newest): a board's account cannot
#: fill the hall's memory with records.
MAX_GAMES_PER_BOARD = 64


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
        #: Per board with records that cannot be used: why, per game (the first ones).
        self.bad: dict[int, dict[int, str]] = {}
        #: Records ignored because the hall has a newer revision of their game.
        self.stale = 0
        #: Counts every change: a page or a pusher compares it with the one it last saw.
        self.version = 0
        self.last_change: Change | None = None
        #: The newest changes, ``(version, change)``, for pages that catch up.
        self.changes: deque[tuple[int, Change]] = deque(maxlen=1000)
        self._legal = LegalGames()
        # Each game's last record taken, as a digest: the same message again changes nothing.
        self._digests: dict[tuple[int, int], bytes] = {}
        self._newest: dict[int, int] = {}  # board -> its highest game number
        self._games_of: dict[int, set[int]] = {}  # board -> the games kept of it
        self._pgn_cache: dict[str, tuple[int, str]] = {}  # round -> (version, games.pgn)
        self._game_texts: dict[tuple[int, int], tuple[GameRecord, str]] = {}  # each game's PGN
        self._too_many: set[int] = set()  # boards told of, once

    def take(self, topic: str, payload: bytes | bytearray | str) -> bool:
        """Take one message; True when it changed something (see :attr:`last_change`)."""
        parsed = self.topics.parse(topic)
        if parsed is None:
            return False
        data = payload.encode() if isinstance(payload, str) else bytes(payload)
        if parsed.kind == "status":
            text = data.decode("ascii", "replace") if len(data) < 16 else ""
            if text not in (ONLINE, OFFLINE) or self.status.get(parsed.board) == text:
                return False
            self.status[parsed.board] = text
            return self._changed(Change(parsed.board, None))
        if parsed.kind != "record" or parsed.game is None:
            return False
        key = (parsed.board, parsed.game)
        if not data:  # an empty retained message: the record was removed from the broker
            return self._remove(key)
        digest = hashlib.blake2b(data, digest_size=16).digest()
        if self._digests.get(key) == digest:
            return False
        if len(data) > MAX_RECORD_BYTES:
            return self._refuse(key, topic, f"{len(data)} bytes, more than a record's "
                                f"{MAX_RECORD_BYTES}")
        try:
            record = GameRecord.from_json(data)
            if (record.board, record.game) != key:
                raise ValueError(f"names board {record.board} game {record.game}")
        except ValueError as why:
            return self._refuse(key, topic, str(why))
        kept = self.records.get(key)
        if kept is not None and (
            record.revision < kept.revision or (record.revision == kept.revision != 0)
        ):
            self.stale += 1  # an older save, or a copy: the newest is kept (0: no order)
            return False
        try:
            record = self._legal.check(key, record)
        except ValueError as why:
            return self._refuse(key, topic, str(why))
        self._digests[key] = digest
        self.records[key] = record
        board = key[0]
        games = self._games_of.setdefault(board, set())
        games.add(key[1])
        shown = [Change(*key)]
        if key[1] > self._newest.get(board, 0):
            # Its older games with no move are left behind: the pages drop them.
            shown += [Change(board, g) for g in games
                      if g != key[1] and self.records[(board, g)].plies == 0]
            self._newest[board] = key[1]
        self._keep_newest(board)
        problems = self.bad.get(board)
        if problems is not None and problems.pop(key[1], None) is not None and not problems:
            del self.bad[board]
            shown.append(Change(board, None))
        changed = False
        for change in shown:
            changed = self._changed(change)
        return changed

    def _remove(self, key: tuple[int, int]) -> bool:
        self._digests.pop(key, None)
        self._legal.forget(key)
        problems = self.bad.get(key[0])
        had_problem = problems is not None and problems.pop(key[1], None) is not None
        if problems is not None and not problems:
            del self.bad[key[0]]
        self._game_texts.pop(key, None)
        if self.records.pop(key, None) is None:
            return had_problem and self._changed(Change(key[0], None))
        self._games_of.get(key[0], set()).discard(key[1])
        return self._changed(Change(*key))

    def _refuse(self, key: tuple[int, int], topic: str, why: str) -> bool:
        """A record that cannot be used: dropped, and its board marked (said once)."""
        board, game = key
        problems = self.bad.setdefault(board, {})
        if game in problems or len(problems) >= MAX_GAMES_PER_BOARD:
            return False
        problems[game] = why
        if len(problems) == 1:  # once per board, not once per message
            log.warning("hall: %s: the record cannot be used (%s); board %d shows bad data "
                        "until its records can be read", topic, why, board)
        return self._changed(Change(board, None))

    def _keep_newest(self, board: int) -> None:
        kept = self._games_of.get(board, set())
        if len(kept) <= MAX_GAMES_PER_BOARD:
            return
        games = sorted(kept)
        if board not in self._too_many:
            self._too_many.add(board)
            log.warning("hall: board %d has more than %d games on the broker: the hall keeps "
                        "its newest %d", board, MAX_GAMES_PER_BOARD, MAX_GAMES_PER_BOARD)
        for game in games[:-MAX_GAMES_PER_BOARD]:
            kept.discard(game)
            self._game_texts.pop((board, game), None)
            self.records.pop((board, game))
            self._digests.pop((board, game), None)
            self._legal.forget((board, game))
            self._changed(Change(board, game))

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

    def shown(self, key: tuple[int, int]) -> GameRecord | None:
        """A game's record, if the hall shows it (None: not known, or a game with no move
        that its board left for a newer one)."""
        record = self.records.get(key)
        if record is None or (record.plies == 0 and key[1] < self._newest.get(key[0], 0)):
            return None
        return record

    def round_of(self, record: GameRecord) -> str:
        return record.round or self.round

    def rounds(self) -> list[str]:
        """Every round a game is in, the hall's own first."""
        others = {self.round_of(r) for r in self.records.values()} - {self.round}
        return [self.round, *sorted(others, key=_natural)]

    def games(self, round: str | None = None) -> list[GameRecord]:
        """The round's games (the hall's round by default), by board, then game."""
        wanted = self.round if round is None else round
        out = []
        for key in sorted(self.records):
            record = self.shown(key)
            if record is not None and self.round_of(record) == wanted:
                out.append(record)
        return out

    def game_pgn(self, record: GameRecord) -> str:
        """One game's PGN, written once per record (games.pgn is all of them, again and
        again, while one board moves)."""
        key = (record.board, record.game)
        kept = self._game_texts.get(key)
        if kept is None or kept[0] is not record:
            kept = self._game_texts[key] = (record, record.pgn({"Round": self.round_of(record)}))
        return kept[1]

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

    def boards(self) -> dict[str, str]:
        """Each board's status: ``online`` or ``offline``."""
        return {str(b): s for b, s in sorted(self.status.items())}

    def bad_data(self) -> dict[str, str]:
        """Each board whose records cannot be used, and why (its first such record)."""
        return {str(b): next(iter(p.values())) for b, p in sorted(self.bad.items()) if p}

    def state(self, round: str | None = None) -> dict[str, Any]:
        """The page's whole state: the round, the rounds there are, and its games."""
        wanted = self.round if round is None else round
        return {
            "round": wanted,
            "rounds": self.rounds(),
            "version": self.version,
            "games": [self.summary(r) for r in self.games(wanted)],
            "boards": self.boards(),
            "bad": self.bad_data(),
        }


def _natural(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isascii() and name.isdigit() else (1 << 30, name)
