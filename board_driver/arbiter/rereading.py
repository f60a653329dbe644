"""Reading the hands again, when the board stops making sense.

Most moves are read as they happen: the settle time, or the other side's lift once the
piece is released, commits each one. Two things can make the board stop making sense
later, and the tracker then reads the hands again.

**A reading chosen on the way.** A few events can be read two ways, and only what follows
tells which was meant (board-script.md, "Rulings for fast and messy hands"):

- ``snatch``: the piece that just landed and rested, lifted where the other side can
  capture it (and it could not have slid on from there): the other side taking its
  victim first (the move is committed), or the mover's hand going on;
- ``release``: the other side's piece set down elsewhere while the mover's piece stands
  (its move, releasing the mover's): the move is committed; or only a piece put down, a
  slide that paused;
- ``deferred``: the mover's piece lifted again after resting the pass time while the
  other side holds a piece it lifted during the slide, or where the other side can
  capture it on a square it could have slid on from: the slide going on (nothing
  committed), or the move let go there and the lift the next move's (the other side's
  capture, its victim lifted; or its hand going on). The next place decides at once
  (see :mod:`.hands`); a board that stops making sense later reads it again like the
  others;
- ``reach`` / ``touch``: one of the other side's pieces lifted while a move is under way:
  the other side reaching out for its next move (while the mover's piece moves), or the
  mover taking it (its victim; while the mover's piece is held);
- ``stood``: a piece placed where a sliding piece rested under the pass time, while the
  other side holds a piece that can capture there: that capture (the slide had stopped
  there), or the sliding piece come back.

The tracker takes the likelier reading at once (:meth:`Rereading._choose_reading`) and
keeps the state just before it. If the board later makes no sense, it goes back to the
latest such choice, takes the other reading, and plays every event since again with the
same rulings (:meth:`Rereading._chosen_again`); the first reading that ends in sync is
kept. Moves it commits are announced then; a move it no longer commits is *replaced*
(``move`` with ``replaces``, as a rook move that became castling). The choices are
forgotten once the board has been still and in sync (not while a deferred lift waits for
its place).

**Left alone, the board is judged.** A board still for the settle time that only a piece in
the hand explains (or a move done that leaves the other side's pieces lifted) is read again
all the same (:meth:`Rereading._read_whole`), and a reading that reads every piece
standing as moves made is taken: a rook set down one square short of its capture and then
taken back there is two captures, not a rook move and a king in the hand. So is a choice
read the other way at the pass time after a move committed early.

**More than one move in the hands of one.** Some moves were never shown done in a way
that could be judged at the time: a capture faster than the switches (the victim swept
off and the capturer set down within one debounce time: with two captures possible the
board cannot say which, and it may even have been made while the daemon was down); a
slide the other side captured where it stood, before it rested the pass time; a take-back
at once followed by another move. When the still board is neither a move done nor one
on its way, some move that the board showed done at some moment of this move's hands (or
a take-back it showed) is committed there, and the events after it are played again from
that position (:meth:`Rereading._trial`); latest moment first, the first that ends in
sync is the one (a move shown done at two moments with only the other side's squares
changing between them was done at the earlier one). Played again that way, the events
may read once more as a capture where a slide stood (one level deep, not further).
Otherwise the position is illegal, as before.

:class:`Rereading` is the part of :class:`~board_driver.arbiter.tracker.Tracker` that
does this.
"""

from __future__ import annotations

from typing import Any

from board_driver.arbiter.footprint import Footprint, bit
from board_driver.arbiter.game_events import Event
from board_driver.arbiter.parts import Choice, Snapshot, TrackerParts
from board_driver.physical.events import Lift, Place

#: How many choices are kept to go back to (the latest ones).
MAX_CHOICES = 8
#: The readings that commit a move early, before the board is still.
EARLY = ("snatch", "release")
#: How many events after a move committed early it is read again: at the pass time, and
#: once the board is still.
RECENT_EVENTS, LATER_EVENTS = 3, 12


