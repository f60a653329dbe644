"""An engine as one side of the game: levels that mean something, restarts after a crash.

The game lives in the daemon (the tracker's :class:`rules.Game`), never in the engine:
every question sends the whole game (start position and moves), so a new engine
process after a crash answers exactly where the old one stopped.

Levels (config ``[engine]``, or :meth:`EnginePlayer.set_level` from the web page):

- ``skill`` 0..20: Stockfish's *Skill Level* (0 plays like a beginner, 20 full strength);
- ``depth`` and/or ``movetime_ms``: how far / how long it thinks for each move;
- ``elo``: a limited strength (``UCI_LimitStrength`` + ``UCI_Elo``), when the engine
  offers it; it then takes the place of ``skill``.

>>> EngineLevel(skill=5, depth=8, movetime_ms=None).describe()
'skill 5, depth 8'
>>> EngineLevel(elo=1500, movetime_ms=500).uci_options({"UCI_LimitStrength", "UCI_Elo"})
{'UCI_LimitStrength': True, 'UCI_Elo': 1500}
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from board_driver.players.engine.uci import (
    EngineCrashed,
    EngineError,
    EngineTimeout,
    SearchLimit,
    UciEngine,
    find_engine,
)

log = logging.getLogger("magboard.engine")

#: A crashed engine is started again this many times for one move before giving up.
RESTARTS_PER_MOVE = 3
#: The most search threads asked of an engine: more than a Raspberry Pi (4 cores) or a
#: desktop can give a board game; ``[engine] threads`` is checked against it.
MAX_THREADS = 64
#: The largest hash table asked of an engine, in MB: a short search on a Pi fills a few
#: MB; ``[engine] hash_mb`` is checked against it (the engine refuses what the machine lacks).
MAX_HASH_MB = 4096


@dataclass(frozen=True, slots=True)
class EngineLevel:
    """How strong the engine plays (see the module's docstring)."""

    skill: int = 20
    depth: int | None = None
    movetime_ms: int | None = 1000
    elo: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.skill <= 20:
            raise ValueError(f"skill: {self.skill} is not between 0 and 20")
        if self.depth is None and self.movetime_ms is None:
            raise ValueError("a level needs a depth or a movetime_ms")
        SearchLimit(self.depth, self.movetime_ms)  # the same checks

    @classmethod
    def from_config(cls, engine: Any) -> EngineLevel:
        """The level of a config ``[engine]`` section (0 there means "no limit"/"off")."""
        return cls(
            skill=engine.skill,
            depth=engine.depth or None,
            movetime_ms=engine.movetime_ms or None,
            elo=engine.elo or None,
        )

    @property
    def limit(self) -> SearchLimit:
        return SearchLimit(self.depth, self.movetime_ms)

    def limit_with(self, clock: Mapping[str, Any] | None) -> SearchLimit:
        """The search for one move: on the game's clock when one runs (the engine gets
        ``wtime``/``btime``/``winc``/``binc``, and the level's depth still bounds it),
        else the level's own limit.

        >>> clock = {"white_ms": 60000, "black_ms": 50000, "mode": "fischer",
        ...          "bonus_ms": {"white": 2000, "black": 2000}, "moves_to_go": {},
        ...          "turn": "black", "state": "running"}
        >>> EngineLevel(movetime_ms=1000).limit_with(clock).go()
        'go wtime 60000 btime 50000 winc 2000 binc 2000'
        """
        if not clock or clock.get("state") == "stopped":
            return self.limit
        bonus = clock.get("bonus_ms") or {}
        fischer = clock.get("mode") == "fischer"  # UCI knows increments, not delays
        to_go = (clock.get("moves_to_go") or {}).get(clock.get("turn", ""))
        return SearchLimit(
            depth=self.depth,
            wtime=int(clock["white_ms"]),
            btime=int(clock["black_ms"]),
            winc=int(bonus.get("white", 0)) if fischer else 0,
            binc=int(bonus.get("black", 0)) if fischer else 0,
            movestogo=to_go,
        )

    def full_strength(self) -> EngineLevel:
        """The same thinking time or depth at full strength (for hints).

        >>> EngineLevel(skill=2, elo=1500, depth=4, movetime_ms=None).full_strength().describe()
        'skill 20, depth 4'
        """
        return dataclasses.replace(self, skill=20, elo=None)

    def describe(self) -> str:
        """A person's words for the level, for logs, the web page and the PGN headers."""
        parts = [f"elo {self.elo}" if self.elo is not None else f"skill {self.skill}"]
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.movetime_ms is not None:
            parts.append(f"{self.movetime_ms} ms per move")
        return ", ".join(parts)

    def uci_options(self, offered: Collection[str]) -> dict[str, int | bool]:
        """The ``setoption`` values for this level, among the options the engine offers."""
        options: dict[str, int | bool] = {}
        if self.elo is not None and {"UCI_LimitStrength", "UCI_Elo"} <= set(offered):
            options["UCI_LimitStrength"] = True
            options["UCI_Elo"] = self.elo
            return options
        if "UCI_LimitStrength" in offered:
            options["UCI_LimitStrength"] = False
        if "Skill Level" in offered:
            options["Skill Level"] = self.skill
        return options


def within_range(options: dict[str, int | bool], engine: UciEngine) -> dict[str, int | bool]:
    """Numbers brought within the engine's own limits (an engine ignores a value outside
    them, silently: Stockfish 15 keeps UCI_Elo 1350 when asked for 1000)."""
    fitted: dict[str, int | bool] = {}
    for name, value in options.items():
        option = engine.options.get(name)
        if option is not None and not isinstance(value, bool) and option.type == "spin":
            low = option.min if option.min is not None else value
            high = option.max if option.max is not None else value
            if not low <= value <= high:
                near = min(max(value, low), high)
                log.warning(
                    "engine: %s %s is outside %s's range %d..%d; using %d",
                    name, value, engine.name, low, high, near,
                )  # fmt: skip
                value = near
        fitted[name] = value
    return fitted


class EnginePlayer:
    """Keeps one engine process running for the daemon and asks it for moves.

    ``path`` as in :func:`~board_driver.players.engine.uci.find_engine` ("" = Stockfish).
    """

    def __init__(
        self,
        path: str | Path = "",
        level: EngineLevel = EngineLevel(),
        *,
        threads: int = 1,
        hash_mb: int = 16,
    ) -> None:
        self.path = find_engine(path)
        self.level = level
        self.threads = threads
        self.hash_mb = hash_mb
        self.engine: UciEngine | None = None
        self.name = self.path.name
        self.starts = 0  # engine processes started so far (1 + restarts)
        self._configured: EngineLevel | None = None  # the level the running engine has
        self._chess960 = False  # UCI_Chess960 as the running engine has it
        self._lock = asyncio.Lock()

    @property
    def pid(self) -> int | None:
        """The running engine's process id (None before the first start)."""
        return self.engine.pid if self.engine is not None and self.engine.alive else None

    async def start(self) -> None:
        """Start the engine now (otherwise the first question starts it)."""
        async with self._lock:
            await self._ensure()

    async def close(self) -> None:
        async with self._lock:
            if self.engine is not None:
                await self.engine.quit()
                self.engine = None

    def set_level(self, level: EngineLevel) -> None:
        """A new level, from the next question on."""
        self.level = level

    async def best_move(
        self,
        start_fen: str,
        moves: Sequence[str],
        *,
        level: EngineLevel | None = None,
        clock: Mapping[str, Any] | None = None,
        chess960: bool = False,
    ) -> str | None:
        """The engine's move after ``moves`` from ``start_fen`` (UCI text), None if it
        has none. A crashed or hung engine is replaced and asked again (a few times).
        ``chess960``: the game is Chess960 (``UCI_Chess960`` is set: a castling is the king
        taking its rook, in ``moves`` and in the answer; an engine without the option
        cannot play it: :class:`EngineError`).

        ``level``: for this one question (a hint at full strength, say) instead of the
        player's own level, which the next question sets back. ``clock``: the game's clock
        (the door's snapshot's), when one runs: the engine plays on it.
        """
        wanted = level or self.level
        failures = 0
        while True:
            async with self._lock:
                try:
                    engine = await self._ensure()
                    if wanted != self._configured:
                        self._configured = None  # unknown until the engine confirms
                        options = wanted.uci_options(engine.options)
                        await engine.configure(within_range(options, engine))
                        self._configured = wanted
                    await self._variant(engine, chess960)
                    limit = wanted.limit_with(clock)
                    return await engine.best_move(start_fen, list(moves), limit)
                except (EngineCrashed, EngineTimeout) as exc:
                    failures += 1
                    if self.engine is not None:
                        await self.engine.kill()
                    self.engine = None
                    if failures > RESTARTS_PER_MOVE:
                        raise EngineError(f"{exc}; gave up after {failures} tries") from exc
                    log.warning("engine: %s; starting it again (the game is kept)", exc)

    async def _variant(self, engine: UciEngine, chess960: bool) -> None:
        """``UCI_Chess960`` set as the game needs it (only when it changes)."""
        if chess960 == self._chess960:
            return
        if "UCI_Chess960" not in engine.options:
            raise EngineError(f"{engine.name} cannot play Chess960 (it has no UCI_Chess960 option)")
        await engine.configure({"UCI_Chess960": chess960})
        self._chess960 = chess960

    async def new_game(self) -> None:
        """Tell the engine a new game starts (its hash tables are then cleared)."""
        async with self._lock:
            engine = await self._ensure()
            try:
                await engine.new_game()
            except EngineCrashed:
                self.engine = None  # the next question starts a new one

    async def _ensure(self) -> UciEngine:
        """The running engine, started (and configured) if there is none."""
        if self.engine is not None and self.engine.alive:
            return self.engine
        if self.engine is not None:  # it died while nobody was asking
            code = self.engine.process.returncode
            log.warning(
                "engine: %s ended (%s); starting it again (the game is kept)",
                self.engine.name,
                f"signal {-code}" if code is not None and code < 0 else f"exit {code}",
            )
            self.engine = None
        engine = await UciEngine.start(self.path)
        try:
            options: dict[str, int | bool] = {}
            if "Threads" in engine.options:
                options["Threads"] = self.threads
            if "Hash" in engine.options:
                options["Hash"] = self.hash_mb
            options.update(self.level.uci_options(engine.options))
            await engine.configure(within_range(options, engine))
            self._configured = self.level
            self._chess960 = False  # a new process plays standard chess until told
            await engine.new_game()
        except BaseException:
            await engine.kill()
            raise
        self.engine = engine
        self.name = engine.name
        self.starts += 1
        log.info("engine: %s started (pid %d), %s", engine.name, engine.pid, self.level.describe())
        return engine
