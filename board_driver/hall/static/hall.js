// The hall's page: every board of the round, live over Server-Sent Events (/api/events).
"use strict";

const FILES = "abcdefgh";
const hall = { round: null, rounds: [], games: new Map(), boards: {}, bad: {}, link: null,
  source: null };

function $(id) { return document.getElementById(id); }

function params() {
  const p = new URLSearchParams(location.search);
  return { round: p.get("round"), board: p.get("board"), game: p.get("game") };
}

// A board as 64 squares from a FEN, rank 8 first; the last move's squares marked.
function drawBoard(element, fen, lastMove) {
  const marked = lastMove ? [lastMove.slice(0, 2), lastMove.slice(2, 4)] : [];
  const rows = fen.split(" ")[0].split("/");
  const squares = [];
  rows.forEach((row, r) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) {
        for (let i = 0; i < Number(ch); i++) squares.push([r, file++, null]);
      } else {
        squares.push([r, file++, ch]);
      }
    }
  });
  element.replaceChildren(...squares.map(([r, f, piece]) => {
    const square = document.createElement("div");
    const name = FILES[f] + (8 - r);
    square.className = ((r + f) % 2 === 0 ? "l" : "d") + (marked.includes(name) ? " last" : "");
    if (piece) square.appendChild(MagboardPieces.element(piece));  // the board page's set
    square.title = name;
    return square;
  }));
}

function key(game) { return `${game.board}/${game.game}`; }

