// magboard's page: the puzzles panel (docs/puzzles.md). It reads the puzzles player's
// state from each state the page receives (board.js sends a "magboard-state" event), says
// the puzzle's news from its events ("magboard-events"), and calls the player's actions
// with POST /api/player/puzzles/<action>: start (a file, a rating range, themes), hint,
// next (give this one up) and stop.
"use strict";

(() => {
  const panel = () => document.getElementById("puzzles");
  const part = (name) => panel()?.querySelector(`[data-part="${name}"]`);
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const token = () => localStorage.getItem("magboard-token") || "";
  let shown = {};

  // What the lights and the player are waiting for, in words.
  const STATUS = {
    setup: "Set the position up as the lights show, kind by kind.",
    opponent: "Make the opponent's move, lit on the board.",
    your_move: "Your move: find the best one.",
    wrong: "Not that move: put the piece back as the lights show, then try again.",
  };

  async function act(action, body = {}) {
    say("");
    const response = await fetch("/api/player/puzzles/" + action, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + token() },
      body: JSON.stringify(body),
    });
    const reply = await response.json().catch(() => ({}));
    if (!response.ok) {
      say(reply.error || `puzzles: ${action} failed (${response.status})`);
      return null;
    }
    return reply.answer || {};
  }

  function say(text) {
    const line = part("said");
    if (line) line.textContent = text;
  }

  function build(root) {
    root.innerHTML = `
      <h2>Puzzles</h2>
      <div data-part="puzzle"></div>
      <div data-part="actions"></div>
      <p data-part="said" role="status" aria-live="polite"></p>
      <p data-part="last"></p>
      <p data-part="progress" class="hint"></p>
      <details data-part="start-form">
        <summary>Start a run of puzzles</summary>
        <form id="puzzles-form">
          <label for="puzzles-file">File (a Lichess puzzle CSV or PGN; empty: the sample)</label>
          <input id="puzzles-file" name="file" autocomplete="off" spellcheck="false"
                 placeholder="/home/pi/lichess_db_puzzle.csv">
          <label for="puzzles-rating">Rating (1200-1800, 1500-, -1200; empty: any)</label>
          <input id="puzzles-rating" name="rating" autocomplete="off" inputmode="numeric">
          <label for="puzzles-themes">Themes (any of them: fork mateIn2; empty: any)</label>
          <input id="puzzles-themes" name="themes" autocomplete="off" spellcheck="false">
          <button type="submit" class="primary">Start</button>
        </form>
      </details>`;
    shown = {};
  }

  function parts(s) {
    const out = { puzzle: "", actions: "", last: "", progress: "" };
    const p = s.puzzle;
    if (s.active && p) {
      const themes = (p.themes || []).join(", ") || "none given";
      out.puzzle = `
        <p class="puzzle-title"><strong>Puzzle ${esc(p.number)}</strong> · ${esc(p.id)}
          · rated ${p.rating == null ? "—" : esc(p.rating)}</p>
        <p class="puzzle-themes">Themes: ${esc(themes)}</p>
        <p>You play ${esc(p.player)}: ${esc(s.left)} move${s.left === 1 ? "" : "s"} to find.</p>
        <p class="puzzle-status" data-status="${esc(s.status)}">${esc(STATUS[s.status] || "")}</p>`;
      out.actions = `
        <div class="buttons">
          <button type="button" data-act="hint"${s.status === "your_move" ? "" : " disabled"}>
            ${s.hint_level ? "Show the move" : "Hint"}</button>
          <button type="button" data-act="next">Give up, next</button>
          <button type="button" data-act="stop">Stop</button>
        </div>`;
    } else if (s.over) {
      out.puzzle = `<p>The run is over: ${esc(s.over)}.</p>`;
    }
    const last = s.last;
    if (last) {
      const how = { solved: "solved", helped: "solved with a hint", failed: "failed" }[last.result];
      out.last = `Last: ${esc(last.id)} ${esc(how)}${last.given_up ? " (given up)" : ""}` +
        (last.solution ? ` · the solution: ${esc(last.solution.join(" "))}` : "");
    }
    const g = s.progress || {};
    if (g.played) {
      out.progress = `${esc(g.played)} played, ${esc(g.solved)} solved · streak ${esc(g.streak)}` +
        ` (best ${esc(g.best_streak)}) · puzzle rating ${esc(g.rating)}`;
    }
    return out;
  }

  function render(s) {
    const root = panel();
    if (!root || !s) return;
    root.hidden = false;
    if (!root.querySelector("[data-part]")) build(root);
    for (const [name, html] of Object.entries(parts(s))) {
      if (shown[name] !== html) {
        part(name).innerHTML = html;
        shown[name] = html;
      }
    }
    part("start-form").hidden = Boolean(s.active);
  }

  // The puzzle's news, as the player hears it.
  function news(e) {
    switch (e.type) {
      case "puzzle": return `Puzzle ${e.number}: set it up; you play ${e.player}.`;
      case "puzzle_move": return `The opponent plays ${e.san}: make it on the board.`;
      case "puzzle_right": return e.left ? `Right: ${e.san}. Keep going.` : `Right: ${e.san}.`;
      case "puzzle_wrong": return `${e.san || "That"} is not the move: put it back.`;
      case "puzzle_hint":
        return e.level >= 2 ? `Hint: ${e.san}.` : `Hint: move the ${e.piece} on ${e.square}.`;
      case "puzzle_done":
        return e.result === "failed" ? "Puzzle failed." :
          `Solved${e.result === "helped" ? " with a hint" : ""}! Streak ${e.streak}.`;
      case "puzzles_over": return `Puzzles over: ${e.reason}.`;
      default: return "";
    }
  }

  function follow(state) {
    const s = (state?.player_states || {}).puzzles;
    if (s) render(s);
  }
  document.addEventListener("magboard-state", (e) => follow(e.detail));
  document.addEventListener("magboard-puzzles-open", () => {
    const form = part("start-form");
    if (!form) return;
    form.open = true;
    document.getElementById("puzzles-file")?.focus();
  });
  document.addEventListener("magboard-events", (e) => {
    for (const event of e.detail) {
      const text = event.said || news(event);  // the board's words, in [web] language
      if (text) say(text);
    }
  });
  // board.js loads this file once the daemon has the puzzles player: the state as it stands.
  if (typeof state !== "undefined" && state) follow(state);

  document.addEventListener("click", async (e) => {
    const button = e.target.closest("#puzzles button[data-act]");
    if (!button) return;
    e.preventDefault();
    await act(button.dataset.act);
  });
  document.addEventListener("submit", async (e) => {
    if (e.target.id !== "puzzles-form") return;
    e.preventDefault();
    const form = new FormData(e.target);
    const body = {};
    for (const name of ["file", "rating", "themes"]) {
      const value = String(form.get(name) || "").trim();
      if (value) body[name] = value;
    }
    const answer = await act("start", body);
    if (answer) e.target.closest("details").open = false;
  });
})();
