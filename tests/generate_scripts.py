"""Board scripts from real games, played the way people move pieces by hand.

Each game of a PGN file (python-chess reads it: the oracle, independent of our rules core)
becomes a lift/place board script with seeded random habits:

- captures with the victim lifted first, or the mover lifted first;
- castling king first then rook, king and rook lifted together, or rook first (only where
  touch-move allows it: not under ``enforce``);
- slides: a rook, bishop, queen, king or double-stepping pawn dragged over the squares it
  crosses, resting there under 100 ms;
- en passant with the victim lifted before or after the capturing pawn lands;
- promotion: ``choose`` before the placement or after it, or no ``choose`` at all for a
  queen, and sometimes the pawn swapped for the new piece on the promotion square;
- hesitations (over the settle time) only where the board is on the way to a move, and
  quick replies (before the settle time) where the reply cannot be mistaken for more of
  the move before.

That is the ``careful`` style. The ``blitz`` style (:data:`BLITZ`) plays the same games at
a fast player's pace (board-script.md, "Rulings for fast and messy hands"): the other side
lifts 120-200 ms after a piece lands, so the board is never still between moves; slides
rest 40-90 ms on the squares passed over, and are more frequent; most captures take the
victim first (a recapture chain snatches the piece that has just landed); and now and
then the other side reaches for its next piece while a piece is still sliding. The
``very_fast`` style (:data:`VERY_FAST`) is faster still: the other side lifts 60-110 ms
after a piece lands, mostly before it rested the pass time.

:func:`to_scans` turns such a script into raw ``scan`` lines: every change with contact
bounce (a few 1-3 ms flickers after it), and now and then one square flickering for a
single scan, which the debouncer must swallow.

Run ``python -m tests.generate_scripts OUTDIR [--scans] [--style blitz|very_fast]`` to
write the corpus as files.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

from board_driver.boardscript.script import Scan, Script, ScriptItem
from board_driver.physical.events import Choose, Lift, Place
from rules import STARTING_FEN

#: Intervals (ms) people leave between events; see the module docstring.
WITHIN_MOVE = (40, 200)  # comfortably under the 250 ms settle time, even with bounce
HESITATION = (300, 800)  # over the settle time: only where the board is on the way to a move
BETWEEN_MOVES = (300, 1200)
QUICK_REPLY = (120, 220)  # the other side starts before the settle time has passed
SLIDE_REST = (25, 70)  # under the 100 ms pass time, even with bounce
# The victim's square must be seen empty before the capturing piece lands: in raw scans,
# for the 30 ms debounce time after its bounce has settled.
REFILL_MIN = 60
SCAN_PERIOD_MS = 5


@dataclass(frozen=True)
class Pace:
    """How fast a style of hands moves (spans in ms, chances from 0 to 1)."""

    name: str
    within_move: tuple[int, int]  # between two events of one move
    hesitation: float  # the chance of a pause over the settle time, where on the way
    slide: float  # the chance that a slider (or a double step) is dragged
    slide_rest: tuple[int, int]  # on each square passed over
    choose_after: tuple[int, int]  # a late promotion choice, after the pawn lands
    #: Blitz only: the next move's first lift, after the last piece of this one lands;
    #: the chance of a capture taking the victim first; of the other side reaching for its
    #: next piece while a piece is still sliding.
    reply: tuple[int, int] | None = None
    victim_first: float | None = None
    reach: float = 0.0


CAREFUL = Pace("careful", WITHIN_MOVE, 0.08, 0.3, SLIDE_REST, (60, 500))
BLITZ = Pace(
    "blitz",
    within_move=(40, 120),
    hesitation=0.03,
    slide=0.6,
    slide_rest=(40, 90),
    choose_after=(20, 90),
    reply=(120, 200),
    victim_first=0.75,
    reach=0.5,
)
#: Faster than blitz: the other side lifts 60-110 ms after a piece lands, often before it
#: rested the pass time, so the judgment waits for what follows (a reply placed before the
#: piece it answers rested releases it: issue 22). In the corpus proof with a tolerance: at
#: most one game in a hundred may misread.
VERY_FAST = Pace(
    "very_fast",
    within_move=(30, 70),
    hesitation=0.0,
    slide=0.5,
    slide_rest=(30, 90),
    choose_after=(10, 50),
    reply=(60, 110),
    victim_first=0.5,
    reach=0.5,
)
STYLES = {pace.name: pace for pace in (CAREFUL, BLITZ, VERY_FAST)}

PROMOTION_LETTER = {chess.QUEEN: "q", chess.ROOK: "r", chess.BISHOP: "b", chess.KNIGHT: "n"}
SLIDERS = {chess.BISHOP, chess.ROOK, chess.QUEEN}


@dataclass
class GeneratedGame:
    """A board script and what replaying it must give, according to python-chess."""

    name: str
    script: Script
    sans: list[str]
    fens: set[str]  # the final position, in each convention for the e.p. square
    result: str
    termination: str | None
    habits: Counter = field(default_factory=Counter)  # which ways of moving were used


class _Hands:
    """Writes one game's events, keeping a clock."""

    def __init__(self, rng: random.Random, touch_move: str, pace: Pace = CAREFUL) -> None:
        self.rng = rng
        self.touch_move = touch_move
        self.pace = pace
        self.items: list[ScriptItem] = []
        self.t = 0
        self.habits: Counter = Counter()
        self.slide_from: int | None = None  # when the last slide reached its first square

    def wait(self, span: tuple[int, int]) -> None:
        self.t += self.rng.randint(*span)

    def step(self, *, may_hesitate: bool = True) -> None:
        """The pause before the next event of the same move."""
        if may_hesitate and self.rng.random() < self.pace.hesitation:
            self.habits["hesitation"] += 1
            self.wait(HESITATION)
        else:
            self.wait(self.pace.within_move)

    def lift(self, sq: int) -> None:
        self.items.append(Lift(self.t, sq))

    def place(self, sq: int) -> None:
        self.items.append(Place(self.t, sq))

    def choose(self, letter: str) -> None:
        self.items.append(Choose(self.t, letter))

    def slide(self, crossed: list[int]) -> None:
        """The piece in hand is dragged over ``crossed``, resting briefly on each."""
        for index, sq in enumerate(crossed):
            self.wait((20, 50))
            self.place(sq)
            if index == 0:
                self.slide_from = self.t
            self.wait(self.pace.slide_rest)
            self.lift(sq)
        self.wait((20, 50))


