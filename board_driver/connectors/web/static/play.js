// magboard's page: the start screen and the settings (docs/web.md, "Starting a game").
//
// The start screen offers the ways to play (a friend at the board, the engine, Lichess) and
// the time controls as Lichess's grid of presets; a preset starts the game at once. The
// engine's strength is a level 1-8, each a rating for Stockfish's UCI_Elo (8: full
// strength). The settings (a dialog) hold the game's options, the engine's thinking time
// and depth, a position to start from, and the page's token. Uses board.js's $, send, say,
// state and mayStartNewGame.
"use strict";

//: The presets of Lichess's quick pairing: [minutes, increment, the speed's name].
const PRESETS = [
  [1, 0, "Bullet"], [2, 1, "Bullet"], [3, 0, "Blitz"], [3, 2, "Blitz"], [5, 0, "Blitz"],
  [5, 3, "Blitz"], [10, 0, "Rapid"], [10, 5, "Rapid"], [15, 10, "Rapid"], [30, 0, "Classical"],
  [30, 20, "Classical"],
];
//: Levels 1-8 as Stockfish's UCI_Elo (its range: 1350-2850 in Stockfish 15, 1320-3190 in 16
//: and later; a rating outside it is brought within); level 8 plays at full strength.
const LEVEL_ELO = [1350, 1500, 1650, 1800, 2000, 2200, 2500, null];
//: Lichess's Board API plays rapid, classical and correspondence games only: a seek of a
//: shorter control (minutes + 40 × increment under 8 min) is refused by the server.
const LICHESS_RAPID_S = 480;

let view = null;           // "start" or "game": what the panel shows, this page's choice

// The level (1-8) of the engine's state, when its strength is one of them.
function levelOf(engine) {
  if (!engine) return null;
  if (engine.elo === null || engine.elo === undefined) return engine.skill === 20 ? 8 : null;
  const index = LEVEL_ELO.indexOf(engine.elo);
  return index >= 0 ? index + 1 : null;
}

const checked = (name) => document.querySelector(`input[name="${name}"]:checked`)?.value;

function buildStart() {
  const levels = document.querySelector("#engine-choice .levels");
  LEVEL_ELO.forEach((elo, i) => {
    const label = document.createElement("label");
    const words = elo ? `Level ${i + 1}, rated about ${elo}` : "Level 8, full strength";
    label.innerHTML = `<input type="radio" name="level" value="${i + 1}" aria-label="${words}"` +
      `${i === 2 ? " checked" : ""}><span>${i + 1}</span>`;
    levels.appendChild(label);
  });
  const grid = $("time-grid");
  for (const [minutes, increment, speed] of PRESETS) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.control = `${minutes}+${increment}`;
    button.setAttribute("aria-label", `${minutes}+${increment} ${speed}: ${minutes} min, ` +
      `${increment} s added a move`);
    button.innerHTML = `<span class="tc">${minutes}+${increment}</span><span class="kind">${speed}</span>`;
    button.addEventListener("click", () => start(minutes, increment));
    grid.appendChild(button);
  }
  const custom = document.createElement("button");
  custom.type = "button";
  custom.id = "custom-open";
  custom.innerHTML = '<span class="tc">Custom</span><span class="kind">your own</span>';
  custom.addEventListener("click", openCustom);
  grid.appendChild(custom);
  // The choices are kept in the browser: a reload (back from Lichess's login) keeps them.
  for (const name of ["mode", "level", "colour", "variant"]) {
    const kept = localStorage.getItem(`magboard-${name}`);
    const input = kept && document.querySelector(`input[name="${name}"][value="${kept}"]`);
    if (input) input.checked = true;
    for (const choice of document.querySelectorAll(`input[name="${name}"]`)) {
      choice.addEventListener("change", () => {
        localStorage.setItem(`magboard-${name}`, choice.value);
        renderStart();
      });
    }
  }
  $("no-clock").addEventListener("click", () => start(null, null));
  $("start-back").addEventListener("click", () => showView("game"));
  $("position-open").addEventListener("click", () => need("editor")
    .then(() => document.dispatchEvent(new Event("magboard-editor-open"))).catch(() => {}));
  $("new-game").addEventListener("click", () => showView("start"));
  $("review-jump").addEventListener("click", () => { if (state) showReview(state.game_id, true); });
  $("flip").addEventListener("click", () => {
    localStorage.setItem("magboard-bottom", bottom === "white" ? "black" : "white");
    if (state) renderPlayers();
  });
}

