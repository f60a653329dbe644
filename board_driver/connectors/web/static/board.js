// magboard's page: the state is pushed over a WebSocket; actions are POSTs with the token.
// Squares are numbered as everywhere in magboard: a1 = 0, b1 = 1, ..., h8 = 63.
//
// Other scripts follow the page through two DOM events on document: "magboard-state" (the
// state, on every change) and "magboard-events" (the board's events, as they come): the
// clock, the review, Lichess, the sounds and the keys of blind.js listen to them. The
// board is a grid of squares, each named by its aria-label ("e4, white pawn, light
// green"); the live region #announce says each event in the board's words (its "said").
"use strict";

const FILES = "abcdefgh";
const NAME = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
const PROMOTION_NAME = { q: "queen", r: "rook", b: "bishop", n: "knight" };
const LED_NAME = { r: "red", o: "orange", y: "yellow", g: "green", b: "blue", c: "cyan", w: "white" };
const TERMINATION = {
  checkmate: "checkmate", stalemate: "stalemate", insufficient_material: "insufficient material",
  fivefold_repetition: "fivefold repetition", seventyfive_moves: "75-move rule",
  threefold_repetition: "threefold repetition (claimed)", fifty_moves: "50-move rule (claimed)",
  resignation: "resignation", agreement: "draw agreed",
  dead_position: "dead position: no one can mate", timeout: "time forfeit", abandoned: "abandoned",
  aborted: "aborted", rules_infraction: "a second illegal move, FIDE 7.5.5",
};
const TOUCH_WORDS = { off: "off", warn: "remind", enforce: "enforce" };
// How a game ended, in words: a flag fall against a side that cannot mate is a draw
// ("timeout vs insufficient material", as Lichess says it).
const ending = (termination, winner) => termination === "timeout" && !winner
  ? "timeout vs insufficient material: the other side cannot mate"
  : TERMINATION[termination] || termination;

const $ = (id) => document.getElementById(id);
const squareName = (sq) => FILES[sq % 8] + (Math.floor(sq / 8) + 1);
const squareIndex = (name) => FILES.indexOf(name[0]) + 8 * (Number(name[1]) - 1);
const bitsOf = (hex) => BigInt("0x" + hex);
const has = (bits, sq) => ((bits >> BigInt(sq)) & 1n) === 1n;
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const other = (side) => (side === "white" ? "black" : "white");
// A game's length as players count it: 1. e4 e5 is one move.
const moveCount = (plies) => { const n = Math.ceil(plies / 2); return `${n} ${n === 1 ? "move" : "moves"}`; };

let state = null;
let token = "";
let cells = [];
let focused = squareIndex("e2");
let bottom = "white";     // the side drawn at the bottom of the board
let hand = [];            // squares whose pieces the user lifted by clicking, last on top
const handSide = new Map(); // square in hand -> "white"/"black" (the game's piece there), or null
let simOcc = 0n;          // the simulated board's pieces, updated as we send steps
let inFlight = 0;         // actions sent and not yet answered
let queue = Promise.resolve();
let drag = null;
let online = false;       // the WebSocket is open: the daemon is there
let chosenPiece = null;   // the promotion piece chosen on this page, until a promotion uses it
let shownPlies = null;    // the plies of the game on the board when the game list was loaded
let refused = null;       // the last refusal of this page's token (401, 403), until one is kept

// ---------------------------------------------------------------- parts loaded when needed

// The review (after a game), the Lichess panel (with [lichess] on) and the board's keys for
// a screen reader are loaded when first needed: a newcomer's first page does without them.
const loading = {};

function need(name) {
  if (!loading[name]) {
    loading[name] = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = `/static/${name}.js`;
      script.onload = resolve;
      script.onerror = reject;
      document.head.appendChild(script);
    });
  }
  return loading[name];
}

// The puzzles panel asked for: loaded, its form opened.
document.addEventListener("click", (e) => {
  if (!e.target.closest("#puzzles-open")) return;
  need("puzzles").then(() => document.dispatchEvent(new CustomEvent("magboard-puzzles-open")))
    .catch(() => {});
});

// A game's review, shown (review.js, loaded first if need be).
function showReview(gameId, byHand) {
  need("review").then(() => openReview(gameId, byHand)).catch(() => {});
}

// ---------------------------------------------------------------- token

