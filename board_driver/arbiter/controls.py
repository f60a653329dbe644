"""The controls beside the board: j'adoube, draw offers, claims, resignation, a hint; and
endings decided elsewhere (a flag fall, an online game's result).

A button judges the board first (board-script.md, "A button judges the board first"): the
board as it stands at the press is judged as if it had been still for the settle time, so
a move whose pieces stand is committed first, whatever their resting time (a claim is
judged on the position it made, a resignation or an offer is by the side to move after
it, a new game keeps the old one's moves).
:class:`Controls` is the part of :class:`~board_driver.arbiter.tracker.Tracker` that
answers them; ``new_game`` is in :mod:`.setup`.
"""

from __future__ import annotations

from board_driver.arbiter.game_events import Event, game_over_event
from board_driver.arbiter.parts import TrackerParts
from board_driver.arbiter.words import side_name
from board_driver.physical.events import ASK_BUTTONS
from rules import ClaimRefused, Color, Outcome


class Controls(TrackerParts):
    """Buttons, offers and claims, and endings decided outside the board (a Tracker part)."""

    _draw_offer: Color | None  # the side whose draw offer stands

    def end_game(self, termination: str, winner: Color | None, t_ms: int) -> list[Event]:
        """An ending decided outside the board (a flag fall, an online game's result):
        the game is over at once (``game_over``). ValueError if it is over already, or
        if ``termination`` is one the board decides itself (see :meth:`rules.Game.end`).
        """
        if self._outcome is not None:
            raise ValueError(f"end_game: the game is over already ({self._outcome.termination})")
        return self._end(t_ms, self.game.end(termination, winner))

    def judge_now(self, t: int) -> list[Event]:
        """Judge the board as it stands at ``t``, as a button would: a move whose pieces
        stand is committed now, whatever their resting time (a clock's flag about to fall
        asks whether the move was let go in time)."""
        return self._before_button(t)

    def forfeit(self, color: Color, termination: str, t: int) -> list[Event]:
        """``color`` loses at ``t`` by a rule of the clock or the arbiter: its flag fell
        (``timeout``) or a second illegal move (``rules_infraction``); a draw when the
        opponent cannot checkmate by any series of legal moves (FIDE 6.9, 7.5.5).
        ValueError if the game is over already."""
        if self._outcome is not None:
            raise ValueError(f"forfeit: the game is over already ({self._outcome.termination})")
        return self._end(t, self.game.forfeit(color, termination))

    def _button(self, t: int, name: str) -> list[Event]:
        if name in ASK_BUTTONS:  # a question: it changes nothing, whatever the game's state
            return self._before_button(t) + self._ask(t, ASK_BUTTONS[name])
        handler = getattr(self, f"_button_{name}", None)
        if handler is None:
            raise ValueError(f"button {name!r} at {t} ms: not a control this board knows")
        out = self._before_button(t)
        if name not in ("new_game", "hint") and not self._playing():
            reason = "a new game is being set up" if self._setup is not None else "the game is over"
            return [*out, {"t": t, "type": "refused", "button": name, "reason": reason}]
        return out + handler(t)

    def _before_button(self, t: int) -> list[Event]:
        """A button judges the board first: as it stands at the press, as if it had been
        still for the settle time (every move its pieces show is committed, whatever their
        resting time: a claim is judged on the position they made, a resignation or an
        offer is the side to move's after them, a new game keeps the old one's moves)."""
        if not self._playing() or self._deadline is None:
            return []
        self._deadline = self._quick = None
        return self._judge(t)

    def _ask(self, t: int, what: str) -> list[Event]:
        """A question asked with a button (``ask``, for the speech extension). Before a
        piece is named (``square``, ``rank``, ``file``) it is lifted and put back: as after
        *j'adoube*, that touches nothing (the same reading of the hands: the next lifts and
        replacements on their squares, until a piece goes elsewhere)."""
        if what in ("square", "rank", "file") and self._playing():
            self._reading.adjust()
        return [{"t": t, "type": "ask", "what": what}]

    def _button_adjust(self, t: int) -> list[Event]:
        self._reading.adjust()
        return [{"t": t, "type": "adjust", "side": side_name(self._position.turn)}]

    def _end(self, t: int, outcome: Outcome) -> list[Event]:
        self._outcome = outcome
        self._forget_windows()
        return [game_over_event(t, outcome)]

    def _button_resign(self, t: int) -> list[Event]:
        loser = self._position.turn if self._other_side is None else not self._other_side
        return self._end(t, self.game.resign(loser))  # against an engine: the person

    # Either player may resign at any moment (FIDE 5.1.2), whoever is to move.
    def _button_resign_white(self, t: int) -> list[Event]:
        return self._end(t, self.game.resign(True))

    def _button_resign_black(self, t: int) -> list[Event]:
        return self._end(t, self.game.resign(False))

    def _button_draw_offer(self, t: int) -> list[Event]:
        self._draw_offer = self._position.turn
        return [{"t": t, "type": "draw_offer", "side": side_name(self._draw_offer)}]

    def _button_draw_accept(self, t: int) -> list[Event]:
        if self._draw_offer is None:
            reason = "no draw offer stands"
            return [{"t": t, "type": "refused", "button": "draw_accept", "reason": reason}]
        self._draw_offer = None
        return self._end(t, self.game.agree_draw())

    def _button_claim_draw(self, t: int) -> list[Event]:
        try:
            outcome = self.game.claim_draw()
        except ClaimRefused as refused:
            return [{"t": t, "type": "claim_refused", "reason": str(refused)}]
        return self._end(t, outcome)

    def _button_hint(self, t: int) -> list[Event]:
        return [{"t": t, "type": "hint_requested"}]

    # The clock's buttons: the board is judged first (a move whose pieces stand comes
    # before the press); the clock, which follows the events, does the rest.
    def _button_clock(self, t: int, name: str = "clock") -> list[Event]:
        return [{"t": t, "type": "clock_button", "button": name}]

    def _button_clock_white(self, t: int) -> list[Event]:
        return self._button_clock(t, "clock_white")

    def _button_clock_black(self, t: int) -> list[Event]:
        return self._button_clock(t, "clock_black")

    def _button_pause(self, t: int) -> list[Event]:
        return self._button_clock(t, "pause")
