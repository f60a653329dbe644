"""Puzzles from the files people have: the Lichess puzzle database's CSV, and PGN.

The Lichess puzzle database (https://database.lichess.org/#puzzles, the user's download)
is a CSV file, one puzzle a line::

    PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags

``FEN`` is the position *before the opponent's move*; ``Moves`` (UCI, space separated)
starts with that move, then alternates the solver's moves and the opponent's replies.
Every field past ``Moves`` may be left empty (a line of three fields is a puzzle too), and
the header line may be there or not. A PGN file holds puzzles as games with a ``FEN`` tag
and a main line: the side to move there solves (as in books: "White to play"), unless an
``Orientation`` tag names the other side, whose move then comes first (as in Lichess's
CSV); the tags ``PuzzleId``, ``PuzzleRating`` and ``PuzzleThemes`` are read if present.

Every puzzle is checked when read: its FEN legal, each move legal in turn, a move left
for the solver. A line that is not a puzzle is a :class:`PuzzleError` naming the file and
line; reading a whole file skips such lines and counts them (:class:`PuzzleFile`).

>>> puzzle = parse_csv_line(
...     "t0001,6k1/5ppp/8/8/8/8/5PPP/1R4K1 b - - 0 1,g8h8 b1b8,600,75,90,100,"
...     "mate mateIn1 oneMove endgame,,")
>>> puzzle.player_side, puzzle.solution_sans()
('white', ['Rb8#'])
>>> puzzle.themes
('mate', 'mateIn1', 'oneMove', 'endgame')
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from board_driver.user_files import UnusableFile, check_regular, read_text
from rules import WHITE, FenError, Game, IllegalMoveError, PgnError, Position, read_pgn

#: The CSV's columns, in order (the database's header line).
COLUMNS = (
    "PuzzleId",
    "FEN",
    "Moves",
    "Rating",
    "RatingDeviation",
    "Popularity",
    "NbPlays",
    "Themes",
    "GameUrl",
    "OpeningTags",
)
#: The longest line a puzzle takes (the database's are under 400 characters).
MAX_LINE = 4096
#: The most moves a puzzle's line may have.
MAX_MOVES = 64
#: A PGN file of puzzles is read whole: at most this many bytes.
MAX_PGN_BYTES = 32 << 20
#: The first bytes of a file compressed with zstd, as the database is downloaded.
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class PuzzleError(ValueError):
    """A puzzle that cannot be read; the message says where (``file:line``) and why."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: a position and the line that solves it.

    ``moves`` are UCI, from ``fen``; ``opponent_first``: the first of them is the
    opponent's (Lichess's CSV), else the solver's. ``source`` names where it came from
    (a file's name, ``script``), ``line`` its line there (a PGN game's number).
    """

    id: str
    fen: str
    moves: tuple[str, ...]
    opponent_first: bool = True
    rating: int | None = None
    rating_deviation: int | None = None
    popularity: int | None = None
    plays: int | None = None
    themes: tuple[str, ...] = ()
    game_url: str = ""
    openings: tuple[str, ...] = ()
    source: str = ""
    line: int = 0
    sans: tuple[str, ...] = field(default=(), compare=False)

    @property
    def start(self) -> Position:
        return Position.from_fen(self.fen)

    @property
    def player(self) -> bool:
        """The solver's colour (``rules.WHITE`` or ``rules.BLACK``)."""
        turn = self.start.turn
        return (not turn) if self.opponent_first else turn

    @property
    def player_side(self) -> str:
        return "white" if self.player == WHITE else "black"

    @property
    def opponent_side(self) -> str:
        return "black" if self.player == WHITE else "white"

    def is_players(self, index: int) -> bool:
        """Is move ``index`` of :attr:`moves` the solver's?"""
        return (index % 2 == 1) if self.opponent_first else (index % 2 == 0)

    def solution_sans(self) -> list[str]:
        """The solver's moves, in SAN."""
        return [san for i, san in enumerate(self.sans) if self.is_players(i)]

    def to_dict(self) -> dict[str, object]:
        """The puzzle as events and the page carry it (the moves are not in it: they are
        the answer)."""
        return {
            "id": self.id,
            "fen": self.fen,
            "player": self.player_side,
            "rating": self.rating,
            "themes": list(self.themes),
            "moves": sum(1 for i in range(len(self.moves)) if self.is_players(i)),
            "source": self.source,
            "game_url": self.game_url,
            "openings": list(self.openings),
        }


