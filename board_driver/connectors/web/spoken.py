"""The board's words for the page's screen-reader users: what its speech would say.

The page keeps a live region a screen reader reads aloud. Rather than words of its own, it
reads the board's: a :class:`~board_driver.spoken.narrator.Narrator` (the speech
extension's words, in ``[web] language``) follows the events the page is sent, and each
event it has words for goes to the page with them, as ``said``. What it says about an
event the page is not sent (a piece put back after a "what stands here?" question) goes
as an event of its own, ``{"type": "spoken", "said": ...}``. The page's keys ask the
board's questions through :meth:`PageWords.answer` (``GET /api/describe``).

>>> from types import SimpleNamespace
>>> from rules import STARTING_FEN
>>> snap = SimpleNamespace(fen=STARTING_FEN, start_fen=STARTING_FEN, moves=(), players={},
...     question=(), result="*", termination=None, winner=None, clock=None, player_states={},
...     setup_pending=False, sensed=0, in_sync=True, empty=(), fill=(), expected=None)
>>> words = PageWords("en", snap)
>>> move = {"type": "move", "san": "Nf3", "uci": "g1f3", "side": "white",
...     "fen": "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"}
>>> [event["said"] for event in words.follow([move], snap)], "said" in move
(['Knight to f3.'], False)
>>> words.answer("pieces", snap, {"piece": "n"})
"Black's knights: b8 and g8."
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from typing import Any

from board_driver.spoken import Words
from board_driver.spoken.asks import ASKS, answer

log = logging.getLogger("magboard")

#: The details a question takes, by question (the query's other fields are refused).
DETAILS = {"move": (), "moves": ("count",), "clocks": (), "material": (), "square": ("square",),
           "rank": ("rank",), "file": ("file",), "pieces": ("piece",),
           "piece_moves": ("square",)}  # fmt: skip


class PageWords:
    """The narrator of the page (``language``: one of the board's languages), started on
    the board as ``snapshot`` shows it."""

    def __init__(self, language: str, snapshot: Any) -> None:
        from board_driver.spoken.narrator import Narrator

        self.words = Words(language)
        self.narrator = Narrator(self.words, snapshot=snapshot)

    def follow(
        self, batch: list[dict[str, Any]], snapshot: Any, hidden: Collection[str] = ()
    ) -> list[dict[str, Any]]:
        """The events of ``batch`` the page is sent (those whose type is not ``hidden``),
        each with the narrator's words as ``said`` when it has some, and its words for an
        event not sent as a ``spoken`` event. The door's events are copied, never changed
        (other connectors share them). ``snapshot``: the board now (None for a batch of
        lifts, places and lights only: the narrator needs none for them)."""
        out: list[dict[str, Any]] = []
        for event in batch:
            try:
                said = " ".join(u.text for u in self.narrator.follow(event, snapshot))
            except Exception:  # a bug in the words must not keep the page from its events
                log.exception("web: no words for %s", event.get("type"))
                said = ""
            if event.get("type") not in hidden:
                out.append({**event, "said": said} if said else event)
            elif said:
                out.append({"type": "spoken", "said": said})
        return out

    def answer(self, what: str, snapshot: Any, query: Mapping[str, str]) -> str:
        """The answer to the board's question ``what`` (``move``, ``moves``, ``clocks``,
        ``material``, ``square``, ``rank``, ``file``, ``pieces``, ``piece_moves``), its details from
        ``query`` (strings, as in a URL). ``move`` is what the board's ``say_move`` button
        says: while the board waits to be put right, how; while it waits for the engine's
        move to be made, that move. ValueError says what is wrong with the question."""
        if what not in ASKS:
            raise ValueError(
                f"{what[:20]!r} is not a question the board answers ({', '.join(ASKS)})"
            )
        details: dict[str, Any] = {}
        for name, value in query.items():
            if name == "what":
                continue
            if name not in DETAILS.get(what, ()):  # a question added to ASKS alone takes none
                raise ValueError(f"{what} takes no {name[:20]!r}")
            details[name] = value[:20]
        if "count" in details:
            try:
                details["count"] = int(details["count"])
            except ValueError:
                raise ValueError(f"count: {details['count'][:20]!r} is not a number") from None
            if not 1 <= details["count"] <= 1000:
                raise ValueError("count: from 1 to 1000 plies")
        if what == "move":
            return self.narrator.repeat(snapshot)
        return answer(self.words, what, snapshot, **details)