function loadToken() {
  const match = location.hash.match(/token=([A-Za-z0-9_\-]+)/);
  if (match) {
    localStorage.setItem("magboard-token", match[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  setToken(localStorage.getItem("magboard-token") || "");
}

function setToken(value) {
  token = value;
  refused = null;
  showToken();
}

// Without the token (or with a wrong one) the page says at its top, in one sentence, where
// to find it; the settings keep a field to paste it.
function showToken() {
  const banner = $("need-token");
  banner.hidden = Boolean(token) && refused === null;
  if (refused === 403) {
    banner.firstChild.textContent = "This page's token is not the board's: open the link " +
      "with the token that magboard printed when it started (“to play on the page, open " +
      "http://…/#token=…”, in the terminal of ";
  }
  $("token-state").textContent = !token ? "No token yet: the page watches, and cannot act."
    : refused === 403 ? "The token saved here is refused: it is not the board's."
      : "A token is saved: the page can act.";
}

// ---------------------------------------------------------------- the board

function buildBoard() {
  const board = $("board");
  for (let sq = 0; sq < 64; sq++) {
    const file = sq % 8, rank = Math.floor(sq / 8);
    const cell = document.createElement("div");
    cell.className = "sq " + ((rank + file) % 2 ? "light" : "dark");
    cell.setAttribute("role", "gridcell");
    cell.id = "sq-" + squareName(sq);
    cell.dataset.square = squareName(sq);
    cell.tabIndex = sq === focused ? 0 : -1;
    cell.innerHTML = '<span class="led"></span>';
    cell.appendChild(MagboardPieces.element("."));  // the set's pieces (pieces.js)
    cell.insertAdjacentHTML("beforeend", '<span class="disc" aria-hidden="true"></span>' +
      `<span class="coord file" aria-hidden="true">${FILES[file]}</span>` +
      `<span class="coord rank-label" aria-hidden="true">${rank + 1}</span>`);
    cell.addEventListener("keydown", (e) => onKey(e, sq));
    cell.addEventListener("focus", () => setFocus(sq, false));
    cells[sq] = cell;
  }
  layoutBoard("white");
  board.addEventListener("pointerdown", onPointerDown);
  board.addEventListener("pointermove", onPointerMove);
  board.addEventListener("pointerup", onPointerUp);
  board.addEventListener("pointercancel", () => { drag = null; });
  // The keys that ask the board (blind.js), loaded once the board has the keyboard's focus.
  board.addEventListener("focusin", () => need("blind").catch(() => {}), { once: true });
}

// The ranks in the order seen from ``side``: its own first rank at the bottom, its files
// from its left, the coordinates on its near edge and its left edge.
function layoutBoard(side) {
  bottom = side;
  const board = $("board");
  const rows = [];
  for (let r = 0; r < 8; r++) {
    const rank = side === "white" ? 7 - r : r;
    const row = document.createElement("div");
    row.className = "rank";
    row.setAttribute("role", "row");
    for (let f = 0; f < 8; f++) {
      const file = side === "white" ? f : 7 - f;
      const cell = cells[rank * 8 + file];
      cell.classList.toggle("edge-file", r === 7);
      cell.classList.toggle("edge-rank", f === 0);
      row.appendChild(cell);
    }
    rows.push(row);
  }
  board.replaceChildren(...rows);
  board.setAttribute("aria-label", `Chessboard, ${side} at the bottom`);
  board.dataset.bottom = side;
}

// The king of the side to move, when it is in check.
function checkedKing() {
  if (!state.check) return -1;
  return state.pieces.indexOf(state.turn === "white" ? "K" : "k");
}

function renderBoard() {
  const sensed = bitsOf(state.sensed);
  const blink = bitsOf(state.leds.blink);
  const last = (state.last_move || []).map(squareIndex);
  const king = checkedKing();
  for (let sq = 0; sq < 64; sq++) {
    const cell = cells[sq];
    const letter = state.pieces[sq];
    const isSensed = has(sensed, sq);
    const led = state.leds.colours[sq];
    const blinking = led !== "." && has(blink, sq);
    const piece = cell.querySelector(".piece");
    if (piece.dataset.letter !== letter) MagboardPieces.show(piece, letter);
    cell.classList.toggle("lifted", letter !== "." && !isSensed);
    cell.classList.toggle("unknown", letter === "." && isSensed);
    cell.classList.toggle("in-hand", hand.includes(sq));
    cell.classList.toggle("last", last.includes(sq));
    cell.classList.toggle("check", sq === king);
    cell.dataset.piece = letter;
    cell.dataset.sensed = isSensed ? "1" : "0";
    cell.dataset.led = led;
    cell.dataset.blink = blinking ? "1" : "0";
    let label = squareName(sq) + ", ";
    if (letter !== ".") {
      label += (letter === letter.toUpperCase() ? "white " : "black ") + NAME[letter.toLowerCase()];
      if (!isSensed) label += ", lifted";
    } else {
      label += isSensed ? "a piece the game does not expect" : "empty";
    }
    if (sq === king) label += ", in check";
    if (last.includes(sq)) label += ", last move";
    if (led !== ".") label += `, light ${LED_NAME[led]}${blinking ? " blinking" : ""}`;
    cell.setAttribute("aria-label", label);
  }
}

function setFocus(sq, move = true) {
  cells[focused].tabIndex = -1;
  focused = sq;
  cells[sq].tabIndex = 0;
  if (move) cells[sq].focus();
}

function onKey(e, sq) {
  const file = sq % 8, rank = Math.floor(sq / 8);
  const toward = bottom === "white" ? 1 : -1;  // the arrows go the way the board is seen
  const moves = { ArrowUp: [0, toward], ArrowDown: [0, -toward], ArrowLeft: [-toward, 0], ArrowRight: [toward, 0] };
  if (moves[e.key]) {
    const [df, dr] = moves[e.key];
    const f = Math.min(7, Math.max(0, file + df)), r = Math.min(7, Math.max(0, rank + dr));
    setFocus(r * 8 + f);
    e.preventDefault();
  } else if (e.key === "Enter" || e.key === " ") {
    clickSquare(sq);
    e.preventDefault();
  } else if (e.key === "Escape") {
    putBack();
    e.preventDefault();
  }
}

// ---------------------------------------------------------------- the simulator

const occupied = (sq) => has(simOcc, sq);

function steps(list) {
  for (const [kind, sq] of list) {
    if (kind === "lift") simOcc &= ~(1n << BigInt(sq));
    else simOcc |= 1n << BigInt(sq);
  }
  return send("sim", { steps: list.map(([kind, sq]) => [kind, squareName(sq)]) });
}

// The side of the game's piece on a square ("white", "black"), or null (none, or a piece
// the game does not know).
function sideAt(sq) {
  const letter = state ? state.pieces[sq] : ".";
  if (letter === ".") return null;
  return letter === letter.toUpperCase() ? "white" : "black";
}

function pieceWords(sq) {
  const letter = state ? state.pieces[sq] : ".";
  if (letter === ".") return "the piece";
  return `the ${sideAt(sq)} ${NAME[letter.toLowerCase()]}`;
}

function take(sq) {
  hand.push(sq);
  handSide.set(sq, sideAt(sq));
}

function drop() {
  const sq = hand.pop();
  handSide.delete(sq);
  return sq;
}

// A piece in hand that the game no longer has on its square was captured (an en-passant
// victim lifted after the capture): it has left the board, and the hand is free again.
function releaseCaptured() {
  const kept = hand.filter((sq) => !(handSide.get(sq) && state && state.pieces[sq] === "."));
  for (const sq of hand) if (!kept.includes(sq)) handSide.delete(sq);
  hand = kept;
}

// Whether this page may act now; if not, it says why (and nothing is ``done``).
function mayAct(done = "moved") {
  if (!online) {
    say(`The board cannot be reached (the daemon is not running?): nothing was ${done}.`, true);
    return false;
  }
  if (!token) {
    showToken();
    say(`Nothing was ${done}: this page has no token (see the top of the page).`, true);
    window.scrollTo(0, 0);
    return false;
  }
  return true;
}

function clickSquare(sq) {
  if (!state || !mayAct()) return;
  if (!state.sim) {
    say("This is a real board: move its pieces by hand.");
    return;
  }
  releaseCaptured();
  if (hand.length === 0) {
    if (occupied(sq)) {
      take(sq);
      steps([["lift", sq]]);
    } else {
      steps([["place", sq]]);  // a piece from beside the board
    }
  } else if (!occupied(sq)) {
    drop();
    steps([["place", sq]]);
  } else {
    const held = hand[hand.length - 1];
    const heldSide = handSide.get(held);
    const target = sideAt(sq);
    if (heldSide !== state.turn) {
      // Not a piece of the side to move: a victim taken off first (the capture by clicking
      // the victim first), or a piece set aside. It stays off the board, and the click
      // lifts the piece clicked.
      drop();
      say(`${cap(heldSide ? pieceWords(held) : "the piece")} from ${squareName(held)} is off the board`);
      take(sq);
      steps([["lift", sq]]);
    } else if (target === heldSide) {
      say(`You hold ${pieceWords(held)} from ${squareName(held)}: put it on an empty square ` +
          "or capture with it (Escape puts it back)", true);
    } else {
      drop();               // a capture: the victim off, the piece in hand on
      steps([["lift", sq], ["place", sq]]);
    }
  }
  showHand();
  if (state) renderBoard();
}

function putBack() {
  if (!hand.length || !online) return;
  const sq = drop();
  if (!occupied(sq)) steps([["place", sq]]);
  showHand();
}

function clearHand() {
  hand = [];
  handSide.clear();
  showHand();
  if (state) renderBoard();
}

function showHand() {
  $("hand").textContent = hand.length
    ? "In hand: " + hand.map((sq) => `${pieceWords(sq)} from ${squareName(sq)}`).join(", ") +
      " (Escape puts it back)"
    : "";
}

function cellAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const cell = el && el.closest(".sq");
  return cell ? squareIndex(cell.dataset.square) : null;
}

function onPointerDown(e) {
  const sq = cellAt(e.clientX, e.clientY);
  if (sq === null) return;
  // The keyboard goes on from here (Tab comes back to this square), and no focus ring is
  // left on a square by the mouse: a square focused by the keys before lets go.
  if (document.activeElement && document.activeElement.closest(".sq")) document.activeElement.blur();
  setFocus(sq, false);
  drag = { start: sq, rest: null, moved: false };
  e.preventDefault();
}

function onPointerMove(e) {
  if (!drag || !state || !state.sim || !online || !token) return;
  const sq = cellAt(e.clientX, e.clientY);
  if (sq === null || sq === drag.start && !drag.moved) return;
  if (!drag.moved) {
    if (hand.length || !occupied(drag.start)) { drag = null; return; }
    drag.moved = true;
    steps([["lift", drag.start]]);
  }
  // A slide: the piece rests on each empty square it passes over, as on a real board.
  if (sq !== drag.rest && !occupied(sq)) {
    steps(drag.rest === null ? [["place", sq]] : [["lift", drag.rest], ["place", sq]]);
    drag.rest = sq;
  }
}

function onPointerUp(e) {
  const d = drag;
  drag = null;
  if (!d) return;
  const sq = cellAt(e.clientX, e.clientY);
  if (!d.moved) {
    if (sq === d.start) clickSquare(sq);
    return;
  }
  if (sq === d.rest) return;
  const list = [];
  if (sq === null) {
    // Dropped beside the board: a piece still in the air goes back where it came from.
    if (d.rest === null) list.push(["place", d.start]);
  } else {
    if (d.rest !== null) list.push(["lift", d.rest]);
    if (occupied(sq)) list.push(["lift", sq]);  // a capture: the victim leaves first
    list.push(["place", sq]);
  }
  if (list.length) steps(list);
}

// ---------------------------------------------------------------- actions

function send(action, body) {
  if (!online) {
    say("The board cannot be reached (the daemon is not running?): nothing was done.", true);
    return Promise.resolve({});
  }
  inFlight++;
  const done = queue.then(async () => {
    try {
      const response = await fetch("/api/" + action, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
        body: JSON.stringify(body || {}),
      });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        const why = answer.error || response.statusText;
        if (response.status === 401 || response.status === 403) {
          refused = response.status;
          showToken();
          window.scrollTo(0, 0);
          say(response.status === 401 ? "Refused (401): this page has no token (see the top of the page)"
            : "Refused (403): wrong token (see the top of the page)", true);
        } else {
          say(`Refused: ${why}`, true);  // the why is the player's; an HTTP code is not
        }
        if (action === "sim") clearHand();
      } else if (refused !== null) {
        refused = null;
        showToken();
      }
      // The board's pieces as they now stand (the simulator's answer), else the last state.
      const pieces = answer.sim_pieces || (state && state.sim_pieces);
      if (inFlight === 1 && pieces) simOcc = bitsOf(pieces);
      return answer;
    } catch (err) {
      // The daemon went away between the click and the answer: say so in words.
      say("The board cannot be reached (the daemon is not running?): " +
          `${action.replace("_", " ")} was not done.`, true);
      if (inFlight === 1 && state && state.sim_pieces) simOcc = bitsOf(state.sim_pieces);
      return {};
    } finally {
      inFlight--;
    }
  });
  queue = done;
  return done;
}