def _crossed(board: chess.Board, move: chess.Move) -> list[int]:
    """The squares a piece making ``move`` passes over, from its square on; [] for jumps."""
    piece = board.piece_type_at(move.from_square)
    distance = chess.square_distance(move.from_square, move.to_square)
    if piece in SLIDERS or (piece in (chess.PAWN, chess.KING) and distance == 2):
        between = list(chess.SquareSet.between(move.from_square, move.to_square))
        return sorted(between, key=lambda sq: chess.square_distance(move.from_square, sq))
    return []


def _play_move(
    hands: _Hands, board: chess.Board, move: chess.Move, amendment_open: bool
) -> set[int]:
    """Write the events of ``move``; returns the squares it touched."""
    rng = hands.rng
    fr, to = move.from_square, move.to_square
    touched = {fr, to}
    promotion = PROMOTION_LETTER.get(move.promotion) if move.promotion else None
    choose_when = None
    if promotion is not None:
        if promotion == "q":
            choose_when = rng.choice([None, None, None, "before", "after"])
        else:
            choose_when = rng.choice(["before", "after"])
        hands.habits[f"promotion {promotion} choose {choose_when or 'none'}"] += 1

    def choose_before_first_lift() -> bool:
        # Not while the opponent may still amend a promotion: a choose then is theirs.
        if choose_when == "before" and not amendment_open and rng.random() < 0.5:
            hands.choose(promotion)
            hands.step(may_hesitate=False)
            return True
        return False

    chose = choose_before_first_lift()

    def choose_in_hand() -> None:
        nonlocal chose
        if choose_when == "before" and not chose:
            hands.step(may_hesitate=False)
            hands.choose(promotion)
            chose = True

    if board.is_castling(move) and board.chess960:
        return _castle960(hands, board, move)
    if board.is_castling(move):
        rook_from, rook_to = _rook_squares(board, move)
        touched |= {rook_from, rook_to}
        ways = ["king first", "together"]
        if hands.touch_move != "enforce":
            ways.append("rook first")
        way = rng.choice(ways)
        hands.habits[f"castling {way}"] += 1
        if way == "king first":
            hands.lift(fr)
            if rng.random() < 0.4:
                hands.habits["slide"] += 1
                hands.slide(_crossed(board, move))
            else:
                hands.step()
            hands.place(to)
            hands.step()
            hands.lift(rook_from)
            hands.step()
            hands.place(rook_to)
        elif way == "together":
            hands.lift(fr)
            hands.wait((20, 40))
            hands.lift(rook_from)
            hands.step()
            first, second = (to, rook_to) if rng.random() < 0.5 else (rook_to, to)
            hands.place(first)
            hands.wait((20, 150))
            hands.place(second)
        else:
            hands.lift(rook_from)
            hands.step(may_hesitate=False)
            hands.place(rook_to)
            if hands.pace.reply is None and rng.random() < 0.5:
                # Long enough for the rook move to be committed before the king follows.
                hands.habits["castling rook first, committed"] += 1
                hands.wait(HESITATION)
            else:
                hands.step(may_hesitate=False)
            hands.lift(fr)
            hands.step()
            hands.place(to)
        return touched

    victim = None
    if board.is_en_passant(move):
        victim = to + (-8 if board.turn == chess.WHITE else 8)
    elif board.is_capture(move):
        victim = to
    crossed = _crossed(board, move) if rng.random() < hands.pace.slide else []
    if crossed:
        hands.habits["slide"] += 1
    if victim is not None:
        touched.add(victim)
        kind = "en passant" if victim != to else "capture"
        ways = ["victim first", "mover first"]
        if kind == "en passant":
            ways.append("victim after")
        if hands.pace.victim_first is not None and rng.random() < hands.pace.victim_first:
            way = "victim first"
        else:
            way = rng.choice(ways)
        hands.habits[f"{kind} {way}"] += 1
        if way == "victim first":
            hands.lift(victim)
            victim_left = hands.t
            hands.step()
            hands.lift(fr)
            choose_in_hand()
            if crossed:
                hands.slide(crossed)
            else:
                hands.step()
            hands.t = max(hands.t, victim_left + REFILL_MIN)
            hands.place(to)
        elif way == "mover first":
            hands.lift(fr)
            hands.step()
            hands.lift(victim)
            victim_left = hands.t
            choose_in_hand()
            if crossed:
                hands.slide(crossed)
            else:
                hands.step()
            hands.t = max(hands.t, victim_left + REFILL_MIN)
            hands.place(to)
        else:
            hands.lift(fr)
            choose_in_hand()
            hands.step()
            hands.place(to)
            hands.step()
            hands.lift(victim)
    else:
        hands.lift(fr)
        choose_in_hand()
        if crossed:
            hands.slide(crossed)
        else:
            hands.step()
        hands.place(to)

    if promotion is not None:
        if choose_when == "after":
            hands.wait(hands.pace.choose_after)
            hands.choose(promotion)
        if rng.random() < 0.3:
            # The pawn taken off the last rank and the new piece put in its place.
            hands.habits["promotion swap"] += 1
            hands.wait((60, 400))
            hands.lift(to)
            hands.wait((100, 600))
            hands.place(to)
    return touched