def checked(puzzle: Puzzle, where: str) -> Puzzle:
    """``puzzle`` with its moves read (SAN), or PuzzleError saying what is wrong."""
    try:
        position = Position.from_fen(puzzle.fen)
    except FenError as exc:
        raise PuzzleError(f"{where}: bad FEN: {exc}") from None
    if position.variant != "standard":
        raise PuzzleError(f"{where}: only standard chess puzzles are read")
    if not puzzle.moves:
        raise PuzzleError(f"{where}: no moves")
    if len(puzzle.moves) > MAX_MOVES:
        raise PuzzleError(f"{where}: {len(puzzle.moves)} moves (at most {MAX_MOVES})")
    needed = 2 if puzzle.opponent_first else 1
    if len(puzzle.moves) < needed:
        raise PuzzleError(f"{where}: no move left for the solver after the opponent's")
    game = Game(position)
    sans, ucis = [], []
    for number, text in enumerate(puzzle.moves, 1):
        try:
            move = game.position.legal_move(game.position.parse_uci(text))
            san = game.position.san(move)
            game.push(move)
        except (ValueError, IllegalMoveError) as exc:
            raise PuzzleError(f"{where}: move {number} {text!r}: {exc}") from None
        sans.append(san)
        ucis.append(str(move))  # one spelling of each move (castling: the king's two squares)
        if game.outcome() is not None and number < len(puzzle.moves):
            raise PuzzleError(f"{where}: the game is over after move {number} ({san})")
    return Puzzle(**{**puzzle.__dict__, "moves": tuple(ucis), "sans": tuple(sans)})


