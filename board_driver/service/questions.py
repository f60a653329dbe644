"""What the board cannot tell after a restart, asked: the part of
:class:`~board_driver.service.daemon.Daemon` that asks it on the page and the lights
(:class:`.resumption.Question`: the readings of the pieces), holds the board's lifts and
places meanwhile, and takes the answer, from the page or from the hands (the pieces put
back as stored; hands that leave only one reading once the board is still). The question
and its answer are lines of the hands journal, so that a restart asks again, or goes on
from the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from board_driver.physical.events import BoardEvent, Lift, Place
from board_driver.physical.frame import Frame
from board_driver.physical.squares import square_name, squares_of
from board_driver.service.hands_journal import Asked, Decided
from board_driver.service.journal_lines import read_line
from board_driver.service.parts import DaemonParts
from board_driver.service.resumption import Question, Reading, readings

log = logging.getLogger("magboard")


class Questions(DaemonParts):
    """Asking what the pieces cannot tell (see the module docstring)."""


    def _ask(self, found: list[Reading], standing: int) -> None:
        """Several readings of the pieces after a restart: asked on the page and lit, the
        board's lifts and places held back until the answer (and kept in the journal, so
        that a restart asks again)."""
        self.keep(Asked(self.now_ms(), standing))
        self._set_question(Question(found, self.tracker.game.position.copy(), standing, standing))

    def _ask_again(self, asked: Asked, held: Sequence[Any]) -> None:
        """The question in the journal, asked again after a restart, with the lifts and
        places held since (the tracker is where it was when it was first asked)."""
        found = readings(self.tracker.game.position, asked.standing)
        if not self.tracker.at_rest() or len(found) < 2:
            return  # not the same question: the pieces are judged as they stand
        question = Question(found, self.tracker.game.position.copy(), asked.standing,
                            asked.standing)  # fmt: skip
        for event in held:
            if isinstance(event, Lift | Place):
                question.note(event)
        self._set_question(question)

    def _set_question(self, question: Question) -> None:
        self.question = question
        log.warning("%s", question.words())
        frame = Frame.off()
        for sq in squares_of(question.squares()):
            frame = frame.with_square(sq, "y", blink=True)
        self._question_lights.show(frame)
        self.after(
            [
                {
                    "t": self.now_ms(),
                    "type": "question",
                    "readings": list(question.options()),
                    "squares": [square_name(sq) for sq in squares_of(question.squares())],
                }
            ]
        )

    def answer(self, choice: int) -> list[dict]:
        """The answer to the question asked after a restart: reading ``choice`` (numbered
        as :meth:`Question.options`) is what happened. ValueError if none stands."""
        question = self.question
        if question is None:
            raise ValueError("the board asks nothing now")
        if not 0 <= choice < len(question.choices):
            raise ValueError(f"reading: {choice} is not one of 0..{len(question.choices) - 1}")
        return self._resolve(choice, "answered")

    def _resolve(self, choice: int, how: str) -> list[dict]:
        """Reading ``choice`` is what happened: its moves stored, then the lifts and places
        held meanwhile given to the tracker."""
        question = self.question
        assert question is not None  # only while one is asked
        reading = question.choices[choice]
        words = question.options()[choice]
        log.info("%s: %s", how, words)
        self._end_question()
        events = [{"t": self.now_ms(), "type": "answered", "reading": words}]
        self.after(events)
        # As Question.decided tried it: a tracker of the game the reading makes, on the
        # pieces standing when asked, given the hands since.
        events += self._play_unseen(reading, question.standing)
        events += self.handle(question.held)
        return events

    def _end_question(self) -> None:
        self.question = None
        self._question_lights.show(None)

    def _held(self, event: BoardEvent) -> None:
        """A lift or place while a question stands: held for after the answer. The pieces
        put back as the game stands answer it (nothing was played); the hands since, once
        the board is still, may leave only one reading (:meth:`.Question.decided`)."""
        question = self.question
        assert question is not None  # only while one is asked
        question.note(event)
        if question.board == self.tracker.board:
            log.info("the pieces are back as stored: nothing was played while the daemon was away")
            self.keep(Decided(self.now_ms(), read_line([], self.tracker.board)))
            self._end_question()
            self._restart_journal()
            self.after([{"t": self.now_ms(), "type": "answered", "reading": "nothing"}])
            return
        self._decide_when_still()

    def _decide_when_still(self) -> None:
        """Once the board has been still for the settle time since the last hand: has it
        left only one reading? (Not before: pieces being put right pass through boards no
        reading explains.)"""
        handle = self._timers.pop("question", None)
        if handle is not None:
            handle.cancel()
        held = self.question.held if self.question is not None else []
        if held and self.loop is not None:
            when = self.loop_time(held[-1].t_ms + self._timing.settle_ms + 1)
            self._timers["question"] = self.loop.call_at(when, self._check_decided)

    def _check_decided(self) -> None:
        self._timers.pop("question", None)
        question = self.question
        if question is None:
            return
        tracker = self.tracker
        choice = question.decided(tracker.game, tracker.options, self._timing)
        if choice is not None:
            self._resolve(choice, "the hands since tell")
