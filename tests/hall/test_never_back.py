"""The hall never goes back in time (issue 23's proof): boards as real ``magboard run``
processes on a real Mosquitto with persistence and a short autosave interval, the accounts
and access rules of docs/hall/aclfile, and ``magboard hall``.

Board 1 plays its game to move 10 and the broker saves; board 1 then plays its last two
moves (mate) and freezes (SIGSTOP: a board whose Wi-Fi is gone). The broker is SIGKILLed
and comes back from that save, in which board 1's game is two moves shorter and still
``*``, while the other boards play on. From the first poll to the last, a relay polling
``round-1/games.pgn`` and a page following ``/api/events`` never see any board's game with
fewer moves than they saw before, nor a result going from final back to ``*``. Board 1
wakes up, and at the end every game is exact (python-chess reads games.pgn; the moves and
results are the boards' own stored ones). 3 boards in the default run, 8 with ``-m slow``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import threading
import urllib.error
import urllib.request

import pytest

from tests.board_driver.daemon_process import no_daemon_left_running  # noqa: F401
from tests.hall.daemons import HALL_PASSWORD, Hands, hall_broker, start_board, stored_games
from tests.hall.hall_process import HallProcess, hall_config, poll, read_games, wait_until
from tests.hall.scripts import sans, shortest_games

#: Seconds between the broker's saves of its retained messages (the docs say 60).
AUTOSAVE_S = 3
#: Board 1's moves before the broker's save that it comes back from.
SAVED_PLIES = 10
FINAL = ("1-0", "0-1", "1/2-1/2")
_BOARD = re.compile(r'^\[Board "(\d+)"\]$', re.MULTILINE)
_RESULT = re.compile(r'^\[Result "([^"]*)"\]$', re.MULTILINE)
_MOVE_NUMBER = re.compile(r"\d+\.+")


class Seen:
    """What each board's game showed, per watcher; every step back is noted."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.shown: dict[tuple[str, int], tuple[int, str]] = {}
        self.backwards: list[str] = []
        self.looks = 0

    def note(self, watcher: str, board: int, plies: int, result: str) -> None:
        with self.lock:
            self.looks += 1
            before = self.shown.get((watcher, board))
            if before is not None:
                if plies < before[0]:
                    self.backwards.append(f"{watcher}: board {board} went from {before[0]} "
                                          f"plies back to {plies}")
                if before[1] in FINAL and result == "*":
                    self.backwards.append(f"{watcher}: board {board}'s {before[1]} went back "
                                          "to *")
            self.shown[(watcher, board)] = (plies, result)

    def plies(self, watcher: str, board: int) -> int:
        with self.lock:
            return self.shown.get((watcher, board), (0, "*"))[0]

    def result(self, watcher: str, board: int) -> str:
        with self.lock:
            return self.shown.get((watcher, board), (0, "*"))[1]


class Poller(threading.Thread):
    """A LiveChess-style relay: games.pgn every 20 ms, with If-None-Match."""

    def __init__(self, url: str, seen: Seen) -> None:
        super().__init__(daemon=True)
        self.url = url.rstrip("/") + "/round-1/games.pgn"
        self.seen = seen
        self.stop = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        etag = None
        while not self.stop.is_set():
            try:
                text, etag = poll(self.url, etag)
            except urllib.error.HTTPError as error:
                self.error = f"games.pgn answered {error.code}"
                return
            if text is not None:
                for chunk in text.split("\n\n[Event ")[0:]:
                    board = _BOARD.search(chunk)
                    if board is None:
                        continue
                    movetext = chunk.split("\n\n", 1)[1] if "\n\n" in chunk else ""
                    tokens = [t for t in movetext.split() if not _MOVE_NUMBER.fullmatch(t)]
                    result = _RESULT.search(chunk)
                    self.seen.note("games.pgn", int(board[1]), len(tokens) - 1,
                                   result[1] if result else "?")
            self.stop.wait(0.02)


class Stream(threading.Thread):
    """A page: the hall's Server-Sent Events, until the hall stops."""

    def __init__(self, url: str, seen: Seen) -> None:
        super().__init__(daemon=True)
        self.url = url.rstrip("/") + "/api/events"
        self.seen = seen
        self.error: str | None = None

    def run(self) -> None:
        event = ""
        try:
            with urllib.request.urlopen(self.url, timeout=60) as answer:
                for raw in answer:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("event: "):
                        event = line[len("event: "):]
                    elif line.startswith("data: "):
                        self._take(event, json.loads(line[len("data: "):]))
        except OSError:
            pass  # the hall stopped

    def _take(self, event: str, data) -> None:
        games = data["games"] if event == "state" else data if event == "games" else []
        for game in games:
            if game.get("removed"):
                self.seen.backwards.append(f"stream: board {game['board']}'s game removed")
            else:
                self.seen.note("stream", game["board"], game["plies"], game["result"])


