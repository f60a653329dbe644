"""The door's events told in words: what the board says, and when, as the game goes.

A :class:`Narrator` follows the events of :meth:`board_driver.door.Door.subscribe` (with
``board=True``: the lifts and places tell *what stands here*) and answers each with the
utterances to say, in its language, each of a kind that says what it is about and whether
it is news of the game (``urgent``: a move, the move to make for the engine, an illegal
position, the end) that makes what was being said before stale. It keeps only what the
events tell: the position, the move a player away chose, a question asked of the pieces.

What is said can be chosen by category (:data:`CATEGORIES`); the answers to a player's
questions are always said.

>>> from types import SimpleNamespace
>>> from rules import STARTING_FEN
>>> snap = SimpleNamespace(fen=STARTING_FEN, start_fen=STARTING_FEN, moves=(), players={},
...     question=(), result="*", termination=None, winner=None, clock=None, player_states={},
...     setup_pending=False, sensed=0, in_sync=True, empty=(), fill=())
>>> narrator = Narrator(Words("en"), snapshot=snap)
>>> def said(*events):
...     return [u.text for e in events for u in narrator.follow(e, snap)]
>>> said({"type": "move", "san": "e4", "uci": "e2e4", "side": "white",
...       "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"})
['e4.']
>>> said({"type": "engine_move", "san": "Nf6", "uci": "g8f6", "from": "g8", "to": "f6",
...       "side": "black"})
['Black plays knight to f6: move the knight from g8 to f6.']
>>> said({"type": "move", "san": "Nf6", "uci": "g8f6", "side": "black",
...       "fen": "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"})
['Done.']
>>> said({"type": "illegal", "empty": ["a5"], "fill": ["a2"], "reason": "no_legal_move",
...       "why": "the pawn on a2 cannot go to a5"})
['Illegal: the pawn on a2 cannot go to a5; put it back on a2.']
>>> said({"type": "restored"})
['The board matches again.']
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from board_driver.physical.squares import square, square_name, squares_of
from board_driver.spoken import asks
from board_driver.spoken.asks import answer
from board_driver.spoken.puzzle_speech import PuzzleSpeech
from board_driver.spoken.reasons import (
    Sentence,
    piece_on,
    remedy,
    side_of,
    why_illegal,
    why_touch_move,
)
from board_driver.spoken.utterance import Utterance
from board_driver.spoken.words import PieceWords, SideWords, Words, mover_kind
from rules import STARTING_FEN, Position

#: What can be said, each switchable (``[speech]``: ``moves = false`` ...): every move;
#: the move to make for a player away (an engine, an online opponent), then *done*; check;
#: the end of a game; an illegal position and how to put it right; touch-move; the
#: controls (j'adoube, offers, claims, take-backs, hints); the board's questions after a
#: restart; new games, setting up and the board's own state; the clock (low time, pause).
CATEGORIES = (
    "moves",
    "other_side",
    "check",
    "endings",
    "illegal",
    "touch_move",
    "controls",
    "questions",
    "setup",
    "clock",
)
#: The readings of a question after a restart, as the daemon words them: moves in SAN,
#: then perhaps the piece still in the hand.
_IN_HAND = re.compile(
    r"^(?P<moves>.*?)[,:]? ?the piece from (?P<squares>[a-h1-8 ]+) is in the hand$"
)
_REFUSALS = {
    "the game is over": "refused.over",
    "a new game is being set up": "refused.setup",
    "no draw offer stands": "refused.no_offer",
}
_START = Position()


class Narrator(PuzzleSpeech):
    """Turns the door's events into utterances (see the module docstring). ``say``: the
    categories to say; ``snapshot``: the board as it stands when the narrator starts."""

    def __init__(
        self, words: Words, say: Collection[str] = CATEGORIES, *, snapshot: Any = None
    ) -> None:
        unknown = set(say) - set(CATEGORIES)
        if unknown:
            raise ValueError(f"not a category of speech: {', '.join(sorted(unknown))}")
        self.words = words
        self.say = frozenset(say)
        #: The rules of the game followed (its FENs are read by them).
        self.variant = getattr(snapshot, "variant", "standard")
        self.position = (
            Position.from_fen(snapshot.fen, variant=self.variant)
            if snapshot is not None
            else Position()
        )
        #: The start position of a new game being set up (its pieces named as asked for).
        self.setup_start = _START
        #: The move a player away chose, still to be made on the board (its event).
        self.expected: dict[str, Any] | None = None
        #: The words of the last illegal position's remedy, while the board is out of sync.
        self.fix: str | None = None
        #: What a piece lifted and put back says (``square``, ``rank``, ``file``), after the
        #: button asked it, until a piece goes to another square or a move is made.
        self.identify: str | None = None
        self._lifted: set[str] = set()
        self._engine_failed = False
        self._check_said = False
        #: The kind-by-kind set-up: the group last said, the wrong squares said.
        self._kind_said: int | None = None
        self._wrong_said: set[str] = set()

    # ------------------------------------------------------------------ helpers

    def _utter(self, kind: str, text: str) -> Utterance:
        return Utterance(text, kind)

    def _text(self, sentence: Sentence) -> str:
        key, fields = sentence
        return self.words.say(key, **fields)

    def _turn(self, position: Position | None = None) -> SideWords:
        return SideWords(side_of((position or self.position).turn))

    def _set(self, fen: str | None, variant: str | None = None) -> None:
        if variant is not None:
            self.variant = variant
        if fen:
            self.position = Position.from_fen(fen, variant=self.variant)

    def resync(self, snapshot: Any) -> None:
        """Read the board anew from ``snapshot`` (events were lost, or speech starts)."""
        self.variant = getattr(snapshot, "variant", "standard")
        self.position = Position.from_fen(snapshot.fen, variant=self.variant)
        self.identify = None
        self._lifted.clear()
        expected = getattr(snapshot, "expected", None)
        if expected is None:
            self.expected = None
        elif self.expected is None or self.expected.get("uci") != expected:
            self.expected = self._describe(expected)

    def _describe(self, uci: str) -> dict[str, Any] | None:
        """The event of the move ``uci`` a player away chose (as the engine announces it)."""
        from board_driver.arbiter.expected import describe_move

        try:
            return describe_move(self.position, self.position.parse_uci(uci))
        except ValueError:
            return None

    # ------------------------------------------------------------------ starting

    def start(self, snapshot: Any) -> list[Utterance]:
        """What the board says when speech starts: ready, whose move, and any question."""
        self.resync(snapshot)
        if "setup" not in self.say:
            out = []
        else:
            text = self.words.say("ready")
            if snapshot.result != "*":
                text += " " + self.words.say("game_over_already", result=snapshot.result)
            else:
                text += " " + self.words.say("to_move", side=self._turn())
            out = [self._utter("state", text)]
        if snapshot.question and "questions" in self.say:
            out.append(self._utter("question", self.question(snapshot.question)))
        elif not getattr(snapshot, "in_sync", True) and (snapshot.empty or snapshot.fill):
            # The pieces do not stand as the game does (moved while the board was off).
            parts = remedy(self.position, list(snapshot.empty), list(snapshot.fill))
            self.fix = self.words.say("illegal.fix", fix=self.words.then(map(self._text, parts)))
            if "illegal" in self.say:
                out.append(self._utter("illegal", self.fix))
        if self.expected is not None and "other_side" in self.say:
            out.append(self._utter("to_play", self.to_play(self.expected)))
        return out

    # ------------------------------------------------------------------ following

    def follow(self, event: dict[str, Any], snapshot: Any = None) -> list[Utterance]:
        """The utterances ``event`` leads to (``snapshot``: the board now, for questions
        and the other side's seat)."""
        kind = event.get("type")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            return []
        found = handler(event, snapshot)
        return [found] if isinstance(found, Utterance) else list(found or [])

    def _on_move(self, event: dict, snapshot: Any) -> Utterance | None:
        self._set(event.get("fen"))
        self.fix = None
        self.identify = None
        self._lifted.clear()
        self._engine_failed = False
        expected, self.expected = self.expected, None
        self._check_said = False
        san = event.get("san", "")
        if expected is not None and expected.get("uci") == event.get("uci"):
            if "other_side" not in self.say:
                return None
            words = self.words.say("done")
            if san.endswith("+") and "check" in self.say:
                words = self.words.say("move.check", move=words)
            elif san.endswith("#") and "check" in self.say:
                words = self.words.say("move.mate", move=words)
            self._check_said = "check" in self.say and san[-1:] in ("+", "#")
            return self._utter("done", self.words.say("move.said", move=words))
        if "moves" not in self.say:
            return None
        words = self.words.move(
            san, en_passant=bool(event.get("en_passant")), check="check" in self.say
        )
        self._check_said = "check" in self.say and san[-1:] in ("+", "#")
        return self._utter("move", self.words.say("move.said", move=words))

    def _on_promotion_amended(self, event: dict, snapshot: Any) -> Utterance | None:
        return self._on_move(event, snapshot)

    def _on_check(self, event: dict, snapshot: Any) -> Utterance | None:
        if "check" not in self.say or self._check_said:
            return None  # said with the move (", check")
        return self._utter("check", self.words.say("check", side=SideWords(event["side"])))

    def _on_game_over(self, event: dict, snapshot: Any) -> Utterance | None:
        self.expected = None
        if "endings" not in self.say:
            return None
        return self._utter("end", self.ending(event))

    def ending(self, event: dict) -> str:
        """The end of the game in words: how it ended and who won."""
        termination = event.get("termination") or ""
        winner = event.get("winner")
        to_move = side_of(self.position.turn)
        # A draw on the clock or by a rule: the loser is the side that was to move.
        loser = to_move if winner is None else ("black" if winner == "white" else "white")
        other = "black" if loser == "white" else "white"
        fields = {
            "winner": SideWords(winner or other),
            "loser": SideWords(loser),
            "other": SideWords(other),
            "result": event.get("result", "*"),
        }
        key = f"end.{termination}"
        if winner is None and f"{key}_draw" in self.words.words:
            key = f"{key}_draw"
        if key not in self.words.words:
            key = "end.other"
        return self.words.say(key, **fields)

    def _on_game_resumed(self, event: dict, snapshot: Any) -> Utterance | None:
        self._set(
            event.get("fen") or getattr(snapshot, "fen", None),
            event.get("variant") or getattr(snapshot, "variant", None),
        )
        if "setup" not in self.say:
            return None
        return self._utter("setup", self.words.say("resumed", side=self._turn()))

    def _on_illegal(self, event: dict, snapshot: Any) -> Utterance | None:
        empty, fill = list(event.get("empty", ())), list(event.get("fill", ()))
        reason: Sentence | None = None
        if event.get("why"):
            reason = self.reason(event, snapshot)
        named = reason is not None and reason[0] in (
            "why.cannot_go",
            "why.king_in_check",
            "why.in_check",
            "why.pinned",
        )
        parts = [self._text(s) for s in remedy(self.position, empty, fill, named=named)]
        fix = self.words.then(parts)
        self.fix = self.words.say("illegal.fix", fix=fix)
        if "illegal" not in self.say:
            return None
        if reason is None:
            return self._utter("illegal", self.fix)
        return self._utter("illegal", self.words.say("illegal", why=self._text(reason), fix=fix))

    def reason(self, event: dict, snapshot: Any) -> Sentence:
        """Why the board is out of sync, as a sentence of the table (the tracker's reasons)."""
        position = self.position
        if event.get("reason") == "touch_move":
            return why_touch_move(position, event.get("square"))
        if event.get("reason") == "refused":  # a legal move, not the one asked for
            return "why.refused", {"move": self.words.move(event.get("san", ""))}
        turn = side_of(position.turn)
        players = getattr(snapshot, "players", None) or {}
        if self.expected is not None and self.expected.get("side") == turn:
            return "why.expected", {"move": self.words.move(self.expected.get("san", ""))}
        if players.get(turn, "human") != "human":
            return "why.not_chosen", {"side": SideWords(turn)}
        board = position.occupancy()
        for name in event.get("fill", ()):
            board &= ~(1 << square(name))
        for name in event.get("empty", ()):
            board |= 1 << square(name)
        return why_illegal(position, board)

    def _on_restored(self, event: dict, snapshot: Any) -> Utterance | None:
        self._set(event.get("fen"))
        self.fix = None
        if "illegal" not in self.say:
            return None
        return self._utter("restored", self.words.say("restored"))

    def _on_touch_move(self, event: dict, snapshot: Any) -> Utterance | None:
        if "touch_move" not in self.say:
            return None
        sq = square(event["square"])
        piece = self.position.piece_at(sq)
        own = piece is not None and piece.color == self.position.turn
        return self._utter(
            "touch_move",
            self.words.say(
                "touch_move.warn", piece=piece_on(self.position, sq, colour=not own),
                square=event["square"],
            ),
        )  # fmt: skip

    def _on_takeback(self, event: dict, snapshot: Any) -> Utterance | None:
        self._set(event.get("fen"))
        self.fix = None
        self.expected = None
        if "controls" not in self.say:
            return None
        move = self.words.move(event.get("san", ""), check=False)
        text = self.words.say("takeback", move=move, side=SideWords(event.get("side", "white")))
        return self._utter("control", text)

    def _control(self, key: str, **fields: Any) -> Utterance | None:
        if "controls" not in self.say:
            return None
        return self._utter("control", self.words.say(key, **fields))

    def _on_adjust(self, event: dict, snapshot: Any) -> Utterance | None:
        return self._control("adjust")

    def _on_draw_offer(self, event: dict, snapshot: Any) -> Utterance | None:
        return self._control("draw_offer", side=SideWords(event.get("side", "white")))

    def _on_claim_refused(self, event: dict, snapshot: Any) -> Utterance | None:
        return self._control("claim_refused", reason=self.words.say("claim.none"))

    def _on_refused(self, event: dict, snapshot: Any) -> Utterance | None:
        reason = self.words.say(_REFUSALS.get(event.get("reason", ""), "refused.other"))
        return self._control("refused", reason=reason)

    def _on_hint(self, event: dict, snapshot: Any) -> Utterance | None:
        return self._control("hint", move=self.words.move(event.get("san", "")))

    def _on_engine_move(self, event: dict, snapshot: Any) -> Utterance | None:
        self.expected = dict(event)
        self._engine_failed = False
        if "other_side" not in self.say:
            return None
        return self._utter("to_play", self.to_play(event))

    _on_online_move = _on_engine_move
    _on_puzzle_move = _on_engine_move  # a puzzle's opponent, lit as an engine's move is

    def to_play(self, event: dict) -> str:
        """The move a player away chose, and how to make it on the board."""
        words = self.words
        san = event.get("san", "")
        frm, to = event.get("from", ""), event.get("to", "")
        mover = piece_on(self.position, square(frm)) if frm else None
        if mover is None or self.position.turn != (event.get("side") == "white"):
            mover = PieceWords(mover_kind(san))  # events were lost: the SAN names it
        places = {"from": frm, "to": to}
        if event.get("rook_from"):
            rook = {"rook_from": event["rook_from"], "rook_to": event["rook_to"]}
            how = words.say("how.castle", **rook, **places)
        elif event.get("captured"):
            victim = piece_on(self.position, square(event["captured"]))
            if victim is None or self.position.turn != (event.get("side") == "white"):
                victim = PieceWords("pawn" if event.get("en_passant") else "piece")
            how = words.say(
                "how.capture", piece=mover, victim=victim, square=event["captured"], **places
            )
        else:
            how = words.say("how.move", piece=mover, **places)
        if event.get("promotion_piece"):
            promoted = PieceWords(event["promotion_piece"])
            how = words.say("how.promotion", how=how, piece=promoted, to=to)
        return words.say(
            "to_play",
            side=SideWords(event.get("side", "white")),
            move=words.move(san, en_passant=bool(event.get("en_passant"))),
            how=how,
        )

    def _on_engine_error(self, event: dict, snapshot: Any) -> Utterance | None:
        if "other_side" not in self.say or self._engine_failed:
            return None
        self._engine_failed = True  # said once until the engine moves again
        return self._utter("state", self.words.say("other_error"))

    def _on_new_game_pending(self, event: dict, snapshot: Any) -> Utterance | None:
        self.expected = None
        self.fix = None
        fen = event.get("fen")
        self.setup_start = (
            Position.from_fen(fen, variant=event.get("variant", "standard")) if fen else _START
        )
        self._kind_said, self._wrong_said = None, set()
        if "setup" not in self.say:
            return None
        return self._utter("setup", self.setup(event.get("missing", ()), event.get("extra", ())))

    def setup(self, missing: Any, extra: Any) -> str:
        """What to put on the board (and take off it) for a new game."""
        words = self.words
        parts = []
        missing, extra = list(missing), list(extra)
        if len(missing) > 8:
            ranks = sorted({int(name[1]) for name in missing})
            ranks_said = [str(r) for r in ranks]
            parts.append(words.say("setup.many", count=len(missing), ranks=ranks_said))
        elif missing:
            puts = [
                words.say(
                    "setup.put", piece=piece_on(self.setup_start, square(n), colour=True), square=n
                )
                for n in missing
            ]
            parts.append(words.listed(puts))
        if extra:
            parts.append(words.say("setup.take_off", squares=extra))
        return words.say("setup", parts=words.then(parts))

    def _on_new_game(self, event: dict, snapshot: Any) -> Utterance | None:
        self._set(event.get("fen") or STARTING_FEN, event.get("variant", "standard"))
        self.setup_start = _START
        self.expected = None
        self.fix = None
        self.identify = None
        if "setup" not in self.say:
            return None
        number = event.get("chess960")
        if self.variant == "chess960" and number is not None:
            said = self.words.say("new_game.chess960", number=str(number), side=self._turn())
            return self._utter("setup", said)
        return self._utter("setup", self.words.say("new_game", side=self._turn()))

    def _on_question(self, event: dict, snapshot: Any) -> Utterance | None:
        if "questions" not in self.say:
            return None
        return self._utter("question", self.question(event.get("readings", ())))

    def question(self, readings: Any) -> str:
        """The board's question after a restart: the readings of the pieces, numbered."""
        words = self.words
        said = []
        for number, reading in enumerate(readings, 1):
            said.append(words.say("question.reading", number=number, words=self.reading(reading)))
        joined = f" {words.say('question.or')} ".join(said)
        return words.say("question", readings=joined)

    def reading(self, text: str) -> str:
        """One reading of the pieces (as the daemon words it: ``Qxg7+ Ke8``, ``nothing yet:
        the piece from g8 is in the hand``) in the narrator's language."""
        words = self.words
        found = _IN_HAND.match(text)
        moves, hand = (found["moves"], found["squares"].split()) if found else (text, None)
        sans = [san for san in moves.split() if san != "nothing" and san != "yet"]
        said = [words.move(san) for san in sans]
        if hand is not None:
            if not said:
                said.append(words.say("question.nothing"))
            said.append(words.say("question.in_hand", squares=hand))
        return ", ".join(said)

    def _on_answered(self, event: dict, snapshot: Any) -> Utterance | None:
        if snapshot is not None:
            self.resync(snapshot)
        if "questions" not in self.say:
            return None
        return self._utter("question", self.words.say("answered"))

    def _on_clock(self, event: dict, snapshot: Any) -> Utterance | None:
        if "clock" not in self.say:
            return None
        action = event.get("action")
        if action in ("pause", "resume"):
            return self._utter("clock", self.words.say(f"clock.{action}"))
        return None

    def low_time(self, side: str, ms: int) -> Utterance | None:
        """*White: 20 seconds left.*"""
        if "clock" not in self.say:
            return None
        time = self.words.duration(ms)
        return self._utter("clock", self.words.say("low_time", side=SideWords(side), time=time))

    def _on_board_state(self, event: dict, snapshot: Any) -> Utterance | None:
        state = event.get("state")
        if "setup" not in self.say or f"state.{state}" not in self.words.words:
            return None
        return self._utter("state", self.words.say(f"state.{state}"))

    def _on_overflow(self, event: dict, snapshot: Any) -> None:
        if snapshot is not None:
            self.resync(snapshot)

    # ------------------------------------------------------------------ questions

    def _on_ask(self, event: dict, snapshot: Any) -> Utterance | None:
        what = str(event.get("what"))
        if what in ("square", "rank", "file"):
            self.identify = what
            self._lifted.clear()
            return self._utter("ask", self.words.say(f"ask.{what}_now"))
        if what == "move":
            return self._utter("ask", self.repeat(snapshot))
        if snapshot is None:
            return None
        try:
            return self._utter("ask", answer(self.words, what, snapshot))
        except ValueError:
            return None

    def repeat(self, snapshot: Any) -> str:
        """What ``say_move`` says: while the board waits to be put right, how; while it
        waits for the move of a player away, that move again; during a set-up, what is
        missing; else the last move."""
        if self.fix is not None:
            return self.fix
        if self.expected is not None:
            return self.to_play(self.expected)
        if snapshot is not None and getattr(snapshot, "setup_pending", False):
            sensed = int(getattr(snapshot, "sensed", 0))
            start = _START.occupancy()
            return self.setup(
                [square_name(sq) for sq in squares_of(start & ~sensed)],
                [square_name(sq) for sq in squares_of(sensed & ~start)],
            )
        if snapshot is None:
            return ""
        return answer(self.words, "move", snapshot)

    def _on_lift(self, event: dict, snapshot: Any) -> None:
        if self.identify is not None:
            self._lifted.add(event["square"])

    def _on_place(self, event: dict, snapshot: Any) -> Utterance | None:
        if self.identify is None:
            return None
        name = event["square"]
        if name not in self._lifted:
            self.identify = None  # a piece went to another square: no longer asking
            self._lifted.clear()
            return None
        self._lifted.discard(name)
        sq = square(name)
        if self.identify == "square":
            text = asks.on_square(self.words, self.position, sq)
        elif self.identify == "rank":
            text = asks.rank(self.words, self.position, sq // 8 + 1)
        else:
            text = asks.file(self.words, self.position, name[0])
        return self._utter("ask", text)

