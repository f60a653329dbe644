// magboard's page: the chess clock (docs/web.md, "The clock"). It reads the clock from each
// state the page receives (board.js sends a "magboard-state" event), counts the running
// side down between states in the players' strips, and acts with board.js's send():
// /api/clock (pause, resume, adjust), /api/button (a clock's side pressed). The time
// control is chosen on the start screen (play.js).
//
// "Big clock" fills the screen with the two times, the far one turned to face the other
// player: a phone laid beside the board is the clock. Tapping a side presses that side's
// clock button (with [clock] switch = "buttons"; the board switches it otherwise).
"use strict";

(() => {
  const LOW_MS = 20_000;
  const $ = (id) => document.getElementById(id);
  let clock = null;        // the state's clock, as last received
  let receivedAt = 0;      // performance.now() when it came
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
      const face = document.querySelector(`.strip .clock-face[data-side="${side}"]`);
      if (!face) continue;
      const ms = timeNow(side);
      face.querySelector(".clock-time").textContent = clockText(ms);
      const running = clock.state === "running" && clock.turn === side;
      face.classList.toggle("running", running);
      face.classList.toggle("low", running && ms <= LOW_MS);
      face.classList.toggle("flagged", ms <= 0 && clock.state !== "waiting");
      face.setAttribute("aria-label", `${side === "white" ? "White" : "Black"}'s clock: ${clockText(ms)}${running ? ", running" : ""}`);
    }
  }

  function statusText() {
    const words = {
      waiting: clock.reason === "setup"
        ? "It starts once the pieces stand and White's first move is let go."
        : "The clock starts when White's first move is let go (or press Start).",
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
    const control = clock.describe.charAt(0).toUpperCase() + clock.describe.slice(1);
    return `${control}. ${words}${clock.state === "stopped" ? "" : switches}${illegal}`;
  }

  function render(state) {
    clock = state.clock;
    receivedAt = performance.now();
    $("clock-bar").hidden = !clock;
    for (const face of document.querySelectorAll(".strip .clock-face")) face.hidden = !clock;
    document.body.classList.toggle("has-clock", Boolean(clock));
    if (!clock) {
      document.body.classList.remove("big-clock");
      return;
    }
    $("clock-status").textContent = statusText();
    document.querySelector("#clock-bar .clock-controls").hidden = clock.state === "stopped";
    const pause = $("clock-pause");
    pause.textContent = clock.state === "running" ? "Pause" : clock.state === "waiting" ? "Start" : "Resume";
    pause.disabled = clock.state === "stopped" || clock.reason === "setup";
    $("clock-adjust-button").disabled = clock.state === "stopped" || clock.reason === "setup";
    tick();
  }

  function readTime(text) {
    // m:ss, h:mm:ss or seconds: the time a clock is to show.
    const parts = text.trim().split(":").map(Number);
    if (!parts.length || parts.some((n) => !Number.isFinite(n) || n < 0)) return null;
    return Math.round(parts.reduce((total, n) => total * 60 + n, 0) * 1000);
  }

  function build() {
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
    for (const face of document.querySelectorAll(".strip .clock-face")) {
      face.addEventListener("click", () => {
        if (clock && clock.switch === "buttons") send("button", { button: `clock_${face.dataset.side}` });
      });
    }
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && document.body.classList.contains("big-clock")) {
        document.body.classList.remove("big-clock");
        $("clock-big").setAttribute("aria-pressed", "false");
      }
    });
    ticker = setInterval(tick, 100);
  }

  document.addEventListener("magboard-state", (e) => render(e.detail));
  document.addEventListener("DOMContentLoaded", build);
})();
