"""The real programs against the real daemon: a game played by hand into
``magboard run --sim --script -``, a real app driver on the other end of a linked pair of
pseudo-terminals (``socat``), checked move by move.

The drivers are other projects' code, fetched and kept outside this repository
(``$MAGBOARD_EXT``, by default ``/work/ext``; see ``fixtures/README.md``):

- ``$MAGBOARD_EXT/picochess``: JohanSjoblom/picochess (its ``dgt/board.py``);
- ``$MAGBOARD_EXT/python-mchess``: domschl/python-mchess (its ``mchess/chess_link*.py``);
- ``$MAGBOARD_EXT/venv``: a Python with what they import (pyserial, configobj,
  typing_extensions, chess).

:func:`play` plays one game of ``selfplay.pgn``; for each move: the driver is asked to
show the move with its LEDs (every few moves) and our LEDs are read back from the
simulated LEDs' file; the move's lifts and places are played (the way people move pieces:
``tests/generate_scripts.py``); then the daemon must have stored the move and the driver
must have read the game's position (python-mchess must also have recognised the move
itself). With ``record`` the emulation's trace of it all is kept as a fixture.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

from board_driver.boardscript.feed import describe
from board_driver.physical.events import Lift, Place
from tests.board_driver.daemon_process import ROOT, DaemonProcess, write_config
from tests.conftest import SHARED_DATA
from tests.generate_scripts import _Hands, _play_move, read_games

EXT = Path(os.environ.get("MAGBOARD_EXT", "/work/ext"))
CLIENT_PYTHON = EXT / "venv" / "bin" / "python"
HERE = Path(__file__).resolve().parent
CLIENTS: dict[str, dict[str, Any]] = {
    "dgt": {
        "name": "PicoChess",
        "repository": "JohanSjoblom/picochess",
        "checkout": EXT / "picochess",
        "files": [
            "dgt/board.py",
            "dgt/util.py",
            "dgt/api.py",
            "dgt/translate.py",
            "eboard/eboard.py",
            "utilities.py",
        ],
        "script": HERE / "clients" / "picochess_dgt.py",
        "args": ["--picochess", str(EXT / "picochess")],
    },
    "chesslink": {
        "name": "python-mchess",
        "repository": "domschl/python-mchess",
        "checkout": EXT / "python-mchess",
        "files": [
            "mchess/chess_link_agent.py",
            "mchess/chess_link.py",
            "mchess/chess_link_usb.py",
            "mchess/chess_link_protocol.py",
        ],
        "script": HERE / "clients" / "mchess_chesslink.py",
        "args": ["--mchess", str(EXT / "python-mchess" / "mchess")],
    },
}
#: Between two moves, the board is left alone this long (ms): an app reads the board once
#: it has been still (PicoChess waits 0.25 s after the last change).
BETWEEN_MOVES = (700, 1000)
#: The daemon's pass time (its default, which the proof keeps).
PASS_MS = 100


def missing(protocol: str) -> str | None:
    """Why the real client for ``protocol`` cannot run here, or None."""
    client = CLIENTS[protocol]
    if not CLIENT_PYTHON.exists():
        return f"no Python for the clients at {CLIENT_PYTHON}"
    for name in client["files"]:
        if not (client["checkout"] / name).exists():
            return f"{client['repository']} is not checked out at {client['checkout']}"
    return None


def commit_of(checkout: Path) -> str:
    """The commit a checkout is at (its ``COMMIT`` file when it is an export)."""
    stamp = checkout / "COMMIT"
    if stamp.exists():
        return stamp.read_text().strip()
    result = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return result.stdout.strip() or "unknown"


@dataclass
class HandMove:
    san: str
    uci: str
    fen_before: str
    fen: str
    lines: list[str]


def moves_by_hand(game_index: int, seed: int) -> tuple[str, list[HandMove]]:
    """The game's moves as board-script lines, the way people move pieces, with a still
    board between moves; and the touch-move option the hands allow."""
    game = read_games(SHARED_DATA / "selfplay.pgn")[game_index]
    rng = random.Random(seed)
    touch_move = rng.choice(["off", "warn", "warn", "enforce"])
    hands = _Hands(rng, touch_move)
    board = game.board()
    moves = []
    amendment_open = False
    shift = 0
    for move in game.mainline_moves():
        hands.wait(BETWEEN_MOVES)
        start = len(hands.items)
        _play_move(hands, board, move, amendment_open)
        items, shift = with_margins(hands.items[start:], shift)
        lines = [f"@{item.t_ms} {describe(item)}" for item in items]
        fen_before, san = board.fen(), board.san(move)
        amendment_open = move.promotion is not None
        board.push(move)
        moves.append(HandMove(san, move.uci(), fen_before, board.fen(), lines))
    return touch_move, moves


#: Margins the hands keep here, wider than ``generate_scripts``' (which tests the tracker
#: in virtual time): a square emptied and filled again stays empty this long (a capture's
#: victim gone), and a slide rests on a square it passes at most this long (ms). A
#: simulated board on a busy machine is scanned late now and then: a victim lifted and
#: replaced within one late scan is not seen gone, and a slide held up rests for real.
REFILL_MS = 250
SLIDE_REST_MS = 40


def with_margins(items: list, shift: int) -> tuple[list, int]:
    """A move's items with :data:`REFILL_MS` and :data:`SLIDE_REST_MS` kept (every later
    item moved by as much: ``shift`` carries over to the next move)."""
    out = []
    last: dict[int, Any] = {}  # square -> its last lift or place, as played
    for item in items:
        t = item.t_ms + shift
        previous = last.get(getattr(item, "square", -1))
        if previous is not None:
            gap = t - previous.t_ms
            if isinstance(item, Place) and isinstance(previous, Lift) and gap < REFILL_MS:
                shift += REFILL_MS - gap
                t += REFILL_MS - gap
            elif isinstance(item, Lift) and isinstance(previous, Place) and gap < 100:
                cut = max(0, gap - SLIDE_REST_MS)
                shift -= cut
                t -= cut
        played = dataclasses.replace(item, t_ms=t)
        out.append(played)
        if isinstance(item, Lift | Place):
            last[item.square] = played
    return out, shift


class PtyPair:
    """``socat`` linking two pseudo-terminals: ``board`` and ``app`` (symbolic links)."""

    def __init__(self, directory: Path) -> None:
        self.board, self.app = directory / "board", directory / "app"
        self.proc = subprocess.Popen(
            ["socat", f"pty,raw,echo=0,link={self.board}", f"pty,raw,echo=0,link={self.app}"],
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not (self.board.exists() and self.app.exists()):
            if time.monotonic() > deadline:
                raise AssertionError("socat made no pseudo-terminals")
            time.sleep(0.02)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


class Client:
    """A driver's harness as a process: JSON lines out (collected), commands in."""

    def __init__(self, protocol: str, device: Path, log: Path) -> None:
        client = CLIENTS[protocol]
        self.command = [
            str(CLIENT_PYTHON),
            str(client["script"]),
            *client["args"],
            "--device",
            str(device),
            "--log",
            str(log),
        ]
        self.proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.lines: list[dict[str, Any]] = []
        self.other: list[str] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                try:
                    self.lines.append(json.loads(line))
                except json.JSONDecodeError:
                    self.other.append(line.rstrip())
                self._changed.notify_all()

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def wait_for(self, predicate, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.lines):
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return predicate(self.lines)
                self._changed.wait(min(left, 0.1))
        return True

    def last_fen(self) -> str | None:
        with self._changed:
            fens = [line["fen"] for line in self.lines if "fen" in line]
        return fens[-1] if fens else None

    def stop(self) -> None:
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def lit_squares(daemon: DaemonProcess) -> set[str]:
    """Squares the simulated LEDs show in the app's colour (cyan: no red, green = blue)."""
    try:
        colours = daemon.leds()
    except (OSError, ValueError, KeyError):
        return set()
    return {chess.square_name(sq) for sq, (r, g, b) in enumerate(colours) if r == 0 and g == b > 0}


