"""The daemon after a restart, and what it keeps so that a restart can go on: the part of
:class:`~board_driver.service.daemon.Daemon` that keeps the hands journal as the game goes
(:mod:`.hands_journal`: every event first, a new anchor once the store has everything)
and, at the start, replays it (:mod:`.replay`) and takes what it leads to, or sets it
aside; then reads the pieces moved while the daemon was away, played at once when they
read one way (asked, :mod:`.questions`, when several).

Nothing a file the board wrote itself holds keeps it from starting: a journal that cannot
be replayed is renamed aside (never written over), said in the log and on the page
(:attr:`Daemon.notices`), and the board starts from the store and the pieces.
"""

from __future__ import annotations

import contextlib
import logging

import rules
from board_driver.arbiter.setup import start_position
from board_driver.arbiter.tracker import Tracker
from board_driver.physical.events import BoardEvent, Lift, Place
from board_driver.physical.squares import square_name, squares_of
from board_driver.service.hands_journal import Anchor, Asked, Decided, Expect
from board_driver.service.journal_lines import read_line, setup_line, start_line
from board_driver.service.parts import DaemonParts
from board_driver.service.replay import ReplayRefused, replay_journal
from board_driver.service.resumption import Reading, readings
from board_driver.service.storing import STORE_ERRORS

log = logging.getLogger("magboard")


