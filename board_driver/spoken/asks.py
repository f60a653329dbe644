"""The board's answers to a player's questions, from a snapshot of the door: the last move,
the last few moves, both clocks, the material, what stands on a square, a whole rank or file.

The board's buttons ask them (``say_move``, ``say_moves``, ``say_clocks``, ``say_material``,
``say_square``, ``say_rank``, ``say_file``) and the speech extension says the answers; a
page asks :meth:`board_driver.door.Door.describe` for the same words.

>>> from types import SimpleNamespace
>>> from rules import STARTING_FEN
>>> snap = SimpleNamespace(start_fen=STARTING_FEN, moves=("e4", "e5", "Nf3"),
...     fen="rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", clock=None,
...     player_states={})
>>> answer(Words("en"), "move", snap)
'White played knight to f3.'
>>> answer(Words("en"), "moves", snap)
'Last moves: move 1, White: e4; Black: e5; move 2, White: knight to f3.'
>>> answer(Words("fr"), "square", snap, square="f3")
'Cavalier blanc f3.'
>>> answer(Words("en"), "rank", snap, rank=3)
'Rank 3: white knight f3.'
>>> answer(Words("en"), "pieces", snap, piece="N"), answer(Words("fr"), "pieces", snap, piece="k")
("White's knights: b1 and f3.", 'Roi des noirs : e8.')
>>> answer(Words("en"), "piece_moves", snap, square="f3")
'The white knight on f3 can go to g1, d4, h4 and g5, and take on e5.'
>>> answer(Words("de"), "material", snap)  # doctest: +NORMALIZE_WHITESPACE
'Weiß: eine Dame, 2 Türme, 2 Läufer, 2 Springer, 8 Bauern.
 Schwarz: eine Dame, 2 Türme, 2 Läufer, 2 Springer, 8 Bauern. Das Material ist ausgeglichen.'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from board_driver.physical.squares import square, square_name
from board_driver.spoken.reasons import piece_on
from board_driver.spoken.words import PIECE_KINDS, PieceWords, SideWords, Words
from rules import BLACK, WHITE, Position

#: What a player may ask, and the button that asks it on the board.
ASKS: dict[str, str | None] = {
    "move": "say_move",
    "moves": "say_moves",
    "clocks": "say_clocks",
    "material": "say_material",
    "square": "say_square",
    "rank": "say_rank",
    "file": "say_file",
    # Where the pieces of a kind stand (Lichess's blind mode "p N"): asked from the page's
    # keys, no button on the board.
    "pieces": None,
    # Where the piece on a square can go (Lichess's blind mode "m"): the page's keys too.
    "piece_moves": None,
}
#: The plies the last moves are read from, by default.
RECENT_PLIES = 6
#: Points for the material's balance (the usual values; kings count none).
VALUES = {"pawn": 1, "knight": 3, "bishop": 3, "rook": 5, "queen": 9, "king": 0}


def plies(snapshot: Any) -> list[tuple[int, str, str]]:
    """The game's moves as ``(move number, side, SAN)``, in order."""
    start = Position.from_fen(snapshot.start_fen, variant=_variant(snapshot))
    number, color = start.fullmove_number, start.turn
    out = []
    for san in snapshot.moves:
        out.append((number, "white" if color == WHITE else "black", san))
        if color == BLACK:
            number += 1
        color = not color
    return out


def answer(words: Words, what: str, snapshot: Any, **details: Any) -> str:
    """The answer to ``what`` (one of :data:`ASKS`) about the game in ``snapshot``, in
    ``words``' language. ``ply=`` (from 1) for ``move`` (the last one by default),
    ``count=`` (plies) for ``moves``, ``square=`` (``"f3"``) for ``square``, ``rank=``
    (1..8) for ``rank``, ``file=`` (``"a"``..``"h"``) for ``file``, ``piece=`` (a SAN
    letter, a capital for White: ``"N"`` White's knights, ``"k"`` Black's king) for ``pieces``,
    ``square=`` for ``piece_moves`` (where the piece there can go).
    ValueError names a question or a detail it cannot answer."""
    if what == "move":
        return last_move(words, snapshot, details.get("ply"))
    if what == "moves":
        return last_moves(words, snapshot, int(details.get("count", RECENT_PLIES)))
    if what == "clocks":
        return clocks(words, snapshot)
    position = Position.from_fen(snapshot.fen, variant=_variant(snapshot))
    if what == "material":
        return material(words, position)
    if what == "square":
        return on_square(words, position, _square(details.get("square")))
    if what == "rank":
        return rank(words, position, _rank(details.get("rank")))
    if what == "file":
        return file(words, position, _file(details.get("file")))
    if what == "pieces":
        return pieces(words, position, _piece(details.get("piece")))
    if what == "piece_moves":
        return piece_moves(words, position, _square(details.get("square")))
    raise ValueError(f"{what!r} is not a question the board answers ({', '.join(ASKS)})")


