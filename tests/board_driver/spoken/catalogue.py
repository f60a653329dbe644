"""Every kind of utterance the board makes, made by the narrator and the answers from real
events and positions, in one language: the catalogue the tables are checked against."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from board_driver.physical.squares import square
from board_driver.spoken import Words
from board_driver.spoken.asks import answer
from board_driver.spoken.narrator import CATEGORIES, Narrator
from board_driver.spoken.reasons import remedy, why_illegal
from rules import STARTING_FEN, Game, Position


def snapshot(fen: str = STARTING_FEN, *, start: str | None = None, moves=(), **more: Any):
    values = {
        "fen": fen,
        "start_fen": start or fen,
        "moves": tuple(moves),
        "players": {"white": "human", "black": "human"},
        "question": (),
        "result": "*",
        "termination": None,
        "winner": None,
        "clock": None,
        "player_states": {},
        "setup_pending": False,
        "sensed": 0,
        "in_sync": True,
        "expected": None,
    }
    values.update(more)
    return SimpleNamespace(**values)


def played(sans: list[str], fen: str = STARTING_FEN) -> tuple[Any, list[dict]]:
    """A snapshot after ``sans`` from ``fen``, and each move's ``move`` event."""
    game = Game(Position.from_fen(fen))
    events = []
    for san in sans:
        move = game.position.parse_san(san)
        written = game.position.san(move)
        game.push(move)
        events.append(
            {
                "type": "move",
                "san": written,
                "uci": str(move),
                "en_passant": move.is_en_passant,
                "fen": game.position.fen(),
            }
        )
    return snapshot(game.position.fen(), start=fen, moves=game.san_moves()), events


class Recorder(Words):
    """Words that note which sentences were said."""

    used: set[str]

    def say(self, key: str, **fields: Any) -> str:
        self.used.add(key)
        return super().say(key, **fields)


def tell(words: Words, events: list[dict], snap: Any = None, *, fen: str = STARTING_FEN,
         say=CATEGORIES, expected: dict | None = None) -> list[str]:  # fmt: skip
    narrator = Narrator(words, say, snapshot=snap or snapshot(fen))
    if expected is not None:
        narrator.follow(expected, snap)
    return [u.text for e in events for u in narrator.follow(e, snap)]


def one(texts: list[str]) -> str:
    assert len(texts) == 1, texts
    return texts[0]


def illegal(words: Words, fen: str, lifts: dict[str, str | None], **event: Any) -> str:
    """What the board says when the pieces of ``fen`` are moved as ``lifts`` says (from ->
    to, or None: taken off), as the tracker announces it (``empty``, ``fill``, ``why``)."""
    position = Position.from_fen(fen)
    board = position.occupancy()
    for frm, to in lifts.items():
        board &= ~(1 << square(frm))
        if to:
            board |= 1 << square(to)
    empty = sorted((n for n in lifts.values() if n), key=square)
    fill = sorted(lifts, key=square)
    details = {"type": "illegal", "empty": empty, "fill": fill, "reason": "no_legal_move",
               "why": "(the tracker's words)", **event}  # fmt: skip
    return one(tell(words, [details], snapshot(fen), fen=fen))


