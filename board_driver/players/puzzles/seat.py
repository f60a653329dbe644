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

A run survives a restart (a crash, a power cut): the puzzle's game keeps, beside its
result-to-be, what the run needs to go on (the puzzle's line, its number in the run, the
mistakes and hints so far, the run's file and filters: :meth:`PuzzleSeat.run_record`). At
the start, a puzzle game on the board without a result goes on where its moves stand, and
the run with it; a record this magboard cannot read is said in the log and the game stays
on the board as an ordinary one.
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
    checked,
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
                **self.seat.run_record(puzzle),
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
        # The run is over: a puzzle it left unfinished on the board is not gone on with
        # after a restart (it was stopped, or another run began).
        try:
            data = self.door.game_data(NAME)
            if "moves" in data and not data.get("result"):
                self.door.set_game_data(NAME, {"run_over": "1"})
        except Exception as exc:  # the store's trouble: said, the run ends all the same
            log.warning("puzzles: the end of the run is not kept: %s", exc)
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
        #: The (game, mistakes, hints, wrong move standing) of the puzzle being played, as
        #: last kept with its game.
        self._kept_attempt: tuple[Any, int, int, str | None] | None = None

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
        self._keep_attempt()
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
        self._begin(path, filters, first=first, puzzles=puzzles, source=source, done=done)

    def _begin(
        self,
        path: Path,
        filters: Filters,
        *,
        first: Puzzle | None = None,
        resumed: tuple[Puzzle, int, int, int, str | None] | None = None,
        puzzles: PuzzleFile | None = None,
        source: Iterator[Puzzle] | None = None,
        done: set[str] | None = None,
    ) -> None:
        """The run's trainer, from ``first`` (set up now) or ``resumed`` (the puzzle on the
        board, its number, mistakes, hints and wrong move standing: gone on with); the next
        ones are looked for in ``path`` beside the loop."""
        if puzzles is None or source is None or done is None:
            puzzles = PuzzleFile(path, filters)
            source = iter(puzzles)
            done = {r.puzzle_id for r in self.results if r.result != "failed"}
        if resumed is not None:
            done.add(resumed[0].id)
        if self._reading is not None:
            self._reading.cancel()  # the last run's look ahead ends
        self._reading = puzzles
        self.file, self.filters = path, filters
        pending: list[Puzzle | None] = [first] if first is not None else []
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
        if resumed is None:
            log.info("puzzles: a run from %s (%s)", path.name, filters.describe())
            self.trainer.start()
            return
        log.info("puzzles: the run from %s (%s) goes on after a restart", path.name,
                 filters.describe())  # fmt: skip
        look_ahead()
        self.trainer.resume(*resumed)

    def run_record(self, puzzle: Puzzle) -> dict[str, str]:
        """What a restart needs to go on with ``puzzle`` and its run, kept with its game:
        its line (``moves``, UCI), who moves first, its number in the run, the mistakes and
        hints so far and the run's file and filters."""
        filters = self.filters
        low, high = filters.rating_min, filters.rating_max
        rating = "" if low is None and high is None else f"{low or ''}-{high or ''}"
        number = self.trainer.played if self.trainer is not None else 1
        return {
            "moves": " ".join(puzzle.moves),
            "opponent_first": "1" if puzzle.opponent_first else "0",
            "game_url": puzzle.game_url,
            "number": str(number),
            "mistakes": "0",
            "hints": "0",
            "run_file": "" if self.file == SAMPLE else str(self.file.absolute()),
            "run_rating": rating,
            "run_themes": " ".join(filters.themes),
        }

    def _keep_attempt(self) -> None:
        """The mistakes and hints of the puzzle being played, kept with its game as they
        change (a restart goes on with them)."""
        attempt = self.trainer.attempt if self.trainer is not None else None
        if attempt is None or not isinstance(attempt.key, int):
            return
        kept = (attempt.key, attempt.mistakes, attempt.hints, attempt.wrong)
        if kept == self._kept_attempt:
            return
        self._kept_attempt = kept
        if (attempt.mistakes, attempt.hints) == (0, 0):
            return
        try:
            data = {"mistakes": str(attempt.mistakes), "hints": str(attempt.hints),
                    "wrong": attempt.wrong or ""}  # fmt: skip
            self.door.set_game_data(NAME, data, game_id=attempt.key)
        except Exception as exc:  # the store's trouble: said, the run goes on
            log.warning("puzzles: the mistakes and hints of %s are not kept: %s",
                        attempt.puzzle.id, exc)  # fmt: skip

    def _resumable(self) -> tuple[Puzzle, int, int, int, str | None, Path, Filters] | None:
        """The puzzle left on the board by a run the daemon stopped during (a crash, a
        power cut), to go on with: (puzzle, number, mistakes, hints, the wrong move
        standing, file, filters); None when the game on the board is no unfinished puzzle
        of a run."""
        snap = self.door.snapshot()
        if snap.game_id is None:
            return None
        data = self.door.game_data(NAME)
        if not data or data.get("result") or data.get("run_over") or "moves" not in data:
            # Not a puzzle, finished, its run stopped, or a puzzle of a magboard before runs
            # came back after a restart.
            return None
        try:
            rating = data.get("rating", "")
            puzzle = checked(
                Puzzle(
                    id=data["id"],
                    fen=snap.start_fen,
                    moves=tuple(data["moves"].split()),
                    opponent_first=data.get("opponent_first", "1") != "0",
                    rating=int(rating) if rating else None,
                    themes=tuple(data.get("themes", "").split()),
                    game_url=data.get("game_url", ""),
                    source="" if data.get("source", "-") == "-" else data["source"],
                ),
                f"game {snap.game_id}",
            )
            numbers = [int(data.get(key, default)) for key, default in
                       (("number", "1"), ("mistakes", "0"), ("hints", "0"))]  # fmt: skip
            if min(numbers) < 0:
                raise ValueError(f"a count below zero ({numbers})")
            filters = filters_from(data.get("run_rating", ""), data.get("run_themes", ""))
        except (KeyError, ValueError) as exc:
            log.warning(
                "puzzles: the run of game %d cannot go on (its record is not one this "
                "magboard reads: %s); the game stays on the board, played by people",
                snap.game_id, exc,
            )  # fmt: skip
            return None
        path = Path(data["run_file"]) if data.get("run_file") else SAMPLE
        wrong = data.get("wrong") or None
        return (puzzle, numbers[0], numbers[1], numbers[2], wrong, path, filters)

    async def resume_run(self) -> bool:
        """Go on with the run the daemon stopped during (see :meth:`_resumable`): the same
        puzzle at the same point, then the next ones of its file and filters."""
        found = self._resumable()
        if found is None:
            return False
        puzzle, number, mistakes, hints, wrong, path, filters = found
        self.door.set_player(puzzle.opponent_side, NAME, new_games=False)
        self.table.opponent = puzzle.opponent_side
        self._kept_attempt = (self.door.snapshot().game_id, mistakes, hints, wrong)
        self._begin(path, filters, resumed=(puzzle, number, mistakes, hints, wrong))
        return True

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
        self._follower = asyncio.get_running_loop().create_task(self._follow())
        # A puzzle left on the board by the last run (the daemon stopped during it): the
        # run goes on with it. One that cannot go on has its opponent's side given back to
        # people, as an ordinary game.
        if await self.resume_run():
            return self
        for side, name in self.door.players().items():
            if name == NAME:
                self.door.set_player(side, HUMAN, new_games=False)
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
                self._keep_attempt()


async def start_seat(door: Door, section: Any) -> PuzzleSeat:
    """The puzzles extension's start (``[puzzles]``)."""
    return await PuzzleSeat(door, section).start()
