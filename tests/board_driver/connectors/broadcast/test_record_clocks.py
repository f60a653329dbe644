"""What the clock adds to the record a board publishes: ``clks``, one whole number of ms
(or null) per move, kept through JSON, checked when read, written as ``%clk`` in its PGN."""

from __future__ import annotations

import pytest

from board_driver.connectors.broadcast.record import GameRecord


def record(**fields) -> GameRecord:
    return GameRecord(
        board=1, game=2, moves=("e4", "e5"), ucis=("e2e4", "e7e5"), **fields
    )


def test_clks_go_through_json_and_into_the_pgn():
    r = record(clks=(180_000, None), clocks={"white": 180_000, "black": 178_000},
               headers={"TimeControl": "180+2"})  # fmt: skip
    again = GameRecord.from_json(r.to_json())
    assert again == r
    assert "1. e4 { [%clk 0:03:00] } e5 *" in r.pgn()
    assert '[TimeControl "180+2"]' in r.pgn()
    assert "clks" not in record().to_json()  # a game without a clock says nothing of it


@pytest.mark.parametrize(
    ("clks", "says"),
    [
        ("[1, 2, 3]", "clks: 3 for 2 moves"),
        ('["3:00", 1]', "clks: not a list of whole numbers"),
        ("[-5, 1]", "clks: not a list of whole numbers"),
        ("[true, 1]", "clks: not a list of whole numbers"),
        ("[604800001, 1]", "clks: not a list of whole numbers"),
        ("{}", "clks: not a list of whole numbers"),
    ],
)
def test_bad_clks_are_named(clks, says):
    text = record().to_json()[:-1] + f',"clks":{clks}}}'
    with pytest.raises(ValueError, match=says):
        GameRecord.from_json(text)
