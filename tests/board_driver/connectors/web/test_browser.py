"""The page in headless Chromium against a real ``magboard run --sim``: clicks, keys, drags.

Needs Debian's ``chromium`` (``apt-get install chromium chromium-driver``; ``.ci/run``
installs it as root) and the ``playwright`` package (the ``dev`` extra), which drives
``/usr/bin/chromium``: no browser is downloaded. ``MAGBOARD_SCREENSHOTS=1`` also writes
the page's screenshots to ``docs/``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import pytest

from tests.board_driver.connectors.web.daemon import ROOT, WebDaemon

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 10_000
#: The two sizes the page is proven at (issue 34): a laptop, and a phone.
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is missing: pip install -e '.[dev]'")
    if not CHROMIUM.exists():
        pytest.skip(
            "no browser: /usr/bin/chromium is missing (as root: apt-get install chromium "
            "chromium-driver; .ci/run does it)"
        )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def daemon(tmp_path):
    d = WebDaemon(tmp_path / "daemon")
    yield d
    d.stop()


@pytest.fixture
def open_page(browser, daemon, tmp_path):
    """A page on the daemon, with the token (as the log's link gives it) unless told not to."""
    contexts = []

    def open_(with_token: bool = True, **context_options):
        context = browser.new_context(
            accept_downloads=True,
            reduced_motion="reduce",  # blinking lights drawn steady: stable screenshots
            viewport=context_options.pop("viewport", SIZES["desktop"]),
            **context_options,
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.errors = errors
        page.goto(daemon.url + (f"#token={daemon.token}" if with_token else ""))
        page.wait_for_selector("#connection:text('live')")
        page.wait_for_selector("#sq-e1[data-piece='K']")
        return page

    yield open_
    for context in contexts:
        context.close()


def click(page, *squares: str) -> None:
    for name in squares:
        page.click(f"#sq-{name}")


@contextlib.contextmanager
def settings(page):
    """The settings dialog open (its Close button after)."""
    page.click("#settings-open")
    page.locator("#settings").wait_for(state="visible")
    yield
    page.click("#settings-close")
    page.locator("#settings").wait_for(state="hidden")


def choose(page, name: str, value: str) -> None:
    """A choice of the start screen or the settings (a radio button drawn as a button)."""
    page.click(f"label:has(input[name='{name}'][value='{value}'])")


def start_game(page, control: str = "3+2", **choices: str) -> None:
    """From the start screen: the opponent (``mode``), the engine's ``level`` and ``colour``,
    then a preset of the grid ("none": no clock)."""
    for name, value in choices.items():
        choose(page, name, value)
    if control == "none":
        page.click("#no-clock")
    else:
        page.click(f"#time-grid button[data-control='{control}']")
    page.locator("#game").wait_for(state="visible")


def no_sideways_scroll(page, what: str = "") -> None:
    """Nothing wider than the window: no scrolling sideways (issue 34, item 4)."""
    wide = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert wide[0] <= wide[1], (what, wide)


def wait_moves(page, *sans: str) -> None:
    """Wait until the move list reads ``sans`` (SAN, in order). Polled: the page's CSP
    forbids the eval that ``page.wait_for_function`` needs."""
    selector = "#moves .ply"
    expected = list(sans)
    for _ in range(WAIT_MS // 50):
        if page.locator(selector).all_inner_texts() == expected:
            return
        page.wait_for_timeout(50)
    assert page.locator(selector).all_inner_texts() == expected


def resign(page) -> None:
    """Resign, answering the page's question yes."""
    page.click("#resign")
    page.click("#confirm-ok")


def shot(page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path))
    if os.environ.get("MAGBOARD_SCREENSHOTS"):
        shutil.copy(path, ROOT / "docs" / name)
    return path


def led(page, square: str) -> tuple[str, str]:
    cell = page.locator(f"#sq-{square}")
    return cell.get_attribute("data-led"), cell.get_attribute("data-blink")


def test_a_short_game_by_click_key_and_drag_with_hints_and_its_pgn(open_page, tmp_path):
    page = open_page()
    with settings(page):
        page.check("#hints")
        page.wait_for_selector("#messages li:text('hints on')", state="attached")
    click(page, "f2", "f3")  # 1. f3 by two clicks
    wait_moves(page, "f3")
    assert page.locator("#status").inner_text().startswith("Black to move")

    # 1... e5 from the keyboard: focus e7, Enter lifts, arrows walk, Space places.
    page.focus("#sq-e7")
    page.keyboard.press("Enter")
    page.wait_for_selector("#sq-e7.lifted")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    wait_moves(page, "f3", "e5")
    assert page.locator("#announce").inner_text() == "e5."  # the board's words

    # The move's white flash is brief.
    page.wait_for_selector("#sq-e5[data-led='.']")
    # Lifting g2 with hints on: its destinations g3 and g4 light green.
    click(page, "g2")
    page.wait_for_selector("#sq-g4[data-led='g']")
    assert led(page, "g3") == ("g", "0")
    assert page.locator("#sq-g2").get_attribute("aria-label") == "g2, white pawn, lifted"
    shot(page, tmp_path, "web-hints.png")
    click(page, "g2")  # put it back (a j'adoube-free replace: touch-move warns only)
    page.wait_for_selector("#sq-g2[data-sensed='1']")

    # 2. g4 as a drag: the pawn slides over g3 to g4.
    box = page.locator("#sq-g2").bounding_box()
    target = page.locator("#sq-g4").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=12)
    page.mouse.up()
    wait_moves(page, "f3", "e5", "g4")

    click(page, "d8", "h4")  # 2... Qh4#
    wait_moves(page, "f3", "e5", "g4", "Qh4#")
    page.wait_for_selector("#status[data-result='0-1']")
    assert page.locator("#status").inner_text() == "Game over: 0-1 (checkmate)"
    # Mate: the winner's king green, the loser's red.
    page.wait_for_selector("#sq-e1[data-led='r']")
    assert led(page, "e8") == ("g", "0")
    assert page.locator("#resign").is_disabled()
    page.wait_for_selector("#sq-h4[data-led='.']")  # after the flash
    shot(page, tmp_path, "web-finished.png")

    with page.expect_download() as download:
        page.click("#pgn-current")
    text = Path(download.value.path()).read_text()
    assert download.value.suggested_filename == "magboard-game-1.pgn"
    assert "1. f3 e5 2. g4 Qh4# 0-1" in " ".join(text.split())
    assert '[Result "0-1"]' in text
    assert page.errors == []


def test_an_illegal_move_lights_what_to_put_right(open_page, daemon, tmp_path):
    page = open_page()
    click(page, "e2", "e5")  # a pawn three squares
    page.wait_for_selector("#sq-e5[data-led='r'][data-blink='1']")
    assert led(page, "e2") == ("b", "1")
    page.wait_for_selector(
        "#messages li.bad:text('Not a legal move (the pawn on e2 cannot go to e5): "
        "empty e5, fill e2')"
    )
    assert "does not match the game" in page.locator("#status").inner_text()
    assert page.locator("#sq-e5").get_attribute("aria-label") == (
        "e5, a piece the game does not expect, light red blinking"
    )
    assert "light blue blinking" in page.locator("#sq-e2").get_attribute("aria-label")
    shot(page, tmp_path, "web-illegal.png")

    click(page, "e5", "e2")  # put it back: red and blue go out
    page.wait_for_selector("#messages li:text('matches the game again')")
    assert led(page, "e5") == (".", "0")
    # Touch-move (warn): the pawn was touched, so it still owes a move: yellow, blinking.
    assert led(page, "e2") == ("y", "1")
    assert daemon.state()["moves"] == [] and daemon.state()["in_sync"]


def test_an_under_promotion_from_a_fen_set_up(open_page, daemon):
    page = open_page()
    page.click("#settings-open")
    page.fill("#fen", "k7/4P3/8/8/8/4K3/8/8 w - - 0 1")
    page.click("#new-game-button")  # the dialog closes on the new game
    page.locator("#settings").wait_for(state="hidden")
    page.wait_for_selector("#sq-e3[data-piece='K']")
    # The lights guide the set-up kind by kind: the white king's e3 to fill (blue), the
    # other pieces' squares to empty (red); a8, where the board knows a black rook stands
    # and the black king is wanted, blinks red: that piece is the wrong one.
    page.wait_for_selector("#sq-e3[data-led='b']")
    assert led(page, "d2") == ("r", "0") and led(page, "a8") == ("r", "1")
    assert page.locator("#status").get_attribute("data-in-sync") == "false"
    page.click("#setup")  # the simulator's hands do as the lights say
    page.wait_for_selector("#status[data-in-sync='true']")
    assert page.locator("#status").inner_text() == "White to move"
    assert led(page, "e3") == (".", "0") and led(page, "d2") == (".", "0")

    click(page, "e7", "e8")  # a queen until told otherwise
    wait_moves(page, "e8=Q+")
    page.click("#promotion [data-piece='n']")
    wait_moves(page, "e8=N")
    page.wait_for_selector("#messages li:text('Promotion: e8=N (was e8=Q+)')")
    assert page.locator("#sq-e8").get_attribute("data-piece") == "N"
    game = daemon.state()["game_id"]
    with page.expect_download() as download:
        page.click("#pgn-current")
    text = Path(download.value.path()).read_text()
    assert '[FEN "k7/4P3/8/8/8/4K3/8/8 w - - 0 1"]' in text
    assert "1. e8=N" in text
    assert download.value.suggested_filename == f"magboard-game-{game}.pgn"
    # Any stored game: the list links each one. Game 1, put aside before a move was made
    # in it, is not listed: nothing to resume (issue 34, item 7).
    page.wait_for_selector(f"#games li:has-text('Game {game}:'):has-text('1 move')")
    assert page.locator("#games li").count() == 1
    with page.expect_download() as download:
        page.click(f"#games a:text-is('Game {game}')")
    assert f'[Event "magboard game {game}"]' in Path(download.value.path()).read_text()


@pytest.mark.parametrize("size", SIZES)
def test_the_printed_link_plays_on_first_open_and_without_it_the_top_says_where_it_is(
    browser, daemon, size
):
    """Issue 34, item 1: the README's address without the token says at the top, in one
    sentence, where the token is, and moves nothing (nothing drawn lifted); a wrong token
    says so; the link the daemon prints plays at once on a newcomer's first open."""
    context = browser.new_context(viewport=SIZES[size], reduced_motion="reduce")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(daemon.url)
    page.wait_for_selector("#connection:text('live')")
    banner = page.locator("#need-token")
    assert banner.is_visible() and banner.bounding_box()["y"] < 120
    words = " ".join(banner.inner_text().split())
    assert words.startswith("To play from this page, open the link with the token that magboard")
    assert "make run" in words and "journalctl -u magboard" in words
    assert words.count(". ") == 0 and words.endswith(".")  # one sentence
    assert page.locator("#sq-a1").bounding_box()["width"] >= 40  # on a phone too
    click(page, "e2")
    page.wait_for_selector("#messages li.bad:text('Nothing was moved: this page has no token')")
    assert page.locator("#sq-e2.in-hand, #sq-e2.lifted").count() == 0
    assert page.evaluate("window.scrollY") == 0  # the sentence at the top stays in view
    with settings(page):
        assert "No token yet" in page.locator("#token-state").inner_text()
        page.fill("#token", "not-the-token")
        page.click("#token-form button")
    click(page, "e2")
    page.wait_for_selector("#messages li.bad:text('Refused (403): wrong token')")
    assert "is not the board's" in banner.inner_text() and banner.is_visible()
    assert page.locator("#sq-e2.in-hand, #sq-e2.lifted").count() == 0
    assert daemon.state()["sensed"] == "ffff00000000ffff"
    assert "web: action sim refused (403)" in daemon.output()
    context.close()

    # The link as the daemon printed it (the README's quick start says to open it).
    line = next(x for x in daemon.output().splitlines() if "to play on the page, open " in x)
    link = line.split("to play on the page, open ", 1)[1].strip()
    assert link == f"{daemon.url}#token={daemon.token}"
    context = browser.new_context(viewport=SIZES[size], reduced_motion="reduce")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(link)
    page.wait_for_selector("#connection:text('live')")
    assert not page.locator("#need-token").is_visible()
    assert "#token" not in page.url  # kept by the browser, out of the address bar
    click(page, "e2", "e4")
    wait_moves(page, "e4")
    no_sideways_scroll(page, "a game")
    context.close()


def test_a_capture_by_clicking_and_its_take_back(open_page, daemon):
    page = open_page()
    click(page, "e2", "e4")
    wait_moves(page, "e4")
    click(page, "d7", "d5")
    wait_moves(page, "e4", "d5")
    click(page, "e4", "d5")  # with a pawn in hand, clicking the victim captures it
    wait_moves(page, "e4", "d5", "exd5")
    assert page.locator("#sq-d5").get_attribute("data-piece") == "P"
    page.click("#takeback")  # the simulator's hands put both pawns back
    wait_moves(page, "e4", "d5")
    page.wait_for_selector("#messages li:text('Taken back: exd5')")
    assert page.locator("#sq-d5").get_attribute("data-piece") == "p"
    assert page.locator("#sq-e4").get_attribute("data-sensed") == "1"
    state = daemon.state()
    assert state["in_sync"] and state["turn"] == "white"
    assert page.errors == []


PIECE_WORDS = {"p": "pawn", "n": "knight", "b": "bishop", "r": "rook", "q": "queen", "k": "king"}
needs_stockfish = pytest.mark.skipif(
    not Path("/usr/games/stockfish").exists() and not shutil.which("stockfish"),
    reason="no Stockfish (as root: apt-get install stockfish; .ci/run does it)",
)


@needs_stockfish
@pytest.mark.parametrize("size", SIZES)
def test_the_engine_by_level_on_its_clock_its_move_in_words_and_resign_for_the_human(
    open_page, daemon, size, tmp_path
):
    """Issue 34, items 5 and 8: the engine chosen by level (Stockfish's UCI_Elo), the human
    playing Black on the phone (the board turned), White on the desktop; what decides the
    engine's time said ("on its clock"); Resign is the human's, whoever is to move."""
    page = open_page(viewport=SIZES[size])
    human = "white" if size == "desktop" else "black"
    engine_side = "black" if human == "white" else "white"
    with settings(page):  # a shallow search, for a quick test
        page.fill("#engine-depth", "1")
        page.click("#engine-apply")
        page.wait_for_selector("#messages li:text('thinking is set')", state="attached")
    start_game(page, "3+2", mode="engine", level="1", colour=human)
    state = daemon.wait_state(lambda s: s["players"][engine_side] == "engine")
    assert (state["engine"]["elo"], state["players"][human]) == (1350, "human")
    assert page.locator("#board").get_attribute("data-bottom") == human
    label = page.locator("#board").get_attribute("aria-label")
    assert label == f"Chessboard, {human} at the bottom"
    assert page.locator("#strip-top .player-name").inner_text().endswith("· level 1")
    assert page.locator("#strip-bottom .player-name").inner_text() == human.capitalize()
    if human == "white":
        click(page, "e2", "e4")
        wait_moves(page, "e4")
    page.wait_for_selector("#engine-status[data-status='to_play']")
    engine = daemon.state()["engine"]
    move, name = engine["move"], engine["engine"]
    assert name.startswith("Stockfish")  # its own name, once it has started
    words = (
        f"{name} plays {move['san']}: move the {PIECE_WORDS[move['piece']]} "
        f"from {move['from']} to {move['to']}"
    )
    assert page.locator("#engine-status").inner_text() == words
    page.wait_for_selector(f"#messages li:text-is('{words}')")
    assert led(page, move["from"]) == ("c", "1") and led(page, move["to"]) == ("c", "1")
    click(page, move["from"], move["to"])  # the human plays the engine's move for it
    page.wait_for_selector("#engine-status[data-status='waiting']")
    line = page.locator("#engine-status").inner_text()
    pace = "on its clock (3+2), depth 1 at most"
    assert line == f"{name} plays {engine_side} (level 1, {pace}): your move"
    no_sideways_scroll(page, "an engine game")
    if size == "phone":
        page.wait_for_selector(f"#sq-{move['to']}[data-led='.']")  # after the move's flash
        page.evaluate("() => scrollTo(0, document.getElementById('strip-top').offsetTop - 4)")
        shot(page, tmp_path, "web-engine.png")

    if size == "desktop":
        page.click("#hint")
        page.wait_for_selector("#messages li:text('Hint: ')")
        hint = daemon.state()["engine"]["hint"]
        text = page.locator("#messages li:text('Hint: ')").inner_text()
        assert text.startswith(f"Hint: {hint['san']} (the ") and text.endswith(", lit green")
        assert f"from {hint['from']} to {hint['to']}" in text
        assert led(page, hint["from"])[0] == "g" and led(page, hint["to"])[0] == "g"
    # Resign is the human's side's, whoever is to move (the engine, after a take-back...).
    page.click("#resign")
    page.locator("#confirm").wait_for(state="visible")
    assert page.locator("#confirm-title").inner_text() == f"Resign for {human.capitalize()}?"
    assert page.locator("#confirm-other").is_hidden()
    no_sideways_scroll(page, "the resign dialog")
    page.click("#confirm-ok")
    page.wait_for_selector(f"#status:text('Game over: {'0-1' if human == 'white' else '1-0'}')")
    assert daemon.state()["winner"] == engine_side

    if size == "desktop":  # a promotion names the piece: black's only moves promote
        page.click("#new-game")
        page.click("#settings-open")
        page.fill("#fen", "7k/5K2/8/8/8/8/p7/1B6 b - - 0 1")
        page.click("#new-game-button")
        page.wait_for_selector("#sq-b1[data-piece='B']")
        page.click("#setup")
        page.wait_for_selector("#engine-status[data-status='to_play']")
        move = daemon.state()["engine"]["move"]
        assert move["from"] == "a2" and move["promotion_piece"]
        text = page.locator("#engine-status").inner_text()
        assert text.startswith(f"{name} plays {move['san']}: move the pawn from a2 to ")
        assert text.endswith(f", and promote to a {move['promotion_piece']}")
    assert page.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_captures_by_clicks_in_either_order_leave_the_hand_free(open_page, daemon, size):
    """Issue 16, item 1: an en-passant victim lifted after the capture leaves the board (the
    hand is free again), and a capture can start by clicking the victim."""
    page = open_page(viewport=SIZES[size])
    click(page, "e2", "e4", "d7", "d5")
    wait_moves(page, "e4", "d5")
    # 2. exd5 with the victim clicked first: it leaves the board, then the pawn takes its place.
    click(page, "d5")
    page.wait_for_selector("#hand:text('the black pawn from d5')")
    click(page, "e4")
    page.wait_for_selector("#messages li:text('The black pawn from d5 is off the board')")
    click(page, "d5")
    wait_moves(page, "e4", "d5", "exd5")
    click(page, "g8", "f6", "g1", "f3", "c7", "c5")
    wait_moves(page, "e4", "d5", "exd5", "Nf6", "Nf3", "c5")
    click(page, "d5", "c6", "c5")  # 4. dxc6 e.p.: the victim lifted last
    wait_moves(page, "e4", "d5", "exd5", "Nf6", "Nf3", "c5", "dxc6")
    page.wait_for_selector("#hand:text-is('')", state="attached")
    assert page.locator(".sq.in-hand").count() == 0
    click(page, "b7", "c6")  # the next click on an own piece lifts it: 4... bxc6
    wait_moves(page, "e4", "d5", "exd5", "Nf6", "Nf3", "c5", "dxc6", "bxc6")
    # Item 7: the game list counts the game on the board live, in moves (as players count
    # them: 1. e4 e5 is one), without a reload.
    game = daemon.state()["game_id"]
    page.wait_for_selector(f"#games li:has-text('Game {game}:'):has-text('4 moves')")
    state = daemon.state()
    assert state["in_sync"] and state["sensed"] == state["sim_pieces"]
    position = state["pieces"]
    occupancy = sum(1 << sq for sq, letter in enumerate(position) if letter != ".")
    assert int(state["sensed"], 16) == occupancy  # no phantom piece dropped anywhere
    assert page.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_a_page_whose_daemon_is_gone_is_greyed_out_and_says_so(open_page, daemon, size, tmp_path):
    """Issue 16, item 8: with the daemon gone the page is grey, says so, and a click says why
    nothing happens (never 'TypeError: Failed to fetch'); the icon is served (no 404)."""
    page = open_page(viewport=SIZES[size])
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page.reload()
    page.wait_for_selector("#connection:text('live')")
    assert page.locator("link[rel='icon']").count() == 1
    status, _ = daemon.request("/favicon.ico", method="GET")
    assert status == 200
    assert failed == []
    assert not page.locator("#offline").is_visible()

    daemon.stop()
    page.wait_for_selector("#offline", state="visible")
    assert "cannot be reached" in page.locator("#offline").inner_text()
    assert "offline" in (page.locator("body").get_attribute("class") or "")
    assert page.locator("#resign").is_disabled() and page.locator("#new-game-button").is_disabled()
    page.locator("#offline").scroll_into_view_if_needed()
    click(page, "e2")
    page.wait_for_selector("#messages li.bad:text('The board cannot be reached')")
    texts = " ".join(page.locator("#messages li").all_inner_texts())
    assert "TypeError" not in texts and "Failed to fetch" not in texts
    assert page.locator(".sq.in-hand").count() == 0
    if size == "desktop":
        page.mouse.wheel(0, -2000)  # the banner at the top
        shot(page, tmp_path, "web-offline.png")
    assert page.errors == []


def test_on_a_phone_what_a_game_needs_is_just_below_the_board(open_page, tmp_path):
    """Issue 16, items 6 and 9: at 390x844 the promotion buttons, take-back and the
    messages start within half a screen below the board; a promotion piece chosen is
    pressed and said at once."""
    page = open_page(viewport=SIZES["phone"])
    page.click("#settings-open")
    page.fill("#fen", "k7/4P3/8/8/8/4K3/8/8 w - - 0 1")
    page.click("#new-game-button")
    page.wait_for_selector("#sq-e3[data-piece='K']")
    page.click("#setup")
    page.wait_for_selector("#status[data-in-sync='true']")
    board = page.locator("#board").bounding_box()
    below = board["y"] + board["height"]
    for selector in ("#promotion", "#takeback", "#resign"):
        box = page.locator(selector).bounding_box()
        assert box["y"] < below + 844 / 2, (selector, box, below)
    page.click("#promotion [data-piece='n']")  # before the pawn reaches the last rank
    page.wait_for_selector("#promotion [data-piece='n'][aria-pressed='true']")
    assert page.locator("#promotion [data-piece='q']").get_attribute("aria-pressed") == "false"
    page.wait_for_selector("#messages li:text('Promotion piece: knight')")
    messages = page.locator("#messages").bounding_box()
    assert messages["y"] < below + 844 / 2
    page.mouse.wheel(0, 330)  # the board's lower ranks and what comes below it
    page.wait_for_timeout(200)
    shot(page, tmp_path, "web-phone.png")
    click(page, "e7", "e8")
    wait_moves(page, "e8=N")
    page.wait_for_selector("#promotion [data-piece='n'][aria-pressed='false']", state="attached")
    no_sideways_scroll(page)
    assert page.errors == []


def test_an_adjourned_game_is_resumed_from_the_game_list(open_page, daemon):
    page = open_page()
    click(page, "e2", "e4")
    wait_moves(page, "e4")
    status, answer = daemon.request(
        "api/new_game", {"fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}, token=daemon.token
    )
    assert status == 200, answer
    wait_moves(page)
    page.click("#setup")  # a move in game 2, so that it is worth resuming
    page.wait_for_selector("#status[data-in-sync='true']")
    click(page, "e2", "e4")
    wait_moves(page, "e4")
    first = page.locator("#games li", has_text="Game 1:")
    first.locator("text=(adjourned)").wait_for()
    first.locator("button.resume").click()
    wait_moves(page, "e4")
    page.wait_for_selector("#messages li:text('Game 1 is on the board again')")
    page.locator("#games li", has_text="Game 1:").locator("text=(on the board)").wait_for()
    second = page.locator("#games li", has_text="Game 2:")
    second.locator("text=(adjourned)").wait_for()
    assert second.locator("button.resume").count() == 1
    assert daemon.state()["game_id"] == 1
    assert page.errors == []


def test_after_a_restart_the_page_asks_what_the_pieces_cannot_tell(browser, tmp_path):
    """The daemon died inside a capture's settle time and its journal was lost: the page
    shows what the board cannot tell and a button per reading; the one clicked is stored."""
    import json

    from board_driver.service.store import Store
    from rules import Position

    fen = "6Q1/4k1p1/2n4r/4p3/4p3/p5Pp/PP2NP1P/1R4K1 w - - 2 32"
    directory = tmp_path / "asked"
    directory.mkdir()
    with Store.open(directory / "games.sqlite") as store:
        store.new_game(fen)
    pieces = Position.from_fen(fen).occupancy() & ~(1 << 62)  # the queen's g8 found empty
    (directory / "sim-board.json").write_text(json.dumps({"pieces": f"{pieces:016x}"}))
    daemon = WebDaemon(directory)
    try:
        context = browser.new_context(reduced_motion="reduce")
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(daemon.url + f"#token={daemon.token}")
        page.wait_for_selector("#connection:text('live')")
        page.wait_for_selector("#asks li:has-text('cannot tell what happened on g8')")
        buttons = page.locator("#question button")
        assert buttons.all_inner_texts() == [
            "nothing yet: the piece from g8 is in the hand",
            "Qxg7+",
        ]
        assert led(page, "g8")[0] == "y" and led(page, "g7")[0] == "y"
        buttons.nth(1).click()
        wait_moves(page, "Qxg7+")
        assert page.locator("#question button").count() == 0
        assert errors == []
        context.close()
    finally:
        daemon.stop()


def test_a_puzzle_from_the_panel_set_up_judged_hinted_and_counted(open_page, daemon, tmp_path):
    """Issue 35 item 3 on the page: a run of the sample's puzzles started from the panel;
    the puzzle, its rating and themes shown; the position set up, the opponent's move made
    as the lights show it, a wrong move put back, a hint, the right move, the result."""
    page = open_page()
    page.locator("#puzzles").wait_for(state="visible")
    page.click("#puzzles-open")  # the panel loads, its form open
    page.click("#puzzles-form button[type='submit']")  # no file: the sample
    page.wait_for_selector("#puzzles .puzzle-title:has-text('mb0001')")
    assert "rated 1017" in page.locator("#puzzles .puzzle-title").inner_text()
    themes = page.locator("#puzzles .puzzle-themes").inner_text()
    assert themes == "Themes: advantage, hangingPiece, oneMove, opening"
    page.click("#setup")  # the simulator's hands set the position up
    page.wait_for_selector("#puzzles .puzzle-status[data-status='opponent']")
    assert page.locator("#sq-g1").get_attribute("data-led") == "c"  # the opponent's Nf3
    click(page, "g1", "f3")
    page.wait_for_selector("#puzzles .puzzle-status[data-status='your_move']")
    click(page, "a6", "a5")  # legal, and not the move
    page.wait_for_selector("#puzzles .puzzle-status[data-status='wrong']")
    page.wait_for_selector("#puzzles [data-part='said']:text('a5 is not the move: put it back.')")
    page.wait_for_selector(
        "#messages li.bad:text('Not the move: a5 is not the move to play here: empty a5, fill a6')"
    )
    click(page, "a5", "a6")
    page.wait_for_selector("#puzzles .puzzle-status[data-status='your_move']")
    page.click("#puzzles button[data-act='hint']")
    page.wait_for_selector("#puzzles [data-part='said']:text('Hint: the pawn on h6.')")
    shot(page, tmp_path, "web-puzzle.png")
    click(page, "h6", "g5")
    page.wait_for_selector("#puzzles [data-part='last']:text('Last: mb0001 failed')")
    page.wait_for_selector("#puzzles .puzzle-title:has-text('mb0002')")
    assert "1 played, 0 solved" in page.locator("#puzzles [data-part='progress']").inner_text()
    assert not page.errors
