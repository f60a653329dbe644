"""What a hostile board's account publishes on its own topics (board 3's), for the hall's
tests: the records of issue 23's attack and their neighbours, each with the words the
hall's log gives for it, and a mutator that damages a good record at random."""

from __future__ import annotations

import json
import random

import rules
from board_driver.connectors.broadcast.record import GameRecord


def record_of(board: int, game: int, sans: list[str], revision: int = 1, **fields) -> GameRecord:
    """A board's record of ``sans`` from the start position, as a board builds it."""
    played = rules.Game()
    ucis = [played.push_san(san).uci() for san in sans]
    return GameRecord(board=board, game=game, revision=revision, moves=tuple(played.san_moves()),
                      ucis=tuple(ucis), fen=played.position.fen(), **fields)


FORGED_GAME = '"]\n\n[Event "Forged"]\n[Board "2"]\n[White "Mallory"]\n\n1. e4 *\n\n[Event "x'
HOSTILE = {
    # The issue's attack, and its neighbours: (payload for board 3's game 1, what the log says).
    "brackets 990 deep": ("[" * 990 + "]" * 990, "nested deeper"),
    "brackets 100000 deep": ("[" * 100_000 + "]" * 100_000, "nested deeper"),
    "objects nested in headers": (json.dumps({"board": 3, "game": 1, "headers": {"a": {"b": {}}}}),
                                  "headers"),
    "brackets in strings and deep": (
        json.dumps({"board": 3, "game": 1, "headers": {"Event": "]]]]}}}}" * 10}})[:-2]
        + "[" * 20 + "]" * 20 + "}}", "nested deeper"),
    "a header name that forges a game": (
        json.dumps({"board": 3, "game": 1, "headers": {FORGED_GAME: "x"}}), "not a PGN tag name"),
    "a header value that forges a game": (
        json.dumps({"board": 3, "game": 1, "headers": {"White": FORGED_GAME}}),
        "not a header value"),
    "a move that forges a game": (
        json.dumps({"board": 3, "game": 1, "moves": ["e4" + FORGED_GAME], "ucis": ["e2e4"]}),
        "not a move in SAN"),
    "a uci that forges a game": (
        json.dumps({"board": 3, "game": 1, "moves": ["e4"], "ucis": ["e2e4\n[Board"]}),
        "not a move in UCI"),
    "a move counter of 5000 nines": (
        json.dumps({"board": 3, "game": 1,
                    "start_fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 " + "9" * 5000,
                    "fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 " + "9" * 5000}), "not a FEN"),
    "a move counter of 99 digits": (
        json.dumps({"board": 3, "game": 1, "start_fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 " + "9" * 60,
                    "fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 " + "9" * 60}), "fullmove"),
    "a superscript move counter": (
        json.dumps({"board": 3, "game": 1, "start_fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 ²",
                    "fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 ²"}), "not a FEN"),
    "a position that cannot be": (
        json.dumps({"board": 3, "game": 1, "start_fen": "8/8/8/8/8/8/8/K7 w - - 0 1",
                    "fen": "8/8/8/8/8/8/8/K7 w - - 0 1"}), "start_fen"),
    "a 20 MB record": (
        json.dumps({"board": 3, "game": 1, "headers": {"Annotator": "x" * 20_000_000}}),
        "more than a record's"),
    "SAN that is no move": (
        json.dumps({"board": 3, "game": 1, "moves": ["Qxz9"], "ucis": ["d1h5"]}),
        "not a move in SAN"),
    "an illegal move": (
        json.dumps({"board": 3, "game": 1, "moves": ["Qh5"], "ucis": ["d1h5"],
                    "fen": "rnbqkbnr/pppppppp/8/7Q/8/8/PPPPPPPP/RNB1KBNR b KQkq - 1 1"}),
        "is not legal"),
    "SAN and UCI that disagree": (
        json.dumps({"board": 3, "game": 1, "moves": ["e4"], "ucis": ["d2d4"]}), "which is d4"),
    "a position that is not the moves'": (
        json.dumps({"board": 3, "game": 1, "moves": ["e4"], "ucis": ["e2e4"]}),
        "not the position after the moves"),
    "another board's number": (record_of(2, 1, ["e4"]).to_json(), "names board 2"),
    "the record's own headers": (
        json.dumps({"board": 3, "game": 1, "headers": {"Board": "2"}}), "the record's own"),
    "a result that is none": (json.dumps({"board": 3, "game": 1, "result": "2-0"}), "result"),
    "a termination that is none": (
        json.dumps({"board": 3, "game": 1, "termination": "<script>"}), "termination"),
    "clocks that are not": (json.dumps({"board": 3, "game": 1, "clocks": {"white": "1"}}),
                            "clocks"),
    "a revision past the page's integers": (
        json.dumps({"board": 3, "game": 1, "revision": 2**60}), "revision"),
    "a boolean board": (json.dumps({"board": True, "game": 1}), "board"),
    "not UTF-8": (b'{"board": 3, "game": 1, "headers": {"White": "\xff"}}', "not UTF-8"),
    "not JSON": ("{'board': 3}", "not JSON"),
    "a list": ("[1, 2]", "not a JSON object"),
    "NaN for a game": ('{"board": 3, "game": NaN}', "game"),
}


def mutated(text: str, rng: random.Random) -> bytes:
    """``text`` damaged a few times: bytes changed, cut, or text that breaks lines and
    quotes put in."""
    data = bytearray(text.encode())
    for _ in range(rng.randint(1, 6)):
        kind = rng.random()
        at = rng.randrange(len(data))
        if kind < 0.4:
            data[at] = rng.randrange(256)
        elif kind < 0.6:
            del data[at : at + rng.randint(1, 8)]
        elif kind < 0.8:
            data[at:at] = rng.choice([b"\n", b'"', b"]", b"[", b"{", b"\\", b"9" * 40, b"\x00",
                                      b'\\n[Event "x"]', "²".encode(), b"\xe2\x80\xa8"])
        else:
            chunk = data[at : at + rng.randint(1, 30)]
            data[at:at] = chunk
    return bytes(data)
