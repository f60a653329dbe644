"""The page as a newcomer meets it (issue 34), in headless Chromium at 1280x800 and 390x844
against a real ``magboard run --sim``: the terminal and the page moving one board in either
order; a game as on Lichess (the last move and check lit, the moves in two columns, sounds
and their mute, the board turned, the keyboard, the system's theme); every control labelled
and reached by Tab; what the page weighs (see test_browser.py for what these tests need)."""

from __future__ import annotations

import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon
from tests.board_driver.connectors.web.test_browser import (
    SIZES,
    WAIT_MS,
    click,
    no_sideways_scroll,
    settings,
    shot,
    wait_moves,
)

#: What the page's files may weigh on the wire, gzip-compressed (37 kB when measured:
#: docs/web.md, "What a phone loads"), and once decoded (116 kB).
MAX_WIRE_BYTES = 40_000
MAX_PAGE_BYTES = 120_000
#: Background colours of the themes (board.css): light, and dark as the system asks.
THEMES = {"light": "rgb(237, 235, 233)", "dark": "rgb(22, 21, 18)"}


def open_live(browser, daemon: WebDaemon, size: str, **options):
    context = browser.new_context(viewport=SIZES[size], reduced_motion="reduce", **options)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.loaded = []
    page.on("response", lambda r: page.loaded.append(r))
    page.goto(daemon.url + f"#token={daemon.token}")
    page.wait_for_selector("#connection:text('live')")
    page.wait_for_selector("#sq-e1[data-piece='K']")
    return context, page


@pytest.mark.parametrize(
    "size", ["desktop", pytest.param("phone", marks=pytest.mark.slow)]
)  # the phone's in the slow run: the default run's time is counted
def test_the_terminal_and_the_page_move_one_board_in_either_order(browser, tmp_path, size):
    """Item 2: lines typed at the daemon's terminal and clicks on the page move the same
    simulated pieces: a move made at one and answered at the other, a move begun at the
    terminal and ended on the page and the other way round, a capture whose victim leaves
    by the terminal; nothing refused, and a lift at the terminal shows on the page at once."""
    daemon = WebDaemon(tmp_path / "daemon", script="-")
    context, page = open_live(browser, daemon, size)
    try:
        daemon.send("gap 100", "lift e2", "place e4")  # the terminal first, then the page
        wait_moves(page, "e4")
        click(page, "d7", "d5")
        wait_moves(page, "e4", "d5")
        click(page, "e4")  # the page holds the pawn; the terminal takes the victim off
        daemon.send("lift d5")
        page.wait_for_selector("#sq-d5[data-sensed='0']")  # the terminal's lift, at once
        assert "d5, black pawn, lifted" in page.locator("#sq-d5").get_attribute("aria-label")
        click(page, "d5")  # and the page puts its pawn down: exd5
        wait_moves(page, "e4", "d5", "exd5")
        daemon.send("lift g8")  # begun at the terminal...
        page.wait_for_selector("#sq-g8.lifted")
        click(page, "f6")  # ...ended on the page
        wait_moves(page, "e4", "d5", "exd5", "Nf6")
        click(page, "g1")  # begun on the page...
        page.wait_for_selector("#hand:text('the white knight from g1')")
        daemon.send("place f3")  # ...ended at the terminal
        wait_moves(page, "e4", "d5", "exd5", "Nf6", "Nf3")
        page.wait_for_selector("#hand:text-is('')", state="attached")
        state = daemon.state()
        occupancy = sum(1 << sq for sq, letter in enumerate(state["pieces"]) if letter != ".")
        assert state["in_sync"] and int(state["sim_pieces"], 16) == occupancy
        assert int(state["sensed"], 16) == occupancy
        log = daemon.output()
        assert "no piece stands" not in log and "already stands" not in log, log
        assert "cannot lift" not in log and "cannot place" not in log, log
        assert page.locator(".sq.in-hand, .sq.lifted").count() == 0
        no_sideways_scroll(page, "a game")
        assert page.errors == []
    finally:
        context.close()
        daemon.stop()


