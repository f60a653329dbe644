"""The puzzle trainer in the running daemon: a player (``puzzles``) that takes the
opponent's side of each puzzle's game, through the door alone.

A run starts from the config (``[puzzles] start = true``) or a page
(``POST /api/player/puzzles/start {"file": ..., "rating": "1200-1800", "themes": "fork"}``);
``hint``, ``next`` (give the puzzle up) and ``stop`` are its other actions. Each puzzle
is a game of its own in the store, from the puzzle's position, with its headers (``Event``
``Puzzle <id>``) and the result kept as the game's data (``puzzles``: ``id``, ``source``,
``rating``, ``themes``, ``result``, ``mistakes``, ``hints``): no new table, so a store
played on keeps opening in an older magboard. The streak and the rating are worked out
again from those at the start (:func:`board_driver.door.puzzles.progress`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from board_driver.door import HUMAN, ActionRefused, Door
from board_driver.door.puzzles import RESULTS, PuzzleResult, progress
from board_driver.physical.frame import Frame
from board_driver.players.puzzles.source import (
    Filters,
    Puzzle,
    PuzzleFile,
    parse_rating_range,
)
from board_driver.players.puzzles.trainer import LOOKING, PUZZLE_OPTIONS, TableState, Trainer
from board_driver.user_files import UnusableFile
from rules import parse_square

log = logging.getLogger("magboard")

#: The player's name (a side is given to it for each puzzle's game).
NAME = "puzzles"
#: The sample shipped with magboard: a dozen puzzles written for it.
SAMPLE = Path(__file__).with_name("sample.csv")


def filters_from(rating: str = "", themes: str | list[str] = "") -> Filters:
    """Filters from a page's or the config's words (ValueError says what is wrong).

    >>> filters_from("1000-1500", "fork, mateIn2").describe()
    'rated 1000 to 1500, themes: fork, mateIn2'
    """
    low, high = parse_rating_range(rating) if rating.strip() else (None, None)
    words = themes if isinstance(themes, list) else themes.replace(",", " ").split()
    return Filters(low, high, tuple(str(w) for w in words))


class DoorTable:
    """The trainer's :class:`~.trainer.Table` on the door."""

    def __init__(self, door: Door, seat: PuzzleSeat) -> None:
        self.door = door
        self.seat = seat
        self._layer = door.light_layer(NAME)
        self.opponent: str | None = None

    def state(self) -> TableState:
        snap = self.door.snapshot()
        return TableState(
            key=snap.game_id,
            ucis=tuple(snap.ucis),
            setting_up=snap.setup_pending,
            awaiting=snap.awaiting == NAME,
            expected=snap.expected,
            result=snap.result,
            winner=snap.winner,
            termination=snap.termination,
        )

    def new_game(self, puzzle: Puzzle) -> None:
        self.show_hint(None)
        self.opponent = puzzle.opponent_side
        headers = {"Event": f"Puzzle {puzzle.id}", "White": "", "Black": ""}
        headers[puzzle.player_side.capitalize()] = "Puzzle solver"
        headers[puzzle.opponent_side.capitalize()] = "Puzzle"
        if puzzle.game_url:
            headers["Site"] = puzzle.game_url
        self.door.new_game(
            puzzle.fen,
            options=PUZZLE_OPTIONS,
            headers=headers,
            players={puzzle.opponent_side: NAME, puzzle.player_side: HUMAN},
        )
        self.door.set_game_data(
            NAME,
            {
                "id": puzzle.id,
                "source": puzzle.source or "-",
                "rating": "" if puzzle.rating is None else str(puzzle.rating),
                "themes": " ".join(puzzle.themes),
            },
        )

    def expect(self, uci: str) -> None:
        self.door.expect(uci)

    def require(self, uci: str) -> None:
        # Any move that mates counts, as Lichess accepts (the trainer ends the puzzle then).
        self.door.require([uci], mates=True)

    def show_hint(self, uci: str | None, *, piece_only: bool = False) -> None:
        if uci is None:
            self._layer.show(None)
            with contextlib.suppress(ActionRefused):
                self.door.show_hint(None)
            return
        if piece_only:  # the piece to move, lit alone
            self._layer.show(Frame.off().with_square(parse_square(uci[:2]), "g", blink=True))
        else:
            self._layer.show(None)
            self.door.show_hint(uci)

    def take_back(self, plies: int) -> None:
        self.door.take_back(plies)

    def announce(self, event: dict[str, Any]) -> None:
        self.door.announce(event)

    def record(self, result: PuzzleResult) -> None:
        self.seat.results.append(result)
        data = {"result": result.result, "mistakes": str(result.mistakes),
                "hints": str(result.hints)}  # fmt: skip
        self.door.set_game_data(NAME, data, game_id=result.game_id)

    def results(self) -> list[PuzzleResult]:
        return list(self.seat.results)

    def leave(self) -> None:
        self.show_hint(None)
        if self.opponent is not None and self.door.players().get(self.opponent) == NAME:
            self.door.set_player(self.opponent, HUMAN, new_games=False)
        self.opponent = None