// ---------------------------------------------------------------- asking first

// Ask in the page's own dialog (modal, keyboard-usable, Escape cancels): resolves to "ok",
// "other" (a second answer, when ``second`` names it) or "" (cancelled).
function ask(title, text, ok, second = null) {
  const dialog = $("confirm");
  if (dialog.open) return Promise.resolve("");  // one question at a time
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-ok").textContent = ok;
  $("confirm-other").hidden = !second;
  $("confirm-other").textContent = second || "";
  dialog.returnValue = "";
  dialog.showModal();
  $("confirm-cancel").focus();  // the safe answer has the focus: Enter does not resign
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue), { once: true });
  });
}

const confirmStep = async (title, text, ok) => (await ask(title, text, ok)) === "ok";

// The sides a resignation may be for: the people's side against an engine or an online
// opponent; with people on both sides either may resign (FIDE 5.1.2), the side to move first.
function peopleSides() {
  const people = ["white", "black"].filter((side) => (state.players || {})[side] === "human");
  return people.length === 1 ? people : [state.turn, other(state.turn)];
}

async function askResign() {
  if (!state) return;
  const sides = peopleSides();
  const result = (side) => (side === "white" ? "0-1" : "1-0");
  let answer;
  if (sides.length === 1) {
    const side = sides[0];
    answer = await ask(`Resign for ${cap(side)}?`,
      `${cap(other(side))} wins game ${state.game_id} (${result(side)}). A resignation cannot be taken back.`,
      `Resign for ${cap(side)}`);
  } else {
    const [first, second] = sides;
    answer = await ask("Resign?", `Who resigns? ${cap(first)} resigning: ${result(first)}; ` +
      `${cap(second)} resigning: ${result(second)}. A resignation cannot be taken back.`,
    `Resign for ${cap(first)}`, `Resign for ${cap(second)}`);
  }
  if (answer === "ok") send("resign", { side: sides[0] });
  else if (answer === "other") send("resign", { side: sides[1] });
}

