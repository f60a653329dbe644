"""The board-script parser and writer: strict reading, errors that name the line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_driver.boardscript.script import (
    Scan,
    Script,
    ScriptError,
    Wait,
    format_script,
    parse_script,
)
from board_driver.physical.events import BUTTON_NAMES, Button, Choose, Lift, Place
from board_driver.physical.squares import square
from rules import STARTING_FEN
from tests.conftest import SCHOLARS_MATE


def sq(name: str) -> int:
    return square(name)


def error_of(text: str, name: str = "bug.script") -> str:
    with pytest.raises(ScriptError) as info:
        parse_script(text, name)
    return str(info.value)


def test_the_spec_example_reads_as_timed_lifts_and_places():
    script = parse_script(SCHOLARS_MATE, "scholar")
    assert script.fen == STARTING_FEN
    assert script.options == {}
    assert script.gap_ms == 300
    assert len(script.items) == 15
    assert script.items[0] == Lift(300, sq("e2"))
    assert script.items[1] == Place(600, sq("e4"))
    assert script.items[-1] == Place(4500, sq("f7"))
    assert script.lines[0] == 3
    assert not script.uses_scans


def test_defaults_when_no_header_is_given():
    script = parse_script("")
    assert (script.fen, script.options, script.gap_ms, script.items) == (STARTING_FEN, {}, 300, [])


def test_headers_set_fen_options_and_gap():
    script = parse_script(
        "fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1\n"
        "option touch_move enforce\n"
        "option takeback off\n"
        "option hints on\n"
        "gap 120\n"
        "lift h1\n"
    )
    assert script.fen == "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    assert script.options == {"touch_move": "enforce", "takeback": False, "hints": True}
    assert script.items == [Lift(120, sq("h1"))]


def test_times_gap_and_wait():
    script = parse_script(
        "lift e2\n@1000 place e4\nwait 500\nlift e7\n@2000 place e5\n@2000 button adjust\n"
    )
    assert script.items == [
        Lift(300, sq("e2")),
        Place(1000, sq("e4")),
        Wait(1500, 500),
        Lift(1800, sq("e7")),
        Place(2000, sq("e5")),
        Button(2000, "adjust"),
    ]
    assert script.end_ms == 2000


def test_choose_button_and_scan_lines():
    script = parse_script(
        "choose n\nbutton claim_draw\nscan ffff00001000efff\nscan FFFF00001000EFFF\n"
    )
    assert script.items == [
        Choose(300, "n"),
        Button(600, "claim_draw"),
        Scan(900, 0xFFFF00001000EFFF),
        Scan(1200, 0xFFFF00001000EFFF),
    ]
    assert script.uses_scans


def test_comments_blank_lines_and_extra_spaces_are_ignored():
    script = parse_script("\n   # nothing\n\tlift   e2  # hand\n\n")
    assert script.items == [Lift(300, sq("e2"))]


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("lift e2\nmove e2e4\n", 2, "unknown keyword 'move'"),
        ("Lift e2\n", 1, "unknown keyword 'Lift'"),
        ("lift e9\n", 1, "bad square 'e9'"),
        ("lift E2\n", 1, "bad square 'E2'"),
        ("lift\n", 1, "lift takes one square"),
        ("lift e2 e4\n", 1, "lift takes one square"),
        ("@900 lift e2\n@800 place e4\n", 2, "time goes backwards: @800 is before 900 ms"),
        ("lift e2\nwait 1000\n@1000 place e4\n", 3, "time goes backwards"),
        ("@-5 lift e2\n", 1, "bad time '-5'"),
        ("@12ms lift e2\n", 1, "bad time '12ms'"),
        ("@500\n", 1, "@500 is not followed by an event"),
        ("lift e2\ngap 100\n", 2, "header 'gap' after the first event (line 1)"),
        ("lift e2\noption hints on\n", 2, "header 'option' after the first event"),
        ("button adjust\nfen 8/8/8/8/8/8/8/8 w - - 0 1\n", 2, "header 'fen' after the first"),
        ("lift e4\n", 1, "lift e4: no piece stands on e4"),
        ("place e2\n", 1, "place e2: a piece already stands on e2"),
        ("lift e2\nplace e4\nlift e2\n", 3, "lift e2: no piece stands on e2"),
        ("lift e2\nscan ffff00001000efff\n", 2, "a script gives raw scans or lift/place"),
        ("scan ffff00001000efff\nplace e5\n", 2, "not both"),
        ("scan ffff00001000eff\n", 1, "bad hex 'ffff00001000eff'"),
        ("scan 0xffff00001000ef\n", 1, "bad hex"),
        ("scan ffff00001000efgf\n", 1, "bad hex"),
        ("button snooze\n", 1, "unknown button 'snooze'"),
        ("choose k\n", 1, "bad choose letter 'k'"),
        ("choose Q\n", 1, "bad choose letter 'Q'"),
        ("option touch_move strict\n", 1, "bad value 'strict' for option touch_move"),
        ("option takeback yes\n", 1, "bad value 'yes' for option takeback (expected on|off)"),
        ("option sound on\n", 1, "unknown option 'sound'"),
        ("option hints\n", 1, "option takes a name and a value"),
        ("option hints on\noption hints off\n", 2, "given twice (first on line 1)"),
        ("gap fast\n", 1, "bad gap 'fast'"),
        ("gap\n", 1, "gap takes one value"),
        ("wait\n", 1, "wait takes one value"),
        ("wait -3\n", 1, "bad wait '-3'"),
        ("@100 gap 5\n", 1, "'gap' is a header: it takes no @time"),
        ("fen\n", 1, "fen needs a position"),
    ],
)
def test_every_bad_line_is_an_error_naming_the_line_and_the_problem(text, line, says):
    message = error_of(text)
    assert message.startswith(f"bug.script:{line}: ")
    assert says in message


def test_a_script_error_is_a_value_error_with_its_parts():
    with pytest.raises(ValueError) as info:
        parse_script("\n\nlift z1\n", "x")
    error = info.value
    assert isinstance(error, ScriptError)
    assert (error.name, error.line) == ("x", 3)


def test_a_bad_fen_quotes_the_rules_core_and_names_the_line():
    message = error_of("# header\nfen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1\n")
    assert message.startswith("bug.script:2: bad FEN: ")
    from rules import FenError, Position

    with pytest.raises(FenError) as info:
        Position.from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1")
    assert str(info.value) in message


def test_an_impossible_fen_is_refused_too():
    # Two white kings: a FEN the rules core must refuse, so the script must be refused.
    assert "bad FEN" in error_of("fen 4k3/8/8/8/8/8/8/K3K3 w - - 0 1\n")


def test_pieces_standing_are_tracked_from_the_fens_placement():
    fen = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    script = parse_script(f"fen {fen}\nlift a7\nplace a8\nlift a8\nplace a8\n")
    assert [type(i).__name__ for i in script.items] == ["Lift", "Place", "Lift", "Place"]
    assert "no piece stands on e2" in error_of(f"fen {fen}\nlift e2\n")
    assert "already stands on e8" in error_of(f"fen {fen}\nplace e8\n")


def test_the_writer_gives_back_the_same_script():
    for text in (
        SCHOLARS_MATE,
        "fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 1\noption touch_move off\ngap 50\n"
        "lift a7\n@400 place a8\nwait 1000\nchoose n\n@3000 wait 10\nbutton claim_draw\n",
        "scan ffff00000000ffff\n@312 scan ffff00001000efff\n",
        "",
    ):
        script = parse_script(text)
        again = parse_script(format_script(script))
        assert again == script


def test_the_writer_uses_gap_where_it_can_and_writes_comments_first():
    script = Script(
        options={"takeback": False},
        gap_ms=200,
        items=[Lift(200, sq("e2")), Place(450, sq("e4")), Lift(650, sq("e7"))],
    )
    assert format_script(script, comment="recorded on a real board\nmagboard 0.1") == (
        "# recorded on a real board\n# magboard 0.1\n"
        "option takeback off\ngap 200\nlift e2\n@450 place e4\nlift e7\n"
    )
    assert script.to_text() == parse_script(script.to_text()).to_text()


def test_the_writer_refuses_times_that_go_backwards():
    script = Script(items=[Lift(500, sq("e2")), Place(400, sq("e4"))])
    with pytest.raises(ValueError, match="backwards"):
        format_script(script)


@st.composite
def scripts(draw) -> Script:
    """Valid scripts from the start position: lifts of standing pieces, places on empty
    squares, choices, buttons and waits, at random times."""
    board = 0xFFFF00000000FFFF
    gap = draw(st.integers(0, 1000))
    items = []
    clock = 0
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(["lift", "place", "choose", "button", "wait"]))
        timed = draw(st.booleans())
        if kind == "wait":
            start = clock + draw(st.integers(0, 500)) if timed else clock
            clock = start + draw(st.integers(0, 2000))
            items.append(Wait(clock, clock - start))
            continue
        t = clock + draw(st.integers(0, 700)) if timed else clock + gap
        if kind in ("lift", "place"):
            wanted = 1 if kind == "lift" else 0
            choices = [s for s in range(64) if board >> s & 1 == wanted]
            if not choices:
                continue
            sq = draw(st.sampled_from(choices))
            board ^= 1 << sq
            items.append(Lift(t, sq) if kind == "lift" else Place(t, sq))
        elif kind == "choose":
            items.append(Choose(t, draw(st.sampled_from("qrbn"))))
        else:
            items.append(Button(t, draw(st.sampled_from(sorted(BUTTON_NAMES)))))
        clock = t
    options = draw(
        st.dictionaries(
            st.sampled_from(["touch_move", "takeback", "hints"]), st.just(None), max_size=3
        )
    )
    for name in options:
        options[name] = (
            draw(st.sampled_from(["off", "warn", "enforce"]))
            if name == "touch_move"
            else draw(st.booleans())
        )
    return Script(options=options, gap_ms=gap, items=items)


@given(scripts())
@settings(max_examples=150, deadline=None)
def test_any_valid_script_survives_writing_and_reading_back(script):
    assert parse_script(format_script(script)) == script


@pytest.mark.parametrize(
    "text",
    ["lift e2\nwait {n}\nplace e4\n", "@{n} lift e2\nplace e4\n", "gap {n}\nlift e2\n"],
    ids=["wait", "an event's time", "gap"],
)
def test_a_time_past_any_game_is_a_script_error_not_an_overflow(text: str) -> None:
    """Issue 32, item 4: a number of 400 digits in a script's wait, gap or @ time ended
    `magboard replay` in an OverflowError (a float of it is infinite)."""
    huge = text.format(n="9" * 400)
    with pytest.raises(ScriptError, match=r"\(400 digits\) \(at most 1000000000000 ms"):
        parse_script(huge)
    assert parse_script(text.format(n=10**12)).items  # the most a script may say