def catalogue(language: str) -> tuple[dict[str, str], set[str]]:
    """``name -> what is said`` for every kind, and the table's sentences used."""
    words = Recorder(language)
    words.used = set()
    out: dict[str, str] = {}
    en_passant_fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"

    # ---- moves in words
    _, moves = played(["Nf3", "d5", "Nd4", "e5", "Nb5", "c6", "N1c3", "cxb5", "Nxd5", "Qxd5"])
    said = tell(words, moves)
    out.update(zip(["knight", "d5", "knight2", "e5", "knight3", "c6", "hint", "pawn_takes",
                    "piece_takes", "queen_takes"], said, strict=True))  # fmt: skip
    _, moves = played(["exf6"], en_passant_fen)
    out["en_passant"] = one(tell(words, moves, fen=en_passant_fen))
    castles = "r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 0 1"
    _, moves = played(["O-O", "O-O-O"], castles)
    out["castles_short"], out["castles_long"] = tell(words, moves, fen=castles)
    promo = "8/4P1k1/8/8/8/8/8/4K2R w - - 0 1"
    _, moves = played(["e8=N+"], promo)
    out["promotion_check"] = one(tell(words, moves, fen=promo))
    mate = "6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1"
    _, moves = played(["Ra8#"], mate)
    out["mate"] = one(tell(words, moves, fen=mate))
    out["check_alone"] = one(tell(words, [*moves, {"type": "check", "side": "black"}],
                                  fen=mate, say=["check"]))  # fmt: skip

    # ---- the other side's move, and done
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    engine = {"type": "engine_move", "san": "Nf6", "uci": "g8f6", "from": "g8", "to": "f6",
              "side": "black"}  # fmt: skip
    done = {"type": "move", "san": "Nf6", "uci": "g8f6", "fen": "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"}  # noqa: E501
    out["to_play"], out["done"] = tell(words, [engine, done], fen=after_e4)
    capture_fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2"
    out["to_play_capture"] = one(tell(words, [{"type": "online_move", "san": "exd5",
        "uci": "e4d5", "from": "e4", "to": "d5", "side": "white", "captured": "d5"}],
        fen=capture_fen))  # fmt: skip
    out["to_play_en_passant"] = one(tell(words, [{"type": "engine_move", "san": "exf6",
        "uci": "e5f6", "from": "e5", "to": "f6", "side": "white", "captured": "f5",
        "en_passant": True}], fen=en_passant_fen))  # fmt: skip
    out["to_play_castle"] = one(tell(words, [{"type": "engine_move", "san": "O-O-O",
        "uci": "e1c1", "from": "e1", "to": "c1", "side": "white", "rook_from": "a1",
        "rook_to": "d1"}], fen=castles))  # fmt: skip
    out["to_play_promotion"] = one(tell(words, [{"type": "engine_move", "san": "e8=Q",
        "uci": "e7e8q", "from": "e7", "to": "e8", "side": "white", "promotion": "q",
        "promotion_piece": "queen"}], fen=promo))  # fmt: skip
    check_done = {"type": "move", "san": "Qh4+", "uci": "d8h4"}
    out["done_check"] = one(tell(words, [check_done], fen=after_e4,
        expected={"type": "engine_move", "uci": "d8h4", "san": "Qh4+", "side": "black",
                  "from": "d8", "to": "h4"}))  # fmt: skip
    out["engine_error"] = one(tell(words, [{"type": "engine_error", "message": "x"}] * 2))

    # ---- endings
    for termination, winner in [
        ("checkmate", "white"), ("stalemate", None), ("insufficient_material", None),
        ("dead_position", None), ("fivefold_repetition", None), ("seventyfive_moves", None),
        ("threefold_repetition", None), ("fifty_moves", None), ("resignation", "black"),
        ("agreement", None), ("timeout", "black"), ("timeout", None),
        ("rules_infraction", "white"), ("rules_infraction", None), ("abandoned", "white"),
        ("abandoned", None), ("aborted", None), ("variant_end", "white"),
    ]:  # fmt: skip
        name = f"end_{termination}" + ("_draw" if winner is None else "")
        event = {"type": "game_over", "termination": termination, "winner": winner,
                 "result": {"white": "1-0", "black": "0-1"}.get(winner, "1/2-1/2")}  # fmt: skip
        out[name] = one(tell(words, [event]))  # White to move: White's flag, White resigns

    # ---- illegal positions, why, and what to do
    start = STARTING_FEN
    out["illegal_cannot_go"] = illegal(words, start, {"e2": "e5"})
    out["illegal_wrong_side"] = illegal(words, start, {"e7": "e5"})
    out["illegal_cannot_capture"] = illegal(words, start, {"g8": None})
    out["illegal_no_legal_move"] = illegal(words, start, {"a1": None})
    out["illegal_several_off"] = illegal(words, start, {"d2": None, "e2": None})
    out["illegal_several_moves"] = illegal(words, start, {"d2": "d4", "e2": "e4"})
    out["illegal_extra"] = one(tell(words, [{"type": "illegal", "empty": ["e4"], "fill": [],
        "reason": "no_legal_move", "why": "x"}]))  # fmt: skip
    pinned = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1"
    out["illegal_pinned"] = illegal(words, pinned, {"e2": "d3"})
    in_check = "4k3/4r3/8/8/8/8/3B4/4K3 w - - 0 1"
    out["illegal_in_check"] = illegal(words, in_check, {"d2": "c3"})
    out["illegal_king"] = illegal(words, in_check, {"e1": "e2"})
    no_castling = "4k3/8/8/8/8/8/8/4K2R w - - 0 1"
    out["illegal_castling"] = illegal(words, no_castling, {"e1": "g1"})
    castling_fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    position = Position.from_fen(castling_fen)
    board = position.occupancy() & ~(1 << square("e1")) | 1 << square("g1")
    key, fields = why_illegal(position, board)
    out["why_castling_unfinished"] = words.say(key, **fields)
    ep = Position.from_fen(en_passant_fen)
    board = ep.occupancy() & ~(1 << square("e5")) | 1 << square("f6")
    key, fields = why_illegal(ep, board)
    out["why_en_passant_back"] = words.say(key, **fields)
    legal_looking = Position().occupancy() & ~(1 << square("e2")) | 1 << square("e4")
    key, fields = why_illegal(Position(), legal_looking)
    out["why_unknown"] = words.say(key, **fields)
    out["illegal_touch_move_own"] = illegal(words, start, {"e2": "e4"}, reason="touch_move",
                                            square="g1")  # fmt: skip
    out["illegal_touch_move_capture"] = illegal(
        words, "rnbqkbnr/pppp1ppp/8/4p3/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2",
        {"b1": "c3"}, reason="touch_move", square="e5")  # fmt: skip
    out["illegal_touch_move"] = illegal(words, start, {"e2": "e4"}, reason="touch_move")
    out["illegal_refused"] = illegal(words, start, {"e2": "e3"}, reason="refused", san="e3")

    # ---- a position set up kind by kind (board_driver/arbiter/kinds.py)
    rook, knight = {"side": "white", "piece": "rook"}, {"side": "white", "piece": "knight"}
    out["setup_kind_and_wrong"] = one(tell(words, [{"type": "setup", "number": 3, "groups": 12,
        "group": {**rook, "squares": ["a1", "h1"], "missing": ["h1"], "unchecked": []},
        "extra": ["h3"], "wrong": [{"square": "g1", "holds": rook, "wants": knight}],
        "early": []}]))  # fmt: skip
    out["setup_early"] = one(tell(words, [{"type": "setup_early", "square": "g8", "side": "black",
        "piece": "knight", "due": {"side": "black", "piece": "rook"}}]))  # fmt: skip
    out["setup_unchecked"] = one(tell(words, [{"type": "setup_done", "fen": STARTING_FEN,
        "unchecked": [{"square": "g8", "side": "black", "piece": "knight"}]}]))  # fmt: skip
    # ---- puzzles (board_driver/players/puzzles)
    out["puzzle"] = one(tell(words, [{"type": "puzzle", "number": 3, "player": "black",
        "rating": None}]))  # fmt: skip
    out["puzzle_rated"] = one(tell(words, [{"type": "puzzle", "number": 1, "player": "white",
        "rating": 1450}]))  # fmt: skip
    out["puzzle_right"] = one(tell(words, [{"type": "puzzle_right", "san": "Ra7", "left": 1}]))
    out["puzzle_hint_piece"] = one(tell(words, [{"type": "puzzle_hint", "level": 1,
        "square": "a1", "piece": "rook"}]))  # fmt: skip
    out["puzzle_hint_move"] = one(tell(words, [{"type": "puzzle_hint", "level": 2,
        "square": "a1", "piece": "rook", "san": "Ra7"}]))  # fmt: skip
    for result in ("solved", "helped", "failed"):
        out[f"puzzle_{result}"] = one(tell(words, [{"type": "puzzle_done", "result": result,
            "streak": 4}]))  # fmt: skip
    out["puzzles_none_left"] = one(tell(words, [{"type": "puzzles_over",
        "reason": "no puzzle left"}]))  # fmt: skip
    out["puzzles_over"] = one(tell(words, [{"type": "puzzles_over", "reason": "stopped"}]))
    out["illegal_expected"] = one(tell(words, [{"type": "illegal", "empty": ["f6"],
        "fill": ["b8"], "reason": "no_legal_move", "why": "x"}], snapshot(after_e4),
        fen=after_e4, expected={**engine, "san": "Nc6", "uci": "b8c6", "from": "b8",
        "to": "c6"}))  # fmt: skip
    out["illegal_not_chosen"] = one(tell(words, [{"type": "illegal", "empty": ["f6"],
        "fill": ["g8"], "reason": "no_legal_move", "why": "x"}],
        snapshot(after_e4, players={"white": "human", "black": "engine"}),
        fen=after_e4))  # fmt: skip
    out["fix_only"] = one(tell(words, [{"type": "illegal", "empty": ["e5", "d5"],
        "fill": ["e2", "d2"], "reason": "no_legal_move"}]))  # fmt: skip
    out["fix_fill"] = " / ".join(
        words.say(k, **f) for k, f in remedy(Position(), [], ["e4"])
    )
    out["restored"] = one(tell(words, [{"type": "restored", "fen": start}]))

    # ---- touch-move, the controls, the clock
    out["touch_move_warn"] = one(tell(words, [{"type": "touch_move", "mode": "warn",
        "square": "g1", "played": "e4"}]))  # fmt: skip
    out["adjust"] = one(tell(words, [{"type": "adjust", "side": "white"}]))
    out["draw_offer"] = one(tell(words, [{"type": "draw_offer", "side": "black"}]))
    out["claim_refused"] = one(tell(words, [{"type": "claim_refused", "reason": "x"}]))
    for reason, name in [("the game is over", "over"), ("a new game is being set up", "setup"),
                         ("no draw offer stands", "no_offer"), ("engine busy", "other")]:
        out[f"refused_{name}"] = one(tell(words, [{"type": "refused", "button": "x",
                                                   "reason": reason}]))  # fmt: skip
    out["takeback"] = one(tell(words, [{"type": "takeback", "san": "Nf3+", "uci": "g1f3",
                                        "side": "white", "fen": start}]))  # fmt: skip
    out["hint"] = one(tell(words, [{"type": "hint", "san": "Nf3", "uci": "g1f3"}]))
    narrator = Narrator(words, snapshot=snapshot())
    out["low_time"] = narrator.low_time("black", 20_000).text
    out["low_time_long"] = narrator.low_time("white", 3_725_000).text
    out["clock_pause"] = one(tell(words, [{"type": "clock", "action": "pause"}]))
    out["clock_resume"] = one(tell(words, [{"type": "clock", "action": "resume"}]))

    # ---- new games, the board's state, after a restart
    out["ready"] = " | ".join(u.text for u in Narrator(words).start(snapshot()))
    out["ready_over"] = " | ".join(
        u.text for u in Narrator(words).start(snapshot(result="1-0")))
    out["new_game"] = one(tell(words, [{"type": "new_game", "fen": start}]))
    out["resumed"] = one(tell(words, [{"type": "game_resumed", "fen": after_e4}]))
    out["setup_few"] = one(tell(words, [{"type": "new_game_pending", "missing": ["a1", "g8"],
                                         "extra": ["e4", "d5"]}]))  # fmt: skip
    chess960 = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"  # position 3
    out["new_game_chess960"] = one(tell(words, [{"type": "new_game", "fen": chess960,
        "variant": "chess960", "chess960": 3}]))  # fmt: skip
    out["setup_chess960"] = one(tell(words, [{"type": "new_game_pending", "missing": ["a1",
        "f8"], "extra": [], "fen": chess960, "variant": "chess960"}]))  # fmt: skip
    out["setup_many"] = one(tell(words, [{"type": "new_game_pending",
        "missing": [f"{f}{r}" for r in "1278" for f in "abcdefgh"], "extra": []}]))  # fmt: skip
    for state in ("link_lost", "fault", "store_failing", "ok"):
        out[f"state_{state}"] = one(tell(words, [{"type": "board_state", "state": state}]))
    readings = ["nothing yet: the piece from g8 is in the hand", "Qxg7+", "Qxg7+ Ke8",
                "Qg4, the piece from e8 is in the hand"]  # fmt: skip
    out["question"] = one(tell(words, [{"type": "question", "readings": readings}]))
    out["answered"] = one(tell(words, [{"type": "answered", "reading": "Qxg7+"}]))

    # ---- answers to the buttons
    snap, _ = played(["e4", "e5", "Nf3", "Nc6", "Bb5"])
    for what in ("move", "moves", "material", "clocks"):
        out[f"ask_{what}"] = answer(words, what, snap)
    out["ask_move_ply"] = answer(words, "move", snap, ply=2)
    out["ask_no_move"] = answer(words, "move", snapshot())
    out["ask_moves_from_black"] = answer(words, "moves", snap, count=2)
    out["ask_square"] = answer(words, "square", snap, square="f3")
    out["ask_empty"] = answer(words, "square", snap, square="e3")
    out["ask_rank"] = answer(words, "rank", snap, rank=5)
    lone = snapshot("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    out["ask_rank_empty"] = answer(words, "rank", lone, rank=4)
    out["ask_file"] = answer(words, "file", snap, file="b")
    out["ask_file_empty"] = answer(words, "file", lone, file="c")
    out["ask_pieces"] = answer(words, "pieces", snap, piece="N")
    out["ask_piece"] = answer(words, "pieces", snap, piece="k")
    out["ask_pieces_none"] = answer(words, "pieces", lone, piece="q")
    out["ask_piece_moves"] = answer(words, "piece_moves", snap, square="b1")
    out["ask_piece_moves_takes"] = answer(words, "piece_moves", snap, square="f3")
    blocked = snapshot("4k3/8/8/3pp3/4P3/8/8/4K3 w - - 0 1")
    out["ask_piece_takes"] = answer(words, "piece_moves", blocked, square="e4")
    out["ask_piece_stuck"] = answer(words, "piece_moves", snap, square="a1")
    clock = {"white_ms": 272_400, "black_ms": 61_000, "state": "running", "turn": "black"}
    out["ask_clocks_running"] = answer(words, "clocks", snapshot(clock=clock))
    out["ask_clocks_paused"] = answer(words, "clocks", snapshot(clock={**clock, "state": "paused"}))
    online = snapshot(player_states={"lichess": {"clocks": {"white": 30_000, "black": 1_000}}})
    out["ask_clocks_online"] = answer(words, "clocks", online)
    out["ask_material_king"] = answer(words, "material", lone)
    queen = snapshot("q3k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    out["ask_material_black"] = answer(words, "material", queen)
    narrator = Narrator(words, snapshot=snap)
    for what in ("square", "rank", "file"):
        asked = narrator.follow({"type": "ask", "what": what}, snap)
        out[f"ask_{what}_now"] = one([u.text for u in asked])
    out["repeat_last_move"] = narrator.repeat(snap)
    return out, set(words.used)
