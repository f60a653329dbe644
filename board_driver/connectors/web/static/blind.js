// magboard's page for a screen reader: keys on the board that ask the board's questions
// and walk it, as Lichess's blind mode does (docs/web.md, "For screen readers"). The
// answers are the board's own words (GET /api/describe, as its speech says them), read
// out through the page's live region (board.js's announce()).
//
// On a square of the board: l the last move (Shift+L the last moves), t the clocks,
// o this square, s its rank, f its file, w where the pieces like this one stand, m where
// the piece on it can go, a the material; k q r b n p go to the next piece of that kind
// (Shift: the one before); 1 to 8 go to that rank, Shift+1 to Shift+8 to file a to h;
// h says these keys.
"use strict";

(() => {
  const KINDS = "kqrbnp";
  const KEYS_SAID = "Keys on the board: arrows move; Enter or Space lifts and places; " +
    "l last move, Shift+L last moves, t clocks, o this square, s its rank, f its file, " +
    "w where pieces like this one stand, m where this piece can go, a material; " +
    "k q r b n p go to the next such piece, Shift to the one before; " +
    "1 to 8 go to a rank, Shift with 1 to 8 to a file.";

  async function ask(what, details = {}) {
    const query = new URLSearchParams({ what, ...details });
    try {
      const response = await fetch(`/api/describe?${query}`);
      const answer = await response.json();
      announce(response.ok ? answer.text : answer.error || response.statusText);
    } catch (err) {
      announce("The board cannot be reached: no answer.");
    }
  }

  // The squares in the order they are seen (the board turned for Black: h1 first).
  const seen = () => [...document.querySelectorAll("#board .sq")].map((c) => squareIndex(c.dataset.square));

  // The next (or, back, the previous) square in the order seen with a piece of ``kind``.
  function jumpTo(kind, from, back) {
    const order = seen();
    const start = order.indexOf(from);
    for (let step = 1; step <= 64; step++) {
      const sq = order[(start + (back ? 64 - step : step)) % 64];
      if (state && state.pieces[sq].toLowerCase() === kind) return sq;
    }
    return null;
  }

  function onKey(e) {
    const cell = e.target.closest && e.target.closest(".sq");
    if (!cell || e.ctrlKey || e.altKey || e.metaKey) return;
    const sq = squareIndex(cell.dataset.square);
    const name = cell.dataset.square;
    const letter = state ? state.pieces[sq] : ".";
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const digit = /^Digit[1-8]$/.test(e.code) ? Number(e.code[5]) : /^[1-8]$/.test(e.key) ? Number(e.key) : 0;
    if (digit) {
      // 1-8: that rank, this file; with Shift: that file (a-h), this rank.
      setFocus(e.shiftKey ? Math.floor(sq / 8) * 8 + digit - 1 : (digit - 1) * 8 + (sq % 8));
    } else if (KINDS.includes(key)) {
      const to = jumpTo(key, sq, e.shiftKey);
      if (to === null) announce(`No ${NAME[key]} on the board.`);
      else setFocus(to);
    } else if (key === "l") {
      ask(e.shiftKey ? "moves" : "move");
    } else if (key === "t") {
      ask("clocks");
    } else if (key === "a") {
      ask("material");
    } else if (key === "o") {
      ask("square", { square: name });
    } else if (key === "s") {
      ask("rank", { rank: name[1] });
    } else if (key === "f") {
      ask("file", { file: name[0] });
    } else if (key === "w") {
      if (letter === ".") announce(`${name} is empty: w says where the pieces like the one on a square stand.`);
      else ask("pieces", { piece: letter });
    } else if (key === "m") {
      ask("piece_moves", { square: name });
    } else if (key === "h") {
      announce(KEYS_SAID);
    } else {
      return;
    }
    e.preventDefault();
  }

  // Loaded by board.js when the board first has the focus: the page is there already.
  document.getElementById("board").addEventListener("keydown", onKey);
})();
