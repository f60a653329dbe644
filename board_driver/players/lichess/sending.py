"""Our move on its way to Lichess: held while it may still grow, sent once per fresh view.

The board stores our move when it commits it; :class:`OurMove` marks it *pending* in the
game's data (so a power cut before the server has it loses nothing) and sends it. A move
that may still grow waits until the board has been still for ``amend_ms`` first: a rook
moved beside its king while castling is possible (the king may follow: rook-first
castling), and a promotion to a queen (a late choice may name another piece). Every
other move is sent at once.

A move is sent at most once per fresh view of the server (a ``gameFull``): after a
failure (no answer, or a refusal) the game's stream is opened again, and its
``gameFull`` says whether the server has the move (nothing to do), has not (it is sent
again) or refused it (it comes off the board).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import rules
from board_driver.players.lichess.api import LichessError, Refused, TokenRejected
from board_driver.players.lichess.parts import PlayerParts

log = logging.getLogger("magboard")


def may_grow(snap: Any) -> bool:
    """May the last move of the game in ``snap`` (a door snapshot) still become another:
    castling after its rook moved first, or a promotion named late?

    >>> from types import SimpleNamespace
    >>> def snap(fen, *ucis):
    ...     return SimpleNamespace(start_fen=fen, ucis=ucis, options={"touch_move": "warn"},
    ...                            game=lambda: _game(fen, ucis))
    >>> def _game(fen, ucis):
    ...     game = rules.Game(rules.Position.from_fen(fen))
    ...     for uci in ucis:
    ...         game.push_uci(uci)
    ...     return game
    >>> castle = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    >>> may_grow(snap(castle, "h1f1")), may_grow(snap(castle, "a2a3"))
    (True, False)
    """
    if not snap.ucis:
        return False
    game = snap.game()
    last = game.moves[-1]
    if last.promotion is not None:
        return last.promotion == rules.QUEEN
    if snap.options.get("touch_move") == "enforce":
        return False  # FIDE 4.4.2: a rook touched first is a rook move
    game.pop()
    return any(
        m.is_castling and m.rook_from == last.from_square and m.rook_to == last.to_square
        for m in game.position.legal_moves()
    )


class OurMove:
    """The one move of ours the server may not have yet (see the module docstring)."""

    def __init__(self, player: PlayerParts, amend_ms: int) -> None:
        self.player = player
        self.amend_ms = amend_ms
        #: The move being posted now, if any.
        self.in_flight: str | None = None
        #: Our move the server refused (it comes off the board).
        self.refused: str | None = None
        #: When a piece last moved on the board (the daemon's ms).
        self.activity_ms = 0
        self._sent: tuple[str, int, int] | None = None  # (uci, ply, generation) last sent
        self._hold: asyncio.TimerHandle | None = None
        self._held: tuple[str, int] | None = None  # a move whose wait is over

    def reset(self) -> None:
        """Another game: nothing of ours is on its way."""
        self.cancel_hold()
        self._sent = self.in_flight = self.refused = None

    def send(self, uci: str, ply: int, snap: Any) -> None:
        """Send ``uci``, the board's move ``ply`` (counted from 0), unless it is on its
        way, was sent since the last fresh view, or must wait (it may still grow)."""
        player = self.player
        if self.in_flight is not None or self._sent == (uci, ply, player.generation):
            return
        if self._held != (uci, ply) and self.amend_ms > 0 and may_grow(snap):
            self._start_hold(uci, ply)
            return
        game, api = player.game, player.api
        if game is None or api is None:
            return
        self.cancel_hold()
        self.in_flight = uci
        self._sent = (uci, ply, player.generation)
        # The request leaves now, in a thread; the pending mark is written meanwhile (the
        # move itself is in the store already: the board stored it when it committed it).
        request = asyncio.get_running_loop().run_in_executor(None, api.move, game.id, uci)
        data = player.door.game_data(player.name)
        player.door.set_game_data(player.name, {**data, "pending": uci})
        player.background(self._answered(request, uci))

    async def _answered(self, request: asyncio.Future, uci: str) -> None:
        player = self.player
        try:
            await request
        except Refused as exc:
            self.in_flight = None
            self.refused = uci
            player.error(f"Lichess refused your move {uci}: {exc}")
            player.fresh_view()
            return
        except TokenRejected as exc:
            self.in_flight = None
            player.problem("token_rejected", str(exc))
            return
        except LichessError as exc:
            self.in_flight = None
            log.warning(
                "lichess: move %s not sent yet (%s); it is sent when the link is back", uci, exc
            )
            player.fresh_view()
            return
        self.in_flight = None
        log.info("lichess: move %s sent", uci)
        player.sync()

    def _start_hold(self, uci: str, ply: int) -> None:
        self.cancel_hold()
        door = self.player.door
        wait_ms = max(50, self.activity_ms + self.amend_ms - door.now_ms())

        def over() -> None:
            self._hold = None
            snap = door.snapshot()
            in_hand = snap.sensed != snap.position().occupancy() or not snap.in_sync
            quiet = door.now_ms() - self.activity_ms >= self.amend_ms
            if in_hand or not quiet:
                self._start_hold(uci, ply)
                return
            self._held = (uci, ply)
            self.player.sync()

        self._hold = asyncio.get_running_loop().call_later(wait_ms / 1000, over)

    def cancel_hold(self) -> None:
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None