def castling_squares(board: chess.Board, move: chess.Move) -> tuple[int, int, int, int]:
    """A castling's king from and to, and its rook's from and to (python-chess writes a
    Chess960 castling as the king taking its rook, a standard one as the king's step)."""
    rank = chess.square_rank(move.from_square)
    kingside = board.is_kingside_castling(move)
    king_to = chess.square(6 if kingside else 2, rank)
    rook_from = move.to_square if board.chess960 else chess.square(7 if kingside else 0, rank)
    return move.from_square, king_to, rook_from, chess.square(5 if kingside else 3, rank)


def _castle960(hands: _Hands, board: chess.Board, move: chess.Move) -> set[int]:
    """A Chess960 castling as FIDE recommends for a physical board (Guidelines II.3): the
    king lifted first and held off the board while the rook moves, then placed; or the
    pieces landing in any order (the king on the square its rook left, a transposition);
    a king (a rook) whose final square is its own lifted and put back; where the king's
    step is free, the king set down first; rook first only where the rook's move is legal
    by itself and touch-move allows it (FIDE 4.4.2)."""
    rng = hands.rng
    king, king_to, rook, rook_to = castling_squares(board, move)
    ways = ["king held", "king held, lands first", "together"]
    if king_to != rook:  # the king's square is free (or its own)
        ways.append("king first")
    rook_alone = chess.Move(rook, rook_to)
    if hands.touch_move != "enforce" and rook != rook_to and rook_alone in board.legal_moves:
        ways.append("rook first")
    way = rng.choice(ways)
    hands.habits[f"castling960 {way}"] += 1
    side = "white" if board.turn == chess.WHITE else "black"
    hands.habits[f"castling960 {side} {board.san(move)}"] += 1
    forms = (
        ("king stays", king == king_to),
        ("rook stays", rook == rook_to),
        ("transposition", king_to == rook and rook_to == king),
    )
    for form, is_it in forms:
        if is_it:
            hands.habits[f"castling960 {form}"] += 1
    rook_moves = rook != rook_to or rng.random() < 0.5  # a rook that stays: lifted or not
    left: dict[int, int] = {}  # when each square was lifted

    def lift(sq: int) -> None:
        hands.lift(sq)
        left[sq] = hands.t

    def place(sq: int) -> None:
        # A square the other piece left must be seen empty first (as a capture's).
        if sq in left:
            hands.t = max(hands.t, left[sq] + REFILL_MIN)
        hands.place(sq)

    def move_rook() -> None:
        if rook_moves:
            lift(rook)
            hands.step()
            place(rook_to)

    if way == "king held":
        lift(king)
        hands.step()
        move_rook()
        hands.step()
        place(king_to)
    elif way == "king held, lands first":
        lift(king)
        hands.step()
        if rook_moves:
            lift(rook)
            hands.step()
        place(king_to)
        if rook_moves:
            hands.step()
            place(rook_to)
    elif way == "together":
        lift(king)
        hands.wait((20, 40))
        lift(rook)
        hands.step()
        first, second = (king_to, rook_to) if rng.random() < 0.5 else (rook_to, king_to)
        place(first)
        hands.wait((20, 150))
        place(second)
    elif way == "king first":
        lift(king)
        # A king put back on its own square is held a moment (under the pass time it only
        # flickered, and touched nothing).
        hands.wait((110, 250) if king == king_to else hands.pace.within_move)
        place(king_to)
        hands.step()
        move_rook()
    else:
        lift(rook)
        hands.step(may_hesitate=False)
        place(rook_to)
        if hands.pace.reply is None and rng.random() < 0.5:
            hands.habits["castling rook first, committed"] += 1
            hands.wait(HESITATION)
        else:
            hands.step(may_hesitate=False)
        lift(king)
        hands.step()
        place(king_to)
    return {king, king_to, rook, rook_to}