// 4:59, 1:30:00, 9.8: a clock's time as the board's clock shows it.
function clockText(ms) {
  if (ms < 10000) return `${Math.floor(ms / 1000)}.${Math.floor((ms % 1000) / 100)}`;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

// The clocks after the last move, the side to move's marked (while the game goes on).
function clockLine(game) {
  if (!game.clocks) return "";
  const turn = game.fen.split(" ")[1] === "w" ? "white" : "black";
  const mark = (side) => game.result === "*" && turn === side ? "▶ " : "";
  return `${mark("white")}${clockText(game.clocks.white)} · ${mark("black")}${clockText(game.clocks.black)}`;
}

function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

// A card's title: the board's number, its dot (online or offline), its result, and
// "bad data" when what its account published cannot be used.
function cardTitle(board, status, result) {
  const title = element("h2");
  title.append(element("span", "", `Board ${board}`));
  const state = element("span");
  const online = (hall.boards[String(board)] || status) === "online";
  const dot = element("span", "dot" + (online ? "" : " offline"));
  dot.title = online ? "online" : "offline";
  state.append(dot);
  const why = hall.bad[String(board)];
  if (why) {
    const bad = element("span", "bad", " bad data");
    bad.title = why;
    state.append(bad);
  }
  if (result && result !== "*") state.append(element("span", "result", " " + result));
  title.append(state);
  return title;
}

function card(game) {
  const link = element("a", "card");
  link.href = `?round=${encodeURIComponent(hall.round)}&board=${game.board}&game=${game.game}`;
  link.dataset.key = key(game);
  link.addEventListener("click", (event) => {
    event.preventDefault();
    history.pushState(null, "", link.href);
    show();
  });
  const board = element("div", "board");
  drawBoard(board, game.fen, game.last_move);
  const last = game.plies
    ? `${Math.ceil(game.plies / 2)}${game.plies % 2 ? "." : "..."} ${game.last_san}`
    : "not started";
  const clocks = element("p", "clocks", clockLine(game));
  clocks.hidden = !game.clocks;
  link.append(cardTitle(game.board, game.status, game.result), board,
    element("p", "players", `${game.white} – ${game.black}`), clocks, element("p", "last-move", last));
  link.style.setProperty("--size", "180px");
  return link;
}

// A board with no game to show, only records that cannot be used.
function badCard(board) {
  const shown = element("div", "card broken");
  shown.dataset.key = `${board}/bad`;
  shown.append(cardTitle(board, "offline", null),
    element("p", "why", `What board ${board} published cannot be used: ${hall.bad[board]}`));
  return shown;
}

function drawLink() {
  let text = "live";
  if (hall.link && hall.link.problem) text = hall.link.problem;
  else if (hall.link && hall.link.broker === false) text = "the broker is unreachable";
  $("link").textContent = text;
  $("link").classList.toggle("down", text !== "live");
}

function drawGrid() {
  const games = [...hall.games.values()].sort((a, b) => a.board - b.board || a.game - b.game);
  const shown = new Set(games.map((g) => String(g.board)));
  const broken = Object.keys(hall.bad).filter((b) => !shown.has(b)).map(badCard);
  $("grid").replaceChildren(...games.map(card), ...broken);
  $("empty").hidden = games.length + broken.length > 0;
  $("pgn-link").href = `/round-${encodeURIComponent(hall.round)}/games.pgn`;
  const select = $("round");
  select.replaceChildren(...hall.rounds.map((r) => new Option(r, r, false, r === hall.round)));
}

async function drawOne(board, game) {
  const answer = await fetch(`/api/game/${board}/${game}`);
  if (!answer.ok) {
    $("one-title").textContent = `Board ${board}: no game ${game}`;
    return;
  }
  const data = await answer.json();
  drawBoard($("big"), data.fen, data.last_move);
  $("one-title").textContent = `Board ${data.board}, round ${data.round}`;
  $("one-players").textContent = `${data.white} – ${data.black}  (${data.event})`;
  const clocks = $("one-clocks");
  if (clocks) {
    clocks.textContent = data.clocks ? `Clocks: ${clockLine(data)}  (${data.time_control || ""})` : "";
    clocks.hidden = !data.clocks;
  }
  const ending = { timeout: data.result === "1/2-1/2" ? "timeout vs insufficient material" : "time forfeit",
    rules_infraction: "second illegal move" }[data.termination];
  $("one-result").textContent = data.result === "*" ? "in play" :
    `${data.result}${data.termination ? " (" + (ending || data.termination.replace(/_/g, " ")) + ")" : ""}`;
  const items = [];
  for (let i = 0; i < data.moves.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = data.moves.slice(i, i + 2).join(" ");
    items.push(li);
  }
  $("one-moves").replaceChildren(...items);
  $("one-pgn").href = `data:application/x-chess-pgn;charset=utf-8,${encodeURIComponent(data.pgn)}`;
  $("one-pgn").download = `board-${data.board}-game-${data.game}.pgn`;
}

function show() {
  const p = params();
  if (p.round && p.round !== hall.round) { connect(p.round); return; }
  const one = p.board && p.game;
  $("one").hidden = !one;
  $("grid").hidden = !!one;
  if (one) drawOne(p.board, p.game);
}

function connect(round) {
  if (hall.source) hall.source.close();
  const url = "/api/events" + (round ? `?round=${encodeURIComponent(round)}` : "");
  const source = new EventSource(url);
  hall.source = source;
  source.addEventListener("state", (event) => {
    const state = JSON.parse(event.data);
    hall.round = state.round;
    hall.rounds = state.rounds;
    hall.boards = state.boards;
    hall.bad = state.bad || {};
    hall.link = state.hall || null;
    hall.games = new Map(state.games.map((g) => [key(g), g]));
    drawLink();
    drawGrid();
    show();
  });
  source.addEventListener("games", (event) => {
    const p = params();
    for (const game of JSON.parse(event.data)) {
      if (game.removed) hall.games.delete(key(game)); else hall.games.set(key(game), game);
      if (p.board == game.board && p.game == game.game) drawOne(game.board, game.game);
    }
    drawGrid();
  });
  source.addEventListener("boards", (event) => {
    const boards = JSON.parse(event.data);
    hall.boards = boards.boards;
    hall.bad = boards.bad;
    drawGrid();
  });
  source.addEventListener("hall", (event) => {
    hall.link = JSON.parse(event.data);
    drawLink();
  });
  source.onopen = drawLink;
  source.onerror = () => { $("link").textContent = "reconnecting…"; $("link").classList.add("down"); };
}

$("back").addEventListener("click", (event) => {
  event.preventDefault();
  history.pushState(null, "", `?round=${encodeURIComponent(hall.round)}`);
  show();
});
$("round").addEventListener("change", () => {
  history.pushState(null, "", `?round=${encodeURIComponent($("round").value)}`);
  show();
});
window.addEventListener("popstate", show);
connect(params().round);