def _variant(snapshot: Any) -> str:
    """The rules the snapshot's FENs are written by (a Chess960 game's are X-FEN)."""
    return str(getattr(snapshot, "variant", "standard"))


def _square(value: Any) -> int:
    try:
        return square(str(value))
    except (KeyError, ValueError):
        raise ValueError(f"square: {value!r} is not a square (a1..h8)") from None


def _rank(value: Any) -> int:
    if isinstance(value, bool) or str(value) not in set("12345678"):
        raise ValueError(f"rank: {value!r} is not a rank (1..8)")
    return int(value)


def _file(value: Any) -> str:
    if not isinstance(value, str) or len(value) != 1 or value not in "abcdefgh":
        raise ValueError(f"file: {value!r} is not a file (a..h)")
    return value


def _piece(value: Any) -> str:
    if not isinstance(value, str) or len(value) != 1 or value not in "KQRBNPkqrbnp":
        raise ValueError(
            f"piece: {value!r} is not a piece letter (KQRBNP for White's, kqrbnp for Black's)"
        )
    return value


def last_move(words: Words, snapshot: Any, ply: Any = None) -> str:
    """*White played knight to f3.* (the move of ``ply``, from 1, if given)."""
    moves = plies(snapshot)
    if ply is not None:
        if isinstance(ply, bool) or not isinstance(ply, int) or not 1 <= ply <= len(moves):
            raise ValueError(f"ply: {ply!r} is not a move of this game (1..{len(moves)})")
        moves = moves[:ply]
    if not moves:
        turn = Position.from_fen(snapshot.fen, variant=_variant(snapshot)).turn
        return words.say("ask.no_move", side=SideWords("white" if turn == WHITE else "black"))
    _, side, san = moves[-1]
    return words.say("ask.last_move", side=SideWords(side), move=words.move(san))


def last_moves(words: Words, snapshot: Any, count: int = RECENT_PLIES) -> str:
    """The last ``count`` plies with their move numbers."""
    moves = plies(snapshot)[-max(1, count) :]
    if not moves:
        return last_move(words, snapshot)
    parts = []
    for i, (number, side, san) in enumerate(moves):
        text = words.say("ask.moves.ply", side=SideWords(side), move=words.move(san))
        if side == "white" or i == 0:
            text = f"{words.say('ask.moves.number', number=number)}, {text}"
        parts.append(text)
    return words.say("ask.moves", moves=words.then(parts))


def clocks(words: Words, snapshot: Any) -> str:
    """Both clocks: the board's, or an online game's as its player reports them."""
    clock = getattr(snapshot, "clock", None)
    times = None
    paused = False
    if clock:
        times = {"white": clock.get("white_ms"), "black": clock.get("black_ms")}
        paused = clock.get("state") == "paused"
    else:
        for state in (getattr(snapshot, "player_states", None) or {}).values():
            found = state.get("clocks") if isinstance(state, Mapping) else None
            if isinstance(found, Mapping) and all(
                isinstance(found.get(side), int) for side in ("white", "black")
            ):
                times = {"white": found["white"], "black": found["black"]}
    if times is None or not all(isinstance(v, int) for v in times.values()):
        return words.say("ask.no_clock")
    key = "ask.clocks_paused" if paused else "ask.clocks"
    return words.say(
        key, white=words.duration(times["white"]), black=words.duration(times["black"])
    )


