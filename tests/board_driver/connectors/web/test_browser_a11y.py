"""The page as a screen reader gets it, in headless Chromium against a real ``magboard run
--sim``: Chromium's accessibility tree (CDP ``Accessibility.getFullAXTree``, what a screen
reader is given) read after moves and keys. The live region says each move in the board's
own words (as its speech says them), the board is a grid of named squares walked by the
arrow keys (turned for Black too), every control has a name, and the keys of Lichess's
blind mode ask the board its questions (see test_browser.py for what it needs)."""

from __future__ import annotations

import re

from tests.board_driver.connectors.web import test_browser as harness
from tests.board_driver.connectors.web.daemon import WebDaemon
from tests.board_driver.connectors.web.test_browser import WAIT_MS, start_game, wait_moves

# The page tests' fixtures: Chromium, a daemon of its own, a page on it.
browser, daemon, open_page = harness.browser, harness.daemon, harness.open_page

#: The roles a user acts on: each must have a name a screen reader says.
CONTROLS = {"button", "link", "checkbox", "radio", "textbox", "spinbutton", "combobox",
            "gridcell", "DisclosureTriangle", "slider", "menuitem", "tab"}  # fmt: skip


#: Notes every text the live region holds, in order (``window.regionSaid``).
WATCH_REGION = """() => {
  const region = document.getElementById("announce");
  window.regionSaid = [];
  new MutationObserver(() => window.regionSaid.push(region.textContent))
    .observe(region, {childList: true, characterData: true, subtree: true});
}"""


#: Every control the page shows that the Tab key must reach (a radio group is one stop:
#: its checked radio; the board is one stop: its square in the tab order), by its name
#: and kind (the game list is drawn anew as the game goes: a name, not an element; a
#: clock's time left out).
CONTROLS_SHOWN = r"""() => {
  const folded = "dialog:not([open]), details:not([open]) > :not(summary)";
  const shown = (e) => e.checkVisibility() && !e.closest(folded);
  return [...document.querySelectorAll(
    "button, a[href], input, select, textarea, summary, [tabindex='0']")]
    .filter((e) => shown(e) && !e.disabled)
    .filter((e) => e.type !== "radio" || e.checked)
    .map((e) => `${e.tagName} ${e.getAttribute("aria-label") || e.textContent.trim() || e.id}`
      .replace(/\d+:\d\d(\.\d)?/g, "#"));
}"""
FOCUSED = r"""() => { const e = document.activeElement;
  return `${e.tagName} ${e.getAttribute("aria-label") || e.textContent.trim() || e.id}`
    .replace(/\d+:\d\d(\.\d)?/g, "#"); }"""


def unreached(page) -> list[str]:
    """The controls shown (before and after: the game list may change meanwhile) that
    pressing Tab, again and again, never reaches."""
    controls = page.evaluate(CONTROLS_SHOWN)
    page.focus("body")
    reached = set()
    for _ in range(2 * len(controls) + 10):  # twice round: a list drawn anew may drop the focus
        page.keyboard.press("Tab")
        reached.add(page.evaluate(FOCUSED))
    still = page.evaluate(CONTROLS_SHOWN)
    return [name for name in controls if name in still and name not in reached]