// Whether a new game may start now: a game being played has something to lose; it is kept
// (adjourned), not lost, and the page asks first.
async function mayStartNewGame(fen) {
  if (state && state.result === "*" && !state.setup_pending && state.moves.length > 0) {
    const what = `Game ${state.game_id} (${moveCount(state.moves.length)}, ${state.turn} to move) ` +
      (state.online ? "is an online game in progress: it is put aside on the board (it goes on online)."
        : "is not over: it is kept, adjourned, and can be resumed from the game list.");
    if (!await confirmStep(fen ? "Start a new game from this position?" : "Start a new game?",
      what, "New game")) return false;
  }
  clearHand();
  return true;
}

function wireControls() {
  $("confirm-ok").addEventListener("click", () => $("confirm").close("ok"));
  $("confirm-other").addEventListener("click", () => $("confirm").close("other"));
  $("confirm-cancel").addEventListener("click", () => $("confirm").close(""));
  $("resign").addEventListener("click", askResign);
  for (const b of document.querySelectorAll("[data-button]")) {
    b.addEventListener("click", () => send("button", { button: b.dataset.button }));
  }
  for (const b of document.querySelectorAll("[data-piece]")) {
    b.addEventListener("click", async () => {
      const answer = await send("choose", { piece: b.dataset.piece });
      if (!answer.ok) return;
      choosePiece(b.dataset.piece);
      // A pawn just promoted is amended (the board says so); else the next promotion uses it.
      if (!(answer.events || []).some((e) => e.type === "promotion_amended")) {
        say(`Promotion piece: ${PROMOTION_NAME[b.dataset.piece]} (the next pawn to promote ` +
            `becomes a ${PROMOTION_NAME[b.dataset.piece]})`);
      }
    });
  }
  $("takeback").addEventListener("click", () => send("takeback", {}));
  $("setup").addEventListener("click", () => { clearHand(); send("setup", {}); });
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const value = $("token").value.trim();
    localStorage.setItem("magboard-token", value);
    $("token").value = "";
    setToken(value);
  });
}

// The promotion piece chosen here stays pressed until a promotion uses it.
function choosePiece(piece) {
  chosenPiece = piece;
  for (const b of document.querySelectorAll("[data-piece]")) {
    b.setAttribute("aria-pressed", String(b.dataset.piece === piece));
  }
}