class Restart(DaemonParts):
    """The hands journal kept, and replayed at the start (see the module docstring)."""


    def _catch_up(self, standing: int) -> None:
        """Pieces that moved while the daemon was away (a crash, a power cut): as if moved now.

        With a move in progress (its hands replayed from the journal) the changes are its
        next events. With none, the pieces alone are read (:func:`.resumption.readings`):
        one reading is taken (a move completed but not yet judged is judged, half a move
        waits to be finished); several are asked, never one stored silently; none is out
        of sync, and the lights show what to put right.
        """
        tracker = self.tracker
        if self.question is not None:  # asked before the restart, asked again
            if standing == self.question.board:
                self._decide_when_still()
            else:
                self._hand_differences(self.question.board, standing)
            return
        committed = tracker.board
        if standing == committed:
            return
        lifted = squares_of(committed & ~standing)
        placed = squares_of(standing & ~committed)
        log.info(
            "the pieces differ from the %s:%s%s",
            "stored game" if tracker.at_rest() else "move in progress",
            " lifted " + " ".join(map(square_name, lifted)) if lifted else "",
            " placed " + " ".join(map(square_name, placed)) if placed else "",
        )
        if tracker.at_rest() and tracker.game.outcome() is None:
            found = readings(tracker.game.position, standing)
            if len(found) > 1 and any(reading.moves for reading in found):
                self._ask(found, standing)
                return
            if len(found) == 1 and found[0].moves:
                self._play_unseen(found[0], standing)
                return
        self._hand_differences(committed, standing)

    def _hand_differences(self, committed: int, standing: int) -> None:
        """The tracker is given what changed from ``committed`` to ``standing``, now."""
        t = self.now_ms()
        lifted = squares_of(committed & ~standing)
        placed = squares_of(standing & ~committed)
        self.handle([*(Lift(t, sq) for sq in lifted), *(Place(t, sq) for sq in placed)])

    def _replay_journal(self, game: rules.Game) -> tuple[list[dict], list]:
        """The journal replayed from its anchor (:mod:`.replay`) and taken when it agrees
        with the store: the game on the board is then the one it leads to. Returns the game
        events to announce (what the store lacks) and the replay's steps from there (for
        the clock). A journal that cannot be used, for any reason, is set aside (never
        written over) and the board starts from the store and the pieces."""
        journal, loop = self.journal, self.loop
        assert journal is not None and loop is not None  # opened by _start, on the loop
        if journal.unreadable is not None:
            self._set_journal_aside(journal.unreadable)
            return [], []
        kept = journal.kept
        if kept is None or (not kept.events and kept.board is None and not kept.skipped):
            self._restart_journal()  # it holds nothing the store has not
            return [], []
        stored = [str(m) for m in game.moves]
        why = kept.fits(self.game_id, self._recorder.started, game.start.fen(), stored)
        if why:
            self._set_journal_aside(why)
            return [], []

        def seat(tracker: Tracker) -> None:
            self.tracker = tracker
            self.door.follow_turn()

        drawn: list[rules.Position] = []

        def draw() -> rules.Position:  # a journal without the start drawn (an older one's)
            drawn.append(start_position(*self.game_kind))
            return drawn[-1]

        stored_tracker = self.tracker
        try:
            done = replay_journal(
                kept, game, options=self.tracker.options, timing=self._timing,
                online=self.online, seat=seat, next_start=draw,
            )  # fmt: skip
        except ReplayRefused as exc:
            self.tracker = stored_tracker
            self.door.restore_seats()
            self._set_journal_aside(str(exc))
            return [], []
        for words in done.warnings:
            log.warning("the hands journal %s: %s", journal.path, words)
        self.tracker = done.tracker
        self.online = done.online
        if done.same_game:
            self._recorder.adopt(done.tracker.game)
        self.door.follow_turn()
        # The daemon's clock goes on from the journal's: the board has been left alone
        # since its last event for at least the settle time (the time the daemon was away).
        self._t0 = loop.time() - done.final_t / 1000
        log.info(
            "the hands journal replayed: %d events since ply %d, from %s",
            len(kept.events),
            kept.plies,
            journal.path,
        )
        journal.go_on()
        for start in drawn:  # drawn again now: kept, so that the next restart keeps it
            self.keep(Decided(self.now_ms(), start_line(start.variant, start.fen())))
        # What was set beside the moves, kept in the journal: the stored game's now, the
        # new game's (if one followed) with it once it is stored.
        recorder = self._recorder
        first = done.tracker.options if done.same_game else done.stored_options
        if first is not None and first != stored_tracker.options:
            self.store_call(recorder.set_options, first)
        if done.same_game:
            self._set_replayed(done.headers, done.data)
        else:
            self._set_replayed(done.stored_headers, done.stored_data)
            self._replayed = (done.headers, done.data)
            self._new_game_replayed = True
        if done.question is not None:
            self._ask_again(*done.question)
        return done.events, done.steps

    def _set_replayed(self, headers: dict[str, str], data: dict[str, dict]) -> None:
        """Headers and extensions' texts of the game on the board, from the journal."""
        with contextlib.suppress(ValueError):  # checked when they were kept
            if headers:
                self.store_call(self._recorder.set_headers, headers)
            for extension, texts in data.items():
                self.store_call(self._recorder.set_game_data, extension, texts)

    def _store_steps(self, steps: list) -> None:
        """The lines of moves the replayed steps passed through, stored in turn, as the
        store would have had them had it worked (a take-back replayed is a take-back in its
        history, not an amendment of the move that followed it)."""
        start = self.tracker.game.start
        last = self._recorder.stored_line
        for found, line in steps[:-1]:
            if any(e.get("type") == "new_game" for e in found):
                return  # another game: stored as one by the replay's last step
            if line == last:
                continue
            last = line
            try:
                self._recorder.store_line(rules.Game.from_record(start.copy(), list(line)))
            except STORE_ERRORS:
                return  # the last step's sync says it, and retries

    def _set_journal_aside(self, why: str) -> None:
        """The journal cannot be replayed: renamed aside (never written over), said in the
        log and on the page; the journal starts again from the game as stored."""
        journal = self.journal
        assert journal is not None  # opened by _start
        where = journal.set_aside()
        kept = f"set aside as {where}" if where is not None else "left as it is"
        self._notice(f"the hands journal {journal.path} is not replayed: {why}; {kept}")
        self._restart_journal()

    def _notice(self, words: str) -> None:
        """Something about the board's own files a person should know: logged, and on the
        page (the snapshot's ``notices``) until the daemon stops."""
        log.warning("%s", words)
        self.notices.append(words)
        del self.notices[:-5]

    def _restart_journal(self) -> None:
        """The journal starts again from the game as it stands, and the pieces standing (a
        tracker made afresh from both reads on as this one): only when the store has
        everything, so that the journal always holds what the store lacks."""
        recorder, journal = self.recorder, self.journal
        if journal is None or recorder is None or self._store_failing is not None:
            return
        if recorder.game_id is None or recorder.behind(self.tracker.game):
            return
        tracker = self.tracker
        game = tracker.game
        journal.start(
            Anchor(
                recorder.game_id,
                self._recorder.started,
                game.start.fen(),
                tuple(map(str, game.moves)),
                None if tracker.board == game.position.occupancy() else tracker.board,
            )
        )
        if tracker.setting_up_its_game:  # its set-up under way: after a restart, still one,
            # asking for the same squares (what the board knew stood where is kept with it).
            # A button's set-up is not: its game is made when the pieces stand, and the
            # journal's start and button lines make it again.
            journal.add(Decided(self.now_ms(), setup_line(tracker.known_pieces())))

    def _keep_journal(self, fresh: bool) -> None:
        """After a step the store took: the journal starts again when the tracker holds
        nothing but its game (or a new game began)."""
        journal = self.journal
        if journal is None or self.question is not None:
            return
        if fresh or (
            self.tracker.at_rest()
            and journal.unsettled(self._recorder.game_id, len(self.tracker.game.moves))
        ):
            self._restart_journal()

    def keep(self, event: BoardEvent | Expect | Asked | Decided) -> None:
        """Write ``event`` to the journal, before the tracker is given it (or held back
        for a question)."""
        if self.journal is not None:
            self.journal.add(event)

    def game_changed_outside(self) -> None:
        """Another game on the board, or moves read from the pieces: the journal starts
        again from the game as it now stands, once the store has it (until then the
        journal's own lines say what changed: :class:`.Decided`)."""
        self._restart_journal()

    def _play_unseen(self, reading: Reading, standing: int) -> list[dict]:
        """Moves played while nothing was kept, read from the pieces (the one reading, or
        the one answered; perhaps none, a piece in the hand): committed as they are, the
        pieces then standing given to a tracker of the game they lead to."""
        from board_driver.arbiter.game_events import pushed_events

        game = self.tracker.game
        t = self.now_ms()
        # Kept, so that a restart before the store has them reads the same (the pieces
        # may have moved by then).
        self.keep(Decided(t, read_line([str(m) for m in reading.moves], standing)))
        events = pushed_events(game, list(reading.moves), t)
        if events:
            log.info("read from the pieces: %s played while the daemon was away",
                     " ".join(e["san"] for e in events if e["type"] == "move"))  # fmt: skip
        options = self.tracker.options
        self.tracker = Tracker(game, options=options, timing=self._timing, board=standing)
        self.door.restore_seats()
        events += self.tracker.starting_events(t)
        self.after(events)
        self.game_changed_outside()
        return events
