// magboard's page: the Lichess panel (docs/lichess.md). It reads the player's state from
// each state the page receives (board.js sends a "magboard-state" event) and calls the
// player's actions with POST /api/player/lichess/<action> and the page's token.
//
// The panel is built once; each state redraws only the parts that changed (the account,
// the game, the challenges, the games waiting), so what is typed in the form stays, and
// the clocks count down between states.
"use strict";

(() => {
  const panel = () => document.getElementById("lichess");
  const part = (name) => panel()?.querySelector(`[data-part="${name}"]`);
  let shown = {};           // each part's last drawn HTML
  let game = null;          // the game last received, for the clocks
  let receivedAt = 0;       // performance.now() when it came
  let ticker = null;

  const token = () => localStorage.getItem("magboard-token") || "";
  // The link to Lichess in words (none without a token: the message says what to do).
  const CONNECTION = {
    no_token: "", connecting: "connecting to Lichess…", online: "connected",
    reconnecting: "reconnecting to Lichess…", token_rejected: "Lichess refused the token",
  };
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  async function act(action, body = {}) {
    say("");
    const response = await fetch("/api/player/lichess/" + action, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + token() },
      body: JSON.stringify(body),
    });
    const reply = await response.json().catch(() => ({}));
    if (!response.ok) {
      say(reply.error || `Lichess: ${action} failed (${response.status})`);
      return null;
    }
    return reply.answer || {};
  }

  function say(text) {
    const line = part("said");
    if (line) line.textContent = text;
  }

  // Back from Lichess's login page: ?code=...&state=... (or ?error=...).
  async function finishLogin() {
    const query = new URLSearchParams(location.search);
    if (!query.has("state") || !(query.has("code") || query.has("error"))) return;
    history.replaceState(null, "", location.pathname + location.hash);
    await act("authorized", Object.fromEntries(query.entries()));
  }

  function clockText(ms) {
    const s = Math.max(0, Math.ceil(ms / 1000));
    const m = Math.floor(s / 60);
    return `${m}:${String(s % 60).padStart(2, "0")}`;
  }

  function tick() {
    const clock = game?.clock;
    if (!clock) return;
    const since = clock.now - clock.at + (performance.now() - receivedAt);
    for (const side of ["white", "black"]) {
      const cell = panel()?.querySelector(`.lichess-clock-${side}`);
      if (!cell) continue;
      let ms = clock[side + "_ms"];
      if (clock.running === side) ms -= since;
      cell.textContent = clockText(ms);
      cell.classList.toggle("running", clock.running === side);
    }
  }

  function gameHtml(g) {
    if (!g) return "";
    const seat = (s) => `${esc(s.name)}${s.rating ? ` (${s.rating})` : ""}`;
    const theirs = g.color === "white" ? "black" : "white";
    const offers = [];
    if (g.draw_offer === theirs) offers.push(`<button data-act="draw" data-answer="yes">Accept draw</button>
      <button data-act="draw" data-answer="no">Decline draw</button>`);
    if (g.takeback_offer === theirs) offers.push(`<button data-act="takeback" data-answer="yes">Accept take-back</button>
      <button data-act="takeback" data-answer="no">Decline take-back</button>`);
    if (g.opponent_gone) offers.push(`<button data-act="claim_victory">Claim victory</button>
      <button data-act="claim_draw">Claim a draw</button>`);
    const over = !["started", "created"].includes(g.status);
    const clock = (side) => g.clock ? ` <span class="lichess-clock lichess-clock-${side}"></span>` : "";
    return `<p class="lichess-game"><a href="${esc(g.url)}" target="_blank" rel="noopener">${esc(g.id)}</a>:
        <span class="lichess-white">${seat(g.white)}</span>${clock("white")} vs
        <span class="lichess-black">${seat(g.black)}</span>${clock("black")}
        (${esc(g.pace)}, ${g.rated ? "rated" : "casual"}; you play ${esc(g.color)})
        ${over ? `<strong class="lichess-status">${esc(g.status)}</strong>` : ""}
        ${g.sending ? ` sending ${esc(g.sending)}…` : ""}</p>
      ${offers.join(" ")}
      ${over ? "" : `<div class="buttons">
        <button data-act="draw" data-answer="yes">Offer draw</button>
        <button data-act="takeback" data-answer="yes">Propose take-back</button>
        <button data-act="resign">Resign</button>
        <button data-act="abort">Abort</button></div>`}
      ${(g.chat || []).map((c) => `<p class="lichess-chat">${esc(c.username)}: ${esc(c.text)}</p>`).join("")}`;
  }

  function parts(s) {
    const account = s.account ? ` — logged in as <strong>${esc(s.account.username)}</strong>` : "";
    const challenges = (s.challenges || []).map((c) => c.direction === "out"
      ? `<li>You challenge ${esc(c.to)}: ${esc(c.time_control)}
          <button data-act="cancel" data-id="${esc(c.id)}">Cancel</button></li>`
      : `<li>${esc(c.from)} challenges you: ${esc(c.time_control)}, ${c.rated ? "rated" : "casual"}
          <button data-act="accept" data-id="${esc(c.id)}">Accept</button>
          <button data-act="decline" data-id="${esc(c.id)}">Decline</button></li>`).join("");
    const games = (s.games || []).filter((g) => !g.on_board).map((g) =>
      `<li>${esc(g.opponent)} (${esc(g.speed)}${g.my_turn ? ", your turn" : ""})
        <button data-act="play" data-id="${esc(g.id)}">Play on the board</button></li>`).join("");
    return {
      account: `<span class="lichess-connection">${esc(CONNECTION[s.connection] ?? s.connection)}</span>${account}`,
      message: esc(s.message || ""),
      login: s.account || s.connection === "connecting" ? ""
        : `<button data-act="login">Log in with Lichess</button>`,
      logout: s.account ? `<button data-act="logout">Log out</button>` : "",
      game: gameHtml(s.game),
      challenges: challenges ? `<ul>${challenges}</ul>` : "",
      games: games ? `<ul>${games}</ul>` : "",
      seeking: s.seeking ? `Seeking… <button data-act="cancel_seek">Cancel</button>` : "",
    };
  }

  function build(root) {
    root.innerHTML = `<h2>Lichess</h2>
      <p data-part="account"></p>
      <p class="lichess-message" role="status" data-part="message"></p>
      <p class="lichess-said" role="alert" data-part="said"></p>
      <div data-part="login"></div>
      <div data-part="game"></div>
      <div data-part="challenges"></div>
      <div data-part="games"></div>
      <form class="lichess-start" aria-label="Start a Lichess game">
        <label>Minutes <input name="minutes" type="number" min="0" max="180" value="10" step="0.25"></label>
        <label>Increment (s) <input name="increment" type="number" min="0" max="60" value="5"></label>
        <label>Days a move <select name="days"><option value="">— (not correspondence)</option>
          ${[1, 2, 3, 5, 7, 10, 14].map((d) => `<option>${d}</option>`).join("")}</select></label>
        <label>Colour <select name="color"><option>random</option><option>white</option><option>black</option></select></label>
        <label>Rules <select name="variant"><option value="standard">Standard</option><option value="chess960">Chess960</option></select></label>
        <label>Player to challenge <input name="username" type="text" autocomplete="off"></label>
        <label>AI level (1-8) <input name="level" type="number" min="1" max="8" value="3"></label>
        <label class="check"><input name="rated" type="checkbox"> rated</label>
        <div class="actions">
          <button data-start="seek">Seek</button>
          <button data-start="challenge">Challenge</button>
          <button data-start="ai">Play the AI</button>
        </div>
      </form>
      <p data-part="seeking"></p>
      <div data-part="logout"></div>`;
    shown = {};
  }

  function render(s) {
    const root = panel();
    if (!root || !s) return;
    if (!root.querySelector("[data-part]")) build(root);  // shown by play.js
    for (const [name, html] of Object.entries(parts(s))) {
      if (shown[name] !== html) {
        part(name).innerHTML = html;
        shown[name] = html;
      }
    }
    tick();
  }

  function follow(state) {
    const s = (state?.player_states || {}).lichess;
    if (!s) return;
    game = s.game;
    receivedAt = performance.now();
    render(s);
    if (!ticker) ticker = setInterval(tick, 250);
  }
  document.addEventListener("magboard-state", (e) => follow(e.detail));
  // board.js loads this file once the daemon has Lichess on: the state as it stands first.
  if (typeof state !== "undefined" && state) follow(state);

  document.addEventListener("click", async (e) => {
    const button = e.target.closest("#lichess button");
    if (!button) return;
    e.preventDefault();
    if (button.dataset.act === "login") {
      const answer = await act("login", { redirect_uri: location.origin + location.pathname });
      if (answer && answer.url) location.assign(answer.url);
    } else if (button.dataset.act) {
      if (button.dataset.act === "resign" && !await confirmStep(
        "Resign on Lichess?", "You lose this online game: a resignation cannot be taken back.",
        "Resign")) return;
      const body = {};
      if (button.dataset.id) body.id = button.dataset.id;
      if (button.dataset.answer) body.answer = button.dataset.answer;
      await act(button.dataset.act, body);
    } else if (button.dataset.start) {
      const form = new FormData(button.form);
      const start = button.dataset.start;
      const body = { color: form.get("color") };
      if (form.get("days")) body.days = Number(form.get("days"));
      else {
        body.minutes = Number(form.get("minutes"));
        body.increment = Number(form.get("increment"));
      }
      if (start !== "ai") body.rated = form.get("rated") === "on";
      body.variant = form.get("variant");
      if (start === "challenge") body.username = form.get("username");
      if (start === "ai") body.level = Number(form.get("level"));
      await act(start, body);
    }
  });

  finishLogin();
})();
