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
from board_driver.door.config_values import quote
from board_driver.service.store import Store, StoreError, rebuild_game
from board_driver.service.store_values import (
    GAME_DATA_LIMITS,
    data_key,
    data_value,
    header_name,
    header_value,
)

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
    values = {**base, **clocked}
    try:
        return GameOptions(**values)
    except ValueError:
        pass
    # A value this magboard cannot use (another version's, a clock it cannot read): the
    # game goes on with the config's value there (for the clock's: none), and the log
    # says which.
    fallback = {
        "touch_move": defaults.touch_move,
        "takeback": bool(defaults.takeback),
        "hints": bool(defaults.hints),
    }
    good: dict[str, Any] = {}
    for name, value in values.items():
        try:
            GameOptions(**{**good, name: value})
        except ValueError as exc:
            log.warning("the stored game option %s cannot be used (%s): its default instead",
                        name, exc)  # fmt: skip
            if name in fallback:
                good[name] = fallback[name]
            continue
        good[name] = value
    return GameOptions(**good)


class _GameKey:
    """The stored number of a game on the board, once the store has it (``id``)."""

    __slots__ = ("id",)

    def __init__(self, game_id: int | None = None) -> None:
        self.id = game_id


class Recorder:
    """Keeps the game on the board in ``store`` (see the module docstring).

    What the store cannot take now (a full disk) is kept in memory, in order, and written
    by the next :meth:`sync` that can (the daemon retries every second): the moves, a new
    game itself, and beside them the options, headers and extensions' texts set meanwhile
    (:meth:`behind` says whether anything is waiting)."""

    def __init__(self, store: Store, defaults: Any = None, clock: Any = None) -> None:
        from board_driver.service.config.sections import ClockConfig, GameConfig

        self.store = store
        self.defaults = defaults or GameConfig()
        #: The config's ``[clock]``: the clock of a new game.
        self.clock_defaults = clock or ClockConfig()
        #: When the game on the board was started (the store's time: it tells games apart).
        self.started = ""
        self._key = _GameKey()
        self._game: rules.Game | None = None
        self._line: tuple = ()
        self._result: tuple[str, str | None] | None = None
        # What the game on the board keeps beside its moves, as it stands (the store has it
        # once the writes waiting are done).
        self._options: dict[str, str] = {}
        self._headers: dict[str, str] = {}
        self._data: dict[str, dict[str, str]] = {}
        self._clock: list[Any] = []  # the clock's changes of the game last loaded
        #: Writes beside the moves the store has not taken yet, oldest first: (game, what,
        #: arguments).
        self._waiting: list[tuple[_GameKey, str, Any]] = []

    # ------------------------------------------------------------------ start

    def resume(self) -> tuple[rules.Game, GameOptions]:
        """The game that was on the board and its options (a new game 1 in an empty store)."""
        latest = self.store.game_on_board()
        if latest is None:
            from board_driver.arbiter.setup import start_position

            options = options_from_record({}, self.defaults, self.clock_defaults)
            game = rules.Game(start_position(*self.defaults.kind()))
            self._options = options_record(options)
            self._set_id(self.store.new_game(game.start.fen(), start_record(self._options, game)))
            log.info("new game %d", self.game_id)
        else:
            game, options = self._load(latest)
            outcome = game.outcome()
            if outcome is None:
                log.info("resuming game %d at ply %d", latest, len(game.moves))
            else:  # nothing to resume: the finished game stays shown until a new one
                log.info("game %d on the board, over at ply %d (%s, %s)", latest,
                         len(game.moves), outcome.result(), outcome.termination)  # fmt: skip
        self._game = game
        self._line = tuple(game.moves)
        return game, options

    @property
    def game_id(self) -> int | None:
        """The stored number of the game on the board (None: a new game not stored yet)."""
        return self._key.id

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
        self._set_id(game_id, stored.started)
        # The stored result, not the rebuilt one: a daemon stopped between storing the
        # last move and its result left it unwritten, and the first sync writes it.
        self._result = (stored.result, stored.termination) if stored.result != "*" else None
        self._options = dict(stored.options)
        self._headers = dict(stored.headers)
        self._data = {name: dict(data) for name, data in stored.data.items()}
        self._clock = list(stored.clock)
        return game, options_from_record(stored.options, self.defaults)

    def _set_id(self, game_id: int, started: str | None = None) -> None:
        self._key = _GameKey(game_id)
        self.started = started if started is not None else self.store.started(game_id)

    def adopt(self, game: rules.Game) -> None:
        """``game`` is the stored game on the board, gone on (its hands replayed after a
        restart): the next sync stores what it adds, not a new game."""
        self._game = game

    def store_line(self, game: rules.Game) -> None:
        """Store ``game``'s line of moves as the stored game's (a step on the way to the
        game on the board: a take-back replayed, then the moves after it, are kept as the
        store would have kept them). Raises the store's errors."""
        moves = tuple(game.moves)
        if self.game_id is not None and moves != self._line:
            line = list(zip(map(str, moves), game.san_moves(), strict=True))
            self.store.sync_moves(self.game_id, line)
            self._line = moves

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

    def behind(self, game: rules.Game | None = None) -> bool:
        """Does anything wait for the store: a write beside the moves, the game on the board
        itself (a new game), or (given the game on the board) its moves or result?"""
        if self._waiting or self._key.id is None:
            return True
        if game is None:
            return False
        if game is not self._game or tuple(game.moves) != self._line:
            return True
        outcome = game.outcome()
        return ((outcome.result(), outcome.termination) if outcome else None) != self._result

    def waiting(self) -> list[str]:
        """What waits for the store beside the moves, in words (``headers White, Black``)."""
        words = []
        for key, what, args in self._waiting:
            game = f"game {key.id}" if key.id is not None else "the new game"
            if what == "options":
                words.append(f"the options of {game}")
            elif what == "headers":
                words.append(f"the headers {', '.join(args)} of {game}")
            else:
                words.append(f"the data of {args[0]} of {game}")
        return list(dict.fromkeys(words))

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
        transaction when the moves changed), and whatever waits beside the moves;
        ``fresh``: a ``new_game`` was announced. True when a new game was stored. Raises
        the store's errors (what was not written waits for the next call)."""
        if game is not self._game or (fresh and self._line):
            # Another game on the board: stored as a new one (now, or when the store can).
            self._game = game
            self._key = _GameKey()
            self.started = ""
            self._line = ()
            self._result = None
            self._options = options_record(options)
            self._headers, self._data = {}, {}
        self._write_waiting(ready_only=True)  # the games before this one first
        started = False
        if self._key.id is None:
            self._set_id(self.store.new_game(game.start.fen(), start_record(self._options, game)))
            log.info("new game %d", self.game_id)
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
        self._write_waiting()
        return started

    def _write_waiting(self, *, ready_only: bool = False) -> None:
        """The writes beside the moves, in order, up to the first of a game not stored yet
        (``ready_only``: of games stored already). A failure raises; the rest wait."""
        while self._waiting:
            key, what, args = self._waiting[0]
            if key.id is None or (ready_only and key is self._key):
                return
            try:
                if what == "options":
                    self.store.set_options(key.id, args)
                elif what == "headers":
                    self.store.set_headers(key.id, args)
                else:
                    self.store.set_game_data(key.id, *args)
            except ValueError as exc:  # checked when kept: the store's limits reached since
                log.warning("not stored with game %s: %s", key.id, exc)
            self._waiting.pop(0)

    def _keep(self, what: str, args: Any) -> None:
        """A write beside the moves of the game on the board: done now if the store can
        (and nothing waits before it), else kept for the next sync. Raises the store's
        error when it cannot (the caller says so and retries)."""
        self._waiting.append((self._key, what, args))
        self._write_waiting()

    # ------------------------------------------------------------------ what a game keeps

    def set_options(self, options: GameOptions) -> None:
        record = options_record(options)
        self._options.update(record)
        self._keep("options", record)

    def headers(self) -> dict[str, str]:
        """The PGN headers set for the game on the board."""
        return dict(self._headers)

    def check_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """``headers`` as the store takes them; ValueError names a bad one."""
        return {header_name(name): header_value(name, value) for name, value in headers.items()}

    def set_headers(self, headers: Mapping[str, str]) -> None:
        """Set (``""``: remove) PGN headers; ValueError names a bad one, nothing changed."""
        checked = self.check_headers(headers)
        for name, value in checked.items():
            if value:
                self._headers[name] = value
            else:
                self._headers.pop(name, None)
        self._keep("headers", checked)

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

    def check_game_data(
        self, name: str, data: Mapping[str, str | None]
    ) -> tuple[str, dict[str, str | None]]:
        """``(extension, texts)`` as the store takes them; ValueError past its limits."""
        extension = data_key("extension name", name)
        checked = {data_key("key", key): data_value(key, value) for key, value in data.items()}
        merged: dict[str, str | None] = dict(self._data.get(extension, {}))
        merged.update(checked)
        kept = sum(1 for v in merged.values() if v is not None)  # a None removes its key
        if kept > GAME_DATA_LIMITS["names"]:
            raise ValueError(
                f"game data of {quote(extension)}: {kept} keys, more than "
                f"{GAME_DATA_LIMITS['names']} (nothing stored)"
            )
        return extension, checked

    def set_game_data(self, name: str, data: Mapping[str, str | None]) -> None:
        """Keep texts for extension ``name`` with the game on the board (merged with what
        it kept before); ValueError past the store's limits, nothing changed then."""
        extension, checked = self.check_game_data(name, data)
        merged = dict(self._data.get(extension, {}))
        for key, value in checked.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        self._data[extension] = merged
        self._keep("data", (extension, checked))


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
