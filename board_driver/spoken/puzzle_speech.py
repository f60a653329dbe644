"""What the board says of a position set up kind by kind and of puzzles (a part of the
:class:`~board_driver.spoken.narrator.Narrator`): the squares of the kind due, a piece it
knows is the wrong one, one it cannot tell; a puzzle, the hint, the result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from board_driver.spoken.utterance import Utterance
from board_driver.spoken.words import PieceWords, SideWords, Words


class PuzzleSpeech:
    """The narrator's handlers of the set-up's and the puzzles' events."""

    words: Words
    say: frozenset[str]
    #: The kind-by-kind set-up: the group last said, the wrong squares said.
    _kind_said: int | None
    _wrong_said: set[str]

    if TYPE_CHECKING:

        def _utter(self, kind: str, text: str) -> Utterance: ...
        def _control(self, key: str, **fields: Any) -> Utterance | None: ...

    def _on_setup(self, event: dict, snapshot: Any) -> Utterance | None:
        """A position set up kind by kind: the kind due when it changes (its squares
        still empty), and each square the board knows holds the wrong piece, once."""
        if "setup" not in self.say:
            return None
        words = self.words
        parts = []
        for wrong in event.get("wrong", ()):
            if wrong["square"] in self._wrong_said:
                continue
            self._wrong_said.add(wrong["square"])
            held, wanted = _piece(wrong["holds"]), _piece(wrong["wants"])
            parts.append(words.say("setup.wrong", square=wrong["square"], held=held, wanted=wanted))
        group = event.get("group")
        if group is not None and group["missing"] and event.get("number") != self._kind_said:
            self._kind_said = event.get("number")
            parts.append(words.say("setup.kind", piece=_piece(group), squares=group["missing"]))
        return self._utter("setup", " ".join(parts)) if parts else None

    def _on_setup_early(self, event: dict, snapshot: Any) -> Utterance | None:
        if "setup" not in self.say:
            return None
        text = self.words.say("setup.early", square=event.get("square", ""), piece=_piece(event))
        return self._utter("setup", text)

    def _on_setup_done(self, event: dict, snapshot: Any) -> Utterance | None:
        self._kind_said, self._wrong_said = None, set()
        unchecked = [u["square"] for u in event.get("unchecked", ())]
        if "setup" not in self.say or not unchecked:
            return None
        return self._utter("setup", self.words.say("setup.unchecked", squares=unchecked))

    def _on_puzzle(self, event: dict, snapshot: Any) -> Utterance | None:
        if "setup" not in self.say:
            return None
        fields = {"number": event.get("number", 1), "side": SideWords(event.get("player", "white"))}
        if event.get("rating") is None:
            return self._utter("setup", self.words.say("puzzle", **fields))
        text = self.words.say("puzzle.rated", rating=event["rating"], **fields)
        return self._utter("setup", text)

    def _on_puzzle_right(self, event: dict, snapshot: Any) -> Utterance | None:
        if "moves" not in self.say or not event.get("left"):
            return None  # the last one: the result says it
        return self._utter("move", self.words.say("puzzle.right"))

    def _on_puzzle_hint(self, event: dict, snapshot: Any) -> Utterance | None:
        if event.get("level", 1) >= 2:
            return self._control("hint", move=self.words.move(event.get("san", "")))
        piece = PieceWords(event.get("piece", "pawn"))
        return self._control("puzzle.hint_piece", piece=piece, square=event.get("square", ""))

    def _on_puzzle_done(self, event: dict, snapshot: Any) -> Utterance | None:
        if "setup" not in self.say:
            return None
        result = event.get("result", "failed")
        key = f"puzzle.{result}" if result in ("solved", "helped") else "puzzle.failed"
        return self._utter("end", self.words.say(key, streak=event.get("streak", 0)))

    def _on_puzzles_over(self, event: dict, snapshot: Any) -> Utterance | None:
        if "setup" not in self.say:
            return None
        key = "puzzles.none_left" if event.get("reason") == "no puzzle left" else "puzzles.over"
        return self._utter("setup", self.words.say(key))


def _piece(named: dict) -> PieceWords:
    """A piece as events name it (``{"side": "white", "piece": "rook"}``), its colour said."""
    return PieceWords(named.get("piece", "piece"), named.get("side"))