def _rook_squares(board: chess.Board, move: chess.Move) -> tuple[int, int]:
    rank = chess.square_rank(move.from_square)
    if chess.square_file(move.to_square) == 6:
        return chess.square(7, rank), chess.square(5, rank)
    return chess.square(0, rank), chess.square(3, rank)


def _first_lift(items: list[ScriptItem], start: int) -> int | None:
    for item in items[start:]:
        if isinstance(item, Lift):
            return item.square
    return None


def _last_place(items: list[ScriptItem]) -> int | None:
    return next((item.t_ms for item in reversed(items) if isinstance(item, Place)), None)


def _reach_during_slide(hands: _Hands, start: int, window: tuple[int, int]) -> None:
    """Move the first lift of the move written from ``start`` into the slide ``window`` of
    the move before (the other side reaching for its piece while that one slides)."""
    reach = hands.items.pop(start)
    t = hands.rng.randint(window[0] + 1, window[1] - 1)
    at = next(i for i, item in enumerate(hands.items) if item.t_ms > t)
    hands.items.insert(at, dataclasses.replace(reach, t_ms=t))
    hands.habits["reach during slide"] += 1


def generate_game(
    game: chess.pgn.Game, seed: int, name: str, pace: Pace = CAREFUL
) -> GeneratedGame:
    """One game as a lift/place script with habits drawn from ``seed``, at ``pace``."""
    rng = random.Random(seed)
    touch_move = rng.choice(["off", "warn", "warn", "enforce"])
    options: dict[str, str | bool] = {}
    if touch_move != "warn" or rng.random() < 0.5:
        options["touch_move"] = touch_move
    if rng.random() < 0.3:
        options["takeback"] = rng.random() < 0.5
    if rng.random() < 0.3:
        options["hints"] = rng.random() < 0.5
    hands = _Hands(rng, touch_move, pace)
    hands.habits[f"touch_move {touch_move}"] += 1

    board = game.board()
    fen = board.fen()
    sans: list[str] = []
    last_touched: set[int] = set()
    last_to: int | None = None
    slide_window: tuple[int, int] | None = None  # the last move's slide, to its landing
    amendment_open = False
    for move in game.mainline_moves():
        start = len(hands.items)
        mark = hands.t
        landed = _last_place(hands.items)
        if pace.reply is None or landed is None:
            hands.wait(BETWEEN_MOVES)
        else:
            # The other side lifts 120-200 ms after the last piece lands.
            hands.t = max(landed + rng.randint(*pace.reply), hands.t + 30)
        hands.slide_from = None
        touched = _play_move(hands, board, move, amendment_open)
        first = _first_lift(hands.items, start)
        first_at = next(i.t_ms for i in hands.items[start:] if isinstance(i, Lift | Choose))
        if pace.reply is not None:
            if first == last_to and board.is_capture(move):
                hands.habits["snatch the piece just landed"] += 1
            item = hands.items[start]
            if (
                slide_window is not None
                and isinstance(item, Lift)
                and board.color_at(item.square) == board.turn
                and item.square not in last_touched
                and slide_window[1] - slide_window[0] > 10
                and rng.random() < pace.reach
            ):
                _reach_during_slide(hands, start, slide_window)
        elif (
            sans
            and first not in last_touched
            and not amendment_open
            and rng.random() < 0.15
            and first_at - mark > QUICK_REPLY[1]
        ):
            # Start this move before the settle time: shift its events earlier.
            shift = first_at - mark - rng.randint(*QUICK_REPLY)
            hands.habits["quick reply"] += 1
            for index in range(start, len(hands.items)):
                item = hands.items[index]
                hands.items[index] = dataclasses.replace(item, t_ms=item.t_ms - shift)
            hands.t -= shift
        sans.append(board.san(move))
        amendment_open = move.promotion is not None
        slide_window = None
        if pace.reply is not None and hands.slide_from is not None:
            landing = next(
                i.t_ms
                for i in hands.items[start:]
                if isinstance(i, Place) and i.square == move.to_square and i.t_ms > hands.slide_from
            )
            slide_window = (hands.slide_from, landing)
        board.push(move)
        last_touched = touched
        last_to = move.to_square

    outcome = board.outcome(claim_draw=False)
    fens = {board.fen(en_passant=mode) for mode in ("legal", "fen", "xfen")}
    script = Script(
        fen=STARTING_FEN if fen == chess.STARTING_FEN else fen,
        options=options,
        variant="chess960" if board.chess960 else "standard",
        gap_ms=300,
        items=hands.items,
        name=name,
    )
    return GeneratedGame(
        name=name,
        script=script,
        sans=sans,
        fens=fens,
        result=outcome.result() if outcome else "*",
        termination=outcome.termination.name.lower() if outcome else None,
        habits=hands.habits,
    )