@dataclass
class Result:
    protocol: str
    game_index: int
    seed: int
    moves: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: What a busy machine made of the hands' timing, the drivers reading it right.
    notes: list[str] = field(default_factory=list)
    led_checks: list[str] = field(default_factory=list)
    driver_moves: list[str] = field(default_factory=list)
    read_after_ms: list[float] = field(default_factory=list)
    final_fen: str = ""
    client_fen: str = ""
    #: The emulation's trace and what the driver reported (for the clock's checks).
    trace: list[dict] = field(default_factory=list)
    driver: list[dict] = field(default_factory=list)


def play(
    protocol: str,
    game_index: int,
    seed: int,
    directory: Path,
    *,
    led_every: int = 4,
    plies: int | None = None,
    record: Path | None = None,
    clock: str = "none",
) -> Result:
    """One whole game, move by move, with a real driver reading the board; see the module
    docstring. ``record``: write the fixture (trace, driver's readings, provenance) there.
    ``clock``: the board's clock (``[clock] control``), which a DGT driver reads too."""
    result = Result(protocol, game_index, seed)
    touch_move, moves = moves_by_hand(game_index, seed)
    moves = moves[:plies]
    pair = PtyPair(directory)
    trace = directory / "trace.jsonl"
    write_config(
        directory,
        extra=(
            "[web]\nenabled = false\n"
            f'[emulation]\nprotocol = "{protocol}"\ndevice = "{pair.board}"\ntrace = "{trace}"\n'
            f'[clock]\ncontrol = "{clock}"\n'
        ),
    )
    daemon = DaemonProcess(directory)
    client = None
    try:
        daemon.wait_ready()
        if not daemon.wait_for(lambda: "emulation: " in daemon.output(), 10):
            raise AssertionError("the emulation did not start:\n" + daemon.output())
        client = Client(protocol, pair.app, directory / "client.log")
        start_board = chess.Board().board_fen()
        if not client.wait_for(lambda lines: any(x.get("fen") == start_board for x in lines), 40):
            raise AssertionError(
                f"{CLIENTS[protocol]['name']} never read the start position: "
                f"{client.lines[-5:]} {client.other[-5:]}\n{daemon.output()[-2000:]}"
            )
        daemon.send(f"option touch_move {touch_move}")
        for ply, move in enumerate(moves, start=1):
            if led_every and ply % led_every == 1:
                _check_leds(client, daemon, protocol, move, result)
            if protocol == "chesslink":
                client.send({"expect": move.fen_before})
                client.wait_for(
                    lambda lines, f=move.fen_before: (
                        {"expect": f} in [x.get("done") for x in lines]
                    ),
                    10,
                )
            before = len(client.lines)
            daemon.send(*move.lines)
            board = move.fen.split()[0]
            stored = daemon.wait_for(
                lambda p=ply: any(n == p for n, _, _ in daemon.moves_logged()), 15
            )
            t_stored = time.monotonic()
            read = client.wait_for(
                lambda lines, b=board: (
                    [line.get("fen") for line in lines if "fen" in line][-1:] == [b]
                ),
                10,
            )
            if read:
                result.read_after_ms.append((time.monotonic() - t_stored) * 1000)
            if not stored:
                result.problems.append(f"ply {ply} {move.san}: not stored by the daemon")
            if not read:
                result.problems.append(
                    f"ply {ply} {move.san}: {CLIENTS[protocol]['name']} read "
                    f"{client.last_fen()}, the game is {board}"
                )
            if protocol == "chesslink":
                seen = client.wait_for(
                    lambda lines, b=before, u=move.uci: any(
                        line.get("move") == u for line in lines[b:]
                    ),
                    5,
                )
                found = [line["move"] for line in client.lines[before:] if "move" in line]
                result.driver_moves.append(found[-1] if found else "")
                if not seen:
                    held = _held(trace, found[-1]) if found else None
                    text = f"ply {ply} {move.san}: python-mchess recognised {found or 'no move'}"
                    if held is not None and held >= PASS_MS:
                        # The board did show that move's position, for the pass time: the
                        # script's slide was held up (a busy machine), and python-mchess
                        # takes the first legal position it is told, as on a real board.
                        result.notes.append(f"{text}: the daemon saw it held {held} ms")
                    else:
                        result.problems.append(text)
            result.moves.append(move.san)
            if len(result.problems) > 5:
                break
        result.final_fen = moves[-1].fen.split()[0]
        result.client_fen = client.last_fen() or ""
    finally:
        if client is not None:
            client.stop()
        daemon.terminate()
        pair.close()
        (directory / "daemon.log").write_text(daemon.output())  # for a failure's post-mortem
    result.trace = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    result.driver = list(client.lines) if client is not None else []
    if record is not None:
        _write_fixture(record, result, trace, client, protocol, game_index, seed, touch_move)
    return result


