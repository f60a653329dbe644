"""The page's clock in headless Chromium against a real ``magboard run --sim``: chosen
from the presets, it runs, switches when a move is made by hand on the simulated board,
pauses and resumes, and fills the screen as a big clock (see test_browser.py for what it
needs: Debian's chromium and the playwright package)."""

from __future__ import annotations

from tests.board_driver.connectors.web import test_browser as harness
from tests.board_driver.connectors.web.test_browser import (
    WAIT_MS,
    click,
    shot,
    start_game,
    wait_moves,
)

# The page tests' fixtures: Chromium, a daemon of its own, a page on it.
browser, daemon, open_page = harness.browser, harness.daemon, harness.open_page


def face(page, side: str):
    return page.locator(f".strip .clock-face[data-side='{side}']")


def time_of(page, side: str) -> str:
    return face(page, side).locator(".clock-time").inner_text()


def seconds(text: str) -> float:
    total = 0.0
    for part in text.split(":"):
        total = total * 60 + float(part)
    return total


def until_changed(page, side: str, before: str) -> str:
    for _ in range(WAIT_MS // 50):
        now = time_of(page, side)
        if now != before:
            return now
        page.wait_for_timeout(50)
    raise AssertionError(f"{side}'s clock stood at {before}")


def test_the_clock_runs_switches_on_a_move_by_hand_pauses_and_resumes(
    open_page, daemon, tmp_path
):
    page = open_page()
    assert page.locator("#clock-bar").is_hidden()  # no clock until one is chosen
    start_game(page, "3+2")  # from the start screen's grid
    page.wait_for_selector("#clock-bar:not([hidden])")
    assert time_of(page, "white") == time_of(page, "black") == "3:00"
    assert "starts when White's first move is let go" in page.inner_text("#clock-status")

    click(page, "e2", "e4")  # White's first move, by hand on the simulated board: free
    wait_moves(page, "e4")
    page.wait_for_selector(".clock-face[data-side='black'].running")
    until_changed(page, "black", "3:00")  # Black's clock counts down on the page
    assert time_of(page, "white") == "3:00"

    click(page, "e7", "e5")
    wait_moves(page, "e4", "e5")
    page.wait_for_selector(".clock-face[data-side='white'].running")
    assert "running" not in face(page, "black").get_attribute("class")
    black = seconds(time_of(page, "black"))
    assert 178 < black <= 182  # 3:00 less the move, plus 2 s
    state = daemon.state()["clock"]
    assert state["turn"] == "white" and state["clks"][:1] == [180_000]

    page.click("#clock-pause")
    page.wait_for_selector("#clock-pause:text('Resume')")
    assert daemon.state()["clock"]["state"] == "paused"
    stood = time_of(page, "white")
    page.wait_for_timeout(1200)  # paused: a second later it reads the same
    assert time_of(page, "white") == stood
    assert "running" not in face(page, "white").get_attribute("class")
    page.click("#clock-pause")
    page.wait_for_selector("#clock-pause:text('Pause')")
    until_changed(page, "white", stood)
    assert daemon.state()["clock"]["state"] == "running"
    page.wait_for_selector("#messages li:text('Clock: pause (page)')")

    page.click("#clock-big")  # the phone beside the board: the two times fill the screen
    page.wait_for_selector("body.big-clock")
    big = face(page, "white").locator(".clock-time").bounding_box()
    assert big["height"] > 100
    shot(page, tmp_path, "web-clock.png")
    page.keyboard.press("Escape")
    page.wait_for_selector("body:not(.big-clock)")
    assert page.errors == []