def material(words: Words, position: Position) -> str:
    """Each side's pieces (the king left unsaid) and who is ahead, by the usual values."""
    said = {}
    points = {}
    for color, side in ((WHITE, "white"), (BLACK, "black")):
        parts = []
        total = 0
        for kind in ("queen", "rook", "bishop", "knight", "pawn"):
            count = len(position.pieces(PIECE_KINDS.index(kind) + 1, color))
            total += count * VALUES[kind]
            forms = words.fields({"p": PieceWords(kind)})
            if count == 1:
                parts.append(forms["p_one"])  # a queen, une dame, eine Dame
            elif count > 1:
                parts.append(words.say("ask.material.count", count=count, plural=forms["p_plural"]))
        said[side] = ", ".join(parts) if parts else words.say("ask.material.king")
        points[side] = total
    difference = points["white"] - points["black"]
    if difference == 0:
        balance = words.say("ask.material.even")
    else:
        ahead = "white" if difference > 0 else "black"
        balance = words.say(
            "ask.material.ahead", side=SideWords(ahead), points=words.unit("point", abs(difference))
        )
    return words.say("ask.material", white=said["white"], black=said["black"], balance=balance)


def _entry(words: Words, position: Position, sq: int) -> str | None:
    piece = piece_on(position, sq, colour=True)
    if piece is None:
        return None
    return words.say("ask.entry", piece=piece, square=square_name(sq))


def on_square(words: Words, position: Position, sq: int) -> str:
    """*White knight f3.* (or the square is empty)."""
    piece = piece_on(position, sq, colour=True)
    if piece is None:
        return words.say("ask.empty", square=square_name(sq))
    return words.say("ask.square", piece=piece, square=square_name(sq))


def rank(words: Words, position: Position, number: int) -> str:
    """The pieces on rank ``number``, file a first."""
    found = [_entry(words, position, (number - 1) * 8 + f) for f in range(8)]
    pieces = [text for text in found if text]
    if not pieces:
        return words.say("ask.rank_empty", rank=number)
    return words.say("ask.rank", rank=number, pieces=words.listed(pieces))


def file(words: Words, position: Position, letter: str) -> str:
    """The pieces on file ``letter``, rank 1 first."""
    column = "abcdefgh".index(letter)
    found = [_entry(words, position, r * 8 + column) for r in range(8)]
    pieces = [text for text in found if text]
    if not pieces:
        return words.say("ask.file_empty", file=letter)
    return words.say("ask.file", file=letter, pieces=words.listed(pieces))


def pieces(words: Words, position: Position, letter: str) -> str:
    """Where the pieces of one kind and colour stand, a1 first: ``letter`` as in SAN, a
    capital for White (*White's knights: b1 and g1.*)."""
    kind = PIECE_KINDS["pnbrqk".index(letter.lower())]
    colour = WHITE if letter.isupper() else BLACK
    side = SideWords("white" if colour == WHITE else "black")
    found = [square_name(sq) for sq in sorted(position.pieces(PIECE_KINDS.index(kind) + 1, colour))]
    piece = PieceWords(kind)
    if not found:
        return words.say("ask.pieces_none", side=side, piece=piece)
    if len(found) == 1:
        return words.say("ask.piece", side=side, piece=piece, square=found[0])
    return words.say("ask.pieces", side=side, piece=piece, squares=found)


def _turned(position: Position, colour: bool) -> Position | None:
    """``position`` with ``colour`` to move (None if the rules refuse it: the other side
    would be in check)."""
    if position.turn == colour:
        return position
    fields = position.fen().split()
    fields[1], fields[3] = ("w" if colour == WHITE else "b"), "-"
    try:
        return Position.from_fen(" ".join(fields), variant=position.variant)
    except ValueError:
        return None


def piece_moves(words: Words, position: Position, sq: int) -> str:
    """Where the piece on ``sq`` can go, and take (as if its side were to move, as
    Lichess's blind mode says it): *The white knight on g1 can go to f3 and h3.*"""
    piece = piece_on(position, sq, colour=True)
    if piece is None:
        return words.say("ask.empty", square=square_name(sq))
    standing = position.piece_at(sq)
    board = _turned(position, standing.color) if standing is not None else None
    moves = [m for m in board.legal_moves() if m.from_square == sq] if board else []
    goes = sorted({m.to_square for m in moves if not m.is_capture})
    takes = sorted({m.to_square for m in moves if m.is_capture})
    fields = {"piece": piece, "square": square_name(sq)}
    if goes and takes:
        key = "ask.piece_moves_takes"
    else:
        key = "ask.piece_moves" if goes else "ask.piece_takes" if takes else "ask.piece_stuck"
    return words.say(
        key,
        **fields,
        squares=[square_name(t) for t in goes],
        captures=[square_name(t) for t in takes],
    )