def stored_results(door: Door) -> list[PuzzleResult]:
    """The puzzles played before, as the store keeps them (oldest first)."""
    out = []
    for game_id, data in door.all_game_data(NAME).items():
        if data.get("result") not in RESULTS:
            continue  # begun, never finished
        try:
            rating = int(data["rating"]) if data.get("rating") else None
            result = PuzzleResult(
                puzzle_id=data.get("id", "?"),
                source=data.get("source", "-"),
                rating=rating,
                themes=tuple(data.get("themes", "").split()),
                result=data["result"],
                mistakes=int(data.get("mistakes", "0")),
                hints=int(data.get("hints", "0")),
                game_id=game_id,
            )
            out.append(result)
        except ValueError as exc:  # a value another version wrote: left out, said
            log.warning("puzzles: game %d's result is left out: %s", game_id, exc)
    return out


class PuzzleSeat:
    """The ``puzzles`` player: follows the board's events and runs the trainer."""

    name = NAME

    def __init__(self, door: Door, section: Any = None) -> None:
        self.door = door
        self.section = section
        self.table = DoorTable(door, self)
        self.trainer: Trainer | None = None
        self.results: list[PuzzleResult] = []
        # progress() replays the whole record: worked out again only when it grew (a
        # page's view is asked for at every snapshot).
        self._progress: tuple[tuple[int, int], dict[str, Any]] | None = None
        self.file: Path = SAMPLE
        self.filters = Filters()
        self._follower: asyncio.Task | None = None
        #: Reads the puzzle file beside the loop, one look at a time.
        self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="puzzles")
        self._reading: PuzzleFile | None = None  # the file of the run, being read

    # ------------------------------------------------------------------ the player

    def state(self) -> Mapping[str, Any]:
        """For a page: the run (``active``), the file and filters, the trainer's
        :meth:`~.trainer.Trainer.describe` and the player's ``progress``."""
        out: dict[str, Any] = {
            "active": self.trainer is not None and self.trainer.over is None,
            "file": self.file.name,
            "filters": self.filters.describe(),
            "progress": self._progress_now(),
        }
        if self.trainer is not None:
            out.update(self.trainer.describe())
        else:
            out["status"] = "idle"
        return out

    def _progress_now(self) -> dict[str, Any]:
        key = (id(self.results), len(self.results))
        if self._progress is None or self._progress[0] != key:
            record = {k: v for k, v in progress(self.results).items() if k != "themes"}
            self._progress = (key, record)
        return self._progress[1]

    def configure(self, settings: Mapping[str, Any]) -> None:
        if settings:
            raise ValueError("puzzles: no settings (start takes file, rating and themes)")

    async def command(self, action: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        if action == "start":
            await self.start_run(
                args.get("file") or None, str(args.get("rating", "")), args.get("themes", "")
            )
            return dict(self.state())
        trainer = self.trainer
        if action in ("hint", "next", "stop") and (trainer is None or trainer.over):
            raise ActionRefused(f"puzzles {action}: no puzzle run (start one first)")
        assert trainer is not None
        if action == "hint":
            trainer.follow([{"type": "hint_requested"}])
        elif action == "next":
            trainer.follow([{"type": "new_game_pending"}])
        elif action == "stop":
            trainer.stop("stopped")
        else:
            raise ValueError(f"puzzles: no action {action!r} (start, hint, next, stop)")
        return dict(self.state())

    # ------------------------------------------------------------------ a run

    async def start_run(
        self, file: str | None = None, rating: str = "", themes: str | list[str] = ""
    ) -> None:
        """Begin a run of the puzzles of ``file`` (None: the sample) that pass the
        filters, not solved before; ActionRefused says why not.

        The file is read beside the daemon's loop (a thread): a filter that few of the
        database's millions of lines pass may take a while to find one, and the board goes
        on meanwhile. The next puzzle is looked for while the player solves this one."""
        try:
            filters = filters_from(rating, themes)
        except ValueError as exc:
            raise ActionRefused(str(exc)) from None
        path = Path(file).expanduser() if file else SAMPLE
        puzzles = PuzzleFile(path, filters)
        done = {r.puzzle_id for r in self.results if r.result != "failed"}
        source = iter(puzzles)
        try:
            first = await asyncio.to_thread(self._next_unsolved, source, done)
        except (UnusableFile, OSError) as exc:
            raise ActionRefused(f"puzzles: {exc}") from None
        if first is None:
            why = f"{path.name} ({filters.describe()})"
            if puzzles.skipped:
                why += f"; {puzzles.skipped} lines are not puzzles: {puzzles.problems[0]}"
            raise ActionRefused(f"puzzles: no puzzle to play in {why}")
        if self.trainer is not None and self.trainer.over is None:
            self.trainer.stop("another run began")
        if self._reading is not None:
            self._reading.cancel()  # the last run's look ahead ends
        self._reading = puzzles
        self.file, self.filters = path, filters
        pending: list[Puzzle | None] = [first]
        ahead: list[Future[Puzzle | None]] = []  # the next one, looked for in a thread

        def look_ahead() -> None:
            ahead.append(self._reader.submit(self._next_unsolved, source, done))

        loop = asyncio.get_running_loop()

        def next_puzzle() -> Puzzle | str | None:
            if not pending:
                if not ahead[-1].done():
                    # Still being looked for (a filter few lines pass): the board is not
                    # held meanwhile; the trainer begins it when found.
                    ahead[-1].add_done_callback(lambda _: loop.call_soon_threadsafe(found))
                    return LOOKING
                pending.append(ahead.pop().result())
            puzzle = pending.pop()
            if puzzle is not None:
                look_ahead()
            return puzzle

        trainer = Trainer(self.table, next_puzzle)

        def found() -> None:
            trainer.found()

        self.trainer = trainer
        log.info("puzzles: a run from %s (%s)", path.name, filters.describe())
        self.trainer.start()

    @staticmethod
    def _next_unsolved(source: Iterator[Puzzle], done: set[str]) -> Puzzle | None:
        return next((p for p in source if p.id not in done), None)

    # ------------------------------------------------------------------ life

    async def start(self) -> PuzzleSeat:
        self.door.add_player(self)
        try:
            self.results = stored_results(self.door)
        except Exception as exc:  # the store unreadable now: the record starts empty, said
            log.warning("puzzles: the results kept cannot be read: %s", exc)
        # A puzzle left on the board by the last run (the daemon stopped meanwhile): no run
        # follows it now, so its opponent's side goes back to people, as an ordinary game.
        for side, name in self.door.players().items():
            if name == NAME:
                self.door.set_player(side, HUMAN, new_games=False)
        self._follower = asyncio.get_running_loop().create_task(self._follow())
        section = self.section
        if section is not None and section.start:
            try:
                await self.start_run(section.file or None, section.rating, section.themes)
            except ActionRefused as exc:
                log.error("puzzles: %s", exc)
                self.door.announce({"type": "puzzles_over", "reason": str(exc), "played": 0})
        return self

    async def stop(self) -> None:
        if self._reading is not None:
            self._reading.cancel()  # a long look through a database ends at its next line
        self._reader.shutdown(wait=False, cancel_futures=True)
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._follower

    async def _follow(self) -> None:
        async with self.door.subscribe(maxsize=256) as events:
            async for event in events:
                batch = [event]
                while (more := events.get_nowait()) is not None:
                    batch.append(more)
                trainer = self.trainer
                if trainer is None or trainer.over is not None:
                    continue
                own = [e for e in batch if not str(e.get("type", "")).startswith("puzzle")]
                if any(e.get("type") == "move" for e in own):
                    self.table.show_hint(None)  # a hint lights the move to find now only
                try:
                    trainer.follow(own)
                except ActionRefused as exc:  # the board moved on under the trainer
                    log.warning("puzzles: %s", exc)
                except Exception:  # a bug here must not stop the board
                    log.exception("puzzles: unexpected failure")


async def start_seat(door: Door, section: Any) -> PuzzleSeat:
    """The puzzles extension's start (``[puzzles]``)."""
    return await PuzzleSeat(door, section).start()
