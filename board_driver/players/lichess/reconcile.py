"""What the board must do to agree with the server: the one rule behind never losing a game.

The server's moves are the game. The board's moves are the server's, plus at most one
move of ours that the server has not accepted yet (stored, marked pending, sent). After
any news (a game state, a reconnection, a restart, a refusal) the board is brought back
to that shape one step at a time:

- the board shows a move the server does not have and that is not our one pending move
  (the server refused it, or took it back after accepting it, or never got the one
  before it): take it back;
- the server has a move the board does not: play it on the board (lit; the opponent's
  move, or ours made elsewhere or amended too late);
- the board is one move of ours ahead: send it (unless it was refused: take it back).

>>> plan(["e2e4"], ["e2e4", "e7e5"], ours="white", start_turn="white")
Plan(take_back=0, play=('e7e5', 'black'), send=None)
>>> plan(["e2e4", "e7e5", "g1f3"], ["e2e4", "e7e5"], ours="white", start_turn="white")
Plan(take_back=0, play=None, send='g1f3')
>>> plan(["e2e4", "e7e5", "g1f3"], ["e2e4", "e7e5"], ours="white", start_turn="white",
...      refused="g1f3")
Plan(take_back=1, play=None, send=None)
>>> plan(["e2e4", "e7e5", "g1f3", "b8c6"], ["e2e4"], ours="white", start_turn="white")
Plan(take_back=3, play=None, send=None)

A move the server had accepted (``accepted``: the board's plies it agreed with) and no
longer has was taken back there:

>>> plan(["e2e4", "e7e5", "g1f3"], ["e2e4", "e7e5"], ours="white", start_turn="white",
...      accepted=3)
Plan(take_back=1, play=None, send=None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """The next step: ``take_back`` plies off the board; or ``play`` a server move
    ``(uci, side)`` on the board; or ``send`` our pending move. All empty: in agreement."""

    take_back: int = 0
    play: tuple[str, str] | None = None
    send: str | None = None

    @property
    def agreed(self) -> bool:
        return not self.take_back and self.play is None and self.send is None


def side_of_ply(index: int, start_turn: str) -> str:
    """Who makes the move at ``index`` (0 = the first move from the start position)."""
    if index % 2 == 0:
        return start_turn
    return "black" if start_turn == "white" else "white"


def plan(
    board: Sequence[str],
    server: Sequence[str],
    *,
    ours: str,
    start_turn: str,
    refused: str | None = None,
    accepted: int = 0,
) -> Plan:
    """The next step from the board's moves to the server's (both from the same start).

    ``refused``: our pending move, if the server refused it (it comes off the board);
    ``accepted``: how many of the board's moves the server had (a pending move is one
    beyond them)."""
    common = 0
    for mine, theirs in zip(board, server, strict=False):
        if mine != theirs:
            break
        common += 1
    extra = len(board) - common
    if extra:
        pending = board[-1]
        if (
            extra == 1
            and common == len(server)
            and side_of_ply(common, start_turn) == ours
            and pending != refused
            and len(board) > accepted
        ):
            return Plan(send=pending)
        return Plan(take_back=extra)
    if common < len(server):
        return Plan(play=(server[common], side_of_ply(common, start_turn)))
    return Plan()
