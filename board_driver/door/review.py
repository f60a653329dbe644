"""A game's review: the engine's score after every ply, and the moves that lost the most.

A review is stored ply by ply (:class:`ReviewedPly`): the position after ``ply`` plies
(0 = the start), the engine's score there from White's point of view (centipawns, or
moves to mate), and the engine's best move there. What a move was worth follows from the
scores before and after it, as Lichess judges it (its ``lila`` code, files
``modules/tree/src/main/Advice.scala`` and scalachess's ``WinPercent``; see
``docs/web.md``, "The review"):

- a score becomes *winning chances* in [-1, +1]: ``2 / (1 + exp(-0.00368208 * cp)) - 1``
  (the constant fitted by Lichess to real games, lila pull request 11148); a win
  percentage is ``50 + 50 * chances``;
- a move that lowers its player's winning chances by 0.3 or more is a **blunder**, 0.2 a
  **mistake**, 0.1 an **inaccuracy** (15, 10 and 5 points of win percentage);
- with mates: a move that lets the opponent mate is a blunder (a mistake if its player
  was already losing by 7 pawns, an inaccuracy by 10); a move that throws away a forced
  mate is a blunder (a mistake if its player keeps 7 pawns, an inaccuracy 10).

>>> judge(Score(cp=30), Score(cp=-400), mover_white=True)
'blunder'
>>> judge(Score(cp=-700), Score(cp=-1000), mover_white=True) is None  # lost already
True
>>> judge(Score(cp=20), Score(mate=-2), mover_white=True)   # allows a mate in 2
'blunder'
>>> round(Score(cp=100).win_percent(), 1)
59.1
>>> Score(cp=-35).pgn(), Score(mate=3).pgn(), Score(mate=0).pgn()
('-0.35', '#3', '#0')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Lichess's centipawns-to-winning-chances constant (lila pull request 11148).
WINNING_CHANCES_K = 0.00368208
#: Scores past this many centipawns (and mates) count as this, for win percentages.
CEILING_CP = 1000
#: The largest scores taken from an engine (Stockfish's own bound is 32000 centipawns,
#: mates of a few hundred moves): anything past them is no score.
MAX_CP = 100_000
MAX_MATE = 10_000
#: Drops of winning chances (on [-1, +1]) that make a mark, the worst first.
JUDGEMENTS: tuple[tuple[float, str], ...] = (
    (0.3, "blunder"),
    (0.2, "mistake"),
    (0.1, "inaccuracy"),
)
#: The PGN glyph of each mark ($4 ??, $2 ?, $6 ?!).
NAGS = {"blunder": 4, "mistake": 2, "inaccuracy": 6}
SYMBOLS = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}


@dataclass(frozen=True, slots=True)
class Score:
    """An engine's score from White's point of view: ``cp`` centipawns, or ``mate`` in
    that many moves (positive: White mates; ``0``: the side to move is mated).

    >>> Score.from_uci("mate -2", white_to_move=False)  # Black to move is mated in 2
    Score(cp=None, mate=2)
    """

    cp: int | None = None
    mate: int | None = None

    def __post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError("a score is centipawns or a mate, one of the two")
        for name, value, limit in (("cp", self.cp, MAX_CP), ("mate", self.mate, MAX_MATE)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or abs(value) > limit:
                raise ValueError(f"a score's {name} is a whole number from -{limit} to {limit}")

    @classmethod
    def from_uci(cls, words: str, *, white_to_move: bool) -> Score:
        """A UCI ``score`` (``"cp 35"``, ``"mate -2"``: the side to move's view), within
        what any engine reports (:data:`MAX_CP`, :data:`MAX_MATE`). ValueError for
        anything else.

        >>> Score.from_uci("cp " + "9" * 30, white_to_move=True)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: not a UCI score: 'cp 999999999999999999999...'
        """
        kind, _, value = words.strip().partition(" ")
        sign = 1 if white_to_move else -1
        shown = words if len(words) <= 24 else f"{words[:24]}..."
        value = value.strip()
        digits = value[1:] if value[:1] == "-" else value
        if not (0 < len(digits) <= 6 and digits.isascii() and digits.isdigit()):
            raise ValueError(f"not a UCI score: {shown!r}")
        number = int(value)
        if abs(number) > (MAX_CP if kind == "cp" else MAX_MATE):
            raise ValueError(f"not a UCI score: {shown!r}")
        if kind == "cp":
            return cls(cp=sign * number)
        if kind == "mate":
            return cls(mate=sign * number)
        raise ValueError(f"not a UCI score: {words!r}")

    def white_wins_mate(self, white_to_move: bool) -> bool | None:
        """Who has the mate (True: White), None without one. ``white_to_move`` settles
        ``mate 0``: the side to move is the one mated."""
        if self.mate is None:
            return None
        if self.mate == 0:
            return not white_to_move
        return self.mate > 0

    def winning_chances(self, white_to_move: bool = True) -> float:
        """White's winning chances in [-1, +1] (a mate: +1 or -1; centipawns ceiled at
        :data:`CEILING_CP`, as Lichess's win percentages are)."""
        mating = self.white_wins_mate(white_to_move)
        if mating is not None:
            return 1.0 if mating else -1.0
        assert self.cp is not None
        return chances(max(-CEILING_CP, min(CEILING_CP, self.cp)))

    def win_percent(self, white_to_move: bool = True) -> float:
        """White's win percentage, 0 .. 100 (what the review's chart draws)."""
        return 50 + 50 * self.winning_chances(white_to_move)

    def pgn(self) -> str:
        """The score as a PGN ``[%eval ...]`` value: pawns with two decimals, or ``#n``."""
        if self.mate is not None:
            return f"#{self.mate}"
        assert self.cp is not None
        return f"{self.cp / 100:.2f}"


def chances(cp: float) -> float:
    """Winning chances in [-1, +1] for a score in centipawns (Lichess's logistic).

    >>> chances(0), round(chances(300), 3), round(chances(-300), 3)
    (0.0, 0.502, -0.502)
    """
    return max(-1.0, min(1.0, 2 / (1 + math.exp(-WINNING_CHANCES_K * cp)) - 1))


def judge(before: Score, after: Score, *, mover_white: bool) -> str | None:
    """The mark of a move (``"blunder"``, ``"mistake"``, ``"inaccuracy"``) from the
    scores before and after it, or None when it lost too little (or nothing) to say."""
    sign = 1 if mover_white else -1
    if before.cp is not None and after.cp is not None:
        drop = sign * (chances(before.cp) - chances(after.cp))
        return next((name for threshold, name in JUDGEMENTS if drop >= threshold), None)
    # Mates, from the mover's side: positive = the mover mates.
    had = None if before.mate is None else sign * before.mate
    has = None if after.mate is None else sign * after.mate
    if after.mate == 0:
        return None  # the move mated (a mated mover cannot have moved)
    if had is None and has is not None and has < 0:  # lets the opponent mate
        assert before.cp is not None
        kept = sign * before.cp
        return "inaccuracy" if kept < -999 else "mistake" if kept < -700 else "blunder"
    if had is not None and had > 0 and (has is None or has < 0):  # a forced mate let go
        kept = sign * after.cp if after.cp is not None else 0
        return "inaccuracy" if kept > 999 else "mistake" if kept > 700 else "blunder"
    return None


@dataclass(frozen=True, slots=True)
class ReviewedPly:
    """One position of a reviewed game, as the store keeps it.

    ``ply``: the position after that many plies (0: the start); ``uci``: the move that led
    there (None at ply 0: a review of another line is stale); ``score``: the engine's, from
    White's point of view; ``best``: the engine's move there (None when the game is over
    there); ``depth``: how deep the engine looked.
    """

    ply: int
    uci: str | None
    score: Score
    best: str | None
    depth: int


@dataclass(frozen=True, slots=True)
class MoveReview:
    """A move of a reviewed game, as the page and the PGN show it.

    ``ply`` 1 is the first move; ``fen`` the position after it; ``score`` the engine's
    there (None: not reviewed yet); ``mark`` from :func:`judge`; ``best``/``best_san`` the
    engine's move in the position before it (what it would have played instead).
    """

    ply: int
    uci: str
    san: str
    fen: str
    score: Score | None
    depth: int | None
    mark: str | None
    best: str | None
    best_san: str | None


def review_moves(
    start_fen: str, ucis: list[str], reviewed: list[ReviewedPly], variant: str = "standard"
) -> tuple[Score | None, list[MoveReview]]:
    """The start position's score and each move of a game with its review (the plies
    reviewed for another line, a take-back ago, are left out); ``variant``: the game's
    rules (``"chess960"``: a castling is the king taking its rook in UCI).

    >>> start, moves = review_moves(
    ...     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", ["f2f3", "e7e5"],
    ...     [ReviewedPly(0, None, Score(cp=30), "e2e4", 10),
    ...      ReviewedPly(1, "f2f3", Score(cp=-40), "e7e5", 10)])
    >>> moves[0].san, moves[0].mark, moves[0].best_san, moves[1].score
    ('f3', 'inaccuracy', 'e4', None)
    """
    import rules

    position = rules.Position.from_fen(start_fen, variant=variant)
    by_ply = {r.ply: r for r in reviewed}
    expected = [None, *ucis]
    valid = {p: r for p, r in by_ply.items() if p < len(expected) and r.uci == expected[p]}
    start = valid[0].score if 0 in valid else None
    moves: list[MoveReview] = []
    for ply, uci in enumerate(ucis, start=1):
        before = valid.get(ply - 1)
        after = valid.get(ply)
        move = position.parse_uci(uci)
        mover_white = position.turn == rules.WHITE
        best_san = None
        if before is not None and before.best is not None:
            try:
                best_san = position.san(position.parse_uci(before.best))
            except ValueError:  # a stored move that is not legal here: not shown
                best_san = None
        san = position.san(move)
        position.push(move)
        mark = None
        if before is not None and after is not None:
            mark = judge(before.score, after.score, mover_white=mover_white)
            if mark is not None and before.best == uci:
                mark = None  # the engine's own choice, scored lower a ply deeper
        moves.append(
            MoveReview(
                ply=ply,
                uci=uci,
                san=san,
                fen=position.fen(),
                score=after.score if after is not None else None,
                depth=after.depth if after is not None else None,
                mark=mark,
                best=before.best if before is not None else None,
                best_san=best_san,
            )
        )
    return start, moves


def eval_comments(moves: list[MoveReview]) -> tuple[dict[int, str], dict[int, int]]:
    """PGN comments (``[%eval 0.35,14]``, and what a marked move should have been) and
    glyphs ($4, $2, $6) for the reviewed moves, by ply.

    >>> comments, nags = eval_comments([MoveReview(1, "f2f3", "f3", "", Score(cp=-120), 12,
    ...                                            "mistake", "e2e4", "e4")])
    >>> comments[1], nags[1]
    ('[%eval -1.20,12] Mistake: e4 was best.', 2)
    """
    comments: dict[int, str] = {}
    nags: dict[int, int] = {}
    for move in moves:
        if move.score is None:
            continue
        depth = f",{move.depth}" if move.depth else ""  # none where the game is over
        text = f"[%eval {move.score.pgn()}{depth}]"
        if move.mark is not None:
            nags[move.ply] = NAGS[move.mark]
            text += f" {move.mark.capitalize()}"
            text += f": {move.best_san} was best." if move.best_san else "."
        comments[move.ply] = text
    return comments, nags