function renderStart() {
  const mode = checked("mode");
  $("engine-choice").hidden = mode !== "engine";
  const level = Number(checked("level"));
  const elo = LEVEL_ELO[level - 1];
  $("level-words").textContent = elo
    ? `Level ${level}: Stockfish held to a rating of about ${elo}.`
    : "Level 8: Stockfish at full strength.";
  const lichess = mode === "lichess";
  document.body.classList.toggle("start-lichess", lichess);
  for (const button of $("time-grid").querySelectorAll("button[data-control]")) {
    const [minutes, increment] = button.dataset.control.split("+").map(Number);
    const short = lichess && minutes * 60 + 40 * increment < LICHESS_RAPID_S;
    button.disabled = short;
    button.title = short ? "Lichess's Board API plays rapid, classical and correspondence only" : "";
  }
  $("no-clock").hidden = lichess;
  // Lichess's seeks are standard chess; a Chess960 game there is a challenge.
  $("variant-choice").hidden = lichess;
  $("chess960-choice").hidden = lichess || checked("variant") !== "chess960";
  showLichess();
}

// The Lichess panel: on the start screen with Lichess chosen, and whenever it has something
// of its own (an online game, a challenge).
function showLichess() {
  const panel = $("lichess");
  const s = state && (state.player_states || {}).lichess;
  $("mode-lichess").hidden = !s;
  if (!s) { panel.hidden = true; return; }
  const busy = Boolean(s.game) || (s.challenges || []).length > 0 || s.seeking;
  panel.hidden = !(busy || (view === "start" && checked("mode") === "lichess"));
}

// ---------------------------------------------------------------- starting a game

// A time control as magboard reads it ("3+2"), or null for none.
const control = (minutes, increment) => (minutes === null ? "none" : `${minutes}+${increment}`);

async function start(minutes, increment, text = null) {
  if (!state || !mayAct("started")) return;
  const mode = checked("mode");
  if (mode === "lichess") {
    const answer = await send("player/lichess/seek", {
      minutes, increment, rated: false, color: "random",
    });
    if (answer.ok) say(`Lichess: seeking a ${minutes}+${increment} game…`);
    return;
  }
  const variant = chosenVariant();
  if (variant === null) return;
  if (!await mayStartNewGame(null)) return;
  const body = { options: { clock: text || control(minutes, increment) }, ...variant };
  if (mode === "engine") {
    let colour = checked("colour");
    if (colour === "random") colour = Math.random() < 0.5 ? "white" : "black";
    const level = Number(checked("level"));
    const elo = LEVEL_ELO[level - 1];
    body.engine = elo ? { side: other(colour), elo } : { side: other(colour), skill: 20, elo: null };
  } else {
    body.engine = { side: "none" };
  }
  const answer = await send("new_game", body);
  if (answer.ok) showView("game");
}

// The rules chosen for the new game, as new_game's body has them: standard chess, or a
// Chess960 start position by number (Scharnagl's, 0-959) or at random; null (and said) for
// a number out of range.
function chosenVariant() {
  if (checked("variant") !== "chess960") return { variant: "standard" };
  const input = $("chess960-number");
  const text = input.value.trim();
  if (text === "" && !input.validity.badInput) return { variant: "chess960", chess960: "random" };
  const number = Number(text);
  if (text === "" || !Number.isInteger(number) || number < 0 || number > 959) {
    say("Chess960: the start position is a number from 0 to 959 (or empty: at random)", true);
    input.focus();
    return null;
  }
  return { variant: "chess960", chess960: number };
}

function openCustom() {
  const lichess = checked("mode") === "lichess";
  for (const part of document.querySelectorAll("#custom .not-lichess")) part.hidden = lichess;
  $("custom-text").value = "";
  $("custom").showModal();
  $("custom-minutes").focus();
}

function wireCustom() {
  $("custom-cancel").addEventListener("click", () => $("custom").close());
  $("custom-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("custom-text").value.trim();
    const minutes = Number($("custom-minutes").value);
    const increment = Number($("custom-increment").value);
    if (!text && !(minutes > 0 && increment >= 0)) {
      say("Custom time control: give the minutes and the increment", true);
      return;
    }
    $("custom").close();
    start(minutes, increment, text || null);
  });
}