function followChoice(events) {
  for (const e of events) {
    if ((e.type === "move" && e.promotion) || e.type === "promotion_amended" ||
        e.type === "new_game" || e.type === "game_over") choosePiece(null);
  }
}

// ---------------------------------------------------------------- the rest of the page

// The squares the board asks to put right: those whose pieces differ from its target.
function toPutRight() {
  const wrong = bitsOf(state.sensed) ^ bitsOf(state.target);
  // And the squares full as they should be but with the wrong piece (a set-up the board
  // knows the kinds of: a Chess960 array over the standard one).
  const kinds = new Set(state.setup_wrong || []);
  const squares = [];
  for (let sq = 0; sq < 64; sq++) {
    if (has(wrong, sq) || kinds.has(squareName(sq))) squares.push(squareName(sq));
  }
  return squares;
}

function setupWords() {
  const squares = toPutRight();
  const where = squares.length <= 4 ? squares.join(" ") : `${squares.length} squares`;
  const start = state.start_fen.startsWith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR ")
    || (state.variant === "chess960" && state.chess960 !== null && state.chess960 !== undefined);
  // The position the new game waits for: the start position only when it is one (a FEN
  // or a puzzle waits for its own).
  const what = start ? "the start position" : "the position";
  const sim = state.sim ? ", or press Set up the pieces" : "";
  if (squares.length) {
    return `New game: set up ${what}: ${where} to put right (red: take the piece off, blue: put one on)${sim}`;
  }
  // Every square filled as it should be, yet the set-up still waits: pieces of the wrong
  // kind (a Chess960 array on the standard one), which the switches cannot see.
  if (state.setup_pending) return `New game: set up ${what} piece by piece as listed below${sim}`;
  return "New game: the pieces stand; the game begins";
}

// A new game waits for its pieces: after New game (setup_pending), or a game started on
// the pieces standing (from a position, or from the start screen) until they match it.
let settingUp = null;     // the game being set up, from its new_game event

function followSetup(events) {
  for (const e of events) if (e.type === "new_game") settingUp = e.game_id;
  if (state.in_sync || state.moves.length || settingUp !== state.game_id) settingUp = null;
}

function renderStatus() {
  const status = $("status");
  status.dataset.turn = state.turn;
  status.dataset.result = state.result;
  status.dataset.inSync = String(state.in_sync);
  status.dataset.board = state.board_state;
  let text;
  status.className = "";
  if (state.setup_pending || settingUp !== null) {
    text = setupWords();  // after New game, even while the last game's result stands
    status.className = "out-of-sync";
  } else if (state.result !== "*") {
    text = `Game over: ${state.result} (${ending(state.termination, state.winner)})`;
    status.className = "over";
  } else if (document.body.dataset.view === "start" && state.moves.length === 0 && state.in_sync) {
    text = `Choose a game below, or just play: ${cap(state.turn)} begins`;
  } else {
    text = `${cap(state.turn)} to move${state.check ? " — check!" : ""}`;
    if (state.draw_offer) text += ` — ${state.draw_offer} offers a draw`;
  }
  const trouble = {
    fault: "The board cannot be read (hardware fault): see the daemon's log",
    link_lost: "The link to the board's microcontroller is lost: reconnecting",
    starting: "The board is starting",
    store_failing: "The games store cannot be written (see the daemon's log): the game is kept and stored again as soon as it can be",
  }[state.board_state];
  $("setup-line").hidden = !state.sim || (state.in_sync && !state.setup_pending);
  if (trouble) {
    status.textContent = trouble;
    status.className = "over";
    return;
  }
  if (!state.in_sync && status.className !== "out-of-sync") {
    text += " — the board does not match the game: follow the lights (red: empty, blue: fill)";
    status.className = "out-of-sync";
  }
  status.textContent = text;
}

// What the lights ask, in the tracker's words (the state's "asks", when the board gives them).
function renderAsks() {
  const list = $("asks");
  list.innerHTML = "";
  for (const line of state.asks || []) {
    const li = document.createElement("li");
    li.textContent = line;
    list.appendChild(li);
  }
}

// After a restart the pieces may read several ways: one button per reading, to say which.
function renderQuestion() {
  const box = $("question");
  box.innerHTML = "";
  (state.question || []).forEach((reading, i) => {
    const button = document.createElement("button");
    button.textContent = reading;
    button.title = "This is what happened on the board";
    button.addEventListener("click", () => send("answer", { reading: i }));
    box.appendChild(button);
  });
}

// The board's own files it could not use at its start (a hands journal set aside, and why).
function renderNotices() {
  const list = $("notices");
  list.innerHTML = "";
  for (const line of state.notices || []) {
    const li = document.createElement("li");
    li.textContent = line;
    list.appendChild(li);
  }
}

// The moves in two columns, a row per move number, as on Lichess.
function renderMoves() {
  const list = $("moves");
  list.innerHTML = "";
  let li = null;
  let number = state.first_move;
  state.moves.forEach((san, i) => {
    const ply = i + (state.first_side === "black" ? 1 : 0);
    if (ply % 2 === 0 || li === null) {
      li = document.createElement("li");
      li.insertAdjacentHTML("beforeend", `<span class="num">${number}.</span>`);
      if (ply % 2 === 1) li.insertAdjacentHTML("beforeend", '<span class="skip">…</span>');
      list.appendChild(li);
      number++;
    }
    const span = document.createElement("span");
    span.className = "ply" + (i === state.moves.length - 1 ? " last" : "");
    span.textContent = san;
    li.appendChild(span);
  });
  list.scrollTop = list.scrollHeight;
}

