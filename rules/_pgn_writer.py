"""Writing a game as PGN text (the reader, which builds games, is :mod:`rules.pgn`).

Kept apart from the reader so that :meth:`rules.Game.pgn` needs no import of the module
that imports :mod:`rules.game`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .errors import PgnError
from .fen import STARTING_FEN

if TYPE_CHECKING:  # game.py imports this module: the type only, never at run time
    from .game import Game
    from .position import Position

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
#: The PGN standard's Termination tag for our endings decided outside the board; every
#: other ending (mate, a draw by the rules, resignation, agreement) is "normal".
TERMINATION_TAGS = {
    "timeout": "time forfeit",
    "rules_infraction": "rules infraction",
    "abandoned": "abandoned",
    "aborted": "unterminated",
}
DEAD_POSITION = "neither side can checkmate by any series of legal moves (FIDE 5.2.2)"


def ending_comment(game: Game) -> str | None:
    """Why the game ended, where its result alone does not say: a dead position, or a
    flag fall that is a draw. A note when the position is dead but someone else decides
    the result (see :attr:`rules.Game.dead_position_ends`)."""
    outcome = game.outcome()
    if outcome is not None and outcome.termination == "dead_position":
        return f"Dead position: {DEAD_POSITION}."
    if outcome is not None and outcome.termination == "timeout" and outcome.winner is None:
        return (
            "Time ran out, but the other side cannot checkmate by any series of legal "
            "moves: a draw (FIDE 6.9)."
        )
    if outcome is not None and outcome.termination == "rules_infraction":
        if outcome.winner is None:
            return (
                "A second illegal move, but the other side cannot checkmate by any series "
                "of legal moves: a draw (FIDE 7.5.5)."
            )
        return "A second illegal move loses the game (FIDE 7.5.5)."
    if not game.dead_position_ends and game.is_dead():
        return f"The position is dead: {DEAD_POSITION}; the result is not the board's to decide."
    return None


#: A tag's name, as the PGN standard allows it (letters, digits and ``_``, a letter first),
#: at most 40 characters.
TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")
#: Characters a tag value cannot carry as they are: control characters and everything
#: Python or a PGN reader may take for the end of a line.
_LINE_BREAKING = re.compile("[\\x00-\\x1f\\x7f\\x85\\u2028\\u2029]")


def tag_pair(name: str, value: str) -> str:
    r"""One header line: ``[Name "value"]``. The one writer of PGN tags: the name must be a
    tag name (:class:`PgnError` otherwise), the value is escaped (``\`` and ``"``) and
    any control character or line break in it becomes a space, so that no value can end
    its line or start another tag or game.

    >>> print(tag_pair("White", 'Ann "the rook" Lee'))
    [White "Ann \"the rook\" Lee"]
    >>> print(tag_pair("Event", 'Club\n[Board "9"]'))
    [Event "Club [Board \"9\"]"]
    >>> tag_pair("W]\n[B", "x")
    Traceback (most recent call last):
    ...
    rules.errors.PgnError: PGN tag name 'W]\n[B': a letter, then letters, digits or _ (40 at most)
    """
    if not isinstance(name, str) or not TAG_NAME.fullmatch(name):
        raise PgnError(
            f"PGN tag name {name!r}: a letter, then letters, digits or _ (40 at most)"
        )
    value = _LINE_BREAKING.sub(" ", str(value)).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{value}"]'


#: The tags :func:`start_tags` owns: given to :func:`write_pgn`, they are replaced.
START_TAGS = ("Variant", "SetUp", "FEN")


def start_tags(start: Position) -> dict[str, str]:
    """The tags that say where a game starts: ``Variant "Chess960"``, ``SetUp "1"`` and
    ``FEN`` (X-FEN) for every Chess960 game, even from the standard array; ``SetUp`` and
    ``FEN`` for a standard game from another position; none for the standard start.
    A writer of PGN other than :func:`write_pgn` takes them from here.

    >>> from rules import Position
    >>> start_tags(Position())
    {}
    >>> for name, value in start_tags(Position.from_chess960(0)).items():
    ...     print(name, value)
    Variant Chess960
    SetUp 1
    FEN bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1
    """
    fen = start.fen()
    if start.variant == "chess960":
        return {"Variant": "Chess960", "SetUp": "1", "FEN": fen}
    if fen != STARTING_FEN:
        return {"SetUp": "1", "FEN": fen}
    return {}


def write_pgn(
    game: Game,
    headers: dict[str, str] | None = None,
    *,
    comments: Mapping[int, str] | None = None,
    nags: Mapping[int, int] | None = None,
) -> str:
    """PGN text for a game: the Seven Tag Roster in order, the tags of its start
    (:func:`start_tags`: Variant "Chess960", SetUp "1" and FEN for a Chess960 game, SetUp
    and FEN for a game from another position), then the other headers given and,
    once the game is over, a Termination tag unless one was given; the move text wrapped
    at 80 columns, with a comment after the last move where the result needs one (see
    :func:`ending_comment`), and the result.

    ``comments`` and ``nags`` annotate moves by ply (1: the first move): a comment
    (``{...}``, e.g. ``[%eval 0.35]``) and a numeric glyph (``$4``: ??) after the move;
    a black move after a comment is numbered again (``3...``), as PGN export does."""
    headers = dict(headers or {})
    outcome = game.outcome()
    result = outcome.result() if outcome else headers.get("Result", "*")
    if result not in RESULTS:
        raise PgnError(f"PGN Result header {result!r} must be one of {', '.join(RESULTS)}")
    tags: dict[str, str] = {}
    for name in SEVEN_TAG_ROSTER:
        tags[name] = result if name == "Result" else headers.get(name, _DEFAULTS[name])
    for name in START_TAGS:
        headers.pop(name, None)
    tags.update(start_tags(game.start))
    for name, value in headers.items():
        if name not in tags:
            tags[name] = str(value)
    if outcome is not None and "Termination" not in tags:
        tags["Termination"] = TERMINATION_TAGS.get(outcome.termination, "normal")
    lines = [tag_pair(name, value) for name, value in tags.items()]

    comments = comments or {}
    nags = nags or {}
    tokens = []
    pos = game.start.copy()
    annotated = False  # the last move has a comment: a black move after it is numbered
    for i, move in enumerate(game.moves):
        if pos.turn:
            tokens.append(f"{pos.fullmove_number}.")
        elif i == 0 or annotated:
            tokens.append(f"{pos.fullmove_number}...")
        tokens.append(pos.san(move))
        pos.push(move)
        if i + 1 in nags:
            tokens.append(f"${int(nags[i + 1])}")
        text = comments.get(i + 1, "")
        if i + 1 == len(game.moves):
            text = " ".join(filter(None, [text, ending_comment(game)]))
        annotated = bool(text)
        if text:
            # A comment cannot hold a closing brace; wrapped word by word, like the moves.
            tokens.extend(f"{{{text.replace('}', ')')}}}".split())
    if not game.moves and ending_comment(game):
        tokens.extend(f"{{{ending_comment(game)}}}".split())
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
