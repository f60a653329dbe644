"""What the lights ask, and why a position is illegal, in words a player understands.

The lights say *where* (blinking yellow: a castling rook still to move, an en-passant
victim still to lift, a touched piece that must move; red and blue: what to empty and fill).
These sentences say *what*, for the web page, the terminal and the log:

>>> from rules import Position
>>> from board_driver.physical.squares import square
>>> start = Position()
>>> board = start.occupancy() & ~(1 << square("e2")) | 1 << square("e5")
>>> why_illegal(start, board)
'the pawn on e2 cannot go to e5'
>>> asks(BoardView(empty=1 << square("e5"), fill=1 << square("e2")), start,
...      why="the pawn on e2 cannot go to e5")
['Illegal: the pawn on e2 cannot go to e5.', 'Take the piece off e5; put one back on e2.']
"""

from __future__ import annotations

from board_driver.arbiter.feedback import BoardView
from board_driver.physical.squares import square_name, squares_of
from rules import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
    IllegalMoveError,
    Move,
    Outcome,
    Position,
)

PIECE_WORDS = {
    PAWN: "pawn",
    KNIGHT: "knight",
    BISHOP: "bishop",
    ROOK: "rook",
    QUEEN: "queen",
    KING: "king",
}


def side_words(color: bool) -> str:
    return "White" if color == WHITE else "Black"


def side_name(color: bool) -> str:
    """``"white"`` or ``"black"``, as events and the page name a side."""
    return "white" if color == WHITE else "black"


def piece_words(position: Position, square: int, *, colour: bool = False) -> str:
    """``the knight on g1`` (``the white knight on g1`` with ``colour``)."""
    piece = position.piece_at(square)
    if piece is None:
        return f"the piece on {square_name(square)}"
    side = f"{side_words(piece.color).lower()} " if colour else ""
    return f"the {side}{PIECE_WORDS[piece.piece_type]} on {square_name(square)}"


def _listed(squares: list[int]) -> str:
    return _names([square_name(sq) for sq in squares])


def _rules_reason(position: Position, move: Move) -> str | None:
    """The rules core's own reason why ``move`` is not legal (None if it is)."""
    try:
        position.legal_move(move)
    except IllegalMoveError as error:
        text = str(error)
        _, _, reason = text.partition(": ")
        where = f" in {position.fen()}"
        return reason[: -len(where)] if reason.endswith(where) else reason or text
    return None


def why_illegal(position: Position, board: int) -> str:
    """Why ``board`` shows no legal move from ``position``, as far as the squares tell."""
    before = position.occupancy()
    gone, new = squares_of(before & ~board), squares_of(board & ~before)
    turn = position.turn
    movers = [sq for sq in gone if (p := position.piece_at(sq)) is not None and p.color == turn]
    others = [sq for sq in gone if (p := position.piece_at(sq)) is not None and p.color != turn]
    if others and not movers:
        if new:
            return f"it is {side_words(turn)}'s move, not {side_words(not turn)}'s"
        return f"{piece_words(position, others[0], colour=True)} cannot be captured"
    if len(movers) == 1 and len(new) == 1 and not others:
        reason = _rules_reason(position, Move(movers[0], new[0]))
        if reason is not None:
            return reason
        move = position.legal_move(Move(movers[0], new[0]))
        if move.is_en_passant and move.captured_square is not None:  # its victim set back
            victim = piece_words(position, move.captured_square, colour=True)
            return f"{victim}, taken en passant, was set back on its square"
    king = next(
        (sq for sq in movers if (p := position.piece_at(sq)) is not None and p.piece_type == KING),
        None,
    )
    if king is not None and position.variant == "standard":
        target = next((sq for sq in new if abs(sq - king) == 2 and sq >> 3 == king >> 3), None)
        if target is not None:
            reason = _rules_reason(position, Move(king, target))
            if reason is not None:
                return reason
            move = position.legal_move(Move(king, target))
            rook = move.rook_from
            if rook is not None and board & (1 << rook):
                return f"castling was not finished: the rook stands on {square_name(rook)}"
    elif king is not None:
        castling = next(
            (
                m
                for m in position.legal_moves()
                if m.is_castling and m.from_square == king and m.to_square in new
            ),
            None,
        )
        if castling is not None and castling.rook_from is not None:
            rook = castling.rook_from
            if rook != castling.rook_to and board & (1 << rook):
                return f"castling was not finished: the rook stands on {square_name(rook)}"
    if len(movers) == 1 and not new:
        return f"{piece_words(position, movers[0])} has no legal move"
    if len(movers) > 1 and not new and not others:
        return f"more than one piece is off its square ({_listed(movers)})"
    if len(gone) + len(new) > 2:
        return "the board shows more than one move"
    if new and not gone:
        return f"a piece stands on {_listed(new)}, where none should"
    return "the board shows no legal move"


def why_touch_move(position: Position, owed: int | None) -> str:
    """Why a move was refused under touch-move (FIDE 4.3)."""
    if owed is None:
        return "touch-move: the piece touched first must be moved or taken"
    piece = position.piece_at(owed)
    own = piece is not None and piece.color == position.turn
    duty = "moved" if own else "captured"
    return (
        f"touch-move: {piece_words(position, owed, colour=not own)} was touched and must be {duty}"
    )


