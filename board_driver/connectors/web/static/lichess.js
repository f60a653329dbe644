// magboard's page: the Lichess panel (docs/lichess.md). It reads the player's state from
// each state the page receives (board.js sends a "magboard-state" event) and calls the
// player's actions with POST /api/player/lichess/<action> and the page's token.
"use strict";

(() => {
  const panel = () => document.getElementById("lichess");
  let shown = null;         // the lichess state last drawn
  let receivedAt = 0;       // performance.now() when it came
  let ticker = null;

  const token = () => localStorage.getItem("magboard-token") || "";
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  async function act(action, body = {}) {
    const response = await fetch("/api/player/lichess/" + action, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + token() },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      say(answer.error || answer.message || `Lichess: ${action} failed (${response.status})`);
      return null;
    }
    return answer;
  }

  function say(text) {
    const line = panel()?.querySelector(".lichess-message");
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
    const clock = shown?.game?.clock;
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
    if (g.opponent_gone) offers.push(`<button data-act="claim_victory">Claim victory</button>`);
    const over = !["started", "created"].includes(g.status);
    return `<p><a href="${esc(g.url)}" target="_blank" rel="noopener">${esc(g.id)}</a>:
        ${seat(g.white)} <span class="lichess-clock-white"></span> vs
        ${seat(g.black)} <span class="lichess-clock-black"></span>
        (${esc(g.time_control)}, ${g.rated ? "rated" : "casual"}; you play ${esc(g.color)})
        ${over ? `<strong>${esc(g.status)}</strong>` : ""}
        ${g.sending ? ` sending ${esc(g.sending)}…` : ""}</p>
      ${offers.join(" ")}
      ${over ? "" : `<div class="buttons">
        <button data-act="draw" data-answer="yes">Offer draw</button>
        <button data-act="takeback" data-answer="yes">Propose take-back</button>
        <button data-act="resign">Resign</button>
        <button data-act="abort">Abort</button></div>`}
      ${(g.chat || []).map((c) => `<p class="lichess-chat">${esc(c.username)}: ${esc(c.text)}</p>`).join("")}`;
  }

  function render(s) {
    const root = panel();
    if (!root || !s) return;
    root.hidden = false;
    const account = s.account ? `Logged in as <strong>${esc(s.account.username)}</strong>` : "";
    const challenges = (s.challenges || []).filter((c) => c.direction !== "out").map((c) =>
      `<li>${esc(c.from)} challenges you: ${esc(c.time_control)}, ${c.rated ? "rated" : "casual"}
        <button data-act="accept" data-id="${esc(c.id)}">Accept</button>
        <button data-act="decline" data-id="${esc(c.id)}">Decline</button></li>`).join("");
    const games = (s.games || []).filter((g) => !g.on_board).map((g) =>
      `<li>${esc(g.opponent)} (${esc(g.speed)}${g.my_turn ? ", your turn" : ""})
        <button data-act="play" data-id="${esc(g.id)}">Play on the board</button></li>`).join("");
    root.innerHTML = `<h2>Lichess</h2>
      <p>${esc(s.connection)} ${account}</p>
      <p class="lichess-message" role="status">${esc(s.message || "")}</p>
      ${s.account ? "" : `<button data-act="login">Log in with Lichess</button>`}
      ${gameHtml(s.game)}
      ${challenges ? `<ul>${challenges}</ul>` : ""}
      ${games ? `<ul>${games}</ul>` : ""}
      <form class="lichess-start">
        <label>Minutes <input name="minutes" type="number" min="0" max="180" value="10" step="0.25"></label>
        <label>Increment <input name="increment" type="number" min="0" max="60" value="5"></label>
        <label>Colour <select name="color"><option>random</option><option>white</option><option>black</option></select></label>
        <label><input name="rated" type="checkbox"> rated</label>
        <label>Player <input name="username" type="text" size="12"></label>
        <label>AI level <input name="level" type="number" min="1" max="8" value="3"></label>
        <button data-start="seek">${s.seeking ? "Seeking…" : "Seek"}</button>
        <button data-start="challenge">Challenge</button>
        <button data-start="ai">Play the AI</button>
      </form>`;
    tick();
  }

  document.addEventListener("magboard-state", (e) => {
    const players = e.detail?.player_states || e.detail?.players_state || {};
    const s = players.lichess;
    if (!s) return;
    if (JSON.stringify(s) !== JSON.stringify(shown)) render(s);
    shown = s;
    receivedAt = performance.now();
    if (!ticker) ticker = setInterval(tick, 250);
  });

  document.addEventListener("click", async (e) => {
    const button = e.target.closest("#lichess button");
    if (!button) return;
    e.preventDefault();
    if (button.dataset.act === "login") {
      const answer = await act("login", { redirect_uri: location.origin + location.pathname });
      if (answer && answer.url) location.assign(answer.url);
    } else if (button.dataset.act) {
      const body = {};
      if (button.dataset.id) body.id = button.dataset.id;
      if (button.dataset.answer) body.answer = button.dataset.answer;
      await act(button.dataset.act, body);
    } else if (button.dataset.start) {
      const form = new FormData(button.form);
      const body = { color: form.get("color"), rated: form.get("rated") === "on" };
      body.minutes = Number(form.get("minutes"));
      body.increment = Number(form.get("increment"));
      if (button.dataset.start === "challenge") body.username = form.get("username");
      if (button.dataset.start === "ai") { body.level = Number(form.get("level")); delete body.rated; }
      await act(button.dataset.start, body);
    }
  });

  finishLogin();
})();
