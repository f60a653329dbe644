"""What the broker has of each game, and the messages that bring it up to date.

The publisher never queues messages: it compares each game as it stands (a
:class:`~.record.GameRecord`) with what the broker acknowledged, and sends the difference.
A board that was away from the broker for an hour sends one record and the plies it
missed, not an hour of queued messages; a take-back sends where the game now ends, and
the plies after it again when they are played.

>>> from board_driver.connectors.broadcast.record import GameRecord
>>> from board_driver.connectors.broadcast.topics import Topics
>>> ledger = Ledger(Topics("hall"))
>>> game = GameRecord(board=1, game=5, moves=("e4", "e5"), ucis=("e2e4", "e7e5"))
>>> [m.topic.removeprefix("hall/board/1/") for m in ledger.messages(game)]
['game/5/move', 'game/5/move', 'game/5', 'game/5/pgn']
>>> ledger.acknowledged(game)
>>> ledger.messages(game)
[]
>>> back = GameRecord(board=1, game=5, moves=("e4", "c5"), ucis=("e2e4", "c7c5"))
>>> for m in ledger.messages(back)[:2]:
...     print(m.topic.rsplit("/", 1)[1], m.payload)
takeback {"board":1,"game":5,"plies":1}
move {"board":1,"game":5,"ply":2,"san":"c5","uci":"c7c5"}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from board_driver.connectors.broadcast.record import GameRecord
from board_driver.connectors.broadcast.topics import Topics


@dataclass(frozen=True)
class Message:
    topic: str
    payload: str
    retain: bool


@dataclass
class _Acked:
    plies: list[tuple[str, str]] = field(default_factory=list)  # (san, uci) per ply
    record: str | None = None


#: Details of one ply for its ``move`` message: ``(game record, ply) -> extra fields``.
PlyDetails = Callable[[GameRecord, int], Mapping[str, Any]]


class Ledger:
    """Per game, what the broker acknowledged; :meth:`messages` says what it lacks."""

    def __init__(self, topics: Topics, details: PlyDetails | None = None) -> None:
        self.topics = topics
        self._details = details or (lambda _record, _ply: {})
        self._acked: dict[int, _Acked] = {}

    def messages(self, record: GameRecord) -> list[Message]:
        """The messages that bring the broker from what it has to ``record``, in order:
        a take-back (when the game is shorter than what it has, or differs from a ply
        on), each ply it lacks, then the record and the PGN when they changed."""
        acked = self._acked.get(record.game, _Acked())
        plies = list(zip(record.moves, record.ucis, strict=True))
        same = 0
        for had, has in zip(acked.plies, plies, strict=False):
            if had != has:
                break
            same += 1
        board, game = record.board, record.game
        out: list[Message] = []
        if len(acked.plies) > same:
            out.append(self._json(self.topics.takeback(board, game), board, game, plies=same))
        for index in range(same, len(plies)):
            ply = index + 1
            san, uci = plies[index]
            details = dict(self._details(record, ply))
            out.append(
                self._json(
                    self.topics.move(board, game), board, game, ply=ply, san=san, uci=uci,
                    **details,
                )
            )
        text = record.to_json()
        if text != acked.record:
            out.append(Message(self.topics.record(board, game), text, True))
            out.append(Message(self.topics.pgn(board, game), record.pgn(), True))
        return out

    def acknowledged(self, record: GameRecord) -> None:
        """The broker has every message :meth:`messages` gave for ``record``."""
        self._acked[record.game] = _Acked(
            list(zip(record.moves, record.ucis, strict=True)), record.to_json()
        )

    def knows(self, game: int) -> bool:
        """Whether anything of ``game`` was acknowledged since this ledger began."""
        return game in self._acked

    def games(self) -> list[int]:
        """The games acknowledged so far, oldest first."""
        return sorted(self._acked)

    def removal(self, board: int, game: int) -> list[Message]:
        """The messages that remove ``game`` from the broker (empty retained messages: a
        game that never had a move, replaced on the board by another)."""
        return [Message(self.topics.record(board, game), "", True),
                Message(self.topics.pgn(board, game), "", True)]

    def forget(self, game: int) -> None:
        self._acked.pop(game, None)

    def forget_records(self) -> None:
        """The broker may have lost its retained messages (it restarted with no saved
        state): every record is to be sent again; the plies it had are not."""
        for acked in self._acked.values():
            acked.record = None

    @staticmethod
    def _json(topic: str, board: int, game: int, **fields: Any) -> Message:
        payload = {"board": board, "game": game, **fields}
        return Message(topic, json.dumps(payload, separators=(",", ":")), False)