def _number(text: str, name: str, where: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise PuzzleError(f"{where}: {name} {text[:32]!r} is not a whole number") from None
    if not -10**9 < value < 10**9:
        raise PuzzleError(f"{where}: {name} {text[:32]!r} is out of range")
    return value


def parse_csv_fields(fields: list[str], where: str, source: str = "", line: int = 0) -> Puzzle:
    """A puzzle from the CSV's fields (at least ``PuzzleId,FEN,Moves``)."""
    if len(fields) < 3:
        raise PuzzleError(
            f"{where}: {len(fields)} field{'s' if len(fields) != 1 else ''}, expected at "
            f"least PuzzleId,FEN,Moves (the Lichess puzzle database's columns: "
            f"{','.join(COLUMNS)})"
        )
    if len(fields) > len(COLUMNS):
        raise PuzzleError(f"{where}: {len(fields)} fields, at most {len(COLUMNS)}")
    fields = [*fields, *[""] * (len(COLUMNS) - len(fields))]
    ident, fen, moves = (f.strip() for f in fields[:3])
    if not ident or len(ident) > 64 or any(c.isspace() for c in ident):
        raise PuzzleError(f"{where}: PuzzleId {ident[:32]!r} is not a puzzle's id")
    puzzle = Puzzle(
        id=ident,
        fen=fen,
        moves=tuple(moves.split()),
        rating=_number(fields[3], "Rating", where),
        rating_deviation=_number(fields[4], "RatingDeviation", where),
        popularity=_number(fields[5], "Popularity", where),
        plays=_number(fields[6], "NbPlays", where),
        themes=tuple(fields[7].split()),
        game_url=fields[8].strip(),
        openings=tuple(fields[9].split()),
        source=source,
        line=line,
    )
    return checked(puzzle, where)


def parse_csv_line(text: str, where: str = "puzzle", source: str = "", line: int = 0) -> Puzzle:
    """A puzzle from one line of the CSV (PuzzleError says why not)."""
    if len(text) > MAX_LINE:
        raise PuzzleError(f"{where}: a line of {len(text)} characters (at most {MAX_LINE})")
    try:
        fields = next(csv.reader([text]))
    except (csv.Error, StopIteration) as exc:
        raise PuzzleError(f"{where}: not a CSV line ({exc or 'empty'})") from None
    return parse_csv_fields(fields, where, source, line)


def is_header(text: str) -> bool:
    return text.lstrip("\ufeff").startswith("PuzzleId,")


@dataclass(frozen=True)
class Filters:
    """Which puzzles to play: a rating range (inclusive; None: no bound) and themes (a
    puzzle with any of them; none: every theme).

    >>> Filters(rating_min=1000, themes=("fork",)).describe()
    'rated 1000 or more, themes: fork'
    """

    rating_min: int | None = None
    rating_max: int | None = None
    themes: tuple[str, ...] = ()

    def accepts(self, puzzle: Puzzle) -> bool:
        return self._passes(puzzle.rating, puzzle.themes)

    def _passes(self, rating: int | None, themes: Sequence[str]) -> bool:
        if self.rating_min is not None and (rating is None or rating < self.rating_min):
            return False
        if self.rating_max is not None and (rating is None or rating > self.rating_max):
            return False
        return not self.themes or any(theme in themes for theme in self.themes)

    def _quick(self, fields: list[str]) -> bool:
        """The CSV's own fields pass the filters (checked before the moves are read)."""
        try:
            rating = int(fields[3]) if len(fields) > 3 and fields[3].strip() else None
        except ValueError:
            return True  # let the full reading say what is wrong with it
        return self._passes(rating, fields[7].split() if len(fields) > 7 else [])

    def describe(self) -> str:
        parts = []
        if self.rating_min is not None and self.rating_max is not None:
            parts.append(f"rated {self.rating_min} to {self.rating_max}")
        elif self.rating_min is not None:
            parts.append(f"rated {self.rating_min} or more")
        elif self.rating_max is not None:
            parts.append(f"rated {self.rating_max} or less")
        if self.themes:
            parts.append(f"themes: {', '.join(self.themes)}")
        return ", ".join(parts) or "every puzzle"


def parse_rating_range(text: str) -> tuple[int | None, int | None]:
    """``1200-1800``, ``1200-`` or ``-1800`` (ValueError says why not).

    >>> parse_rating_range("1200-1800"), parse_rating_range("-900")
    ((1200, 1800), (None, 900))
    """
    low, sep, high = text.strip().partition("-")
    if not sep:
        raise ValueError(f"rating range {text!r}: expected LOW-HIGH, LOW- or -HIGH")
    try:
        bounds = (int(low) if low.strip() else None, int(high) if high.strip() else None)
    except ValueError:
        raise ValueError(f"rating range {text!r}: the bounds are whole numbers") from None
    if bounds[0] is not None and bounds[1] is not None and bounds[0] > bounds[1]:
        raise ValueError(f"rating range {text!r}: the low bound is above the high one")
    return bounds


def _open_text(path: Path) -> io.TextIOWrapper:
    """The file as text, decompressed if it is gzip, bzip2 or xz; a zstd file (as the
    database is downloaded) is refused saying how to decompress it."""
    check_regular(path)
    with path.open("rb") as probe:
        head = probe.read(6)
    if head.startswith(_ZSTD_MAGIC):
        raise UnusableFile(
            path,
            "is compressed with zstd (as Lichess serves the database): decompress it first, "
            f"`zstd -d {path.name}` (Debian's zstd package), and give the .csv file",
        )
    raw: IO[bytes] | gzip.GzipFile
    # The caller closes the wrapper (and with it the file) when it is done reading.
    if head.startswith(b"\x1f\x8b"):
        raw = gzip.GzipFile(path)
    elif head.startswith(b"BZh"):
        raw = bz2.BZ2File(path)
    elif head.startswith(b"\xfd7zXZ\x00"):
        raw = lzma.LZMAFile(path)  # noqa: SIM115
    else:
        raw = path.open("rb")
    return io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline="")


