// magboard's chess pieces (pieces.svg, drawn for magboard), shared by the board's page and
// the hall's: each piece is a small <svg> showing a symbol of the set, so it is crisp at
// any size. A symbol's body takes the fill and stroke given here, its details the colour:
// dark lines on the white pieces, light lines on the black ones.
"use strict";

const MagboardPieces = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const SET = "/static/pieces.svg";
  const PAINT = {
    white: { fill: "#ffffff", stroke: "#1b1b1b", color: "#1b1b1b" },
    black: { fill: "#2a2623", stroke: "#111111", color: "#ece6da" },
  };

  // Show ``letter`` (FEN: "Q" a white queen, "q" a black one, "." none) in ``svg``.
  function show(svg, letter) {
    const use = svg.firstChild;
    if (!letter || letter === ".") {
      svg.setAttribute("class", "piece");
      use.removeAttribute("href");
      svg.dataset.letter = ".";
      return;
    }
    const side = letter === letter.toUpperCase() ? "white" : "black";
    svg.setAttribute("class", "piece " + side);
    for (const [name, value] of Object.entries(PAINT[side])) svg.setAttribute(name, value);
    use.setAttribute("href", `${SET}#piece-${letter.toLowerCase()}`);
    svg.dataset.letter = letter;
  }

  // A new piece: <svg class="piece white" viewBox="0 0 45 45"><use href="...#piece-q"/></svg>.
  function element(letter) {
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 45 45");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    svg.appendChild(document.createElementNS(NS, "use"));
    show(svg, letter);
    return svg;
  }

  // A FEN's pieces as 64 letters, a1 first ("." for an empty square).
  function fromFen(fen) {
    const squares = new Array(64).fill(".");
    fen.split(" ")[0].split("/").forEach((row, r) => {
      let file = 0;
      for (const ch of row) {
        if (/\d/.test(ch)) file += Number(ch);
        else squares[(7 - r) * 8 + file++] = ch;
      }
    });
    return squares.join("");
  }

  return { element, show, fromFen };
})();