def hall_state(hall: HallProcess) -> dict:
    return json.loads(hall.get("/api/state")[2])


def never_back(tmp_path, count: int) -> None:
    games = shortest_games(count)  # board 1 has the shortest: it ends in mate after the save
    moves = {b: list(games[b - 1].mainline_moves()) for b in range(1, count + 1)}
    assert len(moves[1]) == SAVED_PLIES + 2 and games[0].headers["Result"] in FINAL
    broker = hall_broker(tmp_path / "broker", count, extra=(f"autosave_interval {AUTOSAVE_S}",))
    hall = HallProcess(hall_config(tmp_path / "hall", broker, username="hall",
                                   password=HALL_PASSWORD, prefix="magboard"))
    seen = Seen()
    poller, stream = Poller(hall.url, seen), Stream(hall.url, seen)
    poller.start()
    stream.start()
    boards = {b: start_board(tmp_path / f"board{b}", broker, b) for b in moves}
    hands = {b: Hands(boards[b], moves[b], pause_at=SAVED_PLIES if b == 1 else ())
             for b in moves}
    frozen = False
    try:
        for player in hands.values():
            player.start()

        def until(predicate, what: str, timeout: float = 120) -> None:
            assert wait_until(lambda: predicate() or any(h.error for h in hands.values()),
                              timeout), what
            errors = [h.error for h in hands.values() if h.error]
            assert not errors, errors[0]

        until(lambda: hands[1].paused.is_set() and seen.plies("games.pgn", 1) == SAVED_PLIES,
              f"board 1 never showed {SAVED_PLIES} moves")
        before = broker.saved.stat().st_mtime_ns if broker.saved.exists() else 0
        until(lambda: broker.saved.exists() and broker.saved.stat().st_mtime_ns != before,
              "the broker never saved", timeout=4 * AUTOSAVE_S + 30)
        save = tmp_path / "saved-with-board-1-at-10.db"
        shutil.copy2(broker.saved, save)
        hands[1].resume()  # its last two moves: mate
        until(lambda: seen.result("games.pgn", 1) in FINAL and seen.result("stream", 1) in FINAL,
              "board 1's result never showed")
        os.kill(boards[1].proc.pid, signal.SIGSTOP)  # its Wi-Fi is gone
        frozen = True
        playing = {b: seen.plies("games.pgn", b) for b in moves if b != 1}
        broker.kill()
        # It comes back from the save taken when board 1 had 10 moves (had a later autosave
        # come before the kill, a power cut a few seconds later would leave this one).
        shutil.copy2(save, broker.saved)
        broker.start()
        until(lambda: hall_state(hall)["hall"].get("stale", 0) >= 1 or seen.backwards,
              "the hall was never given board 1's older record")
        until(lambda: all(seen.plies("games.pgn", b) >= min(playing[b] + 3, len(moves[b]))
                          for b in playing), "the other boards did not play on")
        os.kill(boards[1].proc.pid, signal.SIGCONT)
        frozen = False
        for b, player in hands.items():
            player.join(240)
            assert player.error is None, player.error
            assert player.stored == len(moves[b]), f"board {b} stopped at {player.stored}"

        def complete():
            served = read_games(hall.games_pgn())
            return served if len(served) == count and all(
                g.headers["Result"] != "*" for g in served) else None

        served = wait_until(complete, timeout=30)
        assert served, hall.games_pgn()
        by_board = {int(g.headers["Board"]): g for g in served}
        for b in moves:
            (stored,) = stored_games(tmp_path / f"board{b}")
            assert sans(list(by_board[b].mainline_moves())) == sans(moves[b]) == sans(
                list(stored.mainline_moves()))
            assert by_board[b].headers["Result"] == stored.headers["Result"] == games[
                b - 1].headers["Result"]
        assert wait_until(lambda: all(seen.plies("stream", b) == len(moves[b]) for b in moves))
    finally:
        if frozen:
            os.kill(boards[1].proc.pid, signal.SIGCONT)
        poller.stop.set()
        poller.join(10)
        hall.terminate()
        stream.join(10)
        for daemon in boards.values():
            if daemon.proc.poll() is None:
                daemon.terminate()
        broker.stop()
    assert poller.error is None, poller.error
    assert not seen.backwards, seen.backwards
    assert seen.looks > 100, seen.looks


def test_no_game_goes_back_across_a_broker_restored_from_an_older_save(tmp_path):
    never_back(tmp_path, 3)


@pytest.mark.slow
def test_no_game_of_eight_boards_goes_back_across_a_broker_restored_from_an_older_save(
    tmp_path,
):
    never_back(tmp_path, 8)
