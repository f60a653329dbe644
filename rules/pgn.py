"""PGN: writing a game, and reading the main lines of real games.

>>> from rules import Game, read_pgn
>>> g = Game()
>>> for san in ['e4', 'e5', 'Qh5', 'Nc6', 'Bc4', 'Nf6', 'Qxf7']:
...     _ = g.push_san(san)
>>> text = g.pgn({'White': 'Ann', 'Black': 'Bob'})
>>> print(text.splitlines()[-1])
1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
>>> read_pgn(text)[0].game.san_moves() == g.san_moves()
True

A Chess960 game carries ``Variant "Chess960"`` with its start in ``SetUp`` and ``FEN``
(X-FEN; Shredder-FEN is read too), and reads back under Chess960's rules:

>>> g = Game(Position.from_chess960(518))       # the standard array, under Chess960 rules
>>> for san in ['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Bc5', 'O-O']:
...     _ = g.push_san(san)
>>> for line in g.pgn().splitlines()[7:10]:
...     print(line)
[Variant "Chess960"]
[SetUp "1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
>>> back = read_pgn(g.pgn())[0].game
>>> back.start.variant, back.moves[-1].uci()
('chess960', 'e1h1')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._pgn_writer import (
    RESULTS,
    SEVEN_TAG_ROSTER,
    TAG_NAME,
    TERMINATION_TAGS,
    start_tags,
    tag_pair,
    write_pgn,
)
from .errors import FenError, IllegalMoveError, PgnError, SanError
from .game import Game
from .position import Position


@dataclass
class PgnGame:
    """One game read from PGN: its ``headers``, the ``game`` (main line only), the
    ``result`` token (``'1-0'``, ``'0-1'``, ``'1/2-1/2'`` or ``'*'``) and, per ply, the
    clock a ``[%clk h:mm:ss]`` comment after the move gives, in ms (None where none does).

    >>> read_pgn("1. e4 { [%clk 0:03:00] } e5 { [%clk 0:02:58.5] } *")[0].clocks
    [180000, 178500]
    """

    headers: dict[str, str] = field(default_factory=dict)
    game: Game | None = None
    result: str = "*"
    clocks: list[int | None] = field(default_factory=list)


_TOKEN = re.compile(
    r"""
     (?P<space>\s+)
    |(?P<header>\[\s*(?P<tag>[A-Za-z0-9_+\#=:-]+)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\])
    |(?P<comment>\{[^}]*\})
    |(?P<line_comment>;[^\n]*)
    |(?P<nag>\$\d+)
    |(?P<open>\()
    |(?P<close>\))
    |(?P<result>(?:1-0|0-1|1/2-1/2|\*)(?![^\s()\[\]{};]))
    |(?P<number>\d+\s*\.+)
    |(?P<san>[^\s\[\]{}();$]+)
    """,
    re.VERBOSE,
)


def read_pgn(text: str) -> list[PgnGame]:
    """Every game in a PGN text, main lines only: comments (``{}`` and ``;``), NAGs,
    variations, move numbers and ``%`` escape lines are skipped.

    Raises :class:`PgnError` saying which game, line and move is at fault.
    """
    if not isinstance(text, str):
        raise PgnError(f"PGN must be text, not {type(text).__name__}")
    # '%' at the start of a line escapes the whole line (PGN standard 6).
    text = "\n".join("" if line.startswith("%") else line for line in text.split("\n"))
    games: list[PgnGame] = []
    reader = _GameReader(len(games) + 1)
    depth = 0
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        line_no = text.count("\n", 0, pos) + 1
        if match is None:
            snippet = text[pos : pos + 20].split("\n")[0]
            raise PgnError(f"PGN game {reader.number}, line {line_no}: cannot read {snippet!r}")
        pos = match.end()
        kind = match.lastgroup
        if kind == "comment" and not depth:
            reader.comment(match["comment"])
            continue
        if kind in ("space", "comment", "line_comment", "nag", "number"):
            continue
        if kind == "tag":  # the header group's inner name wins lastgroup
            kind = "header"
        if kind == "value":
            kind = "header"
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                raise PgnError(f"PGN game {reader.number}, line {line_no}: ')' closes no variation")
            depth -= 1
            continue
        if depth:
            continue  # inside a variation: only the main line is read
        if kind == "header":
            if reader.started:
                games.append(reader.finish(None))
                reader = _GameReader(len(games) + 1)
            reader.headers[match["tag"]] = re.sub(r"\\(.)", r"\1", match["value"])
        elif kind == "result":
            games.append(reader.finish(match["result"]))
            reader = _GameReader(len(games) + 1)
        elif match["san"] not in ("e.p.", "ep"):  # "exd6 e.p." written apart
            reader.move(match["san"], line_no)
    if depth:
        raise PgnError(f"PGN game {reader.number}: a variation '(' is never closed")
    if reader.started or reader.headers:
        games.append(reader.finish(None))
    return games


_CLK = re.compile(r"\[%clk\s+(\d+):(\d\d):(\d\d(?:\.\d+)?)\]")


def clock_ms(comment: str) -> int | None:
    """The time a ``[%clk h:mm:ss(.s)]`` command in a comment gives, in ms, or None.

    >>> clock_ms("{ [%clk 1:30:00] }"), clock_ms("{ [%clk 0:00:07.25] }"), clock_ms("{ good }")
    (5400000, 7250, None)
    """
    found = _CLK.search(comment)
    if found is None:
        return None
    hours, minutes, seconds = int(found[1]), int(found[2]), float(found[3])
    return (hours * 3600 + minutes * 60) * 1000 + round(seconds * 1000)


class _GameReader:
    def __init__(self, number: int) -> None:
        self.number = number
        self.headers: dict[str, str] = {}
        self.game: Game | None = None
        self.started = False
        self.clocks: list[int | None] = []

    def comment(self, text: str) -> None:
        """A comment in the main line: a clock for the move before it."""
        if self.game is None or not self.game.moves:
            return
        ms = clock_ms(text)
        if ms is not None:
            plies = len(self.game.moves)
            self.clocks += [None] * (plies - len(self.clocks))
            self.clocks[plies - 1] = ms

    def _game(self) -> Game:
        if self.game is None:
            fen = self.headers.get("FEN")
            variant = self._variant()
            start = Position(variant)
            if fen is not None:
                try:
                    start = Position.from_fen(fen, variant=variant)
                except FenError as e:
                    raise PgnError(f"PGN game {self.number}: bad FEN header: {e}") from e
            # Real games are played on past a dead position (servers rarely see one):
            # read them; finish() decides how the game ended.
            self.game = Game(start, dead_position_ends=False)
        return self.game

    def _variant(self) -> str:
        """The rules the Variant tag names: 'chess960', or 'standard' (no tag, or one that
        names standard chess or a game from a set-up position)."""
        said = self.headers.get("Variant", "")
        name = re.sub(r"[\s_-]", "", said.lower())
        if name in _CHESS960_NAMES:
            return "chess960"
        if name in _STANDARD_NAMES:
            return "standard"
        raise PgnError(
            f"PGN game {self.number}: Variant {said!r} is not played by these rules "
            "(standard chess and Chess960 are)"
        )

    def move(self, san: str, line_no: int) -> None:
        game = self._game()
        self.started = True
        pos = game.position
        label = f"{pos.fullmove_number}{'.' if pos.turn else '...'} {san}"
        ended = game.outcome()
        if ended is not None:
            raise PgnError(
                f"PGN game {self.number}, line {line_no}, move {label}: a move after the end "
                f"of the game ({ended.termination.replace('_', ' ')}, {ended.result()})"
            )
        try:
            game.push(pos.parse_san(san))
        except (SanError, IllegalMoveError) as e:
            raise PgnError(f"PGN game {self.number}, line {line_no}, move {label}: {e}") from e

    def finish(self, result: str | None) -> PgnGame:
        game = self._game()
        result = result or self.headers.get("Result", "*")
        _record_ending(game, result, self.headers.get("Termination"))
        clocks = self.clocks + [None] * (len(game.moves) - len(self.clocks)) if self.clocks else []
        return PgnGame(headers=self.headers, game=game, result=result, clocks=clocks)


#: Variant tags (lowercase, without spaces, '-' and '_') read as Chess960 or standard chess
#: (Lichess writes "From Position" for a standard game from a set-up position).
_CHESS960_NAMES = frozenset({"chess960", "960", "fischerandom", "fischerrandom", "frc"})
_STANDARD_NAMES = frozenset({"", "standard", "chess", "normal", "fromposition"})

#: How a Termination tag (PGN standard, as Lichess writes it too) names our endings.
_TERMINATION_KINDS = {tag: kind for kind, tag in TERMINATION_TAGS.items()}


def _record_ending(game: Game, result: str, tag: str | None) -> None:
    """Give ``game`` the ending its record says, where the rules do not find it alone.

    The rules' own ending stands (a mate, a stalemate, insufficient material...), whatever
    the record says, except a dead position (see below). A decisive result without one
    takes its kind from the Termination tag (``time forfeit``, ``abandoned``) and is a
    resignation when the tag says nothing (or ``normal``); a draw is a flag fall against
    a side that cannot mate, a draw claim the position allows, or an agreement. A record
    that goes on past a dead position, or ends in one with another result, keeps its own
    result (someone else decided it: ``dead_position_ends`` stays False and the dead
    position is a note). A Termination we have no name for (adjudication, rules
    infraction...) records nothing: the result is in :attr:`PgnGame.result`.
    """
    said = (tag or "").strip().lower()
    kind = _TERMINATION_KINDS.get(said)
    unnamed = said not in ("", "normal") and kind is None
    game.dead_position_ends = not game._played_past_dead()
    ended = game.outcome()
    if ended is not None and ended.result() != result and ended.termination == "dead_position":
        game.dead_position_ends = False
        ended = game.outcome()
    if ended is not None or result not in ("1-0", "0-1", "1/2-1/2") or unnamed:
        return  # the rules ended it, or the record leaves it open or unnamed
    if result == "1/2-1/2":
        if kind in ("timeout", "rules_infraction"):
            game.end(kind, None)
        elif game.can_claim_threefold() or game.can_claim_fifty_moves():
            game.claim_draw()
        else:
            game.agree_draw()
    elif kind != "aborted":
        game.end(kind or "resignation", result == "1-0")


__all__ = [
    "RESULTS",
    "SEVEN_TAG_ROSTER",
    "TAG_NAME",
    "PgnGame",
    "clock_ms",
    "read_pgn",
    "start_tags",
    "tag_pair",
    "write_pgn",
]
