"""What the board says, in the player's language: the words of the moves, the engine's
move to make, an illegal position and how to put it right, the end of a game, and the
answers to a player's questions (the last moves, the clocks, the material, what stands on
a square, a rank or a file).

Pure: no sound, no I/O. The speech extension (:mod:`board_driver.connectors.speech`) says
these sentences aloud; a page can show the same ones. The sentences themselves are data,
one module per language (:mod:`.en`, :mod:`.fr`, :mod:`.de`, :mod:`.es`); a new language is
one more such module and its code in :data:`LANGUAGES`.

>>> Words("fr").say("move.said", move=Words("fr").move("Nf3+"))
'Cavalier f3, échec.'
"""

from board_driver.spoken.words import (
    LANGUAGES,
    PieceWords,
    SideWords,
    Words,
    capitalized,
    mover_kind,
)

__all__ = ["LANGUAGES", "PieceWords", "SideWords", "Words", "capitalized", "mover_kind"]
