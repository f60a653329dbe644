// magboard's page: the chess clock (docs/web.md, "The clock"). It reads the clock from each
// state the page receives (board.js sends a "magboard-state" event), counts the running
// side down between states, and acts with board.js's send(): /api/clock (pause, resume,
// adjust), /api/options (the time control), /api/button (a clock's side pressed).
//
// "Big clock" fills the screen with the two times, the far one turned to face the other
// player: a phone laid beside the board is the clock. Tapping a side presses that side's
// clock button (with [clock] switch = "buttons"; the board switches it otherwise).
"use strict";

(() => {
  const PRESETS = [
    ["none", "No clock"],
    ["1+0", "1+0 bullet"],
    ["3+0", "3+0 blitz"],
    ["3+2", "3+2 blitz"],
    ["5+0", "5+0 blitz"],
    ["5+3", "5+3 blitz"],
    ["10+0", "10+0 rapid"],
    ["10+5", "10+5 rapid"],
    ["15+10", "15+10 rapid"],
    ["25+10", "25+10 rapid"],
    ["90+30", "90+30 classical"],
    ["40/5400+30:1800+30", "FIDE classical: 90 min / 40 moves, then 30 min, +30 s"],
    ["5+3 delay", "5 min, 3 s simple (US) delay"],
    ["5+2 bronstein", "5 min, 2 s Bronstein delay"],
  ];
  const LOW_MS = 20_000;
  const $ = (id) => document.getElementById(id);
  let clock = null;        // the state's clock, as last received
  let receivedAt = 0;      // performance.now() when it came
  let shownControl = null; // the control the form shows, to leave a user's typing alone
  let ticker = null;

  // 4:59, 1:30:00, and tenths in the last ten seconds (as clock_text in Python).
  function clockText(ms) {
    ms = Math.max(0, Math.floor(ms));
    if (ms < 10_000) return `${Math.floor(ms / 1000)}.${Math.floor((ms % 1000) / 100)}`;
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    const mm = h ? String(m).padStart(2, "0") : String(m);
    return `${h ? h + ":" : ""}${mm}:${String(sec).padStart(2, "0")}`;
  }

  // The time each side has now: the running side counts down from the state's reading,
  // after what is left of a simple delay.
  function timeNow(side) {
    let ms = clock[side + "_ms"];
    if (clock.state === "running" && clock.turn === side) {
      const since = performance.now() - receivedAt;
      ms -= Math.max(0, since - (clock.delay_ms || 0));
    }
    return Math.max(0, ms);
  }

  function tick() {
    if (!clock) return;
    for (const side of ["white", "black"]) {
      const face = document.querySelector(`#clock .clock-face[data-side="${side}"]`);
      if (!face) continue;
      const ms = timeNow(side);
      face.querySelector(".clock-time").textContent = clockText(ms);
      const running = clock.state === "running" && clock.turn === side;
      face.classList.toggle("running", running);
      face.classList.toggle("low", running && ms <= LOW_MS);
      face.classList.toggle("flagged", ms <= 0);
      face.setAttribute("aria-label", `${side}: ${clockText(ms)}${running ? ", running" : ""}`);
    }
  }

  function statusText() {
    const words = {
      waiting: "The clock starts when White's first move is let go (or press Start).",
      running: `${clock.turn === "white" ? "White" : "Black"}'s clock runs.`,
      paused: {
        restart: "Paused: the board restarted; the times are as stored with the last move. Resume, or the next move starts it.",
        set: "Paused: a new time control was set. Resume when ready.",
        takeback: "Paused after a take-back.",
      }[clock.reason] || `Paused${clock.reason ? ` (${clock.reason})` : ""}.`,
      stopped: "The game is over: the clock stands.",
    }[clock.state];
    const switches = clock.switch === "buttons"
      ? " Players press their clock after each move."
      : " The board switches it when a move is let go.";
    const illegal = clock.illegal_move === "fide"
      ? ` Illegal moves: FIDE 7.5.5 (White ${clock.illegal.white}, Black ${clock.illegal.black}).`
      : "";
    return `${clock.describe}. ${words}${clock.state === "stopped" ? "" : switches}${illegal}`;
  }

  function render(state) {
    const panel = $("clock");
    if (!panel) return;
    clock = state.clock;
    receivedAt = performance.now();
    panel.hidden = !clock;
    document.body.classList.toggle("has-clock", Boolean(clock));
    if (!clock) {
      document.body.classList.remove("big-clock");
    } else {
      $("clock-status").textContent = statusText();
      const pause = $("clock-pause");
      pause.textContent = clock.state === "running" ? "Pause" : clock.state === "waiting" ? "Start" : "Resume";
      pause.disabled = clock.state === "stopped";
      $("clock-adjust-button").disabled = clock.state === "stopped";
    }
    const control = state.options.clock;
    if (control !== shownControl) {
      shownControl = control;
      const preset = PRESETS.some(([value]) => value === control);
      $("clock-preset").value = preset ? control : "custom";
      $("clock-custom").value = preset ? "" : control;
    }
    $("clock-switch").value = state.options.clock_switch;
    $("clock-fide").checked = state.options.illegal_move === "fide";
    tick();
  }

  function readTime(text) {
    // m:ss, h:mm:ss or seconds: the time a clock is to show.
    const parts = text.trim().split(":").map(Number);
    if (!parts.length || parts.some((n) => !Number.isFinite(n) || n < 0)) return null;
    return Math.round(parts.reduce((total, n) => total * 60 + n, 0) * 1000);
  }

  function build() {
    const select = $("clock-preset");
    for (const [value, label] of PRESETS) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = label;
      select.appendChild(option);
    }
    const custom = document.createElement("option");
    custom.value = "custom";
    custom.textContent = "Custom…";
    select.appendChild(custom);
    select.addEventListener("change", () => {
      if (select.value === "custom") {
        $("clock-custom").focus();
        return;
      }
      send("options", { clock: select.value });
    });
    $("clock-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const text = $("clock-custom").value.trim();
      if (text) send("options", { clock: text });
    });
    $("clock-switch").addEventListener("change", (e) => send("options", { clock_switch: e.target.value }));
    $("clock-fide").addEventListener("change", (e) => send("options", { illegal_move: e.target.checked ? "fide" : "guide" }));
    $("clock-pause").addEventListener("click", () => {
      if (clock) send("clock", { action: clock.state === "running" ? "pause" : "resume" });
    });
    $("clock-adjust").addEventListener("submit", (e) => {
      e.preventDefault();
      const white = readTime($("clock-white-time").value);
      const black = readTime($("clock-black-time").value);
      if (white === null || black === null) {
        say("Adjust the clock: write each time as m:ss (or h:mm:ss)", true);
        return;
      }
      send("clock", { action: "adjust", white_ms: white, black_ms: black });
    });
    $("clock-big").addEventListener("click", () => {
      document.body.classList.toggle("big-clock");
      $("clock-big").setAttribute("aria-pressed", String(document.body.classList.contains("big-clock")));
    });
    for (const face of document.querySelectorAll("#clock .clock-face")) {
      face.addEventListener("click", () => send("button", { button: `clock_${face.dataset.side}` }));
    }
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape") document.body.classList.remove("big-clock");
    });
    ticker = setInterval(tick, 100);
  }

  document.addEventListener("magboard-state", (e) => render(e.detail));
  document.addEventListener("DOMContentLoaded", build);
})();