class AXTree:
    """Chromium's accessibility tree of a page, as a screen reader gets it."""

    def __init__(self, page) -> None:
        session = page.context.new_cdp_session(page)
        self.nodes = session.send("Accessibility.getFullAXTree")["nodes"]
        session.detach()
        self.by_id = {n["nodeId"]: n for n in self.nodes}

    @staticmethod
    def role(node) -> str:
        return node.get("role", {}).get("value", "")

    @staticmethod
    def name(node) -> str:
        return node.get("name", {}).get("value", "")

    @staticmethod
    def prop(node, name: str):
        for p in node.get("properties", []):
            if p["name"] == name:
                return p["value"].get("value")
        return None

    def shown(self, role: str | None = None) -> list[dict]:
        return [
            n for n in self.nodes if not n.get("ignored") and (role is None or self.role(n) == role)
        ]

    def text(self, node) -> str:
        """The text inside ``node``, as a screen reader reads it."""
        if self.role(node) in ("StaticText", "InlineTextBox"):
            return self.name(node) if self.role(node) == "StaticText" else ""
        return "".join(
            self.text(self.by_id[c]) for c in node.get("childIds", ()) if c in self.by_id
        )

    def children(self, node, role: str) -> list[dict]:
        out = []
        for child_id in node.get("childIds", ()):
            child = self.by_id.get(child_id)
            if child is None:
                continue
            if self.role(child) == role and not child.get("ignored"):
                out.append(child)
            else:
                out += self.children(child, role)
        return out

    def live_region(self) -> str:
        """What the page's polite, atomic live region (the announcements) holds."""
        regions = [
            n for n in self.shown("paragraph")
            if self.prop(n, "live") == "polite" and self.prop(n, "atomic")
        ]  # fmt: skip
        assert len(regions) == 1, [self.text(n) for n in regions]
        return self.text(regions[0])

    def squares(self) -> list[list[str]]:
        """The board's rows of square names, as a screen reader walks the grid."""
        (grid,) = [n for n in self.shown("grid") if self.name(n).startswith("Chessboard")]
        return [
            [self.name(c) for c in self.children(row, "gridcell")]
            for row in self.children(grid, "row")
        ]

    def focused(self) -> str:
        """The name of the element with the keyboard's focus (not the page's own node)."""
        (node,) = [
            n for n in self.shown() if self.prop(n, "focused") and self.role(n) != "RootWebArea"
        ]
        return self.name(node)