class PuzzleFile:
    """The puzzles of one file (CSV or PGN, told by its name and contents), read in the
    file's order as they are asked for: a database of millions of lines is read a line at
    a time, never whole. ``skipped`` counts the lines that are not puzzles, ``problems``
    says the first few (``file:line: why``)."""

    def __init__(self, path: str | os.PathLike[str], filters: Filters | None = None) -> None:
        self.path = Path(path)
        self.filters = filters or Filters()
        self.skipped = 0
        self.problems: list[str] = []
        self.kind = "pgn" if self.path.suffix.lower() == ".pgn" else "csv"
        self._cancelled = False

    def cancel(self) -> None:
        """Stop reading (from another thread too): the iteration ends at the next line."""
        self._cancelled = True

    def _skip(self, problem: str) -> None:
        self.skipped += 1
        if len(self.problems) < 20:
            self.problems.append(problem)

    def __iter__(self) -> Iterator[Puzzle]:
        if self.kind == "pgn":
            return self._pgn()
        return self._csv()

    def _csv(self) -> Iterator[Puzzle]:
        name = self.path.name
        try:
            stream = _open_text(self.path)
        except OSError as exc:
            raise UnusableFile(self.path, f"cannot be read: {exc.strerror or exc}") from None
        with stream:
            number = 0
            while not self._cancelled:
                try:
                    text = stream.readline(MAX_LINE + 1)
                except UnicodeDecodeError as exc:
                    raise UnusableFile(
                        self.path, f"is not UTF-8 text (line {number + 1}: {exc.reason})"
                    ) from None
                except (OSError, EOFError) as exc:
                    raise UnusableFile(self.path, f"cannot be read: {exc}") from None
                if not text:
                    return
                number += 1
                if len(text) > MAX_LINE and not text.endswith("\n"):
                    self._skip(f"{name}:{number}: a line longer than {MAX_LINE} characters")
                    stream.readline()  # the rest of it
                    continue
                text = text.rstrip("\r\n")
                if not text.strip() or text.startswith("#") or (number == 1 and is_header(text)):
                    continue
                where = f"{name}:{number}"
                try:
                    fields = next(csv.reader([text]))
                except csv.Error as exc:
                    self._skip(f"{where}: not a CSV line ({exc})")
                    continue
                if not self.filters._quick(fields):
                    continue
                try:
                    puzzle = parse_csv_fields(fields, where, name, number)
                except PuzzleError as exc:
                    self._skip(str(exc))
                    continue
                if self.filters.accepts(puzzle):
                    yield puzzle

    def _pgn(self) -> Iterator[Puzzle]:
        for puzzle in pgn_puzzles(self.path, self._skip):
            if self._cancelled:
                return
            if self.filters.accepts(puzzle):
                yield puzzle


def pgn_puzzles(path: Path, skip: object = None) -> Iterable[Puzzle]:
    """The puzzles of a PGN file: each game with a ``FEN`` tag and a main line."""
    name = path.name
    text = read_text(path, limit=MAX_PGN_BYTES)
    try:
        games = read_pgn(text)
    except PgnError as exc:
        raise UnusableFile(path, f"is not PGN that can be read: {exc}") from None
    out = []
    for number, pgn in enumerate(games, 1):
        where = f"{name}: game {number}"
        try:
            out.append(_pgn_puzzle(pgn, where, name, number))
        except PuzzleError as exc:
            if callable(skip):
                skip(str(exc))
            else:
                raise
    return out


def _pgn_puzzle(pgn: object, where: str, source: str, number: int) -> Puzzle:
    headers: dict[str, str] = getattr(pgn, "headers", {})
    game = getattr(pgn, "game", None)
    fen = headers.get("FEN")
    if not fen:
        raise PuzzleError(f"{where}: no FEN tag (a puzzle starts from its position)")
    if game is None or not game.moves:
        raise PuzzleError(f"{where}: no moves (the main line is the solution)")
    start = Position.from_fen(fen)
    orientation = headers.get("Orientation", "").lower()
    if orientation not in ("", "white", "black"):
        raise PuzzleError(f"{where}: Orientation {orientation!r} is not white or black")
    to_move = "white" if start.turn == WHITE else "black"
    ident = headers.get("PuzzleId") or f"{Path(source).stem}-{number}"
    puzzle = Puzzle(
        id=ident.split()[0][:64] if ident.split() else f"game-{number}",
        fen=fen,
        moves=tuple(str(m) for m in game.moves),
        opponent_first=bool(orientation) and orientation != to_move,
        rating=_number(headers.get("PuzzleRating", ""), "PuzzleRating", where),
        themes=tuple(headers.get("PuzzleThemes", "").split()),
        game_url=headers.get("Site", "") if headers.get("Site", "?") != "?" else "",
        source=source,
        line=number,
    )
    return checked(puzzle, where)