def _held(trace: Path, uci: str) -> int | None:
    """How long the daemon last saw a piece held on ``uci``'s destination (ms), or None."""
    if len(uci) < 4:
        return None
    records = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    board = [r["event"] for r in records if r.get("event", {}).get("type") in ("lift", "place")]
    places = [e for e in board if e["type"] == "place" and e["square"] == uci[2:4]]
    if not places:
        return None
    placed = places[-1]["t"]
    lifts = [e["t"] for e in board if e["square"] == uci[2:4] and e["t"] > placed]
    return (lifts[0] if lifts else board[-1]["t"]) - placed


def _check_leds(client: Client, daemon: DaemonProcess, protocol: str, move, result) -> None:
    """The driver shows the move as an app shows its engine's move; our LEDs show it."""
    squares = {move.uci[0:2], move.uci[2:4]}
    if protocol == "dgt":
        client.send({"light": move.uci})
    else:
        client.send({"show": [move.uci], "fen": move.fen_before})
    seen = daemon.wait_for(lambda: squares <= lit_squares(daemon), 5)
    if not seen:
        # Blinking lights are dark half the time: look again for a while.
        deadline = time.monotonic() + 3
        while not seen and time.monotonic() < deadline:
            seen = squares <= lit_squares(daemon)
            time.sleep(0.05)
    result.led_checks.append(f"{move.uci}: {'lit' if seen else 'NOT lit'}")
    if not seen:
        result.problems.append(f"{move.san}: the driver's LED command did not light {squares}")
    client.send({"clear": True} if protocol == "dgt" else {"off": True})
    deadline = time.monotonic() + 5
    while squares & lit_squares(daemon) and time.monotonic() < deadline:
        time.sleep(0.05)
    if squares & lit_squares(daemon):
        result.problems.append(f"{move.san}: the driver's LEDs off did not put them out")


def _write_fixture(
    path: Path,
    result: Result,
    trace: Path,
    client: Client | None,
    protocol: str,
    game_index: int,
    seed: int,
    touch_move: str,
) -> None:
    info = CLIENTS[protocol]
    records = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    clock = records[0].get("start", {}).get("clock") if records else None
    magboard = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    fixture = {
        "meta": {
            "protocol": protocol,
            "driver": info["name"],
            "repository": f"https://github.com/{info['repository']}",
            "commit": commit_of(info["checkout"]),
            "files": info["files"],
            "harness": str(info["script"].relative_to(ROOT)),
            "command": "python -m tests.board_driver.connectors.emulation.record_fixtures",
            "game": f"selfplay.pgn game {game_index + 1} (index {game_index}), hands seed {seed}",
            "touch_move": touch_move,
            "clock": clock["control"] if clock else "none",
            "moves": result.moves,
            "magboard": magboard,
            "problems": result.problems,
            "notes": result.notes,
        },
        "trace": records,
        "driver": client.lines if client is not None else [],
    }
    path.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