def to_scans(script: Script, seed: int, *, flicker_rate: float = 0.2) -> Script:
    """The same board as raw scans: bounce after every change, some one-scan flickers."""
    rng = random.Random(seed)
    # python-chess: bit i = square i, as ours
    board = int(chess.Board(script.fen, chess960=script.variant == "chess960").occupied)
    toggles: list[tuple[int, int, int, int]] = []  # (t, order, square, new state)
    others: list[ScriptItem] = []
    changes_at: dict[int, list[int]] = {}
    order = 0
    for item in script.items:
        if isinstance(item, Lift | Place):
            new = 1 if isinstance(item, Place) else 0
            t = item.t_ms
            toggles.append((t, order, item.square, new))
            order += 1
            for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):  # contact bounce
                t += rng.randint(1, 3)
                toggles.append((t, order, item.square, 1 - new))
                t += rng.randint(1, 3)
                toggles.append((t, order + 1, item.square, new))
                order += 2
            changes_at.setdefault(item.square, []).append(item.t_ms)
        else:
            others.append(item)
    # One-scan flickers of squares that do not change anywhere near that moment.
    end = script.end_ms
    for _ in range(int(len(script.items) * flicker_rate)):
        t = rng.randrange(0, max(end, 1))
        sq = rng.randrange(64)
        if any(abs(t - c) < 200 for c in changes_at.get(sq, ())):
            continue
        toggles.append((t, order, sq, -1))  # -1: flip for one scan
        order += 1
    toggles.sort()
    items: list[ScriptItem] = []
    scans: list[Scan] = []
    flicker_back: list[tuple[int, int]] = []
    for t, _, sq, new in toggles:
        while flicker_back and flicker_back[0][0] <= t:
            back_t, back_sq = flicker_back.pop(0)
            board ^= 1 << back_sq
            scans.append(Scan(back_t, board))
        if new == -1:
            board ^= 1 << sq
            flicker_back.append((t + SCAN_PERIOD_MS, sq))
            flicker_back.sort()
        elif new:
            board |= 1 << sq
        else:
            board &= ~(1 << sq)
        scans.append(Scan(t, board))
    for back_t, back_sq in flicker_back:
        board ^= 1 << back_sq
        scans.append(Scan(back_t, board))
    # Merge: one scan per instant (the last), and the non-board items at their times.
    merged: dict[int, Scan] = {}
    for scan in scans:
        merged[scan.t_ms] = scan
    items = sorted(
        [*merged.values(), *others],
        key=lambda i: (i.t_ms, 0 if isinstance(i, Scan) else 1),
    )
    return Script(
        fen=script.fen,
        options=dict(script.options),
        variant=script.variant,
        gap_ms=script.gap_ms,
        items=items,
        name=f"{script.name} (scans)",
    )


