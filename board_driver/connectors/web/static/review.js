// magboard's page: the review of a stored game (docs/web.md, "The review"): the game move by
// move on a small board of its own, the engine's evaluation after each move as a chart, the
// moves that lost the most marked (?! ? ??), the engine's better move on request, and the
// review's progress while the daemon works it out. It uses board.js's $, send, say and
// state; board.js loads it when it is first needed (a game over, a Review button).
"use strict";

const MARK_SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const SVG = "http://www.w3.org/2000/svg";
const CHART_HEIGHT = 110;
const REFETCH_MS = 1500;    // while a review runs, its scores are fetched again at most this often

const review = {
  data: null,    // GET /api/games/<n>/review
  ply: 0,        // the position shown: after this many plies
  better: false, // the engine's better move shown instead of the move played
  cells: [],
  timer: null,
  progress: null,
};

function svgElement(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

function buildReviewBoard() {
  const board = $("review-board");
  for (let rank = 7; rank >= 0; rank--) {
    for (let file = 0; file < 8; file++) {
      const cell = document.createElement("div");
      cell.className = "msq " + ((rank + file) % 2 ? "light" : "dark");
      cell.appendChild(MagboardPieces.element("."));
      board.appendChild(cell);
      review.cells[rank * 8 + file] = cell;
    }
  }
  board.appendChild(svgElement("svg", { class: "arrow", viewBox: "0 0 8 8", "aria-hidden": "true" }));
}

// ---------------------------------------------------------------- words

function moveNumber(ply) {
  const data = review.data;
  const index = ply - 1 + (data.first_side === "black" ? 1 : 0);
  const number = data.first_move + Math.floor(index / 2);
  return index % 2 === 0 ? `${number}.` : `${number}…`;
}

function scoreWords(score) {
  if (!score) return "";
  if (score.mate === 0) return "checkmate";
  if (score.mate !== null) return `${score.mate > 0 ? "White" : "Black"} mates in ${Math.abs(score.mate)}`;
  return `${score.cp > 0 ? "+" : ""}${(score.cp / 100).toFixed(2)}`;
}

function markWords(move) {
  return move.mark ? `${move.mark[0].toUpperCase()}${move.mark.slice(1)}` : "";
}

// ---------------------------------------------------------------- drawing

function drawReviewBoard() {
  const data = review.data;
  const move = data.moves[review.ply - 1];
  const before = review.ply > 1 ? data.moves[review.ply - 2].fen : data.start_fen;
  const showBetter = review.better && move && move.best;
  const fen = showBetter ? before : move ? move.fen : data.start_fen;
  const letters = MagboardPieces.fromFen(fen);
  const marked = showBetter ? [move.best.slice(0, 2), move.best.slice(2, 4)]
    : move ? [move.uci.slice(0, 2), move.uci.slice(2, 4)] : [];
  for (let sq = 0; sq < 64; sq++) {
    const cell = review.cells[sq];
    MagboardPieces.show(cell.firstChild, letters[sq]);
    cell.classList.toggle("moved", !showBetter && marked.includes(squareName(sq)));
    cell.classList.toggle("better", !!showBetter && marked.includes(squareName(sq)));
  }
  const arrow = $("review-board").querySelector(".arrow");
  arrow.replaceChildren();
  if (showBetter) {
    const at = (name) => [FILES.indexOf(name[0]) + 0.5, 8 - Number(name[1]) + 0.5];
    const [x1, y1] = at(move.best.slice(0, 2));
    const [x2, y2] = at(move.best.slice(2, 4));
    const length = Math.hypot(x2 - x1, y2 - y1);
    const [ux, uy] = [(x2 - x1) / length, (y2 - y1) / length];
    const [bx, by] = [x2 - ux * 0.45, y2 - uy * 0.45];  // the head's base
    arrow.appendChild(svgElement("line", { x1, y1, x2: bx, y2: by, class: "shaft" }));
    arrow.appendChild(svgElement("polygon", {
      class: "head",
      points: `${x2},${y2} ${bx - uy * 0.28},${by + ux * 0.28} ${bx + uy * 0.28},${by - ux * 0.28}`,
    }));
  }
  $("review-board").setAttribute("aria-label", `The position ${showBetter ? "before" : "after"} ` +
    (move ? `${moveNumber(review.ply)} ${move.san}` : "the first move") +
    (showBetter ? `, with the engine's move ${move.best_san} drawn as an arrow` : ""));
}

function drawCaption() {
  const data = review.data;
  const move = data.moves[review.ply - 1];
  const better = $("review-better");
  const canBetter = !!(move && move.best && move.best !== move.uci);
  better.hidden = !canBetter;
  if (!canBetter) review.better = false;
  better.setAttribute("aria-pressed", String(review.better));
  better.textContent = review.better ? "The move played" : `Better move: ${canBetter ? move.best_san : ""}`;
  let text;
  if (!move) {
    text = `The start position${data.start ? `: ${scoreWords(data.start)}` : ""}`;
  } else if (review.better) {
    text = `Instead of ${moveNumber(review.ply)} ${move.san}${MARK_SYMBOL[move.mark] || ""}, ` +
      `the engine plays ${move.best_san}.`;
  } else {
    text = `${moveNumber(review.ply)} ${move.san}${MARK_SYMBOL[move.mark] || ""}`;
    if (move.mark) text += ` ${markWords(move)}: ${move.best_san} was best.`;
    if (move.score) text += ` Evaluation: ${scoreWords(move.score)}.`;
  }
  $("review-caption").textContent = text;
}

function drawMoves() {
  const list = $("review-moves");
  // Built again only when the moves or their marks change (a focused move keeps its focus).
  const key = `${review.data.game}:` + review.data.moves.map((m) => m.san + (m.mark || "")).join(" ");
  if (list.dataset.key === key) {
    for (const button of list.querySelectorAll("button")) {
      if (Number(button.dataset.ply) === review.ply) button.setAttribute("aria-current", "step");
      else button.removeAttribute("aria-current");
    }
    return;
  }
  list.dataset.key = key;
  list.replaceChildren();
  let li = null;
  review.data.moves.forEach((move) => {
    const number = moveNumber(move.ply);
    if (!li || number.endsWith(".")) {
      li = document.createElement("li");
      li.insertAdjacentHTML("beforeend", `<span class="num">${number.replace("…", ".")}</span>`);
      if (number.endsWith("…")) li.insertAdjacentHTML("beforeend", '<span class="skip">…</span>');
      list.appendChild(li);
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "rply" + (move.mark ? ` mark-${move.mark}` : "");
    button.dataset.ply = move.ply;
    button.textContent = move.san + (MARK_SYMBOL[move.mark] || "");
    button.setAttribute("aria-label", `${number} ${move.san}${move.mark ? `, ${move.mark}` : ""}`);
    if (move.ply === review.ply) button.setAttribute("aria-current", "step");
    button.addEventListener("click", () => showPly(move.ply));
    li.appendChild(button);
  });
}

// The evaluation as White's win percentage after each ply (Lichess's scale): White's share
// filled light from the bottom, the marked moves as dots, the position shown as a line.
function drawChart() {
  const chart = $("review-chart");
  const data = review.data;
  const width = Math.max(120, $("review-chart-box").clientWidth);
  chart.setAttribute("viewBox", `0 0 ${width} ${CHART_HEIGHT}`);
  chart.setAttribute("width", width);
  chart.setAttribute("height", CHART_HEIGHT);
  chart.replaceChildren();
  const count = data.moves.length;
  const x = (ply) => (count ? (ply / count) * (width - 8) + 4 : width / 2);
  const y = (win) => CHART_HEIGHT - 4 - (win / 100) * (CHART_HEIGHT - 8);
  const wins = [data.start, ...data.moves.map((m) => m.score)].map((s) => (s ? s.win : null));
  chart.appendChild(svgElement("rect", { class: "black-share", x: 0, y: 0, width, height: CHART_HEIGHT }));
  // The reviewed stretch from the start (a review fills in from the first position on).
  let known = 0;
  while (known < wins.length && wins[known] !== null) known++;
  if (known > 0) {
    const points = wins.slice(0, known).map((w, ply) => `${x(ply).toFixed(1)},${y(w).toFixed(1)}`);
    const area = `${x(0).toFixed(1)},${CHART_HEIGHT} ${points.join(" ")} ${x(known - 1).toFixed(1)},${CHART_HEIGHT}`;
    chart.appendChild(svgElement("polygon", { class: "white-share", points: area }));
    chart.appendChild(svgElement("polyline", { class: "line", points: points.join(" ") }));
  }
  chart.appendChild(svgElement("line", { class: "middle", x1: 0, x2: width, y1: y(50), y2: y(50) }));
  chart.appendChild(svgElement("line", {
    class: "cursor", x1: x(review.ply), x2: x(review.ply), y1: 0, y2: CHART_HEIGHT,
  }));
  const counts = { inaccuracy: 0, mistake: 0, blunder: 0 };
  for (const move of data.moves) {
    if (!move.mark || wins[move.ply] === null) continue;
    counts[move.mark]++;
    const dot = svgElement("circle", {
      class: `mark mark-${move.mark}`, cx: x(move.ply), cy: y(wins[move.ply]), r: 4.5,
    });
    dot.appendChild(svgElement("title", {})).textContent = `${moveNumber(move.ply)} ${move.san}: ${move.mark}`;
    chart.appendChild(dot);
  }
  chart.setAttribute("aria-label", `The evaluation after each move, White's chances up: ` +
    `${counts.inaccuracy} inaccuracies, ${counts.mistake} mistakes, ${counts.blunder} blunders`);
  chart.dataset.reviewed = String(known);
}

function drawStatus() {
  const data = review.data;
  const progressBar = $("review-progress");
  const start = $("review-start");
  const progress = review.progress && review.progress.game === data.game ? review.progress : data.progress;
  const total = data.moves.length + 1;
  let text = "";
  let running = false;
  let offer = false;
  if (data.hidden) {
    text = data.hidden;
  } else if (!data.reviews) {
    text = "Reviews are off in this daemon ([engine] review = \"off\").";
  } else if (progress && progress.status === "running") {
    running = true;
    progressBar.max = progress.total || total;
    progressBar.value = progress.done;
    text = `The engine reviews the game: ${progress.done} of ${progress.total || total} positions`;
  } else if (data.reviewed === total) {
    text = `Reviewed by ${data.engine || "the engine"} (${data.limit || "its budget"} per position)`;
  } else if (data.result === "*") {
    text = "This game is not over: the engine reviews it when it is.";
  } else if (progress && progress.status === "scheduled") {
    text = "The engine starts its review of this game in a moment…";
  } else {
    offer = true;
    if (progress && ["stopped", "failed"].includes(progress.status)) {
      text = `The review stopped (${progress.reason}); ${data.reviewed} of ${total} positions are reviewed.`;
    } else {
      text = data.reviewed ? `${data.reviewed} of ${total} positions are reviewed.` : "Not reviewed yet.";
    }
  }
  progressBar.hidden = !running;
  progressBar.setAttribute("aria-label", "The review's progress");
  start.hidden = !offer;
  $("review-state").textContent = text;
}

function renderReview() {
  const data = review.data;
  const over = data.result === "*" ? "not over" : data.result;
  $("review-title").textContent = `Review of game ${data.game} (${over})`;
  const named = data.white !== "?" || data.black !== "?";
  $("review-players").textContent = named ? `${data.white} – ${data.black}` : "";
  $("review-pgn").href = `/games/${data.game}.pgn`;
  $("review-pgn-evals").href = `/games/${data.game}.pgn?evals=1`;
  $("review-pgn-evals").hidden = !data.reviewed || !!data.hidden;
  drawMoves();
  drawReviewBoard();
  drawCaption();
  drawChart();
  drawStatus();
}

function showPly(ply) {
  if (!review.data) return;
  review.ply = Math.max(0, Math.min(review.data.moves.length, ply));
  review.better = false;
  renderReview();
  const current = $("review-moves").querySelector("[aria-current]");
  if (current) current.scrollIntoView({ block: "nearest" });
}

// ---------------------------------------------------------------- loading

async function openReview(gameId, byHand = false) {
  let data;
  try {
    const answer = await fetch(`/api/games/${gameId}/review`);
    data = await answer.json();
    if (!answer.ok) throw new Error(data.error || answer.statusText);
  } catch (err) {
    say(`The review of game ${gameId} cannot be shown: ${err.message}`, true);
    return;
  }
  const same = review.data && review.data.game === data.game;
  const atEnd = !same || review.ply === review.data.moves.length;
  review.data = data;
  if (atEnd) review.ply = data.moves.length;  // a new game shown from its end
  if (!same) review.better = false;
  $("review").hidden = false;
  renderReview();
  if (byHand) {
    $("review").scrollIntoView({ block: "start" });
    $("review-title").focus();
  }
}

function refetchSoon() {
  if (review.timer || !review.data) return;
  review.timer = setTimeout(() => {
    review.timer = null;
    if (review.data && !$("review").hidden) openReview(review.data.game);
  }, REFETCH_MS);
}

function wireReview() {
  buildReviewBoard();
  $("review-title").tabIndex = -1;
  $("review-close").addEventListener("click", () => { $("review").hidden = true; review.data = null; });
  $("review-first").addEventListener("click", () => showPly(0));
  $("review-back").addEventListener("click", () => showPly(review.ply - 1));
  $("review-next").addEventListener("click", () => showPly(review.ply + 1));
  $("review-last").addEventListener("click", () => showPly(Infinity));
  $("review-better").addEventListener("click", () => {
    review.better = !review.better;
    drawReviewBoard();
    drawCaption();
  });
  $("review-start").addEventListener("click", async () => {
    const answer = await send("player/engine/review", { game: review.data.game });
    if (answer.ok) openReview(review.data.game);
  });
  $("review").addEventListener("keydown", (e) => {
    if (!review.data || e.target.closest("input, select, textarea")) return;
    const to = { ArrowLeft: review.ply - 1, ArrowRight: review.ply + 1, Home: 0, End: Infinity }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    showPly(to);
  });
  $("review-chart").addEventListener("click", (e) => {
    if (!review.data) return;
    const box = $("review-chart").getBoundingClientRect();
    showPly(Math.round(((e.clientX - box.left - 4) / (box.width - 8)) * review.data.moves.length));
  });
  new ResizeObserver(() => { if (review.data) drawChart(); }).observe($("review-chart-box"));

  let first = true;
  const follow = (s) => {
    const engine = (s.player_states || {}).engine;
    const progress = engine && engine.review;
    const before = review.progress;
    review.progress = progress || null;
    if (first) {  // a finished game on the board is shown with its review at once
      first = false;
      if (s.result !== "*" && s.moves.length) openReview(s.game_id);
    }
    if (!review.data || $("review").hidden || !progress || progress.game !== review.data.game) return;
    drawStatus();
    const changed = !before || before.done !== progress.done || before.status !== progress.status;
    if (changed && progress.status === "running") refetchSoon();
    else if (changed) openReview(review.data.game);
  };
  document.addEventListener("magboard-state", (e) => follow(e.detail));
  if (state) follow(state);  // loaded after the page: the state as it stands
  document.addEventListener("magboard-events", (e) => {
    for (const event of e.detail) {
      if (event.type === "game_over" && event.game_id) openReview(event.game_id);
    }
  });
}

// Loaded by board.js when first needed (a game over, a Review button): wired at once.
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wireReview);
else wireReview();