function renderControls() {
  const playing = state.result === "*" && !state.setup_pending;
  document.body.classList.toggle("sim", state.sim);
  document.body.classList.toggle("no-sim", !state.sim);
  const remote = state.online;  // a server decides this game
  // After the game only what comes next: a new game, its review.
  $("controls").hidden = state.result !== "*";
  $("resign").disabled = !playing;
  $("resign").hidden = remote || state.result !== "*";  // online: resigned on Lichess (its panel)
  $("draw-offer").disabled = !playing;
  $("draw-accept").disabled = !playing || !state.draw_offer;
  $("draw-accept").hidden = !state.draw_offer;
  $("claim-draw").disabled = !playing;
  $("adjust").disabled = !playing;
  $("hint").disabled = !playing;
  $("hint").hidden = remote;
  $("takeback").disabled = !state.can_take_back;
  $("promotion").hidden = !state.can_promote;
  for (const b of document.querySelectorAll("[data-piece]")) b.disabled = !state.can_promote;
  $("pgn-current").href = `/games/${state.game_id}.pgn`;
  $("pgn-current").textContent = `Download this game (game ${state.game_id}, PGN)`;
}

// ---------------------------------------------------------------- players and orientation

// The side seen from below: the people's against an engine or an online opponent, else as
// the players chose (Flip board).
function bottomSide() {
  const people = ["white", "black"].filter((side) => (state.players || {})[side] === "human");
  if (people.length === 1) return people[0];
  return localStorage.getItem("magboard-bottom") === "black" ? "black" : "white";
}

function playerName(side) {
  const who = (state.players || {})[side];
  const header = (state.headers || {})[cap(side)];
  if (who === "engine" && state.engine) return `${engineName(state.engine)} · ${levelWords(state.engine)}`;
  const game = ((state.player_states || {}).lichess || {}).game;
  if (who === "lichess" && game && game[side]) {
    const seat = game[side];
    return seat.rating ? `${seat.name} (${seat.rating})` : seat.name;
  }
  if (header) return header;
  return cap(side);
}

function renderPlayers() {
  const side = bottomSide();
  if (side !== bottom) layoutBoard(side);
  const playing = state.result === "*" && !state.setup_pending;
  for (const [id, seat] of [["strip-bottom", side], ["strip-top", other(side)]]) {
    const strip = $(id);
    strip.dataset.side = seat;
    strip.querySelector(".clock-face").dataset.side = seat;
    strip.querySelector(".player-name").textContent = playerName(seat);
    strip.classList.toggle("to-move", playing && state.turn === seat);
  }
  const people = ["white", "black"].filter((s) => (state.players || {})[s] === "human");
  $("flip").hidden = people.length !== 2;
}

// ---------------------------------------------------------------- the engine

// "move the knight from g1 to f3, taking the pawn on f3", from a move's details
// (an engine_move or hint event, or the state's engine.move) and the pieces before it.
function moveWords(m, pieces) {
  const at = (name) => pieces[squareIndex(name)];
  const piece = m.piece || (at(m.from) || ".").toLowerCase();
  let text = `the ${NAME[piece] || "piece"} from ${m.from} to ${m.to}`;
  if (m.rook_from) text += ` and the rook from ${m.rook_from} to ${m.rook_to}`;
  if (m.captured) {
    const victim = m.captured_piece || (at(m.captured) || ".").toLowerCase();
    text += `, taking the ${NAME[victim] || "piece"} on ${m.captured}`;
    if (m.en_passant) text += " (en passant)";
  }
  if (m.promotion_piece) text += `, and promote to a ${m.promotion_piece}`;
  return text;
}

function engineName(e) {
  return e && e.engine && e.engine !== "engine" ? e.engine : "The engine";
}

// The engine's strength as players name it: a level of 1-8 (play.js), its Elo, or its
// skill at full strength.
function levelWords(e) {
  const level = typeof levelOf === "function" ? levelOf(e) : null;
  if (level) return `level ${level}`;
  if (e.elo) return `Elo ${e.elo}`;
  return e.skill === 20 ? "full strength" : `skill ${e.skill} of 20`;
}

// The hall broadcast's link ([broadcast]): connected, or what keeps the hall from the game.
function renderBroadcast() {
  const b = state.broadcast;
  const line = $("broadcast-status");
  line.hidden = !b;
  if (!b) return;
  line.dataset.status = b.state;
  line.textContent = b.state === "connected" ? `Hall broadcast: ${b.message}`
    : `Hall broadcast not reaching the hall: ${b.message}`;
}

function renderEngine() {
  const e = state.engine;
  const line = $("engine-status");
  if (!e) { line.hidden = true; return; }
  const name = engineName(e);
  const text = {
    none: null,
    thinking: `${name} (${e.side}, ${levelWords(e)}) is thinking, ${e.pace}…`,
    to_play: e.move && `${name} plays ${e.move.san}: move ${moveWords(e.move, state.pieces)}`,
    error: `${name} failed: ${e.error}`,
    // A new game waiting for its pieces is no one's move yet.
    waiting: state.result !== "*" ? null : `${name} plays ${e.side} (${levelWords(e)}, ${e.pace}): ` +
      (state.setup_pending ? "set up the pieces first" : "your move"),
  }[e.status];
  line.hidden = !text;
  line.textContent = text || "";
  line.dataset.status = e.status;
}

