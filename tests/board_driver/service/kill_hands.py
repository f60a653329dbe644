"""Games played by hand into ``magboard run --sim --script -``, with the daemon SIGKILLed at
chosen moments and started again on the same store and simulated board (issue 24, item 1).

A kill is placed at an event of the hands and a delay after it: the script sent before it
ends at that event, so the simulated board (whose pieces outlive the process, as real
pieces outlive a power cut) stands exactly as the hands left it then, and the test knows
what the daemon may have seen. After every restart the store must hold a prefix of the
game as played, never shorter than what the daemon said it had stored; at the end, the
whole game, each move once, and the daemon never out of sync (the journal kept what the
hands did; where a kill came before the daemon saw a lift, the board may ask, and the
hands that follow must answer it).
"""

from __future__ import annotations

import random
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess

from tests.board_driver.daemon_process import DaemonProcess


@dataclass
class Hands:
    """A game as the events hands make: ``lines`` (``lift e2``, ``choose r``...),
    ``boards[i]`` the occupancy after the first ``i`` of them, ``move_starts[m]`` the
    index of move ``m``'s first event, and the moves in SAN and UCI."""

    fen: str
    lines: list[str] = field(default_factory=list)
    boards: list[int] = field(default_factory=list)
    move_starts: list[int] = field(default_factory=list)
    sans: list[str] = field(default_factory=list)
    ucis: list[str] = field(default_factory=list)

    def captures(self) -> dict[int, int]:
        """Each capture's ply, by the event count after which it is complete (its last
        place)."""
        ends = [*self.move_starts[1:], len(self.lines)]
        return {end: ply for ply, (end, san) in enumerate(zip(ends, self.sans, strict=True), 1)
                if "x" in san}  # fmt: skip


def hands_for(sans: list[str], fen: str = chess.STARTING_FEN) -> Hands:
    """The events of ``sans`` played from ``fen`` as people play them: a capture's victim
    lifted first, the king first when castling, an en-passant victim first, a promotion's
    piece chosen (when not a queen) before the pawn is lifted."""
    board = chess.Board(fen)
    hands = Hands(fen, boards=[int(board.occupied)])
    for san in sans:
        move = board.parse_san(san)
        frm, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
        lines: list[str] = []
        if board.is_castling(move):
            rank = frm[1]
            corner, beside = ("h", "f") if chess.square_file(move.to_square) == 6 else ("a", "d")
            lines = [f"lift {frm}", f"place {to}", f"lift {corner}{rank}", f"place {beside}{rank}"]
        elif board.is_en_passant(move):
            victim = chess.square_name(move.to_square - 8 if board.turn else move.to_square + 8)
            lines = [f"lift {victim}", f"lift {frm}", f"place {to}"]
        elif board.is_capture(move):
            lines = [f"lift {to}", f"lift {frm}", f"place {to}"]
        else:
            lines = [f"lift {frm}", f"place {to}"]
        if move.promotion not in (None, chess.QUEEN):
            lines.insert(0, f"choose {chess.piece_symbol(move.promotion)}")
        hands.move_starts.append(len(hands.lines))
        occupancy = hands.boards[-1]
        for line in lines:
            word, arg = line.split()
            if word in ("lift", "place"):
                bit = 1 << chess.parse_square(arg)
                occupancy = occupancy & ~bit if word == "lift" else occupancy | bit
            hands.lines.append(line)
            hands.boards.append(occupancy)
        hands.sans.append(san)
        hands.ucis.append(move.uci())
        board.push(move)
    return hands


def stored_moves(directory: Path) -> list[str]:
    """The moves of the newest game in the store, as another program reads them."""
    path = directory / "games.sqlite"
    if not path.exists():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        try:
            rows = db.execute(
                "SELECT uci FROM moves WHERE game_id = (SELECT max(id) FROM games) ORDER BY ply"
            ).fetchall()
        except sqlite3.OperationalError:
            return []
    return [r[0] for r in rows]


