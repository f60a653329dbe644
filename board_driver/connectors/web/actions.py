"""The page's actions, each done through the door as the board's own controls would be.

Every method takes the request's JSON body (checked by :mod:`.inputs`), acts on the door,
and returns what the answer adds to the events the action led to. A refusal is
:class:`~board_driver.door.ActionRefused` (HTTP 409), bad input an
:class:`~board_driver.connectors.web.inputs.InputError` (HTTP 400).
"""

from __future__ import annotations

import asyncio
import logging

from board_driver.connectors.web import inputs
from board_driver.connectors.web.inputs import InputError
from board_driver.connectors.web.state import setup_target
from board_driver.door import ActionRefused, Door
from board_driver.physical.squares import square, square_name

log = logging.getLogger("magboard")
#: How long the simulator's Set up the pieces waits for the position to stand (the board still).
SETUP_WAIT_S = 5.0


class Actions:
    """``POST /api/<action>``: ``do_<action>(body)`` for each action the page has."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self._sim_lock = asyncio.Lock()

    def _sim(self) -> None:
        if self.door.snapshot().sim_pieces is None:
            raise ActionRefused(
                "this board is not the simulator: move the pieces on the board itself"
            )

    async def do_button(self, body: dict) -> dict:
        name = inputs.parse_button(inputs.field(body, "button"))
        log.info("web: button %s", name)
        self.door.press(name)
        return {}

    async def do_resign(self, body: dict) -> dict:
        """``side`` resigns (``white`` or ``black``), whoever is to move: the page asks for
        whom; the board's own ``resign`` button is the side to move's."""
        side = inputs.parse_side(inputs.field(body, "side"))
        log.info("web: %s resigns", side)
        self.door.resign(side)
        return {}

    async def do_choose(self, body: dict) -> dict:
        piece = inputs.parse_piece(inputs.field(body, "piece"))
        log.info("web: choose %s", piece)
        self.door.choose(piece)
        return {}

    async def do_new_game(self, body: dict) -> dict:
        """A new game: from ``fen`` (of ``variant``), from the position a ``pgn``'s game
        reaches (its ``FEN`` header and main line; its ``Variant``), or of ``variant``
        (``"chess960"``: start position ``chess960``, a number or ``"random"``), with
        ``options`` (a time control, ...) and ``engine`` (``{"side": "black", "elo": 1650}``,
        as ``engine``'s body; ``{"side": "none"}``: people on both sides). With any of them
        it starts at once on the pieces standing, the lights guiding the set-up, and the
        game on the board is kept as it stands (adjourned); with none, it is the board's
        ``new_game`` button (the game begins once the start position stands)."""
        variant = inputs.parse_variant(body.get("variant"))
        chess960 = inputs.parse_chess960(body.get("chess960"))
        fen = body.get("fen")
        if body.get("pgn") not in (None, ""):
            if fen not in (None, "") or chess960 is not None:
                raise InputError("pgn: give a PGN or a FEN (or a Chess960 number), not both")
            fen, pgn_variant = inputs.parse_pgn(body["pgn"])
            if variant not in (None, pgn_variant):
                raise InputError(
                    f"pgn: its game is {pgn_variant} (its Variant header), not {variant}"
                )
            variant = pgn_variant
        if fen not in (None, ""):
            fen = inputs.parse_fen(fen, variant=variant or "standard")
        else:
            fen = None
        options = inputs.parse_options(body.get("options") or {})
        players = None
        if "engine" in body:
            players = await self._seat_engine(body["engine"])
        log.info(
            "web: new game%s%s",
            f" ({variant}{'' if chess960 is None else f' {chess960}'})" if variant else "",
            f" from {fen}" if fen else "",
        )
        kind = variant is not None or chess960 is not None
        if fen is not None or kind or options or players is not None:
            self.door.new_game(
                fen, variant=variant, chess960=chess960, options=options, players=players
            )
            return {}
        self.door.press("new_game")
        return {}

    async def _seat_engine(self, body: object) -> dict[str, str]:
        """The engine's side and level for new games (``engine``'s body), nothing changed in
        the game on the board: the players of the new game."""
        side, level = inputs.parse_engine(body)
        if "engine" not in self.door.snapshot().player_states:
            if side == "none":
                return {"white": "human", "black": "human"}
            raise ActionRefused("no engine: the engine is off in this daemon")
        if level:
            try:
                await self.door.command("engine", "level", level)
            except ActionRefused:
                raise
            except ValueError as exc:
                raise InputError(f"engine level: {exc}") from None
        players = {s: "engine" if s == side else "human" for s in ("white", "black")}
        try:
            for s, name in players.items():
                self.door.set_player(s, name, this_game=False)  # the engine found, or refused
        except ActionRefused:
            raise
        except ValueError as exc:  # EngineNotFound
            raise ActionRefused(f"no engine: {exc}") from None
        return players

    async def do_options(self, body: dict) -> dict:
        options = inputs.parse_options(body)
        if not options:
            raise InputError("options: nothing to change")
        self.door.set_options(**options)
        return {}

    async def do_clock(self, body: dict) -> dict:
        """The clock: ``pause``, ``resume`` (or start it before the first move), ``adjust``
        (``white_ms``, ``black_ms``: the times to read now). Logged and stored."""
        action, times = inputs.parse_clock(body)
        log.info("web: clock %s", action)
        self.door.clock(action, **times, by="page")
        return {}

    async def do_engine(self, body: dict) -> dict:
        side, level = inputs.parse_engine(body)
        snap = self.door.snapshot()
        if "engine" not in snap.player_states:
            raise ActionRefused("no engine: the engine is off in this daemon")
        playing = [s for s, name in snap.players.items() if name == "engine"]
        log.info("web: engine plays %s%s", side, f" ({level})" if level else "")
        if level:
            # The level first: a side then goes to an engine that plays at it.
            try:
                await self.door.command("engine", "level", level)
            except ActionRefused:
                raise
            except ValueError as exc:  # e.g. neither a depth nor a time per move
                raise InputError(f"engine level: {exc}") from None
        try:
            for old in playing:
                if old != side:
                    self.door.set_player(old, "human")
            if side != "none":
                self.door.set_player(side, "engine")
        except ActionRefused:
            raise
        except ValueError as exc:  # EngineNotFound, a level it refuses: nothing changed
            raise ActionRefused(f"no engine: {exc}") from None
        return {}

    async def do_headers(self, body: dict) -> dict:
        """PGN headers of the game on the board (``White``, ``Black``, ``Event``, ``Round``,
        ...: a string each, ``""`` removes one), for its PGN and the hall's broadcast."""
        headers = inputs.parse_headers(body)
        log.info("web: headers %s", ", ".join(sorted(headers)))
        try:
            self.door.set_headers(**headers)
        except ActionRefused:
            raise
        except ValueError as exc:  # what the store refuses: a name PGN cannot hold
            raise InputError(str(exc)) from None
        return {}

    async def do_answer(self, body: dict) -> dict:
        """After a restart the pieces read several ways (the state's ``question``): which
        one is what happened."""
        choice = body.get("reading")
        if isinstance(choice, bool) or not isinstance(choice, int):
            raise InputError(f"reading: {choice!r} is not a number (the question's, from 0)")
        log.info("web: answer %d", choice)
        self.door.answer(choice)
        return {}

    async def do_resume(self, body: dict) -> dict:
        """Put an adjourned game (stored, not over) back on the board; the game there stays
        stored, adjourned in its turn, and the lights guide the pieces to the position."""
        game_id = inputs.parse_game_id(inputs.field(body, "game"))
        snap = self.door.snapshot()
        if game_id == snap.game_id:
            raise ActionRefused(f"game {game_id} is already on the board")
        if snap.online:
            raise ActionRefused(
                "an online game is on the board: it must end first (the server decides it)"
            )
        stored = next((g for g in self.door.games() if g.id == game_id), None)
        if stored is None:
            raise LookupError(f"no game {game_id} is stored")
        if stored.result != "*":
            raise ActionRefused(f"game {game_id} is over ({stored.result}): it cannot go on")
        log.info("web: resume game %d", game_id)
        self.door.resume_game(game_id)
        return {}

    async def do_sim(self, body: dict) -> dict:
        self._sim()
        steps = inputs.parse_steps(inputs.field(body, "steps"))
        await self.play_steps(steps)
        return {}

    async def do_setup(self, _body: dict) -> dict:
        self._sim()
        snap = self.door.snapshot()
        target = setup_target(snap)
        # A piece the board knows is the wrong one (the last game's rook where a king is
        # wanted) comes off first, as hands would take it: then it goes on again with the rest.
        wrong = [square(w["square"]) for w in (snap.setup or {}).get("wrong", ())]
        if wrong:
            await self.play_steps([("lift", sq) for sq in wrong])
            spacing = snap.timing.get("pass_ms", 100) + snap.timing.get("debounce_ms", 30) + 30
            await asyncio.sleep(spacing / 1000)
        async with self._sim_lock:
            log.info("web: simulated pieces set up as the lights ask")
            self.door.set_sim_pieces(target)
        # Back once the position stands (the board still): what follows is read as moves.
        loop = asyncio.get_running_loop()
        until = loop.time() + SETUP_WAIT_S
        while self.door.snapshot().setup_pending and loop.time() < until:
            await asyncio.sleep(0.02)
        return {}

    async def do_takeback(self, _body: dict) -> dict:
        self._sim()
        snap = self.door.snapshot()
        if not snap.options["takeback"]:
            raise ActionRefused("take-backs are off (game options)")
        if not snap.moves:
            raise ActionRefused("no move to take back")
        if snap.result != "*":
            raise ActionRefused("the game is over")
        if not snap.in_sync:
            raise ActionRefused("the board does not match the game: put it right first")
        game = snap.game()
        move = game.pop()
        steps = [("lift", move.to_square)]
        if move.rook_from is not None and move.rook_to is not None:  # castling
            steps += [("lift", move.rook_to), ("place", move.from_square)]
            steps.append(("place", move.rook_from))
        else:
            steps.append(("place", move.from_square))
            if move.captured_square is not None:
                steps.append(("place", move.captured_square))
        log.info("web: taking back %s on the simulated board", move)
        await self.play_steps(steps)
        return {}

    async def play_steps(self, steps: list[tuple[str, int]]) -> None:
        """Lift and place, spaced so that debouncing and the tracker see each step."""
        timing = self.door.snapshot().timing
        spacing = (timing.get("pass_ms", 100) + timing.get("debounce_ms", 30) + 30) / 1000
        async with self._sim_lock:
            for i, (kind, sq) in enumerate(steps):
                if i:
                    await asyncio.sleep(spacing)
                if kind == "lift":
                    self.door.lift(sq)
                else:
                    self.door.place(sq)
                log.debug("web: %s %s", kind, square_name(sq))
