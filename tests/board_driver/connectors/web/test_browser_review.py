"""The review of a game on the page (issue 28), in headless Chromium with the real
Stockfish: a game played by clicks is reviewed by the daemon after its end, with a progress
bar while it works; the page shows it move by move, draws the evaluation as a chart, marks
the blunder, shows the engine's better move as an arrow, and gives the PGN with the scores.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import chess.pgn
import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon
from tests.board_driver.connectors.web.test_browser import (
    SIZES,
    WAIT_MS,
    click,
    no_sideways_scroll,
    shot,
    wait_moves,
)

pytestmark = pytest.mark.skipif(
    not Path("/usr/games/stockfish").exists() and not shutil.which("stockfish"),
    reason="no Stockfish (as root: apt-get install stockfish; .ci/run does it)",
)

SCHOLARS_MATE = ["e2", "e4", "e7", "e5", "f1", "c4", "b8", "c6", "d1", "h5", "g8", "f6", "h5", "f7"]
SANS = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


@pytest.fixture
def review_daemon(tmp_path):
    # A node budget a little slow on purpose, so that the progress bar is seen at work.
    d = WebDaemon(tmp_path / "daemon", "[engine]\nreview_depth = 0\nreview_nodes = 150000\n")
    yield d
    d.stop()


def chart_points(page) -> int:
    points = page.locator("#review-chart polyline.line").get_attribute("points") or ""
    return len(points.split())


@pytest.mark.parametrize("size", SIZES)
def test_a_game_over_is_reviewed_and_shown_move_by_move_with_its_chart(
    browser, review_daemon, size, tmp_path
):
    daemon = review_daemon
    context = browser.new_context(
        viewport=SIZES[size], accept_downloads=True, reduced_motion="reduce"
    )
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(daemon.url + f"#token={daemon.token}")
    page.wait_for_selector("#sq-e1[data-piece='K']")
    assert page.locator("#review").is_hidden()  # nothing to review during a game
    for ply in range(len(SANS)):
        click(page, *SCHOLARS_MATE[2 * ply : 2 * ply + 2])
        wait_moves(page, *SANS[: ply + 1])

    # The game is over: its review opens, says it comes (issue 34, item 6: never "Not
    # reviewed yet" and a button while it is about to start), and the daemon works it out
    # with a progress bar.
    page.wait_for_selector("#review:not([hidden])")
    page.wait_for_selector("#review-state:not(:empty)")
    assert page.locator("#review-state").inner_text().startswith(
        ("The engine starts its review of this game in a moment", "The engine reviews the game")
    )
    assert page.locator("#review-start").is_hidden()
    page.wait_for_selector("#review-progress:not([hidden])")
    assert page.locator("#review-state").inner_text().startswith("The engine reviews the game")
    page.wait_for_selector("#review-state:text('Reviewed by Stockfish')", timeout=60_000)
    assert page.locator("#review-progress").is_hidden()
    assert page.locator("#review-title").inner_text() == "Review of game 1 (1-0)"

    # The chart: a point per position, the blunder a red dot.
    assert chart_points(page) == len(SANS) + 1
    assert page.locator("#review-chart circle.mark-blunder").count() == 1
    assert page.locator("#review-chart").bounding_box()["height"] > 80
    label = page.locator("#review-chart").get_attribute("aria-label")
    assert label.endswith("1 blunders")
    # The moves in two columns, a row per move number, each row whole: none wraps on a
    # desktop, and a phone's list is not cut (no box scrolled past a half row).
    rows = page.locator("#review-moves li")
    assert rows.count() == 4
    heights = {round(row.bounding_box()["height"]) for row in rows.all()}
    assert len(heights) == 1, heights
    for row in rows.all():
        tops = {round(b.bounding_box()["y"]) for b in row.locator("button").all()}
        assert len(tops) == 1, tops
    box = page.locator("#review-moves").bounding_box()
    last = rows.nth(3).bounding_box()
    assert last["y"] + last["height"] <= box["y"] + box["height"] + 0.5
    no_sideways_scroll(page, "the review")
    # The blunder marked; picking it shows its position and what was better.
    blunder = page.locator("#review-moves button.mark-blunder")
    assert blunder.inner_text() == "Nf6??"
    blunder.click()
    caption = page.locator("#review-caption").inner_text()
    assert caption.startswith("3… Nf6?? Blunder: ") and "White mates in 1" in caption
    assert page.locator("#review-board .msq.moved").count() == 2  # g8 and f6
    assert page.locator("#review-board .arrow polygon").count() == 0
    page.click("#review-better")
    page.locator("#review-board .arrow polygon").wait_for()
    better = page.locator("#review-better")
    assert better.get_attribute("aria-pressed") == "true"
    text = page.locator("#review-caption").inner_text()
    assert text.startswith("Instead of 3… Nf6??, the engine plays ")
    # The better move is shown on the position before the blunder: the knight still on g8.
    assert page.locator("#review-board .msq.better").count() == 2
    if size == "desktop":
        page.locator("#review").scroll_into_view_if_needed()
        shot(page, tmp_path, "web-review.png")
    # The keyboard walks the moves: the arrow keys, Home and End.
    page.focus("#review-moves button[data-ply='6']")
    page.keyboard.press("ArrowLeft")
    assert page.locator("#review-moves [aria-current]").inner_text().startswith("Qh5")
    page.keyboard.press("Home")
    assert page.locator("#review-caption").inner_text().startswith("The start position")
    page.keyboard.press("End")
    assert page.locator("#review-moves [aria-current]").inner_text() == "Qxf7#"

    # The PGN with the engine's scores, read by python-chess.
    with page.expect_download() as download:
        page.click("#review-pgn-evals")
    game = chess.pgn.read_game(io.StringIO(Path(download.value.path()).read_text()))
    nodes = list(game.mainline())
    assert [n.san() for n in nodes] == SANS
    assert all(n.eval() is not None for n in nodes)
    assert nodes[5].nags == {chess.pgn.NAG_BLUNDER} and nodes[5].eval().white().mate() == 1
    assert errors == []
    context.close()


def test_a_stored_game_is_reviewed_from_the_game_list(browser, review_daemon):
    daemon = review_daemon
    page = browser.new_page(viewport=SIZES["desktop"])
    page.set_default_timeout(WAIT_MS)
    page.goto(daemon.url + f"#token={daemon.token}")
    page.wait_for_selector("#sq-e1[data-piece='K']")
    click(page, "e2", "e4")
    wait_moves(page, "e4")
    click(page, "e7", "e5")
    wait_moves(page, "e4", "e5")
    page.click("#resign")
    page.click("#confirm-ok")
    page.wait_for_selector("#review-state:text('Reviewed by')", timeout=60_000)
    page.click("#review-close")
    page.click("#new-game")
    page.click("#no-clock")  # a new game on the last one's pieces: the simulator sets them
    page.click("#setup")
    page.wait_for_selector("#status:text-is('White to move')")
    # Game 1 from the list: its moves and its stored review, while game 2 is played.
    first = page.locator("#games li", has_text="Game 1:")
    first.locator("button.review-open").click()
    page.wait_for_selector("#review-title:text('Review of game 1 (0-1)')")
    assert page.locator("#review-moves button").all_inner_texts()[:2] == ["e4", "e5"]
    assert chart_points(page) == 3
    assert page.locator("#review-start").is_hidden()
    page.close()
