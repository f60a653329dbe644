"""A newcomer's first steps on the page, in headless Chromium against a real ``magboard run
--sim`` (see test_browser.py for what these tests need), where a second newcomer's audit
tripped: what a new game waiting for its pieces says (the position it waits for by its
name, the squares holding the wrong piece counted, no "your move" from the engine before
the game can begin), words without jargon (PGN's "*", UCI_Elo, an HTTP code), a page
opened on a puzzle, and the start screen whole on a laptop."""

from __future__ import annotations

from tests.board_driver.connectors.web.test_browser import (
    choose,
    click,
    needs_stockfish,
    wait_moves,
)

SET_UP = ", or press Set up the pieces"


def status(page) -> str:
    return page.locator("#status").inner_text()


def set_up(page) -> None:
    """The simulated board's button: the pieces stand as the lights ask, the game begins."""
    page.click("#setup")
    page.wait_for_selector("#status:text-is('White to move')", timeout=30_000)  # piece by piece


@needs_stockfish
def test_a_new_game_waiting_for_its_pieces_says_what_it_waits_for(open_page, daemon):
    page = open_page()
    click(page, "e2", "e4")
    wait_moves(page, "e4")
    # Chess960's position 0 (BBQNNRKR) on the standard array with 1. e4 played: e2 and e4
    # to put right, and 14 squares full as they should be but with the wrong piece, which
    # the page left out ("e2 e4 to put right"; with no move played, "the pieces stand; the
    # game begins").
    page.click("#new-game")
    choose(page, "variant", "chess960")
    page.fill("#chess960-number", "0")
    page.click("#no-clock")
    page.click("#confirm-ok")  # game 1 is not over: kept, adjourned
    daemon.wait_state(lambda s: s["chess960"] == 0 and s["setup_pending"])
    page.wait_for_selector("#asks li:has-text('take it off')")
    assert status(page) == (
        "New game: set up the start position: 16 squares to put right (red: take the piece "
        f"off, blue: put one on){SET_UP}"
    )
    set_up(page)

    # A position from a FEN is not "the start position" (it was called so while it waited):
    # 23 squares to empty, and a1's bishop (BBQNNRKR) where the FEN wants its rook.
    page.click("#settings-open")
    page.fill("#fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    page.click("#new-game-button")  # the dialog closes on the new game
    page.locator("#settings").wait_for(state="hidden")
    daemon.wait_state(lambda s: s["start_fen"].startswith("6k1/") and s["setup_pending"])
    page.wait_for_selector("#status:has-text('to put right')")
    assert status(page) == (
        "New game: set up the position: 24 squares to put right (red: take the piece off, "
        f"blue: put one on){SET_UP}"
    )
    set_up(page)

    # The engine's line said "your move" while the pieces still had to be set up.
    page.click("#new-game")
    choose(page, "variant", "standard")
    choose(page, "mode", "engine")
    choose(page, "level", "1")
    choose(page, "colour", "white")
    page.click("#no-clock")
    page.locator("#game").wait_for(state="visible")
    daemon.wait_state(lambda s: s["players"]["black"] == "engine" and s["setup_pending"])
    page.wait_for_selector("#engine-status[data-status='waiting']")
    line = page.locator("#engine-status")
    assert line.inner_text().endswith("): set up the pieces first"), line.inner_text()
    assert status(page).startswith("New game: set up the start position: ")
    set_up(page)
    page.wait_for_selector("#engine-status:text-matches('\\\\): your move$')")
    assert page.errors == []


def test_the_start_screen_and_the_games_list_speak_no_jargon(open_page, daemon):
    """A game not over was listed as "*" (PGN's sign), the engine's level as "UCI_Elo", a
    draw claim refused as "Draw claim refused: draw claim refused: ..."."""
    page = open_page()
    click(page, "e2", "e4")
    wait_moves(page, "e4")
    page.wait_for_selector("#games li:has-text('1 move')")
    assert page.locator("#games li").inner_text().startswith(
        "Game 1: not over (on the board), 1 move, "
    )
    page.click("#game #claim-draw")  # nothing to claim: why not, said once
    said = page.locator("#messages li.bad").last
    said.wait_for()
    assert said.inner_text() == (
        "Draw claim refused: this position has stood 1 time (a threefold repetition needs 3) "
        "and 0 half-moves have passed without a capture or a pawn move (the fifty-move rule "
        "needs 100)"
    )
    page.click("#new-game")
    choose(page, "mode", "engine")
    choose(page, "level", "2")
    assert page.locator("#level-words").inner_text() == (
        "Level 2: Stockfish held to a rating of about 1500."
    )
    assert page.errors == []


def test_a_page_opened_on_a_puzzle_before_its_first_move_shows_the_puzzle(
    open_page, daemon
):
    """Opened while a puzzle waits for its opponent's first move, the page showed the start
    screen: "Choose a game below, or just play: White begins" over the puzzle's position."""
    page = open_page()
    page.click("#puzzles-open")
    page.click("#puzzles-form button[type='submit']")  # no file: the sample
    page.wait_for_selector("#puzzles .puzzle-title:has-text('mb0001')")
    page.click("#setup")  # the simulator's hands set the position up
    # The puzzle's opponent, White, has Nf3 to make: no move made yet.
    page.wait_for_selector("#puzzles .puzzle-status[data-status='opponent']")
    assert daemon.state()["moves"] == []
    again = open_page()
    again.wait_for_selector("#puzzles .puzzle-status[data-status='opponent']")
    assert again.locator("#game").is_visible() and again.locator("#start").is_hidden()
    assert again.locator("#status").inner_text() == "White to move"
    assert again.errors == []


def test_the_start_screen_on_a_laptop_is_not_cut_inside_its_box(open_page):
    """At 1280x800, the engine's choices (and Chess960's number) pushed the time grid's last
    row and "Play without a clock" below the panel's edge, in a box scrolled apart."""
    page = open_page()  # 1280x800
    choose(page, "mode", "engine")
    choose(page, "variant", "chess960")
    page.locator("#chess960-choice").wait_for(state="visible")
    panel = page.locator("#panel")
    assert panel.evaluate("e => e.scrollHeight <= e.clientHeight + 1"), "the panel scrolls"
    box = panel.bounding_box()
    for control in ("#no-clock", "#custom-open"):
        bottom = page.locator(control).bounding_box()
        assert bottom["y"] + bottom["height"] <= box["y"] + box["height"], control
    page.click("#no-clock")  # reached by scrolling the page, as any page
    page.locator("#game").wait_for(state="visible")
    assert page.errors == []


def test_a_refused_control_is_said_without_an_http_code(open_page, daemon):
    """A custom time control in words the daemon cannot read was said as "Refused (400):
    ...": the code is the web's, not the player's. The start screen stays, nothing began."""
    page = open_page()
    page.click("#custom-open")
    page.fill("#custom-text", "two minutes")
    page.click("#custom-ok")
    said = page.locator("#messages li.bad").last
    said.wait_for()
    assert said.inner_text().startswith(
        "Refused: clock: time control 'two minutes': expected minutes+seconds (3+2)"
    ), said.inner_text()
    assert page.locator("#start").is_visible() and daemon.state()["game_id"] == 1
    assert page.errors == []