// ---------------------------------------------------------------- what the panel shows

// The start screen on a board whose game has not begun; the game once it has (a move made
// here or at the board, a game started from the start screen, an online game).
function showView(next) {
  view = next;
  const playing = state && state.result === "*" && (state.moves.length > 0 || state.setup_pending);
  $("start").hidden = view !== "start";
  $("game").hidden = view !== "game";
  $("start-back").hidden = !playing;
  document.body.dataset.view = view;
  document.body.classList.toggle("choosing", view === "start" && !playing);
  if (state) renderStatus();  // its words depend on what the panel shows
  showLichess();
  if (view === "start") renderStart();
}

let seen = null;            // what the last state showed: its game, moves and pieces

function followView(s) {
  const asked = (s.question || []).length > 0;
  // A game with a player other than people at the board (the engine, a puzzle) has begun
  // before its first move: opened then, the page shows it, not the start screen.
  const people = Object.values(s.players || {}).every((player) => player === "human");
  const fresh = s.result === "*" && s.moves.length === 0 && !s.setup_pending && !s.online &&
    s.in_sync && !asked && people;
  if (view === null) {
    showView(fresh ? "start" : "game");
  } else if (view === "start" && seen && (s.moves.length !== seen.moves || asked ||
      (s.online && !seen.online) ||
      (s.result === "*" && !s.setup_pending && s.sensed !== seen.sensed))) {
    showView("game");  // the game goes on at the board (a piece touched), or online
  } else {
    showView(view);
  }
  seen = { moves: s.moves.length, online: s.online, sensed: s.sensed };
  $("review-jump").hidden = s.result === "*" || s.moves.length === 0;
  $("new-game").textContent = s.result !== "*" ? "New game" : "New game…";
}

// ---------------------------------------------------------------- settings

function renderSettings(s) {
  const touch = document.querySelector(`input[name="touch-move"][value="${s.options.touch_move}"]`);
  if (touch) touch.checked = true;
  $("hints").checked = s.options.hints;
  $("takeback-option").checked = s.options.takeback;
  $("clock-switch").value = s.options.clock_switch;
  $("clock-fide").checked = s.options.illegal_move === "fide";
  const engine = s.engine;
  $("engine-form").hidden = !engine;
  if (engine && !engineEdited) {
    $("engine-depth").value = engine.depth === null ? "" : engine.depth;
    $("engine-movetime").value = engine.movetime_ms === null ? "" : engine.movetime_ms;
  }
}

let engineEdited = false;  // the engine form has changes not yet applied

function wireSettings() {
  $("settings-open").addEventListener("click", () => {
    need("editor").catch(() => {});  // the position editor, loaded when first wanted
    $("settings").showModal();
    $("settings-close").focus();
  });
  $("settings-close").addEventListener("click", () => $("settings").close());
  for (const input of document.querySelectorAll('input[name="touch-move"]')) {
    input.addEventListener("change", () => send("options", { touch_move: input.value }));
  }
  $("hints").addEventListener("change", (e) => send("options", { hints: e.target.checked }));
  $("takeback-option").addEventListener("change", (e) => send("options", { takeback: e.target.checked }));
  $("clock-switch").addEventListener("change", (e) => send("options", { clock_switch: e.target.value }));
  $("clock-fide").addEventListener("change", (e) => send("options", { illegal_move: e.target.checked ? "fide" : "guide" }));
  for (const id of ["engine-depth", "engine-movetime"]) {
    $(id).addEventListener("input", () => { engineEdited = true; });
  }
  $("engine-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const limit = (id) => ($(id).value.trim() === "" ? null : Number($(id).value));
    const answer = await send("player/engine/level", {
      depth: limit("engine-depth"), movetime_ms: limit("engine-movetime"),
    });
    if (answer.ok) { engineEdited = false; say("The engine's thinking is set"); }
  });
}

document.addEventListener("magboard-state", (e) => {
  followView(e.detail);
  renderSettings(e.detail);
});
document.addEventListener("DOMContentLoaded", () => {
  buildStart();
  wireCustom();
  wireSettings();
  renderStart();
});
