"""The position editor (issue 35, item 2) in headless Chromium against a real ``magboard
run --sim``: a position built by clicks, drags and keys, refused by the rules with the
server's words beside it, then started with the engine to play it (see test_browser.py for
what these tests need)."""

from __future__ import annotations

from tests.board_driver.connectors.web import test_browser as harness
from tests.board_driver.connectors.web.test_browser import SIZES, no_sideways_scroll
from tests.board_driver.connectors.web.test_browser_a11y import CONTROLS, AXTree

# The page tests' fixtures: Chromium, a daemon of its own, a page on it.
browser, daemon, open_page = harness.browser, harness.daemon, harness.open_page


def shows(page, square: str) -> str:
    """The piece the editor's diagram shows on ``square`` (a FEN letter, "." for none)."""
    return page.locator(f"#esq-{square} svg").get_attribute("data-letter")


def test_a_position_built_in_the_editor_is_refused_then_started_against_the_engine(
    open_page, daemon
):
    page = open_page()
    before = daemon.state()
    page.click("#position-open")  # from the start screen
    page.locator("#settings").wait_for(state="visible")
    assert shows(page, "e1") == "K" and page.locator("#castle-K").is_checked()

    page.click("#editor-clear")
    assert page.input_value("#fen") == "8/8/8/8/8/8/8/8 w - - 0 1"
    assert page.locator("#castle-K").is_disabled() and page.locator("#castle-q").is_disabled()
    page.click("#editor-palette [data-tool='K']")
    page.click("#esq-e1")
    page.click("#editor-palette [data-tool='R']")
    page.click("#esq-h1")
    # King and rook stand ready: White's O-O is offered (and kept), O-O-O is not.
    assert page.locator("#castle-K").is_enabled() and page.locator("#castle-K").is_checked()
    assert page.locator("#castle-Q").is_disabled()
    assert page.input_value("#fen") == "8/8/8/8/8/8/8/4K2R w K - 0 1"
    page.click("#castle-K")  # no castling in this ending
    page.click("#esq-h1")  # the chosen piece on its own square: taken away again
    page.drag_and_drop("#editor-palette [data-tool='Q']", "#esq-h1")  # a queen dragged in
    page.drag_and_drop("#esq-h1", "#esq-d1")  # and moved on the diagram
    assert (shows(page, "h1"), shows(page, "d1")) == (".", "Q")
    page.drag_and_drop("#editor-palette [data-tool='p']", "#esq-a7")
    page.drag_and_drop("#esq-a7", "#position-title")  # off the diagram: gone
    assert shows(page, "a7") == "."
    assert page.input_value("#fen") == "8/8/8/8/8/8/8/3QK3 w - - 0 1"

    # No black king: the server's own words beside the editor, the dialog and form kept.
    page.check("input[name='position-players'][value='black']", force=True)
    page.click("#new-game-button")
    page.wait_for_selector("#position-error:text('Black has no king')")
    assert page.locator("#settings").is_visible() and shows(page, "d1") == "Q"
    assert daemon.state()["game_id"] == before["game_id"]

    page.focus("#esq-e1")  # the keyboard: to e8, a FEN letter puts a black king
    for key in ["ArrowUp"] * 7 + ["k"]:
        page.keyboard.press(key)
    assert shows(page, "e8") == "k"
    assert page.input_value("#fen") == "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"
    assert page.locator("#position-error").inner_text() == ""
    bad_before = page.locator("#messages li.bad").count()
    page.click("#new-game-button")
    page.locator("#settings").wait_for(state="hidden")
    state = daemon.wait_state(lambda s: s["game_id"] != before["game_id"])
    assert state["start_fen"] == "4k3/8/8/8/8/8/8/3QK3 w - - 0 1" and state["setup_pending"]
    assert state["players"] == {"white": "human", "black": "engine"}
    page.wait_for_selector("#sq-d1[data-piece='Q']")  # the board shows the position to set up
    assert page.locator("#messages li.bad").count() == bad_before
    assert page.errors == []


def test_a_typed_fen_fills_the_diagram_and_the_editor_fits_a_phone(open_page, daemon):
    page = open_page(viewport=SIZES["phone"])
    page.click("#position-open")
    page.locator("#settings").wait_for(state="visible")
    page.fill("#fen", "r3k2r/8/8/8/8/8/8/R3K2R b Qk - 3 40")
    assert (shows(page, "a1"), shows(page, "h8"), shows(page, "e4")) == ("R", "r", ".")
    assert page.locator("input[name='editor-turn'][value='b']").is_checked()
    assert page.locator("#castle-Q").is_checked() and not page.locator("#castle-K").is_checked()
    page.press("#fen", "Enter")  # Enter in the field starts it, as the Start button does
    page.locator("#settings").wait_for(state="hidden")
    assert daemon.wait_state(lambda s: s["setup_pending"])["start_fen"] == (
        "r3k2r/8/8/8/8/8/8/R3K2R b Qk - 3 40"
    )
    page.click("#settings-open")
    page.fill("#fen", "8/8/8/54/8/8/8/8 w - - 0 1")  # said at once; the diagram kept
    page.wait_for_selector("#position-error:text('rank 5 has 9 squares')")
    assert shows(page, "a1") == "R"
    board = page.locator("#editor-board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= SIZES["phone"]["width"]
    assert board["width"] > 250  # squares big enough for a finger
    no_sideways_scroll(page, "the position editor")
    # For a screen reader: every control named, the squares by square and piece.
    tree = AXTree(page)
    unnamed = [(tree.role(n), n.get("backendDOMNodeId")) for n in tree.shown()
               if tree.role(n) in CONTROLS and not tree.name(n).strip()]  # fmt: skip
    assert unnamed == []
    names = {tree.name(n) for n in tree.shown("button")}
    assert {"a1, white rook", "e4, empty", "Black knight", "Clear", "Start position"} <= names
    assert page.errors == []


def test_a_pgn_file_s_position_is_played_against_the_engine_once_it_stands(
    open_page, daemon, tmp_path
):
    """Endgame practice from a PGN: its FEN header and main line give the position, Black
    to move; the engine, given Black with it, answers once the pieces stand."""
    page = open_page()
    page.click("#settings-open")
    page.click("#pgn-part summary")
    wrong = tmp_path / "wrong.pgn"
    wrong.write_text('[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"]\n\n1. Qd9+ *\n')
    page.set_input_files("#pgn-file", str(wrong))
    # The page reads the file: its text in the box, or the test stops here saying so.
    page.wait_for_function("() => document.querySelector('#pgn').value.includes('Qd9')")
    page.click("#pgn-start")
    page.wait_for_selector("#position-error:text('move 1. Qd9+')")
    assert page.locator("#settings").is_visible()

    page.fill("#pgn", '[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"]\n\n1. Qd7+ *\n')
    page.check("input[name='position-players'][value='black']", force=True)
    page.click("#pgn-start")
    page.locator("#settings").wait_for(state="hidden")
    state = daemon.wait_state(lambda s: s["setup_pending"])
    assert state["start_fen"] == "4k3/3Q4/8/8/8/8/8/4K3 b - - 1 1"
    assert state["players"]["black"] == "engine" and state["engine"]["status"] != "to_play"
    page.click("#setup")  # the pieces as the lights ask: then the engine plays
    page.wait_for_selector("#engine-status[data-status='to_play']")
    move = daemon.state()["engine"]["move"]
    assert move["from"] == "e8"
    text = page.locator("#engine-status").inner_text()
    assert f"plays {move['san']}: move the king from e8 to {move['to']}" in text
    assert page.errors == []
