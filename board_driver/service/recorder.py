"""The recorder: the game on the board, kept in the store after every step of the tracker.

At start it resumes the newest game at its last stored move (or makes game 1); after each
step it writes what changed (a new game, the line of moves, the result) in one transaction
before anything is shown, so a committed move is on disk before its lights confirm it.
Besides the moves a game keeps its options, its PGN headers, who played each side, and a few
texts per extension (:meth:`Recorder.game_data`).

>>> from board_driver.service.store import Store
>>> recorder = Recorder(Store.open(":memory:"))
>>> game, options = recorder.resume()
>>> recorder.game_id, len(game.moves)
(1, 0)
>>> recorder.set_game_data("engine", {"side": "black"})
>>> recorder.game_data("engine")
{'side': 'black'}
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import rules
from board_driver.arbiter.tracker import GameOptions
from board_driver.service.store import Store, StoreError, rebuild_game

log = logging.getLogger("magboard")

#: What stores made before extensions had texts of their own kept for the engine.
_LEGACY_ENGINE_KEYS = {
    "engine_side": "side",
    "engine_name": "name",
    "engine_level": "level",
    "engine_elo": "elo",
}


def options_record(options: GameOptions) -> dict[str, str]:
    """A game's options as the store keeps them (texts)."""
    return {
        "touch_move": str(options.touch_move),
        "takeback": "true" if options.takeback else "false",
        "hints": "true" if options.hints else "false",
        "clock": options.clock,
        "clock_switch": options.clock_switch,
        "illegal_move": options.illegal_move,
    }


def start_record(options: dict[str, str], game: rules.Game) -> dict[str, str]:
    """A new game's options as the store keeps them, with its ``variant`` when it is not
    standard chess (kept among the options, so that a store of this schema stays one an
    older magboard opens: it reads the games of its own rules)."""
    variant = game.start.variant
    return options if variant == "standard" else {**options, "variant": variant}


def options_from_record(
    record: Mapping[str, str], defaults: Any, clock: Any = None
) -> GameOptions:
    """The options a stored game was played with (``defaults``: the config's ``[game]``;
    ``clock``: its ``[clock]``, for a new game). A game stored before clocks had none."""
    clock_default = "none" if record or clock is None else clock.control
    base: dict[str, Any] = {
        "touch_move": record.get("touch_move", defaults.touch_move),
        "takeback": record.get("takeback", str(defaults.takeback).lower()) == "true",
        "hints": record.get("hints", str(defaults.hints).lower()) == "true",
    }
    clocked: dict[str, Any] = {
        "clock": record.get("clock", clock_default),
        "clock_switch": record.get("clock_switch", clock.switch if clock else "board"),
        "illegal_move": record.get("illegal_move", clock.illegal_move if clock else "guide"),
    }
    try:
        return GameOptions(**base, **clocked)
    except ValueError:  # a clock this magboard cannot read: the game goes on without it
        return GameOptions(**base)


