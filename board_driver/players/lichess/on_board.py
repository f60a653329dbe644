"""The online game on the board: put there, seated, and kept in step with the server's.

:meth:`OnBoard.put` makes a Lichess game the board's game: its stored game when it has
one (the Lichess id is kept with it in the store, so an adjourned correspondence game is
found again after a restart), else a new one, with the moves already played elsewhere
(a game begun on another device) and the PGN headers of the online game.

After any news (a game state, a reconnection, a move committed on the board, a refusal)
:meth:`OnBoard.sync` asks :func:`.reconcile.plan` for the next step and does it through
the door: take moves back, light the server's move to play, or send our pending move
(:mod:`.sending`). It also watches the board's own events: a move committed, a
take-back, the board's buttons (resign, offer a draw), which go to the server.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from board_driver.arbiter.expected import describe_move, how_to_play
from board_driver.door import HUMAN, ActionRefused
from board_driver.players.lichess import commands
from board_driver.players.lichess.online import OnlineGame
from board_driver.players.lichess.parts import PlayerParts
from board_driver.players.lichess.reconcile import plan
from board_driver.players.lichess.sending import OurMove

log = logging.getLogger("magboard")


class OnBoard:
    """The board's side of the player (see the module docstring)."""

    def __init__(self, player: PlayerParts) -> None:
        self.player = player
        self.door = player.door
        self.name = player.name
        self.ours = OurMove(player, player.config.amend_ms)
        self._replaying = False  # our side given to the server for a move made elsewhere

    # ------------------------------------------------------------------ which game

    def data(self) -> dict[str, str]:
        """What the player stored with the board's game (``id``, ``color``, ...)."""
        return self.door.game_data(self.name)

    def holds(self, game: OnlineGame | None) -> bool:
        """Is ``game`` the board's game?"""
        return game is not None and self.data().get("id") == game.id

    def local_game_in_progress(self) -> bool:
        """The board's game is not an online one, and people are playing it."""
        snap = self.door.snapshot()
        return snap.result == "*" and bool(snap.ucis) and not self.data()

    def put(self, game: OnlineGame) -> None:
        """Make ``game`` the board's game: its stored game if it has one, else a new one
        (the game there is kept in the store, adjourned)."""
        stored = self.stored_game(game.id)
        if stored is not None:
            try:
                self.door.resume_game(stored)
            except (LookupError, ActionRefused) as exc:
                log.warning("lichess: cannot resume game %s (%s): a new one", stored, exc)
            else:
                if self.holds(game):
                    self._announce(game, resumed=True)
                    return
        # A game just begun starts from its start (the lights guide the set-up, its first
        # move lit to play); one begun elsewhere keeps the moves played there (the lights
        # guide the pieces to the position they reached).
        earlier = game.moves if len(game.moves) > 1 else ()
        self.door.new_game(
            game.start_fen,
            variant=game.rules,
            moves=earlier,
            options={"hints": False, "takeback": False},
            headers=game.headers(self.player.base_url),
            players={game.color: HUMAN, game.opponent_color: self.name},
            online=True,
        )
        self.door.set_game_data(
            self.name, {"id": game.id, "color": game.color, "accepted": str(len(earlier))}
        )
        self._announce(game, resumed=False)

    def stored_game(self, game_id: str) -> int | None:
        """The stored game, not over, that holds Lichess game ``game_id``, if any."""
        for summary in reversed(self.door.games()):
            if summary.result != "*" or summary.termination:
                continue
            if self.door.game_data(self.name, summary.id).get("id") == game_id:
                return summary.id
        return None

    def _announce(self, game: OnlineGame, *, resumed: bool) -> None:
        url = f"{self.player.base_url}/{game.id}"
        opponent = game.opponent
        rating = f" ({opponent.rating})" if opponent.rating else ""
        log.info(
            "lichess: game %s %s: you play %s against %s%s, %s",
            game.id,
            "resumed on the board" if resumed else "is on the board",
            game.color,
            opponent.name,
            rating,
            url,
        )
        self.door.announce(
            {
                "type": "online_game",
                "id": game.id,
                "url": url,
                "color": game.color,
                "opponent": opponent.name,
            }
        )

    def seat(self, game: OnlineGame | None, replaying: bool) -> None:
        """Who plays each side of the board's game: the opponent from Lichess; we at the
        board, or from Lichess while a move of ours made elsewhere is to be played (lit,
        like the opponent's). Set again after a restart: the door seats only the players
        it knows when it loads a game, and this one starts later."""
        self._replaying = replaying
        if game is None:
            return
        wanted = {game.opponent_color: self.name, game.color: self.name if replaying else HUMAN}
        seats = self.door.players()
        for side, player in wanted.items():
            if seats.get(side) != player:
                self.door.set_player(side, player, new_games=False)

    # ------------------------------------------------------------------ in step

    def sync(self) -> None:
        """Bring the board one step nearer the server's game (see :mod:`.reconcile`)."""
        for _ in range(4):  # a take-back is followed by the next step at once
            if not self._step():
                break

    def _step(self) -> bool:
        game = self.player.game
        if game is None or not self.holds(game):
            return False
        self.seat(game, self._replaying)
        snap = self.door.snapshot()
        data = self.data()
        board = list(snap.ucis)
        start_turn = "white" if snap.start_fen.split()[1] == "w" else "black"
        accepted = int(data.get("accepted", "0") or 0)
        mine: dict[str, Any] = {"ours": game.color, "start_turn": start_turn, "accepted": accepted}
        step = plan(board, game.moves, refused=self.ours.refused, **mine)
        if step.send is not None and game.over:
            self.ours.refused = step.send  # the game ended first: the server cannot take it
            step = plan(board, game.moves, refused=step.send, **mine)
        if step.take_back:
            return self._take_back(game, step.take_back, snap, accepted)
        if step.play is not None:
            self._play(game, step.play, snap)
        elif step.send is not None:
            self.ours.send(step.send, len(board), snap)
        else:
            self._agreed(game, len(board), data)
            self._end_if_over(game, snap)
        return False

    def _take_back(self, game: OnlineGame, plies: int, snap: Any, accepted: int) -> bool:
        undone = " ".join(snap.moves[-plies:])
        if self.ours.refused is not None and snap.ucis and snap.ucis[-1] == self.ours.refused:
            why = "Lichess refused it"
        elif len(snap.ucis) - plies < accepted:
            why = "taken back on Lichess"
        else:
            why = "Lichess's game does not have it"
        self.ours.refused = None
        self.ours.cancel_hold()
        self.seat(game, replaying=False)
        try:
            self.door.take_back(plies)
        except (ActionRefused, ValueError) as exc:
            self.player.error(f"cannot take back {undone} on the board: {exc}")
            return False
        self.player.note(f"{undone} taken back on the board ({why}): put the pieces back")
        self.door.set_game_data(self.name, {**self.data(), "pending": ""})
        return True

    def _play(self, game: OnlineGame, step: tuple[str, str], snap: Any) -> None:
        uci, side = step
        if snap.expected == uci:
            return
        if side == game.color:
            # Our move, made elsewhere (another device) or amended too late: the server's
            # stands; it is lit to be played like the opponent's.
            self.seat(game, replaying=True)
        try:
            self.door.expect(uci)
        except (ActionRefused, ValueError) as exc:
            log.debug("lichess: %s waits: %s", uci, exc)
            return
        position = snap.position()
        event = {"type": "online_move", **describe_move(position, position.parse_uci(uci))}
        who = "you" if side == game.color else game.opponent.name
        log.info(
            "lichess: %s played %s (%s): play it on the board: %s",
            who,
            event["san"],
            event["uci"],
            how_to_play(event),
        )
        self.door.announce(event)

    def _agreed(self, game: OnlineGame, plies: int, data: Mapping[str, str]) -> None:
        self.seat(game, replaying=False)
        if data.get("accepted") != str(plies) or data.get("pending"):
            self.door.set_game_data(self.name, {**data, "accepted": str(plies), "pending": ""})

    def _end_if_over(self, game: OnlineGame, snap: Any) -> None:
        ending = game.ending()
        if ending is None or snap.result != "*":
            return
        termination, winner = ending
        if termination is None:
            return  # mate or stalemate: the board finds it with the last move
        try:
            self.door.end_game(termination, winner)
        except (ActionRefused, ValueError) as exc:
            self.player.error(f"cannot end game {game.id} on the board: {exc}")
            return
        log.info("lichess: game %s over on Lichess: %s", game.id, game.status)

    # ------------------------------------------------------------------ the board's events

    async def watch(self, subscription: Any) -> None:
        """Follow the board's events (a door subscription with ``board=True``)."""
        async for event in subscription:
            try:
                self._on_event(event)
            except Exception:
                log.exception("lichess: unexpected failure on %s", event.get("type"))

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind in ("lift", "place", "move"):
            self.ours.activity_ms = int(event.get("t", self.door.now_ms()))
        game = self.player.game
        if kind in ("lift", "place") or game is None or not self.holds(game):
            return
        if kind in ("move", "promotion_amended", "takeback", "overflow", "restored"):
            self.player.sync()
        elif kind == "draw_offer" and event.get("side") == game.color:
            self.player.background(commands.run(self.player, "draw", {"answer": "yes"}))
        elif kind == "game_over":
            self._board_ended(game, event)

    def _board_ended(self, game: OnlineGame, event: dict[str, Any]) -> None:
        """The board ended the game itself (a button): tell the server, whose word stands."""
        if game.over:
            return
        termination = event.get("termination")
        if termination == "resignation" and event.get("winner") != game.color:
            self.player.background(commands.run(self.player, "resign", {}))
        elif termination in ("threefold_repetition", "fifty_moves", "agreement"):
            self.player.background(commands.run(self.player, "draw", {"answer": "yes"}))