function optionsWords(e) {
  const parts = [`touch-move: ${TOUCH_WORDS[e.touch_move] || e.touch_move}`,
    e.takeback ? "take-backs allowed" : "no take-backs", e.hints ? "hints on" : "hints off"];
  if (e.clock && e.clock !== "none") {
    const clock = state && state.clock;
    parts.push(`clock: ${clock && clock.control === e.clock ? clock.describe : e.clock}`);
  }
  return `Settings: ${parts.join(", ")}`;
}

function describe(e) {
  const side = e.side ? cap(e.side) : "";
  switch (e.type) {
    // A move is in the move list (and read out to screen readers): a message only when it
    // replaced another reading of the hands.
    case "move": return [e.replaces ? `${side}: ${e.san} (was ${e.replaces})` : null];
    case "check": return [`Check to the ${e.side} king on ${e.king}`];
    case "illegal": {
      const what = [];
      if (e.empty && e.empty.length) what.push("empty " + e.empty.join(" "));
      if (e.fill && e.fill.length) what.push("fill " + e.fill.join(" "));
      let why = e.reason === "touch_move" ? ` (touch-move: ${e.san} must be played)` : "";
      if (e.why) why = ` (${e.why})`;  // the tracker's own words, when it gives them
      // A legal move, not the one asked for (a puzzle's): the tracker says which it was.
      if (e.reason === "refused") {
        return [`Not the move: ${e.why || `${e.san} is not the move to play here`}: ${what.join(", ")}`, true];
      }
      return [`Not a legal move${why}: ${what.join(", ")}`, true];
    }
    case "restored": return ["The board matches the game again"];
    case "takeback": return [`Taken back: ${e.san}`];
    case "promotion_amended": return [`Promotion: ${e.san} (was ${e.replaces})`];
    case "touch_move": return [`Touch-move: the piece on ${e.square} was touched first (played ${e.played})`, true];
    // The rules' reason begins with its own "draw claim refused:": said once.
    case "claim_refused":
      return [`Draw claim refused: ${String(e.reason).replace(/^draw claim refused:\s*/i, "")}`, true];
    case "refused": return [`${cap(e.button.replace(/_/g, " "))} refused: ${e.reason}`, true];
    case "game_over": return [`Game over: ${e.result} (${ending(e.termination, e.winner)})`];
    case "clock": return [clockWords(e), e.action === "penalty"];
    case "game_resumed": return [e.game_id
      ? `Game ${e.game_id} is on the board again: put the pieces where the lights ask`
      : "The game goes on"];
    case "new_game": return [e.variant === "chess960"
      ? `New game: Chess960${e.chess960 === undefined || e.chess960 === null ? "" : `, start position ${e.chess960}`}`
      : "New game"];
    case "new_game_pending": return ["New game: set up the start position"];
    case "draw_offer": return [`${side} offers a draw`];
    case "adjust": return [`${side}: j'adoube`];
    case "engine_move": return [`${engineName(e)} plays ${e.san}: move ${moveWords(e, state.pieces)}`];
    case "hint": return [`Hint: ${e.san} (${moveWords(e, state.pieces)}), lit green`];
    case "engine_changed": return [e.side === "none"
      ? "Opponent: people on both sides"
      : `Opponent: ${engineName(e)} plays ${e.side} (${state && state.engine ? levelWords(state.engine) : e.level})`];
    case "engine_error": return [`Engine error: ${e.message}`, true];
    case "online_game": return [`Lichess game ${e.id}: you play ${e.color} against ${e.opponent}`];
    case "online_move": return [`Lichess: ${e.san} to play: move ${moveWords(e, state.pieces)}`];
    case "online_note": return [`Lichess: ${e.message}`];
    case "online_error": return [`Lichess: ${e.message}`, true];
    case "broadcast": return [`Hall broadcast: ${e.message}`, e.state !== "connected"];
    case "online_chat": return [`Lichess chat, ${e.username}: ${e.text}`];
    case "options": return [optionsWords(e)];
    case "review_done": return [`The review of game ${e.game} is ready`];
    case "review_stopped": return [e.reason === "another game is reviewed" ? null
      : `The review of game ${e.game} stopped: ${e.reason}`];
    default: return [null];
  }
}

function clockWords(e) {
  if (e.action === "penalty") return e.why;
  if (e.action === "switch") return null;
  if (e.action === "set") {
    const clock = state && state.clock;
    return e.control === "none" ? "Clock: none"
      : `Clock: ${clock && clock.control === e.control ? clock.describe : e.control}`;
  }
  const by = { restart: "after the board restarted", button: "(button)", page: "(page)" }[e.by] || "";
  return `Clock: ${e.action} ${by}`.trim();
}

function say(text, bad = false, aloud = true) {
  const li = document.createElement("li");
  li.textContent = text;
  if (bad) li.className = "bad";
  const list = $("messages");
  list.appendChild(li);
  while (list.children.length > 30) list.removeChild(list.firstChild);
  fitMessages();
  if (aloud) announce(text);
}

// Words for a screen reader, through the live region: said again even when they are the
// same as the last ones (the clocks asked twice), by emptying it first.
let announcing = null;

function announce(text) {
  const region = $("announce");
  clearTimeout(announcing);
  if (region.textContent !== text) {
    region.textContent = text;
    return;
  }
  region.textContent = "";
  announcing = setTimeout(() => { region.textContent = text; }, 100);
}

// The newest messages, whole: the box is as high as the last ones that fit in its largest
// height, so that no line is cut at its top (older ones are a scroll away).
function fitMessages() {
  const list = $("messages");
  list.style.height = "";
  const most = parseFloat(getComputedStyle(list).maxHeight) || 128;
  const items = [...list.children];
  let height = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    const next = items[i].getBoundingClientRect().height;
    if (height + next > most && height > 0) break;
    height += next;
  }
  if (items.length && list.scrollHeight > most) list.style.height = `${Math.ceil(height)}px`;
  list.scrollTop = list.scrollHeight;
}