class Recorder:
    """Keeps the game on the board in ``store`` (see the module docstring)."""

    def __init__(self, store: Store, defaults: Any = None, clock: Any = None) -> None:
        from board_driver.service.config.sections import ClockConfig, GameConfig

        self.store = store
        self.defaults = defaults or GameConfig()
        #: The config's ``[clock]``: the clock of a new game.
        self.clock_defaults = clock or ClockConfig()
        self.game_id: int | None = None
        #: When the game on the board was started (the store's time: it tells games apart).
        self.started = ""
        self._game: rules.Game | None = None
        self._line: tuple = ()
        self._result: tuple[str, str | None] | None = None
        # What the store keeps with the game on the board, as last written or read.
        self._options: dict[str, str] = {}
        self._headers: dict[str, str] = {}
        self._data: dict[str, dict[str, str]] = {}
        self._clock: list[Any] = []  # the clock's changes of the game last loaded

    # ------------------------------------------------------------------ start

    def resume(self) -> tuple[rules.Game, GameOptions]:
        """The game that was on the board and its options (a new game 1 in an empty store)."""
        latest = self.store.game_on_board()
        if latest is None:
            from board_driver.arbiter.setup import start_position

            options = options_from_record({}, self.defaults, self.clock_defaults)
            game = rules.Game(start_position(*self.defaults.kind()))
            self._options = options_record(options)
            self.game_id = self.store.new_game(game.start.fen(), start_record(self._options, game))
            self.started = self.store.started(self.game_id)
            log.info("new game %d", self.game_id)
        else:
            game, options = self._load(latest)
            outcome = game.outcome()
            log.info(
                "resuming game %d at ply %d%s",
                latest,
                len(game.moves),
                f" (ended {outcome.result()}, {outcome.termination})" if outcome else "",
            )
        self._game = game
        self._line = tuple(game.moves)
        return game, options

    def reload(self) -> tuple[rules.Game, GameOptions]:
        """The game on the board, read again from the store (the one in memory is set
        aside)."""
        game, options = self._load(self._id())
        self._game = game
        self._line = tuple(game.moves)
        return game, options

    def load(self, game_id: int) -> tuple[rules.Game, GameOptions]:
        """A stored game, to be the game on the board again (LookupError: no such game).

        The store notes it first, so that a restart comes back to it; the store's errors
        are raised then, before anything changed."""
        self.store.put_on_board(game_id)
        game, options = self._load(game_id)
        self._game = game
        self._line = tuple(game.moves)
        return game, options

    def _load(self, game_id: int) -> tuple[rules.Game, GameOptions]:
        stored = self.store.game(game_id)
        game = rebuild_game(stored)
        self.game_id = game_id
        self.started = stored.started
        # The stored result, not the rebuilt one: a daemon stopped between storing the
        # last move and its result left it unwritten, and the first sync writes it.
        self._result = (stored.result, stored.termination) if stored.result != "*" else None
        self._options = dict(stored.options)
        self._headers = dict(stored.headers)
        self._data = {name: dict(data) for name, data in stored.data.items()}
        self._clock = list(stored.clock)
        return game, options_from_record(stored.options, self.defaults)

    @property
    def stored_line(self) -> tuple:
        """The moves of the game on the board as the store has them (as last written)."""
        return self._line

    def _id(self) -> int:
        """The stored number of the game on the board (one is stored before any step)."""
        if self.game_id is None:
            raise RuntimeError("no game is stored yet: resume() comes first")
        return self.game_id

    def clock_log(self) -> list[Any]:
        """The stored changes of the clock of the game last loaded (resumed or loaded)."""
        return list(self._clock)

    # ------------------------------------------------------------------ after each step

    def sync(
        self,
        game: rules.Game,
        options: GameOptions,
        fresh: bool,
        clock: Sequence[Any] = (),
    ) -> bool:
        """Write what changed in ``game`` since the last sync, with the clock's changes
        (``clock``: :class:`~board_driver.clock.keeper.ClockEntry` s, in the moves'
        transaction when the moves changed); ``fresh``: a ``new_game`` was announced. True
        when a new game was stored. Raises the store's errors."""
        started = False
        if game is not self._game or (fresh and self._line):
            self._options = options_record(options)
            self._headers, self._data = {}, {}
            self.game_id = self.store.new_game(game.start.fen(), start_record(self._options, game))
            self.started = self.store.started(self.game_id)
            log.info("new game %d", self.game_id)
            self._game = game
            self._line = ()
            self._result = None
            started = True
        game_id = self._id()
        moves = tuple(game.moves)
        if moves != self._line:
            line = list(zip(map(str, moves), game.san_moves(), strict=True))
            if clock:
                self.store.sync_moves(game_id, line, clock)
            else:
                self.store.sync_moves(game_id, line)
            self._line = moves
        elif clock:
            self.store.log_clock(game_id, clock)
        outcome = game.outcome()
        result = (outcome.result(), outcome.termination) if outcome else None
        if result != self._result:
            if result:
                self.store.finish(game_id, *result)
            else:
                self.store.reopen(game_id)
            self._result = result
        return started

    # ------------------------------------------------------------------ what a game keeps

    def set_options(self, options: GameOptions) -> None:
        if self.game_id is not None:
            record = options_record(options)
            self.store.set_options(self.game_id, record)
            self._options.update(record)

    def headers(self) -> dict[str, str]:
        """The PGN headers set for the game on the board."""
        return dict(self._headers)

    def set_headers(self, headers: Mapping[str, str]) -> None:
        """Set (``""``: remove) PGN headers; ValueError names a bad one, nothing stored."""
        if self.game_id is None:
            return
        self.store.set_headers(self.game_id, headers)
        for name, value in headers.items():
            if value:
                self._headers[name] = value
            else:
                self._headers.pop(name, None)

    def game_data(self, name: str, game_id: int | None = None) -> dict[str, str]:
        """What extension ``name`` stored with the game on the board (or game ``game_id``;
        LookupError if there is no such game)."""
        if game_id is None or game_id == self.game_id:
            data = dict(self._data.get(name, {}))
            options = self._options
        else:
            stored = self.store.game(game_id)
            data = dict(stored.data.get(name, {}))
            options = stored.options
        if name == "engine" and not data:  # a game stored before extensions kept data
            data = {new: options[old] for old, new in _LEGACY_ENGINE_KEYS.items() if old in options}
        return data

    def set_game_data(self, name: str, data: Mapping[str, str]) -> None:
        """Keep texts for extension ``name`` with the game on the board (merged with what
        it kept before); ValueError past the store's limits, nothing stored then."""
        if self.game_id is None:
            return
        self.store.set_game_data(self.game_id, name, data)
        kept = self._data.setdefault(name, {})
        for key, value in data.items():
            if value is None:
                kept.pop(key, None)
            else:
                kept[key] = str(value)


class StoreInUseError(StoreError):
    """Another daemon holds the store."""


def lock_store(path: Path) -> Any:
    """One daemon per store: a second one would interleave two games' moves. The lock file
    holds the daemon's pid, so that a second one can say which process has the store."""
    import fcntl
    import os

    lock_path = Path(f"{path}.lock")
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock_path, "a+")  # noqa: SIM115 - held open while the daemon runs
    except OSError as exc:
        raise StoreError(f"{lock_path}: cannot create ({exc.strerror})") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read(20).strip()
        handle.close()
        raise StoreInUseError(_store_taken(path, holder)) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _store_taken(path: Path, holder: str) -> str:
    """Why a second daemon cannot have the store, and what to do about it: only the
    service's store sends the user to systemctl (issue 16)."""
    from board_driver.service.config import SERVICE_STATE_DIR

    who = f"another magboard daemon (pid {holder})" if holder.isdigit() else "another daemon"
    if path.parent == SERVICE_STATE_DIR:
        hint = "the service's: stop it first with `sudo systemctl stop magboard`"
    else:
        hint = "stop that one first, or give this one a store of its own ([store] path)"
    return f"{who} is running with the store {path}: {hint}"
