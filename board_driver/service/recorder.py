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
from collections.abc import Mapping
from typing import Any

import rules
from board_driver.arbiter.tracker import GameOptions
from board_driver.service.store import Store, rebuild_game

log = logging.getLogger("magboard")

#: Option names that are not game options: PGN headers and extensions' texts, by prefix.
HEADER_PREFIX = "header:"
DATA_SEPARATOR = ":"
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
    }


def options_from_record(record: Mapping[str, str], defaults: Any) -> GameOptions:
    """The options a stored game was played with (``defaults``: the config's ``[game]``)."""
    return GameOptions(
        touch_move=record.get("touch_move", defaults.touch_move),
        takeback=record.get("takeback", str(defaults.takeback).lower()) == "true",
        hints=record.get("hints", str(defaults.hints).lower()) == "true",
    )


class Recorder:
    """Keeps the game on the board in ``store`` (see the module docstring)."""

    def __init__(self, store: Store, defaults: Any = None) -> None:
        from board_driver.service.config.sections import GameConfig

        self.store = store
        self.defaults = defaults or GameConfig()
        self.game_id: int | None = None
        self._game: rules.Game | None = None
        self._line: tuple = ()
        self._result: tuple[str, str] | None = None
        self._options: dict[str, str] = {}  # the stored game's options table, as cached

    # ------------------------------------------------------------------ start

    def resume(self) -> tuple[rules.Game, GameOptions]:
        """The newest stored game and its options (a new game 1 in an empty store)."""
        latest = self.store.latest_game_id()
        if latest is None:
            options = options_from_record({}, self.defaults)
            game = rules.Game()
            self._options = options_record(options)
            self.game_id = self.store.new_game(game.start.fen(), self._options)
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

    def load(self, game_id: int) -> tuple[rules.Game, GameOptions]:
        """A stored game, to be the game on the board again (LookupError: no such game)."""
        game, options = self._load(game_id)
        self._game = game
        self._line = tuple(game.moves)
        return game, options

    def _load(self, game_id: int) -> tuple[rules.Game, GameOptions]:
        stored = self.store.game(game_id)
        game = rebuild_game(stored)
        self.game_id = game_id
        # The stored result, not the rebuilt one: a daemon stopped between storing the
        # last move and its result left it unwritten, and the first sync writes it.
        self._result = (stored.result, stored.termination) if stored.result != "*" else None
        self._options = dict(stored.options)
        return game, options_from_record(stored.options, self.defaults)

    # ------------------------------------------------------------------ after each step

    def sync(self, game: rules.Game, options: GameOptions, fresh: bool) -> bool:
        """Write what changed in ``game`` since the last sync; ``fresh``: a ``new_game``
        was announced. True when a new game was stored. Raises the store's errors."""
        started = False
        if game is not self._game or (fresh and self._line):
            self._options = options_record(options)
            self.game_id = self.store.new_game(game.start.fen(), self._options)
            log.info("new game %d", self.game_id)
            self._game = game
            self._line = ()
            self._result = None
            started = True
        moves = tuple(game.moves)
        if moves != self._line:
            line = list(zip(map(str, moves), game.san_moves(), strict=True))
            self.store.sync_moves(self.game_id, line)
            self._line = moves
        outcome = game.outcome()
        result = (outcome.result(), outcome.termination) if outcome else None
        if result != self._result:
            if result:
                self.store.finish(self.game_id, *result)
            else:
                self.store.reopen(self.game_id)
            self._result = result
        return started

    # ------------------------------------------------------------------ what a game keeps

    def set_options(self, options: GameOptions) -> None:
        self._set(options_record(options))

    def headers(self) -> dict[str, str]:
        """The PGN headers set for the game on the board."""
        return {
            name[len(HEADER_PREFIX) :]: value
            for name, value in self._stored_options().items()
            if name.startswith(HEADER_PREFIX) and value
        }

    def set_headers(self, headers: Mapping[str, str]) -> None:
        self._set({HEADER_PREFIX + name: value for name, value in headers.items()})

    def game_data(self, name: str) -> dict[str, str]:
        """What extension ``name`` stored with the game on the board."""
        prefix = name + DATA_SEPARATOR
        stored = self._stored_options()
        data = {k[len(prefix) :]: v for k, v in stored.items() if k.startswith(prefix)}
        if name == "engine" and not data:
            data = {new: stored[old] for old, new in _LEGACY_ENGINE_KEYS.items() if old in stored}
        return data

    def set_game_data(self, name: str, data: Mapping[str, str]) -> None:
        if DATA_SEPARATOR in name or not name:
            raise ValueError(f"game data: {name!r} is not an extension's name")
        self._set({f"{name}{DATA_SEPARATOR}{key}": str(value) for key, value in data.items()})

    def _stored_options(self) -> dict[str, str]:
        return self._options

    def _set(self, record: Mapping[str, str]) -> None:
        if self.game_id is not None and record:
            self.store.set_options(self.game_id, record)
            self._options.update(record)
