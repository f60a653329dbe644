"""The hall's topics and messages: named once, here, for the board's publisher and the hall.

Every board publishes under ``<prefix>/board/<board>/``; ``<game>`` is the board's own
stored game number, so each game a board plays is its own game::

    <prefix>/board/<board>/status              "online" | "offline"  retained; the last will
    <prefix>/board/<board>/game/<game>         the game record (JSON)  retained
    <prefix>/board/<board>/game/<game>/pgn     the whole PGN so far    retained
    <prefix>/board/<board>/game/<game>/move    one ply (JSON)          QoS 1, not retained
    <prefix>/board/<board>/game/<game>/takeback  {"plies": n} (JSON)   QoS 1, not retained
    <prefix>/board/<board>/probe               a board's own check    QoS 1, not retained

A board subscribes to its own ``probe`` and publishes one when it connects: the broker
passes it back only if the board's account may publish the board's topics (under MQTT
3.1.1 a broker drops a refused publication without a word).

Every message is QoS 1. The record is the game's whole state (headers, moves, result), so
a subscriber that comes late, or that missed messages, reads it and knows everything; the
latest record of a game wins. A ``move`` names its game and ``ply``: a take-back or an
amended move republishes the ply it replaces, and the latest message for a ply wins.

>>> t = Topics("hall")
>>> t.record(7, 12)
'hall/board/7/game/12'
>>> t.parse("hall/board/7/game/12/move")
Parsed(board=7, game=12, kind='move')
>>> t.parse("hall/board/7/status")
Parsed(board=7, game=None, kind='status')
>>> t.parse("elsewhere/board/7/status") is None
True
>>> t.parse("hall/board/07/status") is None     # numbers as a board writes them, only
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Every message is sent at least once (a board that loses the broker sends it again).
QOS = 1
ONLINE = "online"
OFFLINE = "offline"
#: What may follow ``<prefix>/board/<board>/game/<game>`` (the record itself has no suffix).
GAME_KINDS = ("pgn", "move", "takeback")
#: The highest board number a hall may have.
MAX_BOARD = 9999
#: The highest game number a record may carry (a stored game's id; JavaScript's exact
#: integers on the hall's page).
MAX_GAME = 2**53 - 1
_NUMBER = re.compile(r"[1-9][0-9]{0,15}")


def check_prefix(prefix: str) -> str:
    """A topic prefix as the hall uses it; ValueError says what is wrong.

    >>> check_prefix("club/tuesday")
    'club/tuesday'
    >>> check_prefix("club/#")
    Traceback (most recent call last):
    ...
    ValueError: "club/#" holds a wildcard (+ or #): it names the topics, it cannot match them
    """
    if not prefix:
        raise ValueError("is empty: the hall's topics need a prefix, such as \"magboard\"")
    if "+" in prefix or "#" in prefix:
        raise ValueError(
            f'"{prefix}" holds a wildcard (+ or #): it names the topics, it cannot match them'
        )
    if prefix.startswith("/") or prefix.endswith("/") or "//" in prefix:
        raise ValueError(f'"{prefix}" has an empty level (a leading, trailing or double /)')
    if prefix.startswith("$"):
        raise ValueError(f'"{prefix}" starts with $, which brokers keep for themselves')
    return prefix


@dataclass(frozen=True)
class Parsed:
    """What a topic is about: a board, its game (None for ``status``), and which message."""

    board: int
    game: int | None
    kind: str  # "status", "record", or one of GAME_KINDS


@dataclass(frozen=True)
class Topics:
    """The topic names under one hall's prefix."""

    prefix: str

    def status(self, board: int) -> str:
        return f"{self.prefix}/board/{board}/status"

    def record(self, board: int, game: int) -> str:
        return f"{self.prefix}/board/{board}/game/{game}"

    def pgn(self, board: int, game: int) -> str:
        return f"{self.record(board, game)}/pgn"

    def move(self, board: int, game: int) -> str:
        return f"{self.record(board, game)}/move"

    def takeback(self, board: int, game: int) -> str:
        return f"{self.record(board, game)}/takeback"

    def probe(self, board: int) -> str:
        return f"{self.prefix}/board/{board}/probe"

    def board_filter(self, board: int) -> str:
        """Everything one board publishes (its ACL grants this pattern)."""
        return f"{self.prefix}/board/{board}/#"

    def hall_filters(self) -> list[str]:
        """What the hall subscribes to: every board's status and game records (the
        record holds the whole game; the moves and the PGN text repeat it)."""
        return [f"{self.prefix}/board/+/status", f"{self.prefix}/board/+/game/+"]

    def parse(self, topic: str) -> Parsed | None:
        """The board, game and kind a topic names; None for a topic not of this hall, or
        one no board writes (a number with a sign, a leading zero, other digits than
        0-9, out of range)."""
        head = f"{self.prefix}/board/"
        if not topic.startswith(head):
            return None
        parts = topic[len(head) :].split("/")
        board = _number(parts[0], MAX_BOARD)
        if board is None:
            return None
        if len(parts) == 2 and parts[1] == "status":
            return Parsed(board, None, "status")
        if len(parts) >= 3 and parts[1] == "game":
            game = _number(parts[2], MAX_GAME)
            if game is None:
                return None
            if len(parts) == 3:
                return Parsed(board, game, "record")
            if len(parts) == 4 and parts[3] in GAME_KINDS:
                return Parsed(board, game, parts[3])
        return None


def _number(text: str, most: int) -> int | None:
    if not _NUMBER.fullmatch(text):
        return None
    value = int(text)
    return value if value <= most else None
