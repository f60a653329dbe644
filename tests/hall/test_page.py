"""The hall's page in headless Chromium: every board at once, a move showing up live (no
reload), one game opened by a click, an offline board marked; every square of every board
as tall as it is wide, on a desktop and on a phone, on the overview and one game; a board
whose records cannot be used shown as "bad data".

``MAGBOARD_HALL_SCREENSHOTS=docs`` also writes the docs' pictures of the page
(``hall-page.png``, ``hall-phone.png``, ``hall-game.png``).
"""

from __future__ import annotations

import os
from pathlib import Path

import aiomqtt
import pytest

from tests.board_driver.connectors.web.test_browser import CHROMIUM, CHROMIUM_ARGS
from tests.hall.boards import Boards
from tests.hall.hall_process import HallProcess, hall_config
from tests.hall.scripts import sans, selfplay_games

PLAYERS = [("Ann Kovacs", "Bob Reid"), ("Chen Li", "Dara Okafor"), ("Eva Novak", "Finn Berg"),
           ("Gita Rao", "Hugo Diaz"), ("Iris Moe", "Jon Park"), ("Kim Lund", "Lea Roth"),
           ("Max Stein", "Nia Cole"), ("Omar Aziz", "Pia Holm")]
#: Where the phone and the desktop see the page (CSS pixels).
VIEWPORTS = {"desktop": {"width": 1060, "height": 690}, "phone": {"width": 390, "height": 844}}

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


def squares(page, within: str) -> list[tuple[float, float, str]]:
    """Every square drawn in ``within``: (width, height, name), in CSS pixels."""
    return page.locator(f"{within} .board div").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.width, r.height, (e.closest('.card') || {dataset: {key: 'one'}}).dataset.key"
        " + ' ' + e.title]; })")


def assert_square(found: list[tuple[float, float, str]], boards: int) -> None:
    assert len(found) == 64 * boards, len(found)
    crooked = [(w, h, name) for w, h, name in found if w < 10 or abs(w - h) > 0.5]
    assert not crooked, crooked[:8]


def test_every_square_of_every_board_is_square_on_a_desktop_and_a_phone(
    tmp_path, mosquitto, browser
):
    """Eight boards of round 3 in all sorts of positions (board 2 after 1. d4 e5 2. dxe5
    f6, with two empty ranks; board 5 finished 0-1; board 7 offline), a ninth whose
    records cannot be used."""
    hall = HallProcess(hall_config(tmp_path / "hall", mosquitto, round="3"))
    shots = os.environ.get("MAGBOARD_HALL_SCREENSHOTS")
    games = [g for g in selfplay_games()[:40] if g.headers["Result"] == "0-1"][:1] + [
        g for g in selfplay_games()[:40] if g.headers["Result"] != "0-1"][:7]
    lines = [sans(list(g.mainline_moves())) for g in games]
    lengths = [22, 4, 31, 17, None, 25, 33, 29]  # plies played; None: the whole game
    try:
        with Boards(mosquitto, 8, round="3", event="Tuesday club night") as boards:
            for board, (white, black) in enumerate(PLAYERS, start=1):
                boards.call(boards.door(board).set_headers, White=white, Black=black)
            for board, length in enumerate(lengths, start=1):
                if board == 2:
                    boards.play(2, "d4", "e5", "dxe5", "f6")
                elif board == 5:
                    boards.play(5, *lines[0])  # a game Black won
                else:
                    boards.play(board, *lines[board - 1][:length])
            boards.run(boards.publishers[7].stop())  # board 7's Wi-Fi is gone
            boards.run(publish(mosquitto, "club/board/9/game/1", "[" * 990 + "]" * 990))
            for name, viewport in VIEWPORTS.items():
                page = browser.new_page(viewport=viewport, device_scale_factor=2 if name ==
                                        "phone" else 1, is_mobile=name == "phone")
                page.goto(hall.url)
                wait(page, lambda p=page: p.locator("#grid .card").count() == 9)
                wait(page, lambda p=page: p.locator('#grid .card[data-key="7/1"] .dot.offline'
                                                     ).count() == 1)
                assert_square(squares(page, "#grid"), 8)
                assert "0-1" in page.locator('#grid .card[data-key="5/1"]').inner_text()
                broken = page.locator('#grid .card[data-key="9/bad"]')
                assert "bad data" in broken.inner_text() and "nested deeper" in (
                    broken.inner_text())
                if shots:
                    picture = "hall-page.png" if name == "desktop" else f"hall-{name}.png"
                    page.screenshot(path=str(Path(shots) / picture))
                page.locator('#grid .card[data-key="2/1"]').click()
                wait(page, lambda p=page: p.locator("#one").is_visible()
                     and "f6" in p.locator("#one-moves").inner_text())
                assert not page.locator("#grid").is_visible()
                assert_square(squares(page, "#one"), 1)
                if shots and name == "desktop":
                    page.screenshot(path=str(Path(shots) / "hall-game.png"))
                page.close()
    finally:
        hall.terminate()


async def publish(broker, topic: str, payload: str) -> None:
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.publish(topic, payload, qos=1, retain=True)
