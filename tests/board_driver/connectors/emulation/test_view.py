"""What the app is told of the board, move by move, on the door and the real tracker: a
slide is one move, a piece placed is the piece lifted, a promotion is the promoted piece
once committed, a take-back brings the captured piece back, and so on. Each scenario is
a board script (docs/board-script.md); the app is a DGT app reading field updates."""

from __future__ import annotations

import asyncio

from board_driver.arbiter.tracker import GameOptions
from board_driver.boardscript.script import parse_script
from board_driver.connectors.emulation.view import BoardView, placement
from board_driver.physical.squares import square
from tests.board_driver.connectors.emulation.rig import Rig


def run(script_text: str, *, options: GameOptions | None = None) -> Rig:
    script = parse_script(script_text)

    async def go() -> Rig:
        opts = options or GameOptions(**script.options)
        rig = await Rig("dgt", script.fen, options=opts).start()
        await rig.send(bytes([0x44, 0x42]))  # update mode, then the board
        rig.updates = []  # every field update, as (time, square, piece)
        for item in script.items:
            await rig.play(item)
            for kind, body in rig.read():
                if kind == 0x8E:
                    sq = (7 - body[0] // 8) * 8 + body[0] % 8
                    rig.updates.append((rig.clock.now, sq, body[1]))
        await rig.until(rig.clock.now + 2000)
        for kind, body in rig.read():
            if kind == 0x8E:
                rig.updates.append((rig.clock.now, (7 - body[0] // 8) * 8 + body[0] % 8, body[1]))
        await rig.stop()
        return rig

    return asyncio.run(go())


def told(rig: Rig) -> list[str]:
    """The field updates as 'e2 -' / 'e4 P'."""
    from board_driver.physical.squares import square_name
    from tests.board_driver.connectors.emulation.apps import DGT_PIECES

    return [f"{square_name(sq)} {DGT_PIECES.get(code, '-')}" for _, sq, code in rig.updates]


def test_a_rook_slid_over_three_squares_is_one_lift_and_one_place():
    rig = run(
        """
        fen 4k3/8/8/8/8/8/8/R3K3 w - - 0 1
        lift a1
        @340 place a2
        @380 lift a2
        @420 place a3
        @460 lift a3
        @500 place a4
        @540 lift a4
        @580 place a5
        """
    )
    assert told(rig) == ["a1 -", "a5 R"]
    assert rig.app.fen() == "4k3/8/8/R7/8/8/8/4K3"


def test_a_capture_mover_first_and_victim_first_both_tell_the_capturing_piece():
    for order in ("lift d4\nlift e6", "lift e6\nlift d4"):
        rig = run(
            f"""
            fen 4k2r/8/4p3/8/3N4/8/8/R3K3 w - - 0 1
            {order}
            place e6
            """
        )
        assert rig.app.fen() == "4k2r/8/4N3/8/8/8/8/R3K3", order
        assert told(rig)[-1] == "e6 N", order


def test_a_quick_capture_under_the_pass_time_tells_the_new_piece_once_committed():
    rig = run(
        """
        fen 4k2r/8/4p3/8/3N4/8/8/R3K3 w - - 0 1
        @300 lift e6
        @320 lift d4
        @360 place e6
        """
    )
    # e6 was empty for 60 ms only: never told empty; named N when the move is committed.
    assert told(rig) == ["d4 -", "e6 N"]
    move = next(e for e in rig.door.events if e["type"] == "move")
    assert rig.updates[-1][0] >= move["t"]


def test_castling_king_first_then_rook():
    rig = run(
        """
        fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1
        lift e1
        place g1
        lift h1
        place f1
        """
    )
    assert told(rig) == ["e1 -", "g1 K", "h1 -", "f1 R"]


def test_a_promotion_shows_the_pawn_until_the_move_is_committed_then_the_new_piece():
    rig = run(
        """
        fen 8/4P3/8/8/8/8/k7/4K3 w - - 0 1
        choose n
        lift e7
        place e8
        """
    )
    assert told(rig) == ["e7 -", "e8 P", "e8 N"]
    promoted = rig.updates[-1][0]
    move = next(e for e in rig.door.events if e["type"] == "move")
    assert promoted >= move["t"] and move["san"] == "e8=N"


def test_a_late_choose_amends_the_piece_told():
    rig = run(
        """
        fen 8/4P3/8/8/8/8/k7/4K3 w - - 0 1
        lift e7
        place e8
        @1500 choose r
        """
    )
    assert told(rig)[-2:] == ["e8 Q", "e8 R"]


def test_en_passant_victim_lifted_after():
    rig = run(
        """
        fen 4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1
        lift d5
        place e6
        lift e5
        """
    )
    assert rig.app.fen() == "4k3/8/4P3/8/8/8/8/4K3"


def test_a_take_back_of_a_capture_brings_the_captured_piece_back():
    rig = run(
        """
        fen 4k2r/8/4p3/8/3N4/8/8/R3K3 w - - 0 1
        lift e6
        lift d4
        place e6
        @2000 lift e6
        place d4
        place e6
        """
    )
    assert rig.app.fen() == "4k2r/8/4p3/8/3N4/8/8/R3K3"
    assert told(rig)[-2:] == ["d4 N", "e6 p"]
    assert any(e["type"] == "takeback" for e in rig.door.events)


def test_an_out_of_sync_board_tells_what_stands_and_is_named_right_once_restored():
    rig = run(
        """
        lift e2
        place e5
        @1500 lift e5
        place e2
        """
    )
    assert "e5 P" in told(rig)
    assert any(e["type"] == "illegal" for e in rig.door.events)
    assert rig.app.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def test_a_piece_from_beside_the_board_is_the_one_the_square_held_before_the_move():
    view = BoardView(pass_ms=0)
    game = "4k3/8/4N3/8/8/8/8/4K3 b - - 0 1"  # after Nd4xe6
    view.resync(
        game,
        before="4k3/8/4p3/8/3N4/8/8/4K3 w - - 0 1",
        occupancy=sum(1 << s for s in placement(game)),
    )
    view.lift(square("e6"), 0)
    assert view.advance(0) == [(square("e6"), None)]
    view.place(square("d4"), 1)
    assert view.advance(1) == [(square("d4"), "N")]
    view.place(square("e6"), 2)  # nothing in hand: from beside the board
    assert view.advance(2) == [(square("e6"), "p")]


def test_a_piece_the_board_cannot_name_is_the_start_positions_or_a_pawn():
    view = BoardView(pass_ms=0)
    view.resync("4k3/8/8/8/8/8/8/4K3 w - - 0 1", occupancy=(1 << 60) | (1 << 4))
    view.place(square("d8"), 0)
    view.place(square("d5"), 0)
    assert view.advance(0) == [(square("d5"), "P"), (square("d8"), "q")]