def read_games(pgn_path: Path) -> list[chess.pgn.Game]:
    games = []
    with open(pgn_path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def chess960_games(count: int, seed: int, max_plies: int = 80) -> list[chess.pgn.Game]:
    """``count`` Chess960 games from random start positions, played by python-chess's
    legal moves at random with a bias toward development and castling (so that most games
    castle, on both wings and in every form their start positions allow): each side
    castles whenever it can with a good chance, brings its back-rank pieces out first, and
    otherwise plays any move; a game ends at its end or after ``max_plies``."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        game = chess.pgn.Game()
        game.setup(board)
        node: chess.pgn.GameNode = game
        while not board.is_game_over(claim_draw=False) and board.ply() < max_plies:
            legal = list(board.legal_moves)
            castlings = [m for m in legal if board.is_castling(m)]
            back = 0 if board.turn == chess.WHITE else 7
            develop = [
                m
                for m in legal
                if chess.square_rank(m.from_square) == back
                and board.piece_type_at(m.from_square) not in (chess.KING, chess.ROOK)
            ]
            if castlings and rng.random() < 0.8:
                move = rng.choice(castlings)
            elif develop and rng.random() < 0.7:
                move = rng.choice(develop)
            else:
                move = rng.choice(legal)
            node = node.add_variation(move)
            board.push(move)
        games.append(game)
    return games


def generate_chess960_corpus(
    count: int, seed: int = 960, pace: Pace = CAREFUL
) -> list[GeneratedGame]:
    """:func:`chess960_games` as lift/place scripts; game *i* uses seed ``seed + i``."""
    suffix = "" if pace is CAREFUL else f"-{pace.name}"
    return [
        generate_game(game, seed + index, f"chess960-{seed}-{index + 1:03d}{suffix}", pace)
        for index, game in enumerate(chess960_games(count, seed))
    ]


def generate_corpus(pgn_path: Path, seed: int = 2026, pace: Pace = CAREFUL) -> list[GeneratedGame]:
    """Every game of ``pgn_path`` as a lift/place script; game *i* uses seed ``seed + i``."""
    suffix = "" if pace is CAREFUL else f"-{pace.name}"
    return [
        generate_game(game, seed + index, f"{pgn_path.stem}-{index + 1:03d}{suffix}", pace)
        for index, game in enumerate(read_games(pgn_path))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--pgn", type=Path, default=Path("/work/shared/data/selfplay.pgn"))
    parser.add_argument("--scans", action="store_true", help="write raw scans instead")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--style", choices=sorted(STYLES), default=CAREFUL.name)
    args = parser.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    for index, generated in enumerate(generate_corpus(args.pgn, args.seed, STYLES[args.style])):
        script = to_scans(generated.script, args.seed + index) if args.scans else generated.script
        comment = f"{generated.name}: {' '.join(generated.sans)} {generated.result}"
        path = args.outdir / f"{generated.name}.script"
        path.write_text(script.to_text(comment=comment), encoding="utf-8")


if __name__ == "__main__":
    main()
