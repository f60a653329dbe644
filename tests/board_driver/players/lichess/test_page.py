"""The page's Lichess panel in headless Chromium, on a real daemon and the fake Board API:
log in with Lichess, seek, challenge, the AI, an incoming challenge, the game's clocks.

Needs Chromium and Playwright as the page's own browser tests do
(``tests/board_driver/connectors/web/test_browser.py``, whose ``browser`` fixture this
uses); they skip and say why without them.
"""

from __future__ import annotations

import re
import stat

import pytest

from tests.board_driver.connectors.web.test_browser import WAIT_MS, browser, choose  # noqa: F401
from tests.board_driver.players.lichess.online_daemon import WEB_TOKEN, OnlineDaemon


@pytest.fixture
def open_page(browser):  # noqa: F811
    contexts = []

    def open_(daemon: OnlineDaemon):
        context = browser.new_context(viewport={"width": 1000, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.goto(daemon.url + f"#token={WEB_TOKEN}")
        page.wait_for_selector("#connection:text('live')")
        choose(page, "mode", "lichess")  # the start screen's third way to play
        page.wait_for_selector("#lichess h2:text('Lichess')")
        return page

    yield open_
    for context in contexts:
        context.close()


def clock_seconds(page, side: str) -> int:
    minutes, seconds = page.locator(f"#lichess .lichess-clock-{side}").inner_text().split(":")
    return int(minutes) * 60 + int(seconds)


def test_log_in_with_lichess_seek_and_the_clocks_count_down(fake, tmp_path, open_page):
    daemon = OnlineDaemon(tmp_path, fake, token=None)  # no token: the page logs in
    page = open_page(daemon)
    page.wait_for_selector("#lichess .lichess-message:text('log in with Lichess')")
    page.click("#lichess button:text('Log in with Lichess')")
    # To Lichess's approval page (the fake approves at once) and back with a code.
    page.wait_for_selector("#lichess [data-part='account']:has-text('logged in as Ann')")
    assert "code=" not in page.url
    saved = tmp_path / "lichess-token"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    token = saved.read_text().strip()
    assert token.startswith("lio_") and token not in page.content()

    fake.seek_partner = fake.account("Bob")
    page.select_option("#lichess select[name='color']", "white")
    page.fill("#lichess input[name='minutes']", "3")
    page.fill("#lichess input[name='increment']", "2")
    page.click("#lichess button:text('Seek')")
    page.wait_for_selector("#lichess .lichess-said:text('rapid, classical or correspondence')")
    page.fill("#lichess input[name='minutes']", "10")
    page.fill("#lichess input[name='increment']", "0")
    page.click("#lichess button:text('Seek')")
    game_id = daemon.game_on_board()
    page.wait_for_selector(f"#lichess .lichess-game a:text('{game_id}')")
    assert "10+0, casual; you play white" in page.locator("#lichess .lichess-game").inner_text()
    assert page.locator("#lichess .lichess-clock-white").inner_text() == "10:00"
    page.wait_for_selector(f"#messages li:text('Lichess game {game_id}: you play white')")

    daemon.hands("e2e4")
    daemon.their_move(game_id, "e7e5")  # both have moved: our clock runs, on the page too
    page.wait_for_selector("#messages li:text('Lichess: e5 to play: move the pawn from e7')")
    page.wait_for_selector("#lichess .lichess-clock-white.running")
    first = clock_seconds(page, "white")
    page.wait_for_timeout(2200)
    assert clock_seconds(page, "white") <= first - 2
    assert page.locator("#lichess .lichess-clock-black").inner_text() == "10:00"
    assert "running" not in (page.locator("#lichess .lichess-clock-black").get_attribute("class"))

    page.click("#lichess button[data-act='resign']")
    page.wait_for_selector("#confirm-title:text-is('Resign on Lichess?')")  # it asks first
    page.click("#confirm-ok")
    page.wait_for_selector("#status:text('Game over: 0-1 (resignation)')")
    page.wait_for_selector("#lichess .lichess-status:text('resign')")
    assert fake.game(game_id).status == "resign"
    assert page.errors == []
    daemon.terminate()


def test_a_challenge_an_incoming_challenge_and_the_ai_from_the_panel(fake, tmp_path, open_page):
    daemon = OnlineDaemon(tmp_path, fake)
    page = open_page(daemon)
    page.wait_for_selector("#lichess [data-part='account']:has-text('logged in as Ann')")

    fake.account("Bob").answers_challenges = "accept"
    page.fill("#lichess input[name='username']", "Bob")
    page.fill("#lichess input[name='minutes']", "3")
    page.fill("#lichess input[name='increment']", "2")
    page.click("#lichess button:text('Challenge')")
    blitz = daemon.game_on_board()
    page.wait_for_selector(f"#lichess .lichess-game a:text('{blitz}')")
    assert "(3+2, casual;" in page.locator("#lichess .lichess-game").inner_text()
    assert fake.game(blitz).speed == "blitz"
    # What was typed stays while states come and go.
    assert page.locator("#lichess input[name='username']").input_value() == "Bob"
    page.click("#lichess button[data-act='abort']")
    page.wait_for_selector("#lichess .lichess-status:text('aborted')")

    after = daemon.mark()
    challenge = fake.challenge("Bob", "Ann", clock=(900, 10), color="white")
    page.wait_for_selector("#lichess li:has-text('Bob challenges you: 15+10')")
    page.click(f"#lichess button[data-act='accept'][data-id='{challenge}']")
    assert daemon.game_on_board(after=after) == challenge
    page.wait_for_selector(f"#lichess .lichess-game a:text('{challenge}')")
    assert page.locator("#lichess li:has-text('challenges you')").count() == 0
    page.click("#lichess button[data-act='abort']")
    page.wait_for_selector("#lichess .lichess-status:text('aborted')")

    after = daemon.mark()
    page.fill("#lichess input[name='level']", "2")
    page.select_option("#lichess select[name='color']", "black")
    page.click("#lichess button:text('Play the AI')")
    daemon.game_on_board(after=after)
    page.wait_for_selector("#lichess .lichess-white:text('Stockfish level 2')")
    # The AI moves at once: its move is lit on the board and said on the page.
    line = daemon.wait_log("lichess: Stockfish level 2 played", after=after)
    frm, to = re.search(r"play it on the board: (\w\d) to (\w\d)", line).groups()
    page.wait_for_selector(f"#sq-{frm}[data-led='c'][data-blink='1']")
    page.wait_for_selector(f"#messages li:text('move the pawn from {frm} to {to}')")
    assert page.errors == []
    daemon.terminate()
