"""One thing the board says (:class:`Utterance`), and which kinds are news of the game."""

from __future__ import annotations

from dataclasses import dataclass

#: The kinds of utterance that are news of the game: a newer one makes what was being
#: said stale.
URGENT = frozenset(
    {"move", "done", "to_play", "check", "end", "illegal", "restored", "touch_move", "setup"}
)


@dataclass(frozen=True)
class Utterance:
    """One thing to say: its words, what it is about (``kind``), and whether it is news of
    the game that cuts short what was being said (``urgent``)."""

    text: str
    kind: str

    @property
    def urgent(self) -> bool:
        return self.kind in URGENT
