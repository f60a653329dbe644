"""Dead positions: can a side still checkmate, by any series of legal moves?

FIDE 5.2.2: the game is drawn when a position arises in which neither player can
checkmate by any series of legal moves, a *dead position*. FIDE 6.9: a player whose
flag falls loses, unless the opponent cannot checkmate by any series of legal moves.
Both rules ask whether a side's mate is *unwinnable*: no sequence of legal moves, both
sides cooperating, ends with that side giving mate.

>>> from rules import BLACK, WHITE, Position
>>> wall = Position.from_fen('4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1')
>>> is_dead(wall)                   # the pawns are locked and no king can reach one
True
>>> passer = Position.from_fen('4k3/8/8/p1p1p1p1/P1P1P1P1/7P/8/4K3 w - - 0 1')
>>> unwinnable(passer, WHITE)       # nothing stops the h-pawn: it may queen
False

The answer is sound first: ``True`` only with a proof; ``False`` means that a mate may
still be possible, or that it could not be ruled out within the budget. The proof has
three parts, cheapest first. The ideas (not the code) follow M. Ambrona, "A Practical
Algorithm for Chess Unwinnability" (FUN 2022): a quick static analysis of blocked pawns
and of where each piece can ever go, then a bounded search.

1. **Material.** A lone king never mates. A king and one knight cannot mate a king that
   has only queens beside it. Bishops all on squares of one colour cannot mate while
   neither side has a pawn or a knight: a king they check always keeps a flight square
   of the other colour, or a piece to capture or block with. (The same rules as
   python-chess's ``has_insufficient_material``.)
2. **Locked pawns.** Suppose every pawn can only ever push along its file until it meets
   an enemy pawn (no pawn is free to promote), and no pawn can ever capture or be
   captured. Then the pawns already head to head are walls for the rest of the game.
   Flooding the board from each piece through everything but the walls (a king also
   never steps where an enemy wall pawn attacks) bounds the squares each piece can ever
   stand on and attack; the supposition is then checked against those bounds. A mate
   needs the loser's king on a square it can reach, attacked by the winner, and each of
   its neighbours attacked by the winner, walled, or held by a piece of the loser's own
   (a different piece for each). No such square: no mate.
3. **A bounded search** of every sequence of legal moves, where the side to move has
   few moves (a king in check, a piece that must be taken) or an en-passant capture is
   possible only now: every line must reach a position proven by 1 or 2, a stalemate,
   or a position seen before. A mate found, a line through a position with many moves
   to choose from, or the budget spent answers ``False`` (not proven).

Ambrona's analyzer is complete on real games; this one is not (it gives up sooner, and
its part 2 asks every pawn of both sides to be locked), but it is cheap: on positions
of real games most answers come from the first pawn that is free to promote, in a few
microseconds (``bench/dead.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .core import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK, Color

if TYPE_CHECKING:  # position.py imports this module: the type only, never at run time
    from .position import Position, RepetitionKey

__all__ = ["is_dead", "unwinnable"]

# ---------------------------------------------------------------------- bitboards
# Square i is bit i (a1 = 0 ... h8 = 63), as in a board scan.

_FULL = (1 << 64) - 1
_FILE_A = 0x0101010101010101
_NOT_A = _FULL ^ _FILE_A
_NOT_H = _FULL ^ (_FILE_A << 7)
_NOT_AB = _NOT_A & (_FULL ^ (_FILE_A << 1))
_NOT_GH = _NOT_H & (_FULL ^ (_FILE_A << 6))

# (shift, mask) for one step in a direction: left shifts go up the board or east, right
# shifts down or west; the mask drops what wrapped around from the other edge.
_ORTHOGONAL = ((8, _FULL), (-8, _FULL), (1, _NOT_A), (-1, _NOT_H))
_DIAGONAL = ((9, _NOT_A), (7, _NOT_H), (-7, _NOT_A), (-9, _NOT_H))
_SLIDES = {BISHOP: _DIAGONAL, ROOK: _ORTHOGONAL, QUEEN: _ORTHOGONAL + _DIAGONAL}


def _king_spread(b: int) -> int:
    """The squares of ``b`` and their neighbours."""
    b |= ((b << 1) & _NOT_A) | ((b >> 1) & _NOT_H)
    return (b | (b << 8) | (b >> 8)) & _FULL


def _knight_spread(b: int) -> int:
    """The squares a knight on any square of ``b`` attacks."""
    l1, l2 = (b >> 1) & _NOT_H, (b >> 2) & _NOT_GH
    r1, r2 = (b << 1) & _NOT_A, (b << 2) & _NOT_AB
    h1, h2 = l1 | r1, l2 | r2
    return ((h1 << 16) | (h1 >> 16) | (h2 << 8) | (h2 >> 8)) & _FULL


def _pawn_attacks(b: int, white: bool) -> int:
    """The squares pawns of that colour on ``b`` attack."""
    if white:
        return (((b << 9) & _NOT_A) | ((b << 7) & _NOT_H)) & _FULL
    return ((b >> 7) & _NOT_A) | ((b >> 9) & _NOT_H)


def _slide(gen: int, through: int, shift: int, mask: int) -> int:
    """The squares sliders on ``gen`` attack in one direction: each ray runs over the
    squares of ``through`` and ends on the first square that is not (which it attacks).
    Kogge-Stone fill: three doubling steps cover the seven squares of a ray."""
    pro = through & mask
    if shift > 0:
        gen |= pro & (gen << shift)
        pro &= pro << shift
        gen |= pro & (gen << 2 * shift)
        pro &= pro << 2 * shift
        gen |= pro & (gen << 4 * shift)
        return (gen << shift) & mask & _FULL
    shift = -shift
    gen |= pro & (gen >> shift)
    pro &= pro >> shift
    gen |= pro & (gen >> 2 * shift)
    pro &= pro >> 2 * shift
    gen |= pro & (gen >> 4 * shift)
    return (gen >> shift) & mask


def _slider_range(
    start: int, open_: int, directions: tuple[tuple[int, int], ...]
) -> tuple[int, int]:
    """(squares a slider from ``start`` can ever stand on, squares it can ever attack),
    moving over the ``open_`` squares (everything but the walls)."""
    reach = start
    while True:
        attacks = 0
        for shift, mask in directions:
            attacks |= _slide(reach, open_, shift, mask)
        more = reach | (attacks & open_)
        if more == reach:
            return reach, attacks
        reach = more


def _knight_range(start: int, open_: int) -> tuple[int, int]:
    reach = start
    while True:
        more = reach | (_knight_spread(reach) & open_)
        if more == reach:
            return reach, _knight_spread(reach)
        reach = more


def _king_range(start: int, allowed: int) -> int:
    reach = start
    while True:
        more = reach | (_king_spread(reach) & allowed)
        if more == reach:
            return reach
        reach = more


def _squares(b: int) -> Iterator[int]:
    while b:
        low = b & -b
        yield low
        b ^= low


# ---------------------------------------------------------------------- 1. material


def _material_cannot_mate(position: Position, color: Color) -> bool:
    """Material alone rules out a mate by ``color`` (see the module's note 1)."""
    board = position._board
    own = position._pieces[color]
    if len(own) == 1:
        return True  # the king alone
    knights = 0
    for sq in own:
        kind = abs(board[sq])
        if kind == KNIGHT:
            knights += 1
        elif kind != KING and kind != BISHOP:
            return False  # a pawn, rook or queen
    theirs = position._pieces[not color]
    if knights:
        # A knight's check mates only a king hemmed in by its own men; queens beside
        # it can always take the knight or give the king room (python-chess's rule).
        return len(own) == 2 and all(abs(board[sq]) in (KING, QUEEN) for sq in theirs)
    colours = set()
    for side in (own, theirs):
        for sq in side:
            kind = abs(board[sq])
            if kind == BISHOP:
                colours.add(((sq >> 3) + sq) & 1)
            elif kind in (PAWN, KNIGHT):
                return False
    return len(colours) == 1


# ---------------------------------------------------------------------- 2. locked pawns


class _Bounds:
    """What every piece can ever do, once the pawn structure is known to be locked."""

    __slots__ = (
        "attacks",
        "covered_by_walls",
        "king_attacks",
        "king_reach",
        "pawn_attacks",
        "units",
    )

    def __init__(self) -> None:
        self.attacks = [0, 0]  # by colour: every square a piece (not king, not pawn) attacks
        self.pawn_attacks = [0, 0]  # every square a pawn of that colour may ever attack
        self.king_reach = [0, 0]  # every square the king may ever stand on
        self.king_attacks = [0, 0]  # ...and the squares around them
        self.units: tuple[list[int], list[int]] = ([], [])  # per piece or mobile pawn: squares
        self.covered_by_walls = 0  # the walls themselves


def _file_fill(pawns: int, through: int, up: bool) -> int:
    """``pawns`` and every square up (down) their files over the squares of ``through``:
    Kogge-Stone, as :func:`_slide`, but keeping the squares passed instead of the blocker."""
    if up:
        pawns |= through & (pawns << 8)
        through &= through << 8
        pawns |= through & (pawns << 16)
        through &= through << 16
        return (pawns | (through & (pawns << 32))) & _FULL
    pawns |= through & (pawns >> 8)
    through &= through >> 8
    pawns |= through & (pawns >> 16)
    through &= through >> 16
    return pawns | (through & (pawns >> 32))


def _pawns_plainly_loose(position: Position) -> bool:
    """The pawns alone rule out note 2 (True): a pawn has an open way to promotion, or
    pawns may one day take each other. What :func:`_bounds_given` finds pawn by pawn on
    its first try (no pawn vanishing), found in a few shifts: most positions of a game
    in progress end here, and every move of the board asks (see ``bench/replay.py``)."""
    board = position._board
    white = black = 0
    for sq in position._pieces[True]:
        if board[sq] == PAWN:
            white |= 1 << sq
    for sq in position._pieces[False]:
        if board[sq] == -PAWN:
            black |= 1 << sq
    # Every square a pawn may ever stand on: its file ahead, as far as an enemy pawn.
    white_span = _file_fill(white, _FULL ^ black, True)
    black_span = _file_fill(black, _FULL ^ white, False)
    if white_span >> 56 or black_span & 0xFF:
        return True
    return bool(
        _pawn_attacks(white_span, True) & black_span
        or _pawn_attacks(black_span, False) & white_span
    )


def _locked_bounds(position: Position) -> _Bounds | None:
    """The bounds of note 2, or None when the pawns are not locked (a pawn may promote,
    capture or be captured by anything but a king, or an en-passant capture is possible
    now). Pawns an enemy king may take are allowed, as pawns that may vanish: they wall
    nothing in, and the pawns they stand in front of may go on past their squares."""
    if _pawns_plainly_loose(position):
        return None
    vanishing = 0  # squares of the pawns an enemy king may take
    while True:
        found = _bounds_given(position, vanishing)
        if not isinstance(found, int):
            return found
        vanishing |= found


def _bounds_given(position: Position, vanishing: int) -> _Bounds | int | None:
    """The bounds when exactly the pawns on ``vanishing`` may be taken by a king; an int:
    more pawns a king may take (their squares), to try again with; None: not locked."""
    board = position._board
    pieces = position._pieces
    walls = [0, 0]  # pawns that will never move again, nor be taken
    span = [0, 0]  # every square a pawn may ever stand on
    # Every pawn as (its square, its span), and the spans of those that are no wall.
    pawns: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
    loose: tuple[list[int], list[int]] = ([], [])
    for color, code, step in ((True, 1, 8), (False, -1, -8)):
        path_of: dict[int, int] = {}
        # Front pawns first: a pawn behind its own pawn may follow where that one goes.
        for sq in sorted((s for s in pieces[color] if board[s] == code), reverse=color):
            path = 0
            to = sq + step
            while True:
                if to >= 64 or to < 0:
                    return None  # nothing stops it from promoting
                ahead = board[to]
                gone = vanishing >> to & 1
                if ahead == -code and not gone:  # head to head with an enemy pawn
                    break
                if ahead == code:
                    further = path_of[to]
                    if further or gone:  # it may step on where that one goes, or was
                        path |= (1 << to) | further
                    break
                if to >= 56 or to < 8:
                    return None  # nothing stops it from promoting
                path |= 1 << to
                to += step
            path_of[sq] = path
            here = 1 << sq
            span[color] |= here | path
            pawns[color].append((here, here | path))
            if path or vanishing & here:
                loose[color].append(here | path)
            else:
                walls[color] |= here
    capture = [_pawn_attacks(span[0], False), _pawn_attacks(span[1], True)]
    if capture[1] & span[0] or capture[0] & span[1]:
        return None  # a pawn may one day take a pawn (a lever, or en passant)
    if position.ep_square is not None and position._legal_ep_exists():
        return None
    bounds = _Bounds()
    bounds.pawn_attacks = capture
    all_walls = walls[0] | walls[1]
    bounds.covered_by_walls = all_walls
    open_ = _FULL ^ all_walls
    taken = 0
    for color in (True, False):
        enemy_span, enemy_capture = span[not color], capture[not color]
        for sq in pieces[color]:
            kind = abs(board[sq])
            if kind in (PAWN, KING):
                continue
            if kind == KNIGHT:
                reach, attacks = _knight_range(1 << sq, open_)
            else:
                reach, attacks = _slider_range(1 << sq, open_, _SLIDES[kind])
            if attacks & enemy_span or reach & enemy_capture:
                return None  # it could take a pawn, or stand where a pawn takes it
            bounds.attacks[color] |= attacks
            bounds.units[color].append(reach)
        bounds.units[color].extend(loose[color])
        # The king never steps where an enemy wall pawn attacks, nor onto a wall.
        defended = _pawn_attacks(walls[not color], not color)
        reach = _king_range(1 << position._kings[color], open_ & ~defended)
        attacks = _king_spread(reach)
        prey = attacks & enemy_span & ~defended
        if prey:  # it may take these pawns: they may vanish
            taken |= sum(here for here, squares in pawns[not color] if squares & prey)
        bounds.king_reach[color] = reach
        bounds.king_attacks[color] = attacks
    if taken & ~vanishing:
        return taken
    return bounds


def _can_shield(need: int, units: list[int]) -> bool:
    """Can each square of ``need`` hold a different one of the loser's ``units``?"""
    squares = list(_squares(need))
    if len(squares) > len(units):
        return False
    union = 0
    for unit in units:
        union |= unit
    if need & ~union:
        return False

    def place(i: int, used: int) -> bool:
        if i == len(squares):
            return True
        square = squares[i]
        for j, unit in enumerate(units):
            if unit & square and not used >> j & 1 and place(i + 1, used | 1 << j):
                return True
        return False

    return place(0, 0)


def _locked_cannot_mate(bounds: _Bounds, color: Color) -> bool:
    """Within the bounds, no square can see ``color`` mate the other king."""
    loser = not color
    checked = bounds.attacks[color] | bounds.pawn_attacks[color]
    targets = bounds.king_reach[loser] & checked
    if not targets:
        return True  # the king is never even in check
    covered = (
        bounds.covered_by_walls
        | bounds.attacks[color]
        | bounds.pawn_attacks[color]
        | bounds.king_attacks[color]
    )
    units = bounds.units[loser]
    for square in _squares(targets):
        need = _king_spread(square) & ~square & ~covered
        if not need or _can_shield(need, units):
            return False
    return True


# ---------------------------------------------------------------------- 3. search

#: The search looks at positions whose side to move has at most this many moves (a king
#: in check, a piece that must be taken), or that allow an en-passant capture only now.
SEARCH_WHEN_MOVES = 4
#: ... and gives up (answers "not proven") after this many positions, or this many plies.
SEARCH_NODES = 40
SEARCH_DEPTH = 8


def _proven_here(position: Position, colors: tuple[Color, ...]) -> bool:
    """Notes 1 and 2: none of ``colors`` can ever mate from ``position``."""
    left = [c for c in colors if not _material_cannot_mate(position, c)]
    if not left:
        return True
    bounds = _locked_bounds(position)
    return bounds is not None and all(_locked_cannot_mate(bounds, c) for c in left)


def _search(position: Position, colors: tuple[Color, ...]) -> bool:
    """Note 3: True when every line from ``position`` reaches a position proven by notes
    1 and 2 (or a stalemate, or a mate of one of ``colors``), within the budget. Only
    narrow lines are followed: a position left unproven with many moves to choose from
    ends the search at once (not proven)."""
    return _closed(position.copy(), colors, set(), [SEARCH_NODES], SEARCH_DEPTH)


def _closed(
    pos: Position,
    colors: tuple[Color, ...],
    seen: set[RepetitionKey],
    budget: list[int],
    depth: int,
) -> bool:
    """One node of :func:`_search` (a function of its own: a nested one that calls itself
    would leave a reference cycle for the garbage collector at every search)."""
    key = pos.repetition_key()
    if key in seen:
        # Seen before: its lines are (being) followed from there, and any of them that
        # fails ends the whole search.
        return True
    seen.add(key)
    budget[0] -= 1
    if budget[0] < 0:
        return False
    if _proven_here(pos, colors):
        return True
    moves = pos._legal()
    if not moves:
        # Stalemate, or a mate: the side not to move has mated.
        return not pos.is_check() or (not pos.turn) not in colors
    if depth == 0 or not _worth_searching(pos):
        return False
    for move in list(moves):
        pos.push(move)
        ok = _closed(pos, colors, seen, budget, depth - 1)
        pos.pop()
        if not ok:
            return False
    return True


def _worth_searching(position: Position) -> bool:
    """Few moves to follow: a king in check, a piece that must be taken, an en-passant
    capture possible only now."""
    return len(position._legal()) <= SEARCH_WHEN_MOVES or (
        position.ep_square is not None and position._legal_ep_exists()
    )


# ---------------------------------------------------------------------- the answers


def unwinnable(position: Position, color: Color) -> bool:
    """True when ``color`` can certainly never checkmate, whatever both sides play;
    False when a mate may still be possible (or was not ruled out).

    >>> from rules import BLACK, Position
    >>> unwinnable(Position.from_fen('8/8/8/8/8/2k5/8/K1n5 w - - 0 1'), BLACK)
    True
    >>> # With a pawn on a2 the white king is hemmed in by its own man: ...Nb3 mates.
    >>> unwinnable(Position.from_fen('8/8/8/8/8/2k5/P7/K1n5 w - - 0 1'), BLACK)
    False
    """
    if _material_cannot_mate(position, color):
        return True
    bounds = _locked_bounds(position)
    if bounds is not None and _locked_cannot_mate(bounds, color):
        return True
    return _worth_searching(position) and _search(position, (color,))


def is_dead(position: Position) -> bool:
    """True when neither side can checkmate by any series of legal moves (FIDE 5.2.2).

    >>> from rules import Position
    >>> is_dead(Position.from_fen('8/8/8/8/8/2k5/8/K1b5 w - - 0 1'))  # bishop only
    True
    >>> is_dead(Position())
    False
    """
    white = _material_cannot_mate(position, True)
    black = _material_cannot_mate(position, False)
    if white and black:
        return True
    bounds = _locked_bounds(position)
    if bounds is not None:
        white = white or _locked_cannot_mate(bounds, True)
        black = black or _locked_cannot_mate(bounds, False)
        if white and black:
            return True
    if not _worth_searching(position):
        return False
    left = tuple(c for c, done in ((True, white), (False, black)) if not done)
    return _search(position, left)