def wait_for_pieces(daemon: DaemonProcess, pieces: int, timeout: float = 15.0) -> None:
    """Until the simulated board stands as ``pieces`` (polled: a kill is timed from it)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if daemon.sim_pieces() == pieces:
                return
        except (OSError, ValueError):
            pass  # being written
        if time.monotonic() > deadline or daemon.proc.poll() is not None:
            raise AssertionError(f"the board never stood as {pieces:016x}\n{daemon.output()}")
        time.sleep(0.002)


@dataclass
class KillReport:
    kills: int = 0
    #: Kills after a capture's last place and before the daemon had stored the capture.
    in_capture_settle: int = 0
    logs: list[str] = field(default_factory=list)

    def said(self, text: str) -> int:
        """How many runs of the daemon logged ``text``."""
        return sum(text in log for log in self.logs)


def play_with_kills(
    directory: Path,
    hands: Hands,
    kills: list[tuple[int, int]],
    rng: random.Random,
    *,
    label: str,
    header: tuple[str, ...] = (),
) -> KillReport:
    """Play ``hands`` with a SIGKILL ``delay`` ms after each ``(event, delay)`` of ``kills``
    (event counted from 1; sorted), then the rest without; check what is stored after
    every restart and at the end (see the module docstring)."""
    report = KillReport()
    captures = hands.captures()
    starts = set(hands.move_starts)
    position = 0
    logged: dict[int, str] = {}
    pending_header = list(header)

    def lines_to(end: int) -> list[str]:
        lines = [*pending_header, "gap 50"]
        pending_header.clear()
        for i in range(position, end):
            if i in starts:
                lines.append(f"wait {rng.randrange(100, 350)}")  # the other side thinks
            else:
                lines.append(f"wait {rng.randrange(0, 70)}")
            lines.append(hands.lines[i])
        return lines

    def check_store(daemon: DaemonProcess, when: str) -> None:
        stored = stored_moves(directory)
        assert stored == hands.ucis[: len(stored)], (
            f"{label} {when}: the store has {stored}, not a prefix of the game "
            f"{hands.ucis}\n{daemon.output()}"
        )
        for ply, uci in logged.items():
            assert ply <= len(stored) and stored[ply - 1] == uci, (
                f"{label} {when}: move {ply} {uci} was said stored; the store has {stored}"
                f"\n{daemon.output()}"
            )

    for event, delay in kills:
        daemon = DaemonProcess(directory)
        daemon.wait_ready()
        check_store(daemon, f"after kill {report.kills}")
        daemon.send(*lines_to(event))
        wait_for_pieces(daemon, hands.boards[event])
        time.sleep(delay / 1000)
        daemon.kill()
        position = event
        report.kills += 1
        said = daemon.moves_logged()
        judged = [ply for ply, _san, _uci in said]
        report.in_capture_settle += event in captures and captures[event] not in judged
        for ply, _san, uci in said:
            assert uci == hands.ucis[ply - 1], (
                f"{label}: ply {ply} stored as {uci}, played as {hands.ucis[ply - 1]}"
                f"\n{daemon.output()}"
            )
            logged[ply] = uci
        report.logs.append(daemon.output())

    daemon = DaemonProcess(directory)
    daemon.wait_ready()
    check_store(daemon, f"after kill {report.kills}")
    daemon.send(*lines_to(len(hands.lines)))
    wait_for_pieces(daemon, hands.boards[-1])
    assert daemon.wait_for(lambda: stored_moves(directory) == hands.ucis, timeout=20), (
        f"{label}: stored {stored_moves(directory)}, played {hands.ucis}\n{daemon.output()}"
    )
    daemon.terminate()
    assert daemon.proc.returncode == 0
    report.logs.append(daemon.output())
    for text in report.logs:
        # A script's fen sets its game up on the simulated board a moment after the game
        # starts: the board is out of sync until then. What counts comes after.
        text = text.rpartition("script: new game from")[2]
        # A kill right after a lift, before the daemon saw it, may leave pieces that read two
        # ways: the board then asks ("cannot tell"), and the hands that follow answer it.
        for sign in ("waiting for the board to match", "illegal:", "Traceback"):
            assert sign not in text, f"{label}: {sign!r} in a run's log\n{text}"
    return report