class Rereading(TrackerParts):
    """The hands since the last position, read again as several moves (a Tracker part)."""

    def _read_early_commit_again(self, t: int, *, recent: bool = False) -> list[Event] | None:
        """While only a piece in the hand explains the board, after a move committed early
        by a snatch whose square stayed empty while a piece was set down elsewhere (no
        capture landed there): that latest choice read the other way, taken if it reads
        every piece standing as moves made, once for the same events. Only a few events
        after the choice (``recent``: fewer, at the pass time, before the board is still: a
        quick look; the settle time reads it again with what followed)."""
        early = self._latest_early()
        if early is None or early.kind != "snatch":
            return None
        if self._seen - early.index > (RECENT_EVENTS if recent else LATER_EVENTS):
            return None
        places = [event.square for event in self._log[early.index + 1 :] if type(event) is Place]
        if not places or early.square in places:
            return None  # nothing set down since, or a capture landed there
        # Kept by what names it, not the choice itself: a snapshot holding an older
        # choice would keep every state before it alive.
        tried = (early.t, early.square, self._seen)
        if tried == self._early_tried:
            return None
        self._early_tried = tried
        return self._read_again(t, choices_only=True, whole=True, choices=[early])

    def _latest_early(self) -> Choice | None:
        return next((c for c in reversed(self._choices) if c.kind in EARLY), None)

    def _read_whole(self, t: int, *, on_the_way: bool = False) -> list[Event] | None:
        """Left alone, the board is judged: a board still for the settle time that only a
        piece in the hand explains is read again, and a reading that reads every piece
        standing as moves made is taken (board-script.md, "Left alone, the board is
        judged"): with a piece in the hand (``on_the_way``), the latest move committed
        early read the other way; with the other side's hand out after a move done, this
        move's hands as a capture no switch saw and what followed it. Its events, or None
        (and nothing changed)."""
        if on_the_way:
            return self._read_early_commit_again(t)
        return self._read_again(t, whole=True, choices=[], unseen_only=True)

    def _read_again(
        self,
        t: int,
        *,
        choices_only: bool = False,
        whole: bool = False,
        choices: list[Choice] | None = None,
        unseen_only: bool = False,
    ) -> list[Event] | None:
        """The board makes no sense: read the hands again (each choice the other way, then
        this move's hands as several moves). The events of the first reading that leaves
        the board showing a position or a move done, else (unless ``whole``) of the first
        that leaves a move on its way; None if none ends in sync (and nothing changed).
        ``choices``: these only, not every choice kept; ``unseen_only``: of this move's
        hands read as several moves, only those with a capture no switch saw."""
        if self._rereading:
            return None
        # The choices taken on the way first (the latest first): each was a doubt already.
        if choices is None:
            choices = self._choices
        attempts = [(self._chosen_again, choice) for choice in reversed(choices)]
        if not choices_only:
            attempts += self._turn_readings(unseen_only=unseen_only)
        if not attempts:
            return None
        current = self._snapshot()
        best: tuple[list[Event], Snapshot] | None = None
        for attempt, argument in attempts:
            out = attempt(t, argument)
            if out is None:
                continue
            if self._shows_position_or_move(whole=whole):
                return out
            if best is None and not whole:
                best = (out, self._snapshot())
            self._restore(current)
        if best is None:
            return None
        self._restore(best[1])
        return best[0]

    def _shows_position_or_move(self, *, whole: bool = False) -> bool:
        """Does the board show the committed position or a move done (``whole``: every
        piece standing where the game has it, even after the game ended)?"""
        if self.board == self._committed:
            return True
        if not self._playing():
            return not whole
        return self._complete() is not None or self._castling_shown()

    def _captured_where_it_stood(self, t: int, sq: int) -> list[Event]:
        """The piece just placed (on ``sq``, or behind it: en passant) is the other side's,
        capturing the mover's piece where it rested on ``sq`` under the pass time: that
        move stopped there. Its events, or none if that does not read (and nothing
        changed)."""
        if self._rereading == "turn" and self._standing:
            return []
        history = self._reading.history
        left = max((i for i, (_, up, at) in enumerate(history[:-1]) if up and at == sq), default=0)
        landed = max((i for i in range(left) if history[i][2] == sq), default=None)
        if landed is None:
            return []
        self._standing = True
        try:
            for fp in self._reading.footprints:
                if fp.move.to_square == sq:
                    # Done once it landed; en passant, once its victim was lifted too.
                    done = landed
                    if fp.move.is_en_passant:
                        victim = fp.move.captured_square
                        done = max(
                            (i for i in range(left) if history[i][1] and history[i][2] == victim),
                            default=done,
                        )
                    out = self._trial(t, (max(done, landed) + 1, fp))
                    if out is not None:
                        return out
        finally:
            self._standing = False
        return []

    def _turn_readings(self, *, unseen_only: bool = False) -> list[tuple[Any, Any]]:
        """This move's hands read as several moves: at each earlier moment (latest first),
        a move the board showed done then (or a take-back it showed); ``unseen_only``: only
        captures whose victim no switch had seen leave by then."""
        reading = self._reading
        history = reading.history
        boards = reading.boards()
        if unseen_only:
            lifted = [0]  # the squares lifted before each moment
            for _, up, sq in history:
                lifted.append(lifted[-1] | bit(sq) if up else lifted[-1])
        theirs = self._committed & ~reading.own
        back = self._occupancies[-2] if self.options.takeback and self.game.moves else None
        attempts: list[tuple[Any, Any]] = []
        # A move shown done at two moments, with only other squares changing between them
        # (the other side's hand), was done at the earlier one: one attempt, split there.
        latest: dict[Footprint, int] = {}  # each move's attempt, by its place in attempts
        # The board as it stands now was judged already: only earlier moments are read.
        for index in range(len(history) - 1, -1, -1):
            board = boards[index]
            # The other side's pieces off the board then may be its next move's.
            others = reading.start_board & theirs & ~board
            for fp in reading.footprints:
                if unseen_only and (fp.target is None or lifted[index] & bit(fp.target)):
                    continue
                if not (fp.after ^ board) & ~(others & ~fp.lifts):
                    at = latest.get(fp)
                    if at is not None and not any(
                        fp.touched & bit(sq) for _, _, sq in history[index : attempts[at][1][0]]
                    ):
                        attempts[at] = (self._trial, (index, fp))
                        continue
                    latest[fp] = len(attempts)
                    attempts.append((self._trial, (index, fp)))
            if board == back and self._other_side is None and not unseen_only:
                attempts.append((self._trial, (index, None)))
        return attempts

    def _trial(self, t: int, split: tuple[int, Footprint | None]) -> list[Event] | None:
        """``split``: ``(index, fp)``. Commit ``fp`` (None: take the last move back) after
        the first ``index`` events of this move's history, play the rest again, and judge:
        the events announced if that ends in sync, else None (and nothing changed)."""
        index, fp = split
        snapshot: Snapshot | None = self._snapshot()
        history = self._reading.history
        outer, recording, hindsight = self._rereading, self._recording, self._hindsight
        self._rereading = "turn"
        self._recording = False  # this replay is not of the log: its choices are not kept
        self._hindsight = {sq: when for when, lifted, sq in history if lifted}
        try:
            out = self._replay_until(index, fp)
            if out is None:
                return None
            for when, lifted, sq in history[index:]:
                out += self.tick(when)
                out += self._lift(when, sq) if lifted else self._place(when, sq)
            out += self.tick(t)
            if (
                self._out_of_sync
                or not self._makes_sense()
                or any(e["type"] in ("illegal", "takeback") for e in out[1:])
            ):
                return None
            snapshot = None  # keep this reading
            return [{**event, "t": t} for event in out]
        finally:
            self._rereading, self._recording, self._hindsight = outer, recording, hindsight
            if snapshot is not None:
                self._restore(snapshot)

    def _replay_until(self, index: int, fp: Footprint | None) -> list[Event] | None:
        """Read this move's first ``index`` events afresh, then commit ``fp`` (or take the
        last move back) if the board showed it then; None if it did not. The other side's
        pieces still off the board then, which ``fp`` does not capture, are its next
        move's."""
        history = self._reading.history
        reading = self._fresh_reading(self._reading.start_board)
        self._reading = reading
        self.board = board = reading.start_board
        for _, lifted, sq in history[:index]:
            board = board & ~bit(sq) if lifted else board | bit(sq)
        carried = reading.start_board & self._committed & ~reading.own & ~board
        if fp is not None:
            carried &= ~fp.lifts
        last_lift = {sq: i for i, (_, lifted, sq) in enumerate(history[:index]) if lifted}
        touch_mode = self.options.touch_move
        for i, (when, lifted, sq) in enumerate(history[:index]):
            if not lifted:
                reading.note_place(when, sq)
                self.board |= bit(sq)
                continue
            if carried & bit(sq) and last_lift[sq] == i:
                reading.note_other_lift(when, sq)
            else:
                reading.note_lift(when, sq, touch_mode=touch_mode)
            self.board &= ~bit(sq)
        when = history[index - 1][0] if index else 0
        if fp is None:
            return self._take_back(1, when) if self._takeback_depth() == 1 else None
        if self._complete() != fp or not self._acceptable(fp.move):
            if fp.target is None or fp.after != self.board | reading.others_off or self._quickly:
                return None  # an unseen capture is read only on a still board
            # A capture's victim never seen leaving: a swap faster than the switches. What
            # was seen still counts: no piece is set down after it that no hand held.
            if (
                fp.target in reading.lift_t
                or not self._acceptable(fp.move)
                or not _held_throughout(history, index)
            ):
                return None
        return self._commit(fp, when)

    def _choose_reading(self, kind: str, t: int, square: int) -> bool:
        """Take the reading ``kind`` of the event at ``t`` on ``square`` (True), unless the
        hands are being read again the other way (False). The state before is kept."""
        if self._forced == (kind, t, square):
            return False
        if self._recording:
            self._choices.append(Choice(kind, t, square, self._seen, self._snapshot()))
            del self._choices[:-MAX_CHOICES]
        return True

    def _forget_choices(self) -> None:
        """The board has been still and in sync (or the game changed outside the board):
        the hands so far are read for good."""
        if self._seen and self._recording and not self._rereading:
            self._log = []
            self._seen = 0
            self._choices = []

    def _chosen_again(self, t: int, choice: Choice) -> list[Event] | None:
        """``choice`` read the other way, and every event since played again: the events to
        announce if that ends in sync, else None (and nothing changed)."""
        current = self._snapshot()
        moves, was_out = list(self.game.moves), self._out_of_sync
        log = self._log
        self._restore(choice.before)
        self._rereading = "choice"
        self._forced = (choice.kind, choice.t, choice.square)
        self._hindsight = {e.square: e.t_ms for e in log[choice.index :] if type(e) is Lift}
        try:
            out: list[Event] = []
            for index in range(choice.index, len(log)):
                event = log[index]
                out += self.tick(event.t_ms)
                out += self._dispatch(event)
                self._seen = index + 1
            out += self.tick(t)
            if len(self.game.moves) < len(moves):
                # A move read before is undone: the one the board shows instead, if done
                # and let go, replaces it now.
                found = self._complete()
                if (
                    found is not None
                    and self._acceptable(found.move)
                    and self._reading.released(found, t)
                ):
                    out += self._commit(found, t)
            settled = not self._out_of_sync and self._makes_sense()
            if len(self.game.moves) < len(moves) and choice.kind == "release":
                # A move whose piece rested the pass time while the other side went on
                # was made: read again, it may become another move, never none.
                settled = False
        except ValueError:
            settled = False  # a board the other reading cannot have
        finally:
            self._rereading = ""
            self._forced = None
            self._hindsight = None
        if settled and not any(e["type"] in ("illegal", "takeback") for e in out):
            return self._changes(moves, out, t, was_out)
        self._restore(current)
        return None

    def _changes(self, moves: list[Any], out: list[Event], t: int, was_out: bool) -> list[Event]:
        """What to announce after the hands were read again: the events of the moves
        beyond those both readings commit; the first replaces a move committed before (or
        moves committed before and no longer are taken back)."""
        now = self.game.moves
        same = 0
        while same < min(len(moves), len(now)) and moves[same] == now[same]:
            same += 1
        kept: list[Event] = []
        waiting: list[Event] = []  # a touch_move warning goes with the move after it
        keep = False
        for event in out:
            kind = event["type"]
            if kind == "touch_move":
                waiting.append(event)
                continue
            if kind in ("move", "promotion_amended"):
                keep = event["ply"] > same
                if keep:
                    kept += waiting
                waiting = []
            if keep:
                kept.append({**event, "t": t})
        undone = moves[same:]
        if undone:
            position = self.game.start.copy()
            for move in moves[:same]:
                position.push(move)
            first_move = next((e for e in kept if e["type"] == "move"), None)
            if first_move is not None:
                first_move["replaces"] = position.san(undone[0])
            else:  # the moves read before were not made: the board stands before them
                kept = self._undone_events(position, undone, t) + kept
        if was_out and not self._out_of_sync:
            kept.append({"t": t, "type": "restored", "fen": self._position.fen()})
        return kept

    def _undone_events(self, position: Any, undone: list[Any], t: int) -> list[Event]:
        positions = [position.copy()]
        for move in undone[:-1]:
            position.push(move)
            positions.append(position.copy())
        return [
            {
                "t": t,
                "type": "takeback",
                "san": before.san(move),
                "uci": str(move),
                "side": "white" if before.turn else "black",
                "fen": before.fen(),
            }
            for before, move in reversed(list(zip(positions, undone, strict=True)))
        ]

    def _makes_sense(self) -> bool:
        """Does the board show the committed position, a move done, or one on its way (a
        slider passing over its path too, when judged before the board is still)?"""
        return (
            self.board == self._committed
            or not self._playing()
            or self._complete() is not None
            or self._castling_shown()
            or self._on_the_way(sliding=self._quickly)
        )

    def _snapshot(self) -> Snapshot:
        state = dict(self.__dict__)
        state["_reading"] = self._reading.copy()  # the live one goes on reading
        # Kept apart, not in the state: a choice's snapshot holding the list of choices
        # that holds it would be a cycle, left for the garbage collector.
        del state["_choices"]
        return (
            state,
            list(self._occupancies),
            list(self.game.moves),
            list(self._choices),
        )

    def _restore(self, snapshot: Snapshot) -> None:
        state, occupancies, moves, choices = snapshot
        game = self.game
        while len(game.moves) > len(moves) or game.moves != moves[: len(game.moves)]:
            game.pop()
        for move in moves[len(game.moves) :]:
            game.push(move)
        log = self._log
        self.__dict__.clear()
        self.__dict__.update(state)
        self._reading = state["_reading"].copy()  # the snapshot may be gone back to again
        self._occupancies = list(occupancies)
        self._choices = list(choices)
        self._log = log  # the events themselves are the same, however they are read


def _held_throughout(history: list[tuple[int, bool, int]], index: int) -> bool:
    """After the first ``index`` events of ``history``, is a piece off the board at every
    moment? (A capture no switch saw leaves its victim off the board for good: a piece set
    down when no other was off would come from nowhere.)"""
    off = 0
    for at, (_, lifted, _) in enumerate(history):
        off += 1 if lifted else -1
        if at + 1 >= index and off < 1:
            return False
    return True