def heard(page, expected) -> str:
    """Wait until the live region says ``expected`` (a string, or a compiled pattern that
    matches it whole), as the accessibility tree has it."""
    said = ""
    for _ in range(WAIT_MS // 100):
        said = AXTree(page).live_region()
        if said == expected if isinstance(expected, str) else expected.fullmatch(said):
            return said
        page.wait_for_timeout(100)
    raise AssertionError(f"the live region said {said!r}, not {expected!r}")


def keys(page, *names: str) -> None:
    for name in names:
        page.keyboard.press(name)


def test_moves_are_said_in_words_on_a_grid_of_named_squares_and_the_ask_keys_answer(
    open_page, daemon
):
    page = open_page()
    assert unreached(page) == []  # the start screen, by the keyboard alone
    start_game(page, "3+2")
    assert unreached(page) == []  # the game's
    tree = AXTree(page)
    rows = tree.squares()
    assert len(rows) == 8 and all(len(row) == 8 for row in rows)
    assert rows[0][0] == "a8, black rook" and rows[7][4] == "e1, white king"
    assert rows[4][4] == "e4, empty"
    unnamed = [(tree.role(n), n.get("backendDOMNodeId")) for n in tree.shown()
               if tree.role(n) in CONTROLS and not tree.name(n).strip()]  # fmt: skip
    assert unnamed == []
    names = {tree.name(n) for n in tree.shown("button")}
    assert {"Settings", "Offer draw", "Claim draw", "Resign…", "Flip board"} <= names
    assert any(name.startswith("White's clock: 3:00") for name in names)
    (board,) = tree.shown("grid")
    assert "h: all the keys" in board.get("description", {}).get("value", "")

    # A move by the keyboard alone: Tab-reachable square, arrows, Enter to lift and place.
    page.focus("#sq-g1")
    keys(page, "Enter", "ArrowUp", "ArrowUp", "ArrowLeft", "Enter")
    wait_moves(page, "Nf3")
    heard(page, "Knight to f3.")
    tree = AXTree(page)
    # Said once, in the board's words: the engine's and the clock's lines are not read too.
    polite = [tree.text(n) for n in tree.shown() if tree.prop(n, "live") == "polite"]
    assert "Knight to f3." in polite and not any("clock" in text for text in polite), polite
    assert tree.focused().startswith("f3, white knight, last move")
    named = {name.split(", last move")[0] for row in tree.squares() for name in row}
    assert {"f3, white knight", "g1, empty", "e2, white pawn"} <= named

    # The board's questions, asked by keys on the focused square (Lichess's blind mode).
    keys(page, "l")
    heard(page, "White played knight to f3.")
    keys(page, "t")
    heard(page, re.compile(r"White: 3 minutes( \d+ seconds)?\. Black: 2 minutes \d+ seconds\."))
    keys(page, "o")
    heard(page, "White knight f3.")
    keys(page, "s")
    heard(page, "Rank 3: white knight f3.")
    keys(page, "f")
    heard(page, "File f: white bishop f1, white pawn f2, white knight f3, black pawn f7 "
                "and black bishop f8.")  # fmt: skip
    keys(page, "w")
    heard(page, "White's knights: b1 and f3.")
    keys(page, "m")
    heard(page, "The white knight on f3 can go to g1, d4, h4, e5 and g5.")
    keys(page, "a")
    heard(page, re.compile(r"White: a queen, 2 rooks, .* Material is even\."))
    # The same words asked again are said again: the region is emptied, then filled.
    keys(page, "l")
    heard(page, "White played knight to f3.")
    page.evaluate(WATCH_REGION)
    keys(page, "l")
    for _ in range(WAIT_MS // 50):
        if len(page.evaluate("() => window.regionSaid")) >= 2:
            break
        page.wait_for_timeout(50)
    assert page.evaluate("() => window.regionSaid") == ["", "White played knight to f3."]

    # Walking: to the next knight in the order seen, to a rank, to a file.
    keys(page, "n")
    assert AXTree(page).focused() == "b1, white knight"
    keys(page, "8")
    assert AXTree(page).focused() == "b8, black knight"
    keys(page, "Shift+Digit5")
    assert AXTree(page).focused() == "e8, black king"
    keys(page, "Shift+N")
    assert AXTree(page).focused() == "b8, black knight"
    keys(page, "h")
    heard(page, re.compile(r"Keys on the board: arrows move; .*"))

    # A move made elsewhere (on the board, at the terminal: the API's simulator here) is
    # said too.
    steps = {"steps": [["lift", "e7"], ["place", "e5"]]}
    assert daemon.request("api/sim", steps, token=daemon.token)[0] == 200
    wait_moves(page, "Nf3", "e5")
    heard(page, "e5.")
    keys(page, "Shift+L")
    heard(page, "Last moves: move 1, White: knight to f3; Black: e5.")

    # An illegal move, and how to put it right, in the speech's words; l says it again.
    steps = {"steps": [["lift", "d2"], ["place", "d5"]]}
    assert daemon.request("api/sim", steps, token=daemon.token)[0] == 200
    heard(page, "Illegal: the pawn on d2 cannot go to d5; put it back on d2.")
    keys(page, "l")
    heard(page, "Put it back on d2.")
    steps = {"steps": [["lift", "d5"], ["place", "d2"]]}
    assert daemon.request("api/sim", steps, token=daemon.token)[0] == 200
    heard(page, "The board matches again.")

    # The board's own "say square" button, then a piece lifted and put back: named.
    assert daemon.request("api/button", {"button": "say_square"}, token=daemon.token)[0] == 200
    heard(page, "Lift a piece and put it back: the board names it.")
    steps = {"steps": [["lift", "b1"], ["place", "b1"]]}
    assert daemon.request("api/sim", steps, token=daemon.token)[0] == 200
    heard(page, "White knight b1.")
    assert page.errors == []


def test_in_french_on_a_board_turned_for_black_the_grid_and_the_words_follow(browser, tmp_path):
    served = WebDaemon(tmp_path / "fr", extra_config='language = "fr"')
    try:
        context = browser.new_context(reduced_motion="reduce")
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(served.url + f"#token={served.token}")
        page.wait_for_selector("#connection:text('live')")
        start_game(page, "none")
        page.click("#flip")  # people on both sides: turned for Black by hand
        page.wait_for_selector("#board[data-bottom='black']")
        rows = AXTree(page).squares()
        assert rows[0][0] == "h1, white rook" and rows[7][7] == "a8, black rook"

        page.focus("#sq-e2")
        keys(page, "ArrowUp")  # up, as the board is seen: toward White
        assert AXTree(page).focused() == "e1, white king"
        keys(page, "ArrowDown", "Enter", "ArrowDown", "ArrowDown", "Enter")
        wait_moves(page, "e4")
        heard(page, "e4.")
        keys(page, "l")
        heard(page, "Les blancs ont joué e4.")
        keys(page, "ArrowLeft")  # left as seen from Black: toward the h-file
        assert AXTree(page).focused().startswith("f4, empty")
        keys(page, "w")
        heard(page, "f4 is empty: w says where the pieces like the one on a square stand.")
        keys(page, "1", "q")
        assert AXTree(page).focused() == "d1, white queen"
        keys(page, "w")
        heard(page, "Dame des blancs : d1.")
        keys(page, "t")
        heard(page, "Pas de pendule dans cette partie.")
        context.close()
    finally:
        served.stop()
