"""A real ``magboard run --sim --script -`` playing on the loopback fake of the Board API.

The test is both people: the one at the board (board-script lines on the daemon's
standard input, as hands would move the pieces) and the opponent on Lichess (the fake's
control methods). What the person at the board would notice is read where they would
notice it: the daemon's log, the page's state (``GET /api/state``), the lights (the
simulated LEDs' file) and the store (``magboard pgn``).
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import chess

from tests.board_driver.connectors.web.daemon import free_port
from tests.board_driver.daemon_process import DaemonProcess, run_magboard, write_config
from tests.board_driver.players.test_engine_daemon import hand_lines

WEB_TOKEN = "pagetoken"
#: "lichess: Bob played e5 (e7e5): play it on the board: e7 to e5"
THEIR_MOVE = re.compile(r"lichess: .+ played (\S+) \((\w+)\): play it on the board")
GAME_ON_BOARD = re.compile(r"lichess: game (\w+) (?:is on the board|resumed on the board)")


class OnlineDaemon(DaemonProcess):
    """The daemon with ``[lichess]`` pointed at ``fake`` and the page on a free port.

    ``lichess`` holds extra ``[lichess]`` lines (a ``token`` line unless ``token`` is
    given: ``token=None`` leaves the token out). The config is written once per directory:
    a restart (a new OnlineDaemon on the same directory) keeps the store and the pieces.
    """

    def __init__(
        self,
        directory: Path,
        fake: Any,
        *,
        token: str | None = "",
        lichess: str = "",
        extra: str = "",
        gap_ms: int = 120,
    ) -> None:
        self.fake = fake
        self.port = free_port()
        token_line = "" if token is None else f'token = "{token or fake.token}"\n'
        write_config(
            directory,
            f'[web]\nport = {self.port}\ntoken = "{WEB_TOKEN}"\n'
            f'[lichess]\nenabled = true\nbase_url = "{fake.base_url}"\n{token_line}{lichess}\n'
            + extra,
        )
        super().__init__(directory)
        self.url = f"http://127.0.0.1:{self.port}/"
        self.wait_ready(timeout=30)
        self.send(f"gap {gap_ms}")
        self.board = chess.Board()

    # ------------------------------------------------------------------ the page

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "api/state", timeout=10) as response:
            return json.load(response)

    def lichess(self) -> dict[str, Any]:
        """The Lichess player's part of the page's state."""
        return self.state()["player_states"]["lichess"]

    def wait_state(self, predicate: Any, timeout: float = 15.0, what: str = "") -> dict:
        deadline = time.monotonic() + timeout
        while True:
            state = self.state()
            if predicate(state):
                return state
            if time.monotonic() > deadline or self.proc.poll() is not None:
                lichess = state["player_states"].get("lichess")
                raise AssertionError(
                    f"the page never showed {what or predicate}; lichess: {lichess}\n"
                    + self.output()[-4000:]
                )
            time.sleep(0.05)

    def act(self, action: str, **body: Any) -> tuple[int, dict]:
        """A click on the page's Lichess panel: ``POST /api/player/lichess/<action>``."""
        request = urllib.request.Request(
            self.url + f"api/player/lichess/{action}",
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {WEB_TOKEN}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    # ------------------------------------------------------------------ the log

    def wait_log(self, text: str | re.Pattern, timeout: float = 15.0, after: int = 0) -> str:
        """The first log line from line ``after`` on that holds ``text`` (or matches it)."""

        def found() -> str | None:
            for line in self.lines[after:]:
                if (text.search(line) if isinstance(text, re.Pattern) else text in line):
                    return line
            return None

        if not self.wait_for(lambda: found() is not None, timeout):
            raise AssertionError(f"the log never said {text!r}:\n" + self.output()[-4000:])
        return found()  # type: ignore[return-value]

    def mark(self) -> int:
        """The number of log lines so far (for :meth:`wait_log`'s ``after``)."""
        with self._changed:
            return len(self.lines)

    def game_on_board(self, timeout: float = 15.0, after: int = 0) -> str:
        """The Lichess game's id, once the log says it is on the board."""
        return GAME_ON_BOARD.search(self.wait_log(GAME_ON_BOARD, timeout, after))[1]

    # ------------------------------------------------------------------ the board

    def hands(self, uci: str, *, wait: bool = True) -> None:
        """Move the pieces for ``uci`` (from the test's copy of the game) and, with
        ``wait``, wait until the daemon stores it."""
        move = chess.Move.from_uci(uci)
        if move not in self.board.legal_moves:
            move = self.board.parse_uci(uci)  # e1h1 -> e1g1
        stored = len(self.moves_logged())
        self.send(*hand_lines(self.board, move))
        self.board.push(move)
        if wait:
            self.wait_stored(stored + 1)

    def wait_stored(self, count: int, timeout: float = 15.0) -> None:
        if not self.wait_for(lambda: len(self.moves_logged()) >= count, timeout):
            raise AssertionError(f"move {count} never stored:\n" + self.output()[-4000:])

    def their_move(self, game_id: str, uci: str, timeout: float = 15.0) -> None:
        """The opponent plays ``uci`` on Lichess; the test waits for it to be lit, then
        plays it on the board for them."""
        fake_has(self.fake, game_id, self.server_moves())  # ours sent first
        after = self.mark()
        self.fake.play(game_id, uci)
        line = self.wait_log(THEIR_MOVE, timeout, after)
        assert THEIR_MOVE.search(line)[2] == self.board.uci(self.board.parse_uci(uci))
        self.hands(uci)

    def server_moves(self) -> list[str]:
        """The test's copy of the game as the server writes it (castling king to rook)."""
        board = self.board.root()
        out = []
        for move in self.board.move_stack:
            out.append(board.uci(move, chess960=True))
            board.push(move)
        return out

    def lights(self, *squares: str, state: dict | None = None) -> str:
        """The lights of ``squares`` as the page shows them: one letter each (``c``
        cyan, ``o`` orange, ``.`` off, ...), upper case when blinking."""
        leds = (state or self.state())["leds"]
        blink = int(leds["blink"], 16)
        out = ""
        for name in squares:
            index = chess.parse_square(name)
            letter = leds["colours"][index]
            out += letter.upper() if blink >> index & 1 else letter
        return out

    def pgn(self, game: str = "") -> str:
        result = run_magboard("pgn", *([game] if game else []), "--config", str(self.config))
        assert result.returncode == 0, result.stderr
        return result.stdout


def fake_has(fake: Any, game_id: str, ucis: list[str], timeout: float = 15.0) -> None:
    """Wait until the fake server's game has exactly ``ucis`` (castling as it writes it)."""
    if not fake.wait_for(lambda: fake.game(game_id).ucis == ucis, timeout):
        raise AssertionError(f"the server has {fake.game(game_id).ucis}, not {ucis}")