def labelless_controls(page) -> list[str]:
    """The visible controls with no name a screen reader could say."""
    return page.evaluate(
        """() => [...document.querySelectorAll(
            'button, input, select, summary, a[href], [tabindex="0"]')]
          .filter((el) => el.offsetParent !== null || el.getClientRects().length)
          .filter((el) => !el.closest('dialog:not([open])'))
          .filter((el) => {
            const by = (ids) => ids.split(/\\s+/).map(
              (id) => (document.getElementById(id) || {}).textContent || '').join(' ');
            const name = el.getAttribute('aria-label')
              || (el.getAttribute('aria-labelledby') && by(el.getAttribute('aria-labelledby')))
              || (el.labels && [...el.labels].map((l) => l.textContent).join(' '))
              || el.textContent || el.title || '';
            return !name.trim();
          })
          .map((el) => el.outerHTML.slice(0, 80))"""
    )


#: A control's name in these tests: a radio group's name, else its id, its time control,
#: its words.
KEY = """(el) => el.type === "radio" ? `radio ${el.name}`
    : el.id || el.dataset.control || el.textContent.trim().slice(0, 30) || el.tagName"""


def tab_walk(page) -> set[str]:
    """What Tab reaches, from the top of the page round to it again."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    reached: set[str] = set()
    for _ in range(120):
        page.keyboard.press("Tab")
        key = page.evaluate(f"() => ({KEY})(document.activeElement)")
        if key in reached and key == "sound-toggle":
            break
        reached.add(key)
    return reached


def visible_controls(page) -> set[str]:
    return set(
        page.evaluate(
            """() => [...document.querySelectorAll('button, input, select, summary, a[href]')]
              .filter((el) => el.getClientRects().length && !el.disabled)
              .filter((el) => !el.closest('dialog:not([open])'))
              .map("""
            + KEY
            + ")"
        )
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_game_as_on_lichess_lit_heard_by_keyboard_in_the_systems_theme(browser, tmp_path, size):
    """Item 9 and the rest of the issue: on the start screen every control is labelled and
    reached by Tab; the last move and the king in check are lit; a move and a check are
    heard; the board is played by keyboard the way it is seen (turned, on the phone); no
    focus ring is left by a click; no jargon; the page follows the system's theme (light
    on the desktop, dark on the phone); nothing scrolls sideways, dialogs included; what
    the page weighs. On the desktop too: a capture heard, nothing once muted, the moves in
    two numbered columns."""
    theme = "light" if size == "desktop" else "dark"
    daemon = WebDaemon(tmp_path / "daemon")
    context, page = open_live(browser, daemon, size, color_scheme=theme)
    try:
        background = page.evaluate(
            "() => getComputedStyle(document.documentElement).backgroundColor"
        )
        assert background == THEMES[theme]
        # What a newcomer sees first: the ways to play and the grid of time controls.
        assert page.locator("#start").is_visible()
        grid = page.locator("#time-grid button").all_inner_texts()
        presets = [text.split()[0] for text in grid]
        assert presets == [
            "1+0", "2+1", "3+0", "3+2", "5+0", "5+3", "10+0", "10+5", "15+10", "30+0",
            "30+20", "Custom",
        ]  # fmt: skip
        assert labelless_controls(page) == []
        missing = visible_controls(page) - tab_walk(page)
        assert missing == set(), missing
        if size == "desktop":
            page.evaluate("() => document.activeElement.blur()")
            shot(page, tmp_path, "web-start.png")
        assert page.locator("#status").inner_text() == (
            "Choose a game below, or just play: White begins"
        )

        wire = sum(int(r.headers.get("content-length", 0)) for r in page.loaded
                   if "/api/" not in r.url)  # fmt: skip
        decoded = sum(len(r.body()) for r in page.loaded if "/api/" not in r.url)
        assert wire <= MAX_WIRE_BYTES and decoded <= MAX_PAGE_BYTES, (wire, decoded)

        click(page, "e2", "e4")
        wait_moves(page, "e4")
        played = page.locator("#sound-toggle")
        assert played.get_attribute("data-played") == "move 1"
        # The last move lit (from and to), and no focus ring left where the mouse clicked.
        assert "last" in page.locator("#sq-e2").get_attribute("class")
        assert ", last move" in page.locator("#sq-e4").get_attribute("aria-label")
        assert page.evaluate("() => document.querySelectorAll('.sq:focus-visible').length") == 0
        if size == "phone":  # Black's player turns the board to its side
            page.click("#flip")
            page.wait_for_selector("#board[data-bottom='black']")
        # 1... d5 by keyboard, the arrows going the way the board is seen.
        page.focus("#sq-d7")
        page.keyboard.press("Enter")
        page.wait_for_selector("#sq-d7.in-hand")
        toward_white = "ArrowUp" if size == "phone" else "ArrowDown"
        page.keyboard.press(toward_white)
        page.keyboard.press(toward_white)
        assert page.evaluate("() => document.activeElement.id") == "sq-d5"
        page.keyboard.press("Space")
        wait_moves(page, "e4", "d5")
        if size == "phone":  # 2. Bb5+: check, heard and lit, on the board turned
            click(page, "f1", "b5")
            wait_moves(page, "e4", "d5", "Bb5+")
            page.wait_for_selector("#sound-toggle[data-played='check 3']")
            page.wait_for_selector("#sq-e8.check")
            assert "in check" in page.locator("#sq-e8").get_attribute("aria-label")
            assert page.evaluate("() => document.querySelectorAll('.sq:focus-visible').length") == 0
            page.evaluate("() => scrollTo(0, document.getElementById('strip-top').offsetTop - 4)")
            shot(page, tmp_path, "web-phone-dark.png")
        else:
            click(page, "e4", "d5")  # 2. exd5: a capture, heard as one
            wait_moves(page, "e4", "d5", "exd5")
            page.wait_for_selector("#sound-toggle[data-played='capture 3']")
            played_so_far = ["e4", "d5", "exd5"]
            for move, san in (
                (("d8", "d5"), "Qxd5"),
                (("b1", "c3"), "Nc3"),
                (("d5", "e5"), "Qe5+"),
            ):
                click(page, *move)  # a move at a time, as hands on a board: 2... Qxd5 3. Nc3 Qe5+
                played_so_far.append(san)
                wait_moves(page, *played_so_far)
            page.wait_for_selector("#sound-toggle[data-played='check 6']")
            page.wait_for_selector("#sq-e1.check")  # the king in check, lit as on Lichess
            assert "in check" in page.locator("#sq-e1").get_attribute("aria-label")
            rows = page.locator("#moves li")
            assert rows.all_inner_texts() == ["1.\ne4\nd5", "2.\nexd5\nQxd5", "3.\nNc3\nQe5+"]
            heights = page.locator("#moves").evaluate(  # at once: the list is redrawn as it goes
                "(list) => [...list.children].map((row) => Math.round(row.offsetHeight))"
            )
            assert len(set(heights)) == 1, heights  # a row a move number: none wraps
            # The mouse after the keys: no square keeps the keys' focus ring after a click.
            assert page.evaluate("() => document.querySelectorAll('.sq:focus-visible').length") == 0
            page.click("#sound-toggle")  # muted: nothing more is heard
            assert played.get_attribute("aria-pressed") == "false"
            click(page, "f1", "e2")  # 4. Be2
            wait_moves(page, "e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+", "Be2")
            page.wait_for_timeout(200)
            assert played.get_attribute("data-played") == "check 6"
        body = page.locator("body").inner_text()
        assert "plies" not in body and "warn" not in body  # no jargon
        no_sideways_scroll(page, "a game")

        with settings(page):  # the settings, and the custom time control, fit too
            no_sideways_scroll(page, "the settings")
            assert page.locator("#settings label:has-text('Remind')").is_visible()
        page.click("#new-game")
        page.click("#custom-open")
        page.locator("#custom").wait_for(state="visible")
        no_sideways_scroll(page, "the custom time control")
        assert labelless_controls(page) == []
        page.keyboard.press("Escape")
        page.locator("#custom").wait_for(state="hidden")
        assert page.errors == []
    finally:
        context.close()
        daemon.stop()
