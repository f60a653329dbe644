"""The hall's page in headless Chromium: every board at once, a move showing up live (no
reload), one game opened by a click, an offline board marked."""

from __future__ import annotations

import os

import pytest

from tests.board_driver.connectors.web.test_browser import CHROMIUM, CHROMIUM_ARGS
from tests.hall.boards import Boards
from tests.hall.hall_process import HallProcess, hall_config

WAIT_MS = 10_000


def wait(page, check) -> None:
    """Wait until ``check()`` holds. Polled: the page's CSP forbids the eval that
    ``page.wait_for_function`` needs."""
    for _ in range(WAIT_MS // 50):
        if check():
            return
        page.wait_for_timeout(50)
    assert check()


@pytest.fixture
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is missing: pip install -e '.[dev]'")
    if not CHROMIUM.exists():
        pytest.skip("no browser: /usr/bin/chromium is missing (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def test_every_board_live_and_one_game_by_a_click(tmp_path, mosquitto, browser):
    hall = HallProcess(hall_config(tmp_path / "hall", mosquitto))
    try:
        with Boards(mosquitto, 3, event="Club night") as boards:
            boards.call(boards.door(1).set_headers, White="Ann", Black="Bob")
            boards.play(1, "e4", "e5", "Nf3")
            boards.play(2, "d4", "d5")
            boards.play(3, "c4")
            page = browser.new_page(viewport={"width": 900, "height": 700})
            page.goto(hall.url)
            wait(page, lambda: page.locator("#grid .card").count() == 3)
            first = page.locator('#grid .card[data-key="1/1"]')
            assert "Ann – Bob" in first.inner_text()
            # The board page's piece set, not font glyphs: 32 pieces, a white queen on d1.
            assert first.locator("svg.piece").count() == 32
            queen = first.locator("div[title='d1'] svg.piece")
            assert queen.locator("use").get_attribute("href") == "/static/pieces.svg#piece-q"
            assert not any("\u2654" <= ch <= "\u265f" for ch in page.content())
            assert "2. Nf3" in first.inner_text()
            # The last move's squares are marked: g1 and f3.
            assert first.locator("div.last").count() == 2
            assert sorted(first.locator("div.last").evaluate_all(
                "els => els.map(e => e.title)")) == ["f3", "g1"]

            boards.play(2, "c4")  # a move on a board shows without a reload
            second = page.locator('#grid .card[data-key="2/1"]')
            wait(page, lambda: "2. c4" in second.inner_text())

            shot = os.environ.get("MAGBOARD_HALL_SCREENSHOT")
            if shot:  # docs/hall.md's picture: MAGBOARD_HALL_SCREENSHOT=docs/hall-page.png
                page.screenshot(path=shot)

            first = page.locator('#grid .card[data-key="1/1"]')
            first.click()
            wait(page, lambda: page.locator("#one").is_visible())
            wait(page, lambda: "Nf3" in page.locator("#one-moves").inner_text())
            assert page.locator("#one-title").inner_text() == "Board 1, round 1"
            assert "Ann – Bob" in page.locator("#one-players").inner_text()
            assert "board=1" in page.url
            page.locator("#back").click()
            wait(page, lambda: page.locator("#grid").is_visible())

            boards.run(boards.publishers[3].stop())  # board 3 goes offline
            wait(page, lambda: page.locator('#grid .card[data-key="3/1"] .dot.offline').count()
                 == 1)
    finally:
        hall.terminate()
