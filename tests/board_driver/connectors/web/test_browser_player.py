"""The page as players see it, in headless Chromium at desktop and phone sizes (issue 28):
pieces drawn from magboard's own set, Resign and New game asking first, the messages
without the moves, the status after New game, the Lichess box's words and form."""

from __future__ import annotations

import re

import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon
from tests.board_driver.connectors.web.png import piece_shares
from tests.board_driver.connectors.web.test_browser import (
    SIZES,
    choose,
    click,
    no_sideways_scroll,
    settings,
    wait_moves,
)

#: The chess symbols of Unicode (U+2654..U+265F): the font glyphs the page used to draw.
GLYPHS = re.compile("[\u2654-\u265f]")
START = "RNBQKBNRPPPPPPPP" + "." * 32 + "pppppppprnbqkbnr"


@pytest.mark.parametrize("size", SIZES)
def test_the_pieces_are_drawn_from_the_set_and_each_side_looks_its_colour(open_page, size):
    page = open_page(viewport=SIZES[size])
    squares = page.locator("#board .sq")
    assert squares.count() == 64
    for sq, letter in enumerate(START):
        name = "abcdefgh"[sq % 8] + str(sq // 8 + 1)
        piece = page.locator(f"#sq-{name} svg.piece")
        href = piece.locator("use").get_attribute("href")
        if letter == ".":
            assert href is None and not piece.is_visible()
            continue
        side = "white" if letter.isupper() else "black"
        assert href == f"/static/pieces.svg#piece-{letter.lower()}", (name, href)
        assert piece.get_attribute("class") == f"piece {side}"
        box = piece.bounding_box()
        assert box["width"] > 0.8 * page.locator(f"#sq-{name}").bounding_box()["width"]
    assert not GLYPHS.search(page.locator("body").inner_text())
    assert not GLYPHS.search(page.content())
    # As drawn, pixel by pixel: the black queen is solid dark, the white one solid white
    # with a dark outline (each on its own colour, d8 and d1): not the same shape in two
    # shades, and neither a hollow outline.
    black_dark, black_white = piece_shares(page.locator("#sq-d8").screenshot())
    white_dark, white_white = piece_shares(page.locator("#sq-d1").screenshot())
    assert black_dark > 0.6 and black_white < 0.05, (black_dark, black_white)
    assert white_white > 0.2 and white_dark < black_dark - 0.15, (white_dark, white_white)
    assert page.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_resign_for_either_side_new_game_asks_and_a_new_game_says_what_it_waits_for(
    open_page, daemon, size
):
    """Issue 34, items 3, 7 and 8 (and issue 28's questions): a game started from the grid
    leaves no empty game in the list; Resign asks for whom (either player, whoever is to
    move); a new game while one is played asks first; after a game the new one says what
    to put right, names the simulator's button, counts what moves meanwhile, and shows its
    own clock."""
    page = open_page(viewport=SIZES[size])
    page.click("#time-grid button[data-control='10+0']")  # game 1 untouched: put aside
    page.wait_for_selector("#strip-bottom .clock-time:text-is('10:00')")
    page.wait_for_selector("#games li:has-text('Game 2:')")
    assert page.locator("#games li").count() == 1  # no empty game 1 to resume
    click(page, "e2", "e4")
    wait_moves(page, "e4")
    # On a phone Resign is not beside Offer draw: a row of its own, well apart.
    resign, offer = (
        page.locator("#resign").bounding_box(),
        page.locator("#draw-offer").bounding_box(),
    )
    assert resign["y"] >= offer["y"] + offer["height"] + 12, (resign, offer)

    page.click("#resign")  # people on both sides: either may resign, the side to move first
    dialog = page.locator("#confirm")
    dialog.wait_for(state="visible")
    assert page.locator("#confirm-title").inner_text() == "Resign?"
    assert page.locator("#confirm-ok").inner_text() == "Resign for Black"
    assert page.locator("#confirm-other").inner_text() == "Resign for White"
    question = page.locator("#confirm-text").inner_text()
    assert "Black resigning: 1-0; White resigning: 0-1" in question
    no_sideways_scroll(page, "the resign dialog")
    page.keyboard.press("Escape")  # Escape says no
    dialog.wait_for(state="hidden")
    page.click("#resign")
    dialog.wait_for(state="visible")
    page.keyboard.press("Enter")  # the focus is on Cancel: Enter says no too
    dialog.wait_for(state="hidden")

    page.click("#new-game")  # the start screen; a game being played is asked about
    page.locator("#start").wait_for(state="visible")
    page.click("#time-grid button[data-control='5+0']")
    dialog.wait_for(state="visible")
    assert page.locator("#confirm-title").inner_text() == "Start a new game?"
    assert page.locator("#confirm-text").inner_text() == (
        "Game 2 (1 move, black to move) is not over: it is kept, adjourned, and can be resumed "
        "from the game list."
    )
    page.click("#confirm-cancel")
    dialog.wait_for(state="hidden")
    page.click("#start-back")
    assert daemon.state()["game_id"] == 2 and daemon.state()["result"] == "*"

    page.click("#resign")  # White resigns though Black is to move (FIDE 5.1.2)
    page.click("#confirm-other")
    page.wait_for_selector("#status:text('Game over: 0-1 (resignation)')")
    assert page.locator("#resign").is_hidden() and page.locator("#controls").is_hidden()

    # After the game New game does not ask; the new game says what it waits for.
    page.click("#new-game")
    page.click("#time-grid button[data-control='3+2']")
    setting_up = "#status:text('New game: set up the start position: {} to put right')"
    page.wait_for_selector(setting_up.format("e2 e4"))
    assert "or press Set up the pieces" in page.locator("#status").inner_text()
    assert page.locator("#setup").is_visible()
    assert not dialog.is_visible()
    for side in ("white", "black"):  # the new game's clock, not the last one's
        assert page.locator(f".clock-face[data-side='{side}'] .clock-time").inner_text() == "3:00"
    assert page.locator("#sq-e4").get_attribute("data-led") == "r"
    click(page, "d2", "d4")  # moves meanwhile: the board says what is now to put right
    page.wait_for_selector(setting_up.format("d2 e2 d4 e4"))
    assert daemon.state()["moves"] == []  # not read as moves: the new game waits
    page.click("#setup")
    page.wait_for_selector("#status:text-is('White to move')")
    assert daemon.state()["game_id"] == 3
    assert "plies" not in page.locator("body").inner_text()  # players count moves
    # The board's own button is not asked: it resigns at once, for the side to move.
    status, _ = daemon.request("api/button", {"button": "resign"}, token=daemon.token)
    assert status == 200
    page.wait_for_selector("#status:text('Game over: 0-1 (resignation)')")
    assert page.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_the_messages_hold_no_moves_and_no_line_cut_at_the_top(open_page, size):
    page = open_page(viewport=SIZES[size])
    with settings(page):
        for n, checked in enumerate((True, False) * 4):  # eight long messages: more than fit
            page.set_checked("#hints", checked)
            page.wait_for_selector(f"#messages li:nth-child({n + 1})", state="attached")
    for move, sans in ((("e2", "e4"), ["e4"]), (("e7", "e5"), ["e4", "e5"])):
        click(page, *move)
        wait_moves(page, *sans)
    click(page, "g1", "f3")
    wait_moves(page, "e4", "e5", "Nf3")
    page.wait_for_timeout(300)
    texts = page.locator("#messages li").all_inner_texts()
    assert len(texts) == 8 and all(t.startswith("Settings: touch-move: remind") for t in texts)
    assert page.locator("#announce").inner_text() == "Knight to f3."  # screen readers hear it
    # The box scrolls to its newest message with whole lines: its top is a message's top.
    box = page.locator("#messages").bounding_box()
    tops = [li.bounding_box() for li in page.locator("#messages li").all()]
    assert page.locator("#messages").evaluate("e => e.scrollHeight > e.clientHeight")
    first = next(b for b in tops if b["y"] + b["height"] > box["y"] + 1)
    assert abs(first["y"] - box["y"]) <= 1.5, (first, box)
    assert tops[-1]["y"] + tops[-1]["height"] <= box["y"] + box["height"] + 1.5


@pytest.mark.parametrize(
    "size", ["desktop", pytest.param("phone", marks=pytest.mark.slow)]
)  # the phone's in the slow run: the default run's time is counted
def test_the_lichess_box_without_a_token_has_words_and_a_form_laid_out(browser, tmp_path, size):
    daemon = WebDaemon(tmp_path / "daemon", extra_config="[lichess]\nenabled = true\n")
    context = browser.new_context(viewport=SIZES[size])
    try:
        page = context.new_page()
        page.goto(daemon.url)
        choose(page, "mode", "lichess")  # the start screen's third way to play
        page.wait_for_selector("#lichess .lichess-message:text('log in with Lichess')")
        assert "no_token" not in page.locator("#lichess").inner_text()
        assert not page.locator("#lichess .lichess-connection").is_visible()
        form = page.locator("#lichess form.lichess-start")
        labels = [label.bounding_box() for label in form.locator("label").all()]
        fields = [label for label in labels if label["height"] > 30]  # a word over a field
        assert len(fields) == 7 and all(b["width"] >= 120 for b in fields), fields  # Rules too
        for a in labels:  # none overlaps another
            for b in labels:
                if a is not b:
                    apart = (
                        a["x"] + a["width"] <= b["x"] + 0.5
                        or b["x"] + b["width"] <= a["x"] + 0.5
                        or a["y"] + a["height"] <= b["y"] + 0.5
                        or b["y"] + b["height"] <= a["y"] + 0.5
                    )
                    assert apart, (a, b)
        buttons = [
            form.locator(f"button[data-start='{s}']").bounding_box()
            for s in ("seek", "challenge", "ai")
        ]
        assert len({round(b["y"]) for b in buttons}) == 1  # one row
        assert buttons[0]["y"] > max(b["y"] + b["height"] for b in labels) - 0.5  # under the fields
    finally:
        context.close()
        daemon.stop()


def test_the_png_reader_of_these_tests_reads_a_png_it_made():
    import doctest

    from tests.board_driver.connectors.web import png

    assert doctest.testmod(png).failed == 0


def test_the_start_screen_starts_a_chess960_game_by_number_or_at_random(open_page, daemon):
    """Issue 35: the start screen's rules, standard chess or Chess960 by start position
    number (empty: at random); a number out of range is said, and starts nothing; the page
    draws the array and says which it is; standard chess again when chosen."""
    page = open_page()
    assert page.locator("#chess960-choice").is_hidden()
    choose(page, "variant", "chess960")
    page.locator("#chess960-choice").wait_for(state="visible")
    page.fill("#chess960-number", "960")
    page.click("#no-clock")
    page.wait_for_selector("#messages li:has-text('number from 0 to 959')")
    assert daemon.state()["game_id"] == 1 and page.locator("#start").is_visible()

    page.fill("#chess960-number", "3")
    page.click("#no-clock")
    page.locator("#game").wait_for(state="visible")
    state = daemon.wait_state(lambda s: s["chess960"] == 3)
    assert state["variant"] == "chess960" and state["game_id"] == 2
    page.wait_for_selector("#messages li:has-text('New game: Chess960, start position 3')")
    # Position 3's back rank, BQNNRKRB, drawn from the game.
    for name, piece in zip("abcdefgh", "BQNNRKRB", strict=True):
        page.wait_for_selector(f"#sq-{name}1[data-piece='{piece}']")
    page.wait_for_selector("#sq-f8[data-piece='k']")

    page.click("#new-game")  # a game without moves: no question
    page.fill("#chess960-number", "")
    page.click("#time-grid button[data-control='10+0']")
    state = daemon.wait_state(lambda s: s["game_id"] == 3)
    assert state["variant"] == "chess960" and 0 <= state["chess960"] <= 959
    assert state["options"]["clock"] == "10+0"

    page.click("#new-game")
    choose(page, "variant", "standard")
    assert page.locator("#chess960-choice").is_hidden()
    page.click("#no-clock")
    state = daemon.wait_state(lambda s: s["game_id"] == 4)
    assert state["variant"] == "standard" and state["chess960"] is None
    page.wait_for_selector("#sq-e1[data-piece='K']")
    assert page.errors == []
