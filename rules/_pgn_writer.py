"""Writing a game as PGN text (the reader, which builds games, is :mod:`rules.pgn`).

Kept apart from the reader so that :meth:`rules.Game.pgn` needs no import of the module
that imports :mod:`rules.game`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import PgnError
from .fen import STARTING_FEN

if TYPE_CHECKING:  # game.py imports this module: the type only, never at run time
    from .game import Game

SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_DEFAULTS = {
    "Event": "?",
    "Site": "?",
    "Date": "????.??.??",
    "Round": "?",
    "White": "?",
    "Black": "?",
}
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
LINE_WIDTH = 80


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pgn(game: Game, headers: dict[str, str] | None = None) -> str:
    """PGN text for a game: the Seven Tag Roster in order, SetUp "1" and FEN when the
    game starts elsewhere than the standard position, then the other headers given, the
    move text wrapped at 80 columns, and the result."""
    headers = dict(headers or {})
    outcome = game.outcome()
    result = outcome.result() if outcome else headers.get("Result", "*")
    if result not in RESULTS:
        raise PgnError(f"PGN Result header {result!r} must be one of {', '.join(RESULTS)}")
    tags: dict[str, str] = {}
    for name in SEVEN_TAG_ROSTER:
        tags[name] = result if name == "Result" else headers.get(name, _DEFAULTS[name])
    start_fen = game.start.fen()
    headers.pop("SetUp", None)
    headers.pop("FEN", None)
    if start_fen != STARTING_FEN:
        tags["SetUp"] = "1"
        tags["FEN"] = start_fen
    for name, value in headers.items():
        if name not in tags:
            tags[name] = str(value)
    lines = [f'[{name} "{_quote(value)}"]' for name, value in tags.items()]

    tokens = []
    pos = game.start.copy()
    for i, move in enumerate(game.moves):
        if pos.turn:
            tokens.append(f"{pos.fullmove_number}.")
        elif i == 0:
            tokens.append(f"{pos.fullmove_number}...")
        tokens.append(pos.san(move))
        pos.push(move)
    tokens.append(result)
    movetext = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            movetext.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    movetext.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(movetext) + "\n"
