"""A puzzle's move required of the side at the board (Tracker.require): any other legal
move made is refused, said with its SAN and lit to be put back; the right move, or any
mate where mates count, is played. Through the tracker's own steps, as hands make them."""

from __future__ import annotations

import pytest

import rules
from board_driver.arbiter.tracker import GameOptions, Tracker
from board_driver.physical.events import Lift, Place
from board_driver.physical.squares import square

# White mates with Qxf7# (Scholar's mate); Qxe5+ is legal too, and not asked for.
SCHOLAR = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
# White to move: Ra8# and Rb8# both mate; Rb7 does not.
TWO_MATES = "6k1/5ppp/8/8/8/8/5PPP/RR4K1 w - - 0 1"


def tracker(fen: str) -> Tracker:
    game = rules.Game(rules.Position.from_fen(fen))
    return Tracker(game, options=GameOptions(touch_move="off", takeback=False))


def move(t: Tracker, at: int, from_: str, to: str) -> list[dict]:
    """A move made by hand (a capture: the victim off first), and the board still after."""
    out = []
    if t.board >> square(to) & 1:
        out += t.handle(Lift(at, square(to)))
        at += 100
    out += t.handle(Lift(at, square(from_)))
    out += t.handle(Place(at + 200, square(to)))
    return out + t.tick(at + 2000)


def test_a_move_not_asked_for_is_refused_named_and_put_back() -> None:
    t = tracker(SCHOLAR)
    t.require(["h5f7"])
    events = move(t, 0, "h5", "e5")
    illegal = next(e for e in events if e["type"] == "illegal")
    assert (illegal["reason"], illegal["san"], illegal["uci"]) == ("refused", "Qxe5+", "h5e5")
    assert "Qxe5+ is not the move to play here" in illegal["why"]
    assert not t.game.moves
    assert (illegal["empty"], illegal["fill"]) == ([], ["h5"])  # the queen back home
    # Put back: the queen home and the pawn on e5 again.
    back = t.handle(Lift(3000, square("e5")))
    back += t.handle(Place(3200, square("h5")))
    back += t.handle(Place(3400, square("e5")))
    back += t.tick(5500)
    assert "restored" in [e["type"] for e in back] and not t.game.moves
    assert t.required == (rules.Move.from_uci("h5f7"),)  # still required: no move made
    right = move(t, 6000, "h5", "f7")
    assert [e["san"] for e in right if e["type"] == "move"] == ["Qxf7#"]
    assert t.required is None  # it held for that one move


def test_any_mate_counts_where_mates_do() -> None:
    t = tracker(TWO_MATES)
    t.require(["a1a8"], mates=True)  # the line's mate; Rb8# mates as well
    assert [e["san"] for e in move(t, 0, "b1", "b8") if e["type"] == "move"] == ["Rb8#"]
    t = tracker(TWO_MATES)
    t.require(["a1a8"], mates=True)
    refused = [e for e in move(t, 0, "b1", "b7") if e["type"] == "illegal"]
    assert [(e["reason"], e["san"]) for e in refused] == [("refused", "Rb7")]
    t = tracker(TWO_MATES)
    t.require(["a1a8"])  # without mates, only the line's move
    refused = [e for e in move(t, 0, "b1", "b8") if e["type"] == "illegal"]
    assert [(e["reason"], e["san"]) for e in refused] == [("refused", "Rb8#")]


def test_a_requirement_must_be_legal_and_the_board_side_s() -> None:
    t = tracker(SCHOLAR)
    with pytest.raises(ValueError, match="illegal move h5h8"):
        t.require(["h5h8"])
    t.set_other_side(rules.WHITE)
    with pytest.raises(ValueError, match="turn of the player away"):
        t.require(["h5f7"])