async function loadGames() {
  shownPlies = state ? `${state.game_id}:${state.moves.length}:${state.result}` : null;
  try {
    const games = await (await fetch("/api/games")).json();
    const list = $("games");
    list.innerHTML = "";
    for (const g of games.slice(0, 50)) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/games/${g.id}.pgn`;
      a.setAttribute("download", "");
      a.textContent = `Game ${g.id}`;
      li.appendChild(a);
      const how = g.termination ? ` (${ending(g.termination, g.result !== "1/2-1/2")})` : "";
      const where = g.on_board ? " (on the board)" : g.result === "*" ? " (adjourned)" : "";
      // "*", PGN's result of a game not over, is not a word a player knows.
      const result = g.result === "*" ? "not over" : g.result;
      li.appendChild(document.createTextNode(`: ${result}${how}${where}, ${moveCount(g.plies)}, ${g.started.slice(0, 16).replace("T", " ")}`));
      if (g.plies > 0 && !(g.on_board && g.result === "*")) {
        const review = document.createElement("button");
        review.textContent = "Review";
        review.className = "review-open";
        review.setAttribute("aria-label", `Review game ${g.id}`);  // one of many: which
        review.title = `Game ${g.id} move by move${g.result !== "*" ? ", with the engine's review" : ""}`;
        review.addEventListener("click", () => showReview(g.id, true));
        li.appendChild(review);
      }
      if (g.result === "*" && !g.on_board) {
        const resume = document.createElement("button");
        resume.textContent = "Resume";
        resume.className = "resume";
        resume.setAttribute("aria-label", `Resume game ${g.id}`);
        resume.title = `Put game ${g.id} back on the board (the game there is kept, adjourned)`;
        resume.addEventListener("click", () => send("resume", { game: g.id }).then(loadGames));
        li.appendChild(resume);
      }
      list.appendChild(li);
    }
  } catch (err) { /* the list is a convenience; the page works without it */ }
}

function onMessage(data) {
  const message = JSON.parse(data);
  state = message.state;
  if (inFlight === 0 && state.sim_pieces) simOcc = bitsOf(state.sim_pieces);
  for (const sq of hand) if (has(simOcc, sq)) handSide.delete(sq);
  hand = hand.filter((sq) => !has(simOcc, sq));  // put back on the board
  releaseCaptured();
  followSetup(message.events || []);
  if ((state.player_states || {}).lichess) need("lichess");
  // The puzzles panel (puzzles.js) loads once a run is under way or was, or when asked
  // for: a newcomer's page stays light.
  const puzzles = (state.player_states || {}).puzzles;
  if (puzzles) {
    $("puzzles").hidden = false;
    if (puzzles.active || puzzles.over || puzzles.last) need("puzzles");
  }
  if (state.result !== "*" && state.moves.length) need("review");
  renderPlayers();
  renderBoard();
  renderStatus();
  renderAsks();
  renderQuestion();
  renderNotices();
  renderMoves();
  renderControls();
  renderEngine();
  renderBroadcast();
  showHand();
  // lichess.js, review.js, clock.js, play.js, sound.js
  document.dispatchEvent(new CustomEvent("magboard-state", { detail: state }));
  // The messages in the page's words; a screen reader hears the board's own words for each
  // event (its speech's: "said", from the daemon), else the message, all in one go.
  const aloud = [];
  for (const e of message.events || []) {
    const [text, bad] = describe(e);
    if (text) say(text, bad, false);
    const words = e.said || text;
    if (words) aloud.push(words);
  }
  if (aloud.length && !message.hello) announce(aloud.join(" "));
  followChoice(message.events || []);
  if (!message.hello) {
    document.dispatchEvent(new CustomEvent("magboard-events", { detail: message.events || [] }));
  }
  // The list counts the game on the board's moves too: loaded again when they change.
  if (shownPlies !== `${state.game_id}:${state.moves.length}:${state.result}`) loadGames();
}

// With the daemon gone the page is greyed out and says so; nothing on it acts until the
// WebSocket is open again (the state it then sends replaces what is shown).
let greyed = [];           // the controls disabled because the daemon is gone

function setOnline(live) {
  online = live;
  document.body.classList.toggle("offline", !live);
  $("offline").hidden = live;
  $("connection").textContent = live ? "live" : "disconnected: reconnecting…";
  if (!live) {
    const controls = document.querySelectorAll("#panel button, #panel select, #panel input, #settings button, #settings input, #settings select");
    greyed = [...controls].filter((c) => !c.disabled && !c.closest("#token-form, .dialog-head"));
    for (const control of greyed) control.disabled = true;
    clearHand();
  } else {
    for (const control of greyed) control.disabled = false;
    greyed = [];
    if (state) renderControls();
  }
}

function connect(delay = 500) {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  let opened = false;
  ws.onopen = () => { opened = true; delay = 500; };
  ws.onmessage = (m) => { if (!online) setOnline(true); onMessage(m.data); };
  ws.onclose = () => {
    if (opened || online || !document.body.classList.contains("offline")) setOnline(false);
    setTimeout(() => connect(Math.min(delay * 2, 8000)), delay);
  };
}

window.addEventListener("resize", fitMessages);  // lines wrap anew: whole lines again

document.addEventListener("DOMContentLoaded", () => {
  loadToken();
  buildBoard();
  wireControls();
  connect();
});
