// magboard's page: the position editor (docs/web.md, "Starting from a position"), loaded
// (with editor.css) when the settings or the start screen's "From a position…" first
// want it: the page's first load stays light.
//
// A diagram the user fills from a palette (the twelve pieces and an eraser): a palette
// piece chosen then squares clicked, a piece dragged from the palette or from one square to
// another (dropped off the diagram: taken away), or by the keyboard on a square (arrow keys
// move, Enter or Space puts the chosen piece, a FEN letter puts that piece, Delete empties).
// The side to move and the castling rights the position allows are chosen beside it, and
// the FEN it makes is written in the form's FEN field, which fills the diagram when typed.
// A PGN (pasted, or a file chosen) starts from the position its game reaches instead. The
// game starts through new_game, with who plays it; a position the rules refuse is said
// next to the editor, the form kept. Uses board.js's $, cap, send, state and
// mayStartNewGame, play.js's showView.
"use strict";

(() => {
  const FILE_NAMES = "abcdefgh";
  const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
  const NAMES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
  // Castling: the right's letter, the king's and the rook's squares (a1 = 0).
  const CASTLING = [["K", "K", 4, "R", 7], ["Q", "K", 4, "R", 0],
    ["k", "k", 60, "r", 63], ["q", "k", 60, "r", 56]];
  //: The PGN the server reads in one request (its body limit is 16 KiB).
  const MAX_PGN = 15000;

  const squares = new Array(64).fill(".");
  let turn = "w";
  let wanted = new Set("KQkq");   // the rights asked for; those the position allows are kept
  let counters = "0 1";           // half-move clock and move number, from a FEN typed
  let tool = "P";                 // the palette's choice: a FEN letter, or "x" (eraser)
  let focus = 12;                 // the square in the tab order (e2)
  let drag = null;                // a drag under way: {letter, from, x, y, moved, ghost}
  let dropped = false;            // a drag just ended: the click that follows is not a click
  const cells = [];

  const $e = (id) => document.getElementById(id);
  const name = (sq) => FILE_NAMES[sq % 8] + (Math.floor(sq / 8) + 1);
  const pieceWords = (letter) =>
    `${letter === letter.toUpperCase() ? "white" : "black"} ${NAMES[letter.toLowerCase()]}`;

  const allowed = (right) => {
    const [, king, kingSq, rook, rookSq] = CASTLING.find((c) => c[0] === right);
    return squares[kingSq] === king && squares[rookSq] === rook;
  };

  function fen() {
    let placement = "";
    for (let rank = 7; rank >= 0; rank--) {
      let empty = 0;
      for (let file = 0; file < 8; file++) {
        const letter = squares[rank * 8 + file];
        if (letter === ".") { empty++; continue; }
        if (empty) placement += empty;
        empty = 0;
        placement += letter;
      }
      if (empty) placement += empty;
      if (rank) placement += "/";
    }
    const rights = "KQkq".split("").filter((r) => wanted.has(r) && allowed(r)).join("");
    return `${placement} ${turn} ${rights || "-"} - ${counters}`;
  }

  // A FEN typed: the diagram, side and rights it gives, or a sentence saying what is wrong.
  function read(text) {
    const fields = text.trim().split(/\s+/);
    const ranks = fields[0].split("/");
    if (ranks.length !== 8) {
      const counted = ranks.length === 1 ? "1 rank" : `${ranks.length} ranks`;
      return `FEN: ${counted}, not 8 (ranks are parted by /)`;
    }
    const placed = [];
    for (const [i, row] of ranks.entries()) {
      let count = 0;
      for (const ch of row) {
        if (/[1-8]/.test(ch)) {
          for (let n = 0; n < Number(ch); n++) placed.push(".");
          count += Number(ch);
        } else if (/[kqrbnpKQRBNP]/.test(ch)) {
          placed.push(ch);
          count++;
        } else {
          return `FEN: '${ch}' on rank ${8 - i} is neither a piece nor a number of empty squares`;
        }
      }
      if (count !== 8) return `FEN: rank ${8 - i} has ${count} squares, not 8`;
    }
    if (fields[1] && !/^[wb]$/.test(fields[1])) return `FEN: '${fields[1]}' is not w or b`;
    for (let rank = 0; rank < 8; rank++) {
      for (let file = 0; file < 8; file++) squares[rank * 8 + file] = placed[(7 - rank) * 8 + file];
    }
    turn = fields[1] || "w";
    wanted = new Set(fields[2] && fields[2] !== "-" ? fields[2] : "");
    counters = fields.length >= 6 ? `${fields[4]} ${fields[5]}` : "0 1";
    return null;
  }

  // ------------------------------------------------------------------ drawing

  // The editor's parts, around the form's FEN field (index.html has the field alone).
  const PARTS = `
    <p class="hint">Choose a piece, then click squares (or drag it there; drag a piece off
      the diagram to take it away). On a square: arrow keys move, Enter puts the chosen
      piece, a FEN letter puts that piece (K Q R B N P white, k q r b n p black), Delete
      empties it. The board's lights then guide the pieces into place.</p>
    <div id="editor-palette" role="group" aria-label="Piece to put"></div>
    <div id="editor-board" role="group" aria-label="The position, White at the bottom"></div>
    <div class="editor-tools">
      <button type="button" id="editor-clear">Clear</button>
      <button type="button" id="editor-start">Start position</button>
    </div>
    <fieldset class="choice small">
      <legend>To move</legend>
      <label><input type="radio" name="editor-turn" value="w" checked><span>White</span></label>
      <label><input type="radio" name="editor-turn" value="b"><span>Black</span></label>
    </fieldset>
    <fieldset id="editor-castling">
      <legend>Castling (where king and rook stand ready)</legend>
      <label class="check"><input type="checkbox" id="castle-K"> White O-O</label>
      <label class="check"><input type="checkbox" id="castle-Q"> White O-O-O</label>
      <label class="check"><input type="checkbox" id="castle-k"> Black O-O</label>
      <label class="check"><input type="checkbox" id="castle-q"> Black O-O-O</label>
    </fieldset>`;
  const AFTER_FEN = `
    <details id="pgn-part">
      <summary>Or the position a PGN's game reaches</summary>
      <label for="pgn">PGN: its FEN header if it has one, then its moves, played to the end</label>
      <textarea id="pgn" rows="4" autocomplete="off" spellcheck="false"></textarea>
      <label for="pgn-file">Or a .pgn file (one game)</label>
      <input type="file" id="pgn-file" accept=".pgn,application/vnd.chess-pgn,text/plain">
      <button type="button" id="pgn-start">Start from the PGN's position</button>
    </details>
    <fieldset class="choice small" id="position-players">
      <legend>Who plays it</legend>
      <label><input type="radio" name="position-players" value="none" checked><span>A person each side</span></label>
      <label class="with-engine"><input type="radio" name="position-players" value="black"><span>You White, the engine Black</span></label>
      <label class="with-engine"><input type="radio" name="position-players" value="white"><span>You Black, the engine White</span></label>
    </fieldset>
    <p id="position-error" role="alert"></p>`;

  function build() {
    const style = document.createElement("link");
    style.rel = "stylesheet";
    style.href = "/static/editor.css";
    document.head.appendChild(style);
    $e("editor").innerHTML = PARTS;
    $e("fen").insertAdjacentHTML("afterend", AFTER_FEN);
    $e("fen").previousElementSibling.textContent = "FEN (typing one fills the diagram)";
    const board = $e("editor-board");
    for (let row = 0; row < 8; row++) {
      for (let file = 0; file < 8; file++) {
        const sq = (7 - row) * 8 + file;
        const cell = document.createElement("button");
        cell.type = "button";
        cell.className = "esq " + ((row + file) % 2 ? "dark" : "light");
        cell.id = "esq-" + name(sq);
        cell.dataset.square = name(sq);
        cell.appendChild(MagboardPieces.element("."));
        cell.addEventListener("click", () => clickSquare(sq));
        cell.addEventListener("keydown", (e) => onKey(e, sq));
        cell.addEventListener("pointerdown", (e) => startDrag(e, squares[sq], sq));
        cells[sq] = cell;
        board.appendChild(cell);
      }
    }
    const palette = $e("editor-palette");
    for (const letter of [..."KQRBNPx", ..."kqrbnp"]) {  // a row each side, the eraser first
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.tool = letter;
      if (letter === "x") {
        button.textContent = "✕";
        button.setAttribute("aria-label", "Eraser: empties the squares clicked");
      } else {
        button.appendChild(MagboardPieces.element(letter));
        button.setAttribute("aria-label", cap(pieceWords(letter)));
      }
      button.addEventListener("click", () => choose(letter));
      if (letter !== "x") button.addEventListener("pointerdown", (e) => startDrag(e, letter, null));
      palette.appendChild(button);
    }
    document.addEventListener("pointermove", moveDrag);
    document.addEventListener("pointerup", endDrag);
    document.addEventListener("pointercancel", () => endDrag(null));
  }

  function render(writeFen = true) {
    for (let sq = 0; sq < 64; sq++) {
      const letter = squares[sq];
      MagboardPieces.show(cells[sq].firstChild, letter);
      cells[sq].setAttribute("aria-label",
        `${name(sq)}, ${letter === "." ? "empty" : pieceWords(letter)}`);
      cells[sq].tabIndex = sq === focus ? 0 : -1;
    }
    for (const button of $e("editor-palette").children) {
      button.setAttribute("aria-pressed", String(button.dataset.tool === tool));
    }
    for (const input of document.querySelectorAll('input[name="editor-turn"]')) {
      input.checked = input.value === turn;
    }
    for (const [right] of CASTLING) {
      const box = $e("castle-" + right);
      const ok = allowed(right);
      box.disabled = !ok;
      box.checked = ok && wanted.has(right);
    }
    if (writeFen) $e("fen").value = fen();
  }

  function edited() {
    $e("position-error").textContent = "";
    render();
  }

  // ------------------------------------------------------------------ editing

  function choose(letter) {
    tool = letter;
    render(false);
  }

  function put(sq, letter) {
    squares[sq] = letter === "x" ? "." : letter;
    edited();
  }

  function clickSquare(sq) {
    if (dropped) { dropped = false; return; }
    focus = sq;
    // The chosen piece again on its own square takes it away (as Lichess's editor does).
    put(sq, squares[sq] === tool ? "x" : tool);
  }

  function onKey(e, sq) {
    const moves = { ArrowUp: 8, ArrowDown: -8, ArrowLeft: -1, ArrowRight: 1 };
    if (e.key in moves) {
      const next = sq + moves[e.key];
      const sideways = e.key === "ArrowLeft" || e.key === "ArrowRight";
      if (next < 0 || next > 63 || (sideways && Math.floor(next / 8) !== Math.floor(sq / 8))) return;
      e.preventDefault();
      focus = next;
      render(false);
      cells[next].focus();
    } else if (/^[kqrbnpKQRBNP]$/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      focus = sq;
      put(sq, e.key);
    } else if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault();
      focus = sq;
      put(sq, "x");
    }
  }

  function startDrag(e, letter, from) {
    if (e.button !== 0 || letter === ".") return;
    drag = { letter, from, x: e.clientX, y: e.clientY, moved: false, ghost: null };
  }

  function moveDrag(e) {
    if (!drag) return;
    if (!drag.moved && Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < 6) return;
    if (!drag.moved) {
      drag.moved = true;
      drag.ghost = MagboardPieces.element(drag.letter);
      drag.ghost.classList.add("editor-ghost");
      $e("editor").appendChild(drag.ghost);  // in the dialog: above its backdrop
    }
    drag.ghost.style.left = `${e.clientX}px`;
    drag.ghost.style.top = `${e.clientY}px`;
  }

  function endDrag(e) {
    const done = drag;
    drag = null;
    if (!done || !done.moved) return;
    done.ghost.remove();
    dropped = true;  // the click the release makes is the drag's, not a click
    setTimeout(() => { dropped = false; }, 0);
    if (!e) return;
    const cell = document.elementFromPoint(e.clientX, e.clientY)?.closest(".esq");
    if (done.from !== null) squares[done.from] = ".";  // off the diagram: taken away
    if (cell) {
      const sq = cells.indexOf(cell);
      squares[sq] = done.letter;
      focus = sq;
    }
    edited();
  }

  // ------------------------------------------------------------------ starting

  function syncPlayers() {
    const s = typeof state === "undefined" ? null : state;
    const hasEngine = Boolean(s && (s.player_states || {}).engine);
    for (const label of document.querySelectorAll(".with-engine")) label.hidden = !hasEngine;
    const players = (s && s.players) || {};
    const seat = !hasEngine ? "none"
      : players.black === "engine" ? "black" : players.white === "engine" ? "white" : "none";
    const input = document.querySelector(`input[name="position-players"][value="${seat}"]`);
    if (input) input.checked = true;
  }

  // The form's Start (Enter in the FEN field too), or the PGN part's own button.
  async function start(fromPgn) {
    const error = $e("position-error");
    error.textContent = "";
    const body = {};
    if (fromPgn) {
      const pgn = $e("pgn").value;
      if (!pgn.trim()) { error.textContent = "PGN: paste a game, or choose a .pgn file"; return; }
      if (pgn.length > MAX_PGN) {
        error.textContent = `PGN: ${pgn.length} characters is more than the board reads ` +
          `(${MAX_PGN}): give the one game, without its comments`;
        return;
      }
      body.pgn = pgn;
    } else {
      body.fen = $e("fen").value.trim();
      if (!body.fen) { error.textContent = "FEN: empty (build the position on the diagram)"; return; }
    }
    // Who plays it: people on both sides, or the engine one side (it answers once the
    // pieces stand). Without an engine only "none" is offered.
    const side = document.querySelector('input[name="position-players"]:checked')?.value;
    body.engine = { side: side || "none" };
    if (!await mayStartNewGame(body.fen || "pgn")) return;
    const answer = await send("new_game", body);
    if (answer.ok) {
      $e("settings").close();
      showView("game");
    } else {  // beside the editor: the dialog stays, the form too
      error.textContent = answer.error || "Not started: the board did not answer (see the messages)";
    }
  }

  function wire() {
    build();
    $e("editor-clear").addEventListener("click", () => { squares.fill("."); edited(); });
    $e("editor-start").addEventListener("click", () => {
      read(`${START} w KQkq - 0 1`);
      edited();
    });
    for (const input of document.querySelectorAll('input[name="editor-turn"]')) {
      input.addEventListener("change", () => { turn = input.value; edited(); });
    }
    for (const [right] of CASTLING) {
      $e("castle-" + right).addEventListener("change", (e) => {
        if (e.target.checked) wanted.add(right); else wanted.delete(right);
        edited();
      });
    }
    $e("fen").addEventListener("input", () => {
      const text = $e("fen").value;
      const wrong = text.trim() ? read(text) : null;
      $e("position-error").textContent = wrong || "";
      if (!wrong && text.trim()) render(false);
    });
    $e("pgn-file").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      $e("pgn").value = await file.text();
      $e("pgn-part").open = true;
    });
    $e("fen-form").addEventListener("submit", (e) => { e.preventDefault(); start(false); });
    $e("pgn-start").addEventListener("click", () => start(true));
    $e("settings-open").addEventListener("click", syncPlayers);
    document.addEventListener("magboard-editor-open", () => {
      syncPlayers();
      if (!$e("settings").open) $e("settings").showModal();
      $e("fen-form").scrollIntoView();
      cells[focus].focus();
    });
    // A FEN typed before the editor was loaded is kept: the diagram shows it.
    const typed = $e("fen").value.trim();
    if (!typed || read(typed)) read(`${START} w KQkq - 0 1`);
    render(!typed);
    syncPlayers();
    // The form's submit is this module's: Start acts once it is here (and the board is).
    if (document.body.classList.contains("offline")) greyed.push($e("new-game-button"));
    else $e("new-game-button").disabled = false;
  }

  // Loaded when first wanted, after the page's DOMContentLoaded.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