def asks(
    view: BoardView,
    position: Position,
    *,
    why: str | None = None,
    outcome: Outcome | None = None,
    expected: Move | None = None,
    warned: int | None = None,
) -> list[str]:
    """Short sentences for what the lights of ``view`` ask, most urgent first. ``why``:
    why the position is illegal; ``expected``: the other side's move to play on the board;
    ``warned``: a piece touched first that did not make the last move (touch-move warn)."""
    out: list[str] = []
    if view.setup_missing or view.setup_extra:
        parts = []
        if view.setup_extra:
            parts.append(f"take the pieces off {_listed(squares_of(view.setup_extra))}")
        if view.setup_missing:
            parts.append(f"put pieces on {_listed(squares_of(view.setup_missing))}")
        return [f"For a new game, {' and '.join(parts)}."]
    if outcome is not None:
        if outcome.winner is None:
            return [f"Draw ({outcome.termination.replace('_', ' ')})."]
        return [f"{side_words(outcome.winner)} wins ({outcome.termination.replace('_', ' ')})."]
    if view.empty or view.fill:
        if why:
            out.append(f"Illegal: {why}.")
        parts = []
        if view.empty:
            parts.append(f"Take the piece off {_listed(squares_of(view.empty))}")
        if view.fill:
            parts.append(f"put one back on {_listed(squares_of(view.fill))}")
        out.append("; ".join(parts) + ".")
    if view.check_king is not None:
        checkers = ", ".join(piece_words(position, sq) for sq in squares_of(view.checkers))
        out.append(f"{side_words(position.turn)} is in check from {checkers}.")
    half_done = squares_of(view.half_done)
    if len(half_done) == 2:  # a castling rook: from its square to beside the king
        standing = [
            sq
            for sq in half_done
            if (piece := position.piece_at(sq)) is not None and piece.piece_type == ROOK
        ]
        if standing:
            rook_from = standing[0]
            rook_to = next(sq for sq in half_done if sq != rook_from)
            out.append(
                f"Castling: move the rook from {square_name(rook_from)} to {square_name(rook_to)}."
            )
    elif half_done:
        out.append(f"En passant: take {piece_words(position, half_done[0])} off the board.")
    for square in squares_of(view.touched):
        piece = position.piece_at(square)
        if square == warned:
            out.append(f"Touch-move: {piece_words(position, square)} was touched first.")
        elif piece is not None and piece.color == position.turn:
            out.append(f"Touch-move: {piece_words(position, square)} was touched and must move.")
        elif piece is not None:
            text = piece_words(position, square, colour=True)
            out.append(f"Touch-move: {text} was touched and must be captured.")
    if expected is not None:
        out.append(f"Play {position.san(expected)} on the board for the other side.")
    return out


def _kind_words(entry: dict, *, plural: bool = False) -> str:
    """``white rook`` (``white rooks``) from an event's ``side`` and ``piece``."""
    return f"{entry['side']} {entry['piece']}{'s' if plural else ''}"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def setup_asks(state: dict) -> list[str]:
    """What the lights ask while a position is set up kind by kind (a ``setup`` event's
    state, :meth:`.kinds.SetupGuide.state`), most urgent first.

    >>> setup_asks({"number": 2, "groups": 3, "extra": ["e4"], "early": [],
    ...             "wrong": [{"square": "d1", "holds": {"side": "black", "piece": "queen"},
    ...                        "wants": {"side": "white", "piece": "queen"}}],
    ...             "group": {"side": "white", "piece": "rook", "squares": ["a1", "e1"],
    ...                       "missing": ["e1"], "unchecked": ["a1"]}})
    ... # doctest: +NORMALIZE_WHITESPACE
    ['d1 holds the black queen, not the white queen: take it off.',
     'Take the piece off e4.',
     'White rooks (2 of 3): a1 and e1; put one on e1.',
     'The board cannot tell which piece stands on a1: make sure it is a white rook.']
    """
    out = []
    for wrong in state.get("wrong", ()):
        out.append(
            f"{wrong['square']} holds the {_kind_words(wrong['holds'])}, not the "
            f"{_kind_words(wrong['wants'])}: take it off."
        )
    extra = list(state.get("extra", ()))
    if extra:
        out.append(f"Take the piece{'s' if len(extra) > 1 else ''} off {_names(extra)}.")
    group = state.get("group")
    if group is not None:
        squares, missing = group["squares"], group["missing"]
        name = _kind_words(group, plural=len(squares) > 1)
        text = f"{name[0].upper()}{name[1:]} ({state['number']} of {state['groups']}): "
        text += _names(squares)
        if missing:
            text += f"; put {'one' if len(missing) == 1 else 'them'} on {_names(missing)}"
        out.append(text + ".")
        unchecked = group.get("unchecked", [])
        if unchecked:
            what = (
                f"it is a {_kind_words(group)}"
                if len(unchecked) == 1
                else f"they are {_kind_words(group, plural=True)}"
            )
            where = _names(unchecked)
            out.append(f"The board cannot tell which piece stands on {where}: make sure {what}.")
    for early in state.get("early", ()):
        due = _kind_words(group, plural=True) if group is not None else None
        square = early["square"]
        text = f"{square} is for a {_kind_words(early)}, not due yet"
        if due:
            text += f" ({due} now)"
        out.append(
            text + f": the board cannot tell what stands on {square}; "
            f"take it off unless it is a {_kind_words(early)}."
        )
    return out
