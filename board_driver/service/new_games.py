"""New games and games resumed: the part of :class:`~board_driver.service.daemon.Daemon`
that puts another game on the board (a start position of the kind last asked for, a FEN,
moves played elsewhere, a stored game), keeps it in the hands journal and has its
position set up by the lights before anything is read as a move."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from typing import Any

import rules
from board_driver.arbiter.setup import new_game_event, start_position
from board_driver.arbiter.tracker import Tracker
from board_driver.service.hands_journal import Decided
from board_driver.service.journal_lines import newgame_line, start_line
from board_driver.service.parts import DaemonParts
from board_driver.service.recorder import options_record, start_record

log = logging.getLogger("magboard")


class NewGames(DaemonParts):
    """Another game on the board (a Daemon part)."""

    def next_start(self) -> rules.Position:
        """The start position of a new game the tracker sets up on the board (the
        ``new_game`` button, the pieces put home after a game): of :attr:`game_kind`, kept
        in the hands journal before the set-up begins, so that a restart meanwhile sets up
        the same one (a Chess960 array drawn at random is not drawn again)."""
        start = start_position(*self.game_kind)
        self.keep(Decided(self.now_ms(), start_line(start.variant, start.fen())))
        return start

    def new_game(
        self,
        fen: str | None,
        options: dict[str, Any],
        *,
        variant: str | None = None,
        chess960: int | str | None = None,
        moves: Iterable[str] = (),
        online: bool = False,
    ) -> list[dict]:
        """Start a new game (a script's ``fen``/``option`` header, the page, a player) on
        the pieces standing, from ``fen`` (of ``variant``: standard chess unless it says
        ``"chess960"``) and ``moves`` (UCI) played from it; without a ``fen``, a start
        position of ``variant`` (Chess960: ``chess960``, a number or ``"random"``), or of
        the kind of game last asked for (the config's at first). ValueError names a bad
        FEN, variant, start position number, move or option."""
        merged = dataclasses.replace(self.tracker.options, **options)
        if fen:
            if chess960 is not None:
                raise ValueError("a start position number goes without a FEN (the FEN is one)")
            start = rules.Position.from_fen(fen, variant=variant or "standard")
        elif variant is None and chess960 is None:
            start = start_position(*self.game_kind)  # kept in the journal's newgame line
        else:
            kind = (variant or "chess960", chess960)
            if kind[0] == "chess960" and chess960 is None:
                kind = ("chess960", "random")
            start = start_position(*kind)
            self.game_kind = kind  # the next new game set up on the board is the same kind
        # Moves played elsewhere are a record: they replay even past a dead position.
        game = rules.Game.from_record(start, list(moves))
        if online:
            game.dead_position_ends = False  # the server decides; a dead position is a note
        line = newgame_line(  # a Chess960 game's variant rides with its options
            start.fen(), [str(m) for m in game.moves], online,
            start_record(options_record(merged), game),
        )  # fmt: skip
        self.keep(Decided(self.now_ms(), line))  # replayed if the store cannot take it yet
        board = self.intake.debouncer.stable if self.intake else None
        known = self.tracker.known_pieces()  # what the board knows stands where
        self.tracker = Tracker(game, options=merged, timing=self._timing, board=board)
        self.online = online
        now = self.now_ms()
        # A set-up position that is already over (mate, dead position) is announced at once.
        events = [new_game_event(now, game)]
        if online:
            events[0]["online"] = True
        events += self.tracker.starting_events(now)
        if not moves and not online:
            # None of the pieces standing is read as a move until the game's position
            # stands: the lights guide it into place kind by kind (arbiter/setup.py). A game
            # with moves played elsewhere (an online one) is put right as the board is
            # after any move: its moves from the server go on meanwhile.
            events += self.tracker.wait_for_pieces(now, known)
        self._end_question()
        self.after(events)
        return events

    def resume_game(self, game_id: int) -> list[dict]:
        """Make stored game ``game_id`` the game on the board again (LookupError if none;
        StoreUnavailable while the store cannot be written: the game on the board waits for
        it, and stays)."""
        from board_driver.door import StoreUnavailable
        from board_driver.service.store import NoSuchGame

        if self._store_failing is not None or self._recorder.behind(self.tracker.game):
            raise StoreUnavailable(
                f"a stored game is resumed once the store can be written: "
                f"{self._store_problem or 'it has not taken the game on the board yet'}"
            )
        try:
            game, options = self._recorder.load(game_id)
        except NoSuchGame as exc:
            raise LookupError(str(exc)) from None
        board = self.intake.debouncer.stable if self.intake else None
        self._note_online(game)
        self.tracker = Tracker(game, options=options, timing=self._timing, board=board)
        self.door.restore_seats()
        log.info("game %d resumed at ply %d", game_id, len(game.moves))
        events = [{"t": self.now_ms(), "type": "game_resumed", "game_id": game_id,
                   "fen": game.position.fen(), "variant": game.start.variant}]  # fmt: skip
        self._end_question()  # another game: what was asked was of the one before
        events += self.clock.load(self._recorder.clock_log())
        self.after(events)
        self.game_changed_outside()
        return events

    def _note_online(self, game: rules.Game) -> None:
        """A stored game played online: its server decided, so a dead position is a note
        (set before the tracker sees the game, which would end it at once)."""
        self.online = self._recorder.game_data("door").get("online") == "1"
        if self.online:
            game.dead_position_ends = False
