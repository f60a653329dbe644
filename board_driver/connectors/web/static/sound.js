// magboard's page: the sounds of a move, a capture, a check and a game's end, made here
// with the Web Audio API (no sound file is loaded), and the button that mutes them (kept
// in the browser). Each sound played is noted on the button (data-played: its name and a
// count), so that what was heard can be checked.
"use strict";

(() => {
  let context = null;
  let muted = localStorage.getItem("magboard-sound") === "off";
  let played = 0;

  // Browsers start sound only after a gesture on the page: the first click or key opens it.
  function open() {
    if (!context && window.AudioContext) context = new AudioContext();
    if (context && context.state === "suspended") context.resume();
    return context;
  }

  // A short burst of noise through a band-pass: the knock of a piece set down.
  function knock(at, length, pitch, volume) {
    const ctx = context;
    const samples = Math.floor(ctx.sampleRate * length);
    const buffer = ctx.createBuffer(1, samples, ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < samples; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / samples) ** 3;
    const source = ctx.createBufferSource();
    source.buffer = buffer;
    const filter = ctx.createBiquadFilter();
    filter.type = "bandpass";
    filter.frequency.value = pitch;
    filter.Q.value = 1.2;
    const gain = ctx.createGain();
    gain.gain.value = volume;
    source.connect(filter).connect(gain).connect(ctx.destination);
    source.start(ctx.currentTime + at);
  }

  // A plain tone that fades: check and the end of a game.
  function tone(at, length, frequency, volume) {
    const ctx = context;
    const oscillator = ctx.createOscillator();
    oscillator.type = "triangle";
    oscillator.frequency.value = frequency;
    const gain = ctx.createGain();
    const t = ctx.currentTime + at;
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(volume, t + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
    oscillator.connect(gain).connect(ctx.destination);
    oscillator.start(t);
    oscillator.stop(t + length + 0.02);
  }

  const SOUNDS = {
    move: () => knock(0, 0.08, 900, 1.6),
    capture: () => { knock(0, 0.07, 700, 1.8); knock(0.06, 0.09, 1100, 1.4); },
    check: () => { knock(0, 0.08, 900, 1.4); tone(0.02, 0.18, 880, 0.12); tone(0.14, 0.22, 1175, 0.12); },
    end: () => { tone(0, 0.5, 523, 0.1); tone(0.12, 0.5, 659, 0.1); tone(0.24, 0.7, 784, 0.1); },
  };

  function play(name) {
    if (muted || !open() || context.state !== "running") return;
    SOUNDS[name]();
    played++;
    $("sound-toggle").dataset.played = `${name} ${played}`;
  }

  // The sound of a batch of events: the game's end over a check over a capture over a move.
  function soundOf(events) {
    const kinds = new Set();
    for (const e of events) {
      if (e.type === "game_over") kinds.add("end");
      else if (e.type === "move" || e.type === "takeback") {
        kinds.add(/[+#]$/.test(e.san || "") ? "check" : e.captured ? "capture" : "move");
      }
    }
    return ["end", "check", "capture", "move"].find((name) => kinds.has(name));
  }

  function show() {
    const button = $("sound-toggle");
    button.setAttribute("aria-pressed", String(!muted));
    button.title = muted ? "Sounds off: click to hear moves" : "Sounds on: click to mute";
  }

  document.addEventListener("magboard-events", (e) => {
    const name = soundOf(e.detail);
    if (name) play(name);
  });
  document.addEventListener("DOMContentLoaded", () => {
    show();
    $("sound-toggle").addEventListener("click", () => {
      muted = !muted;
      localStorage.setItem("magboard-sound", muted ? "off" : "on");
      show();
    });
    for (const kind of ["pointerdown", "keydown"]) {
      document.addEventListener(kind, () => { if (!muted) open(); }, { passive: true });
    }
  });
})();
