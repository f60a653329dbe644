"""A small asyncio client for UCI chess engines (Stockfish and its kin).

Why our own and not a library: the board needs a handful of commands (``uci``,
``setoption``, ``isready``, ``ucinewgame``, ``position``, ``go``, ``stop``, ``quit``);
the product imports nothing beyond the standard library (python-chess is the project's
test oracle only, by design); and the daemon needs full control over what happens
when an engine hangs or dies: every wait has a timeout, a dead process is reported as
:class:`EngineCrashed` at once, and the caller
(:class:`~board_driver.players.engine.player.EnginePlayer`) decides to start a new one.

One command at a time: the engine's output is read only by the coroutine that sent the
command. A search abandoned half way (the task cancelled because the game changed) is
stopped and its ``bestmove`` drained before the next command.

>>> import asyncio
>>> from rules import STARTING_FEN
>>> async def first_move(path):
...     engine = await UciEngine.start(path)
...     try:
...         await engine.new_game()
...         return await engine.best_move(STARTING_FEN, [], SearchLimit(depth=1))
...     finally:
...         await engine.quit()
>>> asyncio.run(first_move(find_engine()))  # doctest: +SKIP
'e2e4'
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Where Debian's ``stockfish`` package puts the binary (not on a user's PATH).
DEBIAN_STOCKFISH = Path("/usr/games/stockfish")
#: How long an engine may take to answer ``uci`` / ``isready``.
HANDSHAKE_TIMEOUT_S = 10.0
#: What an engine says is kept this short: its name and author, a line of its stderr.
MAX_NAME = 80
MAX_WORDS = 200
#: The deepest search depth taken from an engine (a larger number is no depth).
MAX_DEPTH = 1000
#: How many of the engine's last stderr lines are kept for error messages.
STDERR_LINES_KEPT = 5
#: Time allowed on top of ``movetime`` before a search counts as hung.
SEARCH_MARGIN_S = 5.0
#: A search by depth only: how long before it counts as hung.
DEPTH_SEARCH_TIMEOUT_S = 60.0


class EngineError(Exception):
    """The engine cannot be used; the message says what happened."""


class EngineNotFound(EngineError, ValueError):
    """No engine binary at the configured path (or none found on this machine)."""


class EngineCrashed(EngineError):
    """The engine process ended (killed, crashed) or closed its output."""


class EngineTimeout(EngineError):
    """The engine did not answer in time; it has been killed."""


def find_engine(path: str | os.PathLike[str] = "") -> Path:
    """The engine binary: ``path`` if given, else ``stockfish`` on PATH, else Debian's.

    >>> find_engine("/nonexistent/engine")
    Traceback (most recent call last):
    ...
    board_driver.players.engine.uci.EngineNotFound: /nonexistent/engine: no such file
    """
    if str(path):
        candidate = Path(path).expanduser()
        if not candidate.is_absolute() and candidate.parent == Path("."):
            found = shutil.which(str(candidate))
            if found:
                return Path(found)
        if not candidate.exists():
            raise EngineNotFound(f"{path}: no such file")
        if candidate.is_dir() or not os.access(candidate, os.X_OK):
            raise EngineNotFound(f"{path}: not an executable program")
        return candidate
    found = shutil.which("stockfish")
    if found:
        return Path(found)
    if DEBIAN_STOCKFISH.exists() and os.access(DEBIAN_STOCKFISH, os.X_OK):
        return DEBIAN_STOCKFISH
    raise EngineNotFound(
        "no chess engine found: stockfish is not on PATH nor at /usr/games/stockfish "
        "(install it with `apt-get install stockfish`, or set [engine] path)"
    )


@dataclass(frozen=True, slots=True)
class SearchLimit:
    """How long the engine thinks about one move: a depth in plies, a time, a number of
    positions searched (nodes), or several (whichever ends first); or, when a clock runs,
    the clock (``wtime``/``btime`` left, ``winc``/``binc`` a move, ``movestogo`` to the next
    time control): the engine shares its time out itself, and a fixed move time is not
    asked for.

    >>> SearchLimit(depth=12, nodes=200_000).go()
    'go depth 12 nodes 200000'
    >>> SearchLimit(movetime_ms=500).go()
    'go movetime 500'
    >>> SearchLimit(depth=12, wtime=60000, btime=55000, winc=2000, binc=2000).go()
    'go depth 12 wtime 60000 btime 55000 winc 2000 binc 2000'
    """

    depth: int | None = None
    movetime_ms: int | None = None
    nodes: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None

    def __post_init__(self) -> None:
        clocked = self.wtime is not None and self.btime is not None
        if self.depth is None and self.movetime_ms is None and self.nodes is None and not clocked:
            raise ValueError("a search needs a depth, a movetime or a number of nodes")
        for name in ("depth", "movetime_ms", "nodes"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name}: {value} is less than 1")

    def go(self) -> str:
        """The ``go`` command for this limit."""
        parts = ["go"]
        if self.depth is not None:
            parts += ["depth", str(self.depth)]
        if self.nodes is not None:
            parts += ["nodes", str(self.nodes)]
        if self.wtime is not None and self.btime is not None:
            parts += ["wtime", str(max(1, self.wtime)), "btime", str(max(1, self.btime))]
            parts += ["winc", str(self.winc), "binc", str(self.binc)]
            if self.movestogo:
                parts += ["movestogo", str(self.movestogo)]
        elif self.movetime_ms is not None:
            parts += ["movetime", str(self.movetime_ms)]
        return " ".join(parts)

    def describe(self) -> str:
        """The limit in words, for logs and pages.

        >>> SearchLimit(depth=14, nodes=500_000).describe()
        'depth 14, 500,000 nodes'
        """
        parts = []
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"{self.nodes:,} nodes")
        if self.movetime_ms is not None:
            parts.append(f"{self.movetime_ms} ms")
        return ", ".join(parts)

    def timeout_s(self) -> float:
        """How long to wait for ``bestmove`` before taking the engine as hung."""
        if self.wtime is not None and self.btime is not None:
            return max(self.wtime, self.btime) / 1000 + SEARCH_MARGIN_S
        if self.movetime_ms is not None:
            return self.movetime_ms / 1000 + SEARCH_MARGIN_S
        return DEPTH_SEARCH_TIMEOUT_S


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a search found: the best move (None: the game is over in the position), the
    score (``"cp 35"``, ``"mate -2"``: UCI's words, the side to move's view; None if the
    engine said none) and the depth it reached."""

    best: str | None
    score: str | None
    depth: int


def parse_info(line: str) -> tuple[str | None, int | None]:
    """An ``info`` line's exact score and depth; (None, None) for a bound or no score.

    >>> parse_info("info depth 12 seldepth 17 multipv 1 score cp -31 nodes 9130 pv e7e5")
    ('cp -31', 12)
    >>> parse_info("info depth 9 score cp 40 lowerbound nodes 300")
    (None, None)
    """
    words = line.split()
    if "score" not in words or "lowerbound" in words or "upperbound" in words:
        return None, None
    at = words.index("score")
    if at + 2 >= len(words) or words[at + 1] not in ("cp", "mate"):
        return None, None
    depth = None
    if "depth" in words and words.index("depth") + 1 < len(words):
        text = words[words.index("depth") + 1]
        if len(text) <= 4 and text.isascii() and text.isdigit() and int(text) <= MAX_DEPTH:
            depth = int(text)
    return f"{words[at + 1]} {words[at + 2]}", depth


@dataclass(frozen=True, slots=True)
class UciOption:
    """One ``option name ... type ...`` line of the engine's ``uci`` answer."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None


def parse_option(line: str) -> UciOption | None:
    """Read an ``option`` line; None if it is not one.

    >>> parse_option("option name Skill Level type spin default 20 min 0 max 20")
    UciOption(name='Skill Level', type='spin', default='20', min=0, max=20)
    """
    words = line.split()
    if len(words) < 5 or words[0] != "option" or words[1] != "name" or "type" not in words:
        return None
    keywords = {"type", "default", "min", "max", "var"}
    at = words.index("type")
    name = " ".join(words[2:at])
    fields: dict[str, str] = {}
    key = None
    for word in words[at:]:
        if word in keywords:
            key = word
            fields.setdefault(key, "")
        elif key is not None:
            fields[key] = f"{fields[key]} {word}".strip()

    def whole(text: str | None) -> int | None:
        try:
            return int(text) if text is not None else None
        except ValueError:
            return None

    return UciOption(
        name, fields.get("type", ""), fields.get("default"), whole(fields.get("min")),
        whole(fields.get("max")),
    )  # fmt: skip


def _cut(text: str, limit: int) -> str:
    """``text`` printable and at most ``limit`` characters (an engine's words in a log)."""
    text = "".join(c if c.isprintable() else "?" for c in text[: limit + 1])
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _option_value(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class UciEngine:
    """A running UCI engine process. Start one with :meth:`start`."""

    def __init__(self, process: asyncio.subprocess.Process, path: Path) -> None:
        self.process = process
        self.path = path
        self.name = path.name
        self.author = ""
        self.options: dict[str, UciOption] = {}
        self._searching = False
        self._lock = asyncio.Lock()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        self._stderr_task = asyncio.get_running_loop().create_task(self._keep_stderr())

    async def _keep_stderr(self) -> None:
        """Read the engine's stderr as it comes (so it never blocks), keeping the last lines."""
        stream = self.process.stderr
        if stream is None:
            return
        while True:
            try:
                line = await stream.readline()
            except ValueError:  # a line past the stream's limit: dropped, the next one read
                self._stderr.append("(a line too long to keep)")
                continue
            if not line:
                return
            text = line.decode(errors="replace").strip()
            if text:
                self._stderr.append(_cut(text, MAX_WORDS))

    async def _stderr_said(self) -> None:
        """Give the engine's last stderr lines a moment to arrive (it has ended)."""
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 0.5)

    # ------------------------------------------------------------------ life

    @classmethod
    async def start(
        cls,
        path: str | os.PathLike[str] = "",
        *,
        timeout: float = HANDSHAKE_TIMEOUT_S,
        nice: int = 0,
    ) -> UciEngine:
        """Start the engine at ``path`` (see :func:`find_engine`) and do the ``uci``
        handshake: its name and options are then known. ``nice``: run it that much nicer
        than this process (work in the background that must not compete with the board)."""
        binary = find_engine(path)
        try:
            process = await asyncio.create_subprocess_exec(
                str(binary),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,  # its last lines explain a failure
                start_new_session=True,  # a terminal's Ctrl-C goes to the daemon, not here
            )
        except OSError as exc:
            raise EngineNotFound(f"{binary}: cannot start ({exc.strerror or exc})") from exc
        if nice:
            with contextlib.suppress(OSError):  # a priority is a wish, never a failure
                own = os.getpriority(os.PRIO_PROCESS, 0)
                os.setpriority(os.PRIO_PROCESS, process.pid, min(19, own + nice))
        engine = cls(process, binary)
        try:
            await engine._send("uci")
            while True:
                line = await engine._read(timeout, "uci")
                if line.startswith("id name "):
                    engine.name = _cut(line[len("id name ") :].strip(), MAX_NAME) or binary.name
                elif line.startswith("id author "):
                    engine.author = _cut(line[len("id author ") :].strip(), MAX_NAME)
                elif line.startswith("option "):
                    option = parse_option(line)
                    if option is not None:
                        engine.options[option.name] = option
                elif line.strip() == "uciok":
                    break
        except BaseException:
            await engine.kill()
            raise
        return engine

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def quit(self, timeout: float = 2.0) -> None:
        """Ask the engine to quit; kill it if it does not within ``timeout``."""
        if self.alive:
            with contextlib.suppress(EngineError):
                if self._searching:
                    await self._send("stop")
                await self._send("quit")
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                pass
        await self.kill()

    async def kill(self) -> None:
        """End the process at once (safe to call on a dead one)."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        with contextlib.suppress(Exception):
            await self.process.wait()
        with contextlib.suppress(Exception):  # stderr ends with the process
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)

    # ------------------------------------------------------------------ commands

    async def configure(self, options: Mapping[str, str | int | bool]) -> None:
        """``setoption`` for each, then wait until the engine is ready.

        An option the engine does not offer is an :class:`EngineError` naming it.
        """
        async with self._lock:
            await self._drain_search()
            for name, value in options.items():
                if name not in self.options:
                    raise EngineError(f"{self.name} has no option {name!r}")
                await self._send(f"setoption name {name} value {_option_value(value)}")
            await self._ready()

    async def new_game(self) -> None:
        """``ucinewgame``: forget what the last game taught the engine's tables."""
        async with self._lock:
            await self._drain_search()
            await self._send("ucinewgame")
            await self._ready()

    async def best_move(
        self,
        fen: str,
        moves: Sequence[str],
        limit: SearchLimit,
        *,
        timeout: float | None = None,
    ) -> str | None:
        """The engine's move (UCI text) in the position ``fen`` after ``moves``;
        None when it has none (mate or stalemate on the board).

        Cancelling the awaiting task stops the search; the engine stays usable.
        """
        return (await self.analyse(fen, moves, limit, timeout=timeout)).best

    async def analyse(
        self,
        fen: str,
        moves: Sequence[str],
        limit: SearchLimit,
        *,
        timeout: float | None = None,
    ) -> Analysis:
        """The engine's move and score in the position ``fen`` after ``moves`` (the last
        exact score its search reported). Cancelling stops the search, as for
        :meth:`best_move`."""
        position = f"position fen {fen}"
        if moves:
            position += " moves " + " ".join(moves)
        wait = limit.timeout_s() if timeout is None else timeout
        score: str | None = None
        depth = 0
        async with self._lock:
            await self._drain_search()
            await self._send(position)
            await self._send(limit.go())
            self._searching = True
            try:
                loop = asyncio.get_running_loop()
                deadline = loop.time() + wait
                while True:
                    line = await self._read_until(("info", "bestmove"), deadline - loop.time())
                    if line.startswith("bestmove"):
                        break
                    found, reached = parse_info(line)
                    if found is not None:
                        score, depth = found, reached or depth
            except EngineTimeout:
                await self.kill()
                raise
            self._searching = False
        words = line.split()
        move = words[1] if len(words) > 1 else "(none)"
        return Analysis(None if move in ("(none)", "0000") else move, score, depth)

    # ------------------------------------------------------------------ the pipe

    async def _ready(self, timeout: float = HANDSHAKE_TIMEOUT_S) -> None:
        await self._send("isready")
        try:
            await self._read_until("readyok", timeout)
        except EngineTimeout:
            await self.kill()
            raise

    async def _drain_search(self) -> None:
        """A search abandoned by a cancelled caller: stop it and read its ``bestmove``."""
        if not self._searching:
            return
        await self._send("stop")
        try:
            await self._read_until("bestmove", SEARCH_MARGIN_S)
        except EngineTimeout:
            await self.kill()
            raise
        self._searching = False

    async def _send(self, command: str) -> None:
        stdin = self.process.stdin
        if stdin is None or self.process.returncode is not None:
            raise EngineCrashed(self._ended(f"before {command.split()[0]!r}"))
        try:
            stdin.write(command.encode() + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            with contextlib.suppress(TimeoutError):  # its exit status, for the message
                await asyncio.wait_for(self.process.wait(), 1.0)
            await self._stderr_said()
            raise EngineCrashed(self._ended(f"while sending {command.split()[0]!r}")) from exc

    async def _read(self, timeout: float, waiting_for: str) -> str:
        assert self.process.stdout is not None
        try:
            # Not wait_for: Python 3.11's drops a cancellation that comes with the line.
            async with asyncio.timeout(timeout):
                raw = await self.process.stdout.readline()
        except ValueError:  # no end of line within the stream's limit (64 kB)
            await self.kill()
            raise EngineError(
                f"{self.name}: a line of more than 64 kB while waiting for {waiting_for!r}: "
                "not a UCI engine's answer (killed)"
            ) from None
        except TimeoutError:
            await self.kill()
            hint = ": is it a UCI engine?" if waiting_for == "uci" else ""
            raise EngineTimeout(
                f"{self.name}: no answer to {waiting_for!r} within {timeout:g} s{hint} (killed)"
            ) from None
        if not raw:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 1.0)
            await self._stderr_said()
            raise EngineCrashed(self._ended(f"waiting for {waiting_for!r}"))
        return raw.decode(errors="replace").rstrip("\r\n")

    async def _read_until(self, keyword: str | tuple[str, ...], timeout: float) -> str:
        """Lines until one starting with ``keyword`` (or one of them; the others, such
        as ``info`` lines, are skipped)."""
        keywords = (keyword,) if isinstance(keyword, str) else keyword
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                await self.kill()
                raise EngineTimeout(
                    f"{self.name}: no {keywords[-1]!r} within {timeout:g} s (killed)"
                )
            line = await self._read(left, keywords[-1])
            if line.split(" ", 1)[0] in keywords:
                return line

    def _ended(self, when: str) -> str:
        code = self.process.returncode
        how = "" if code is None else f" (exit {code})" if code >= 0 else f" (signal {-code})"
        self._searching = False
        said = f"; it said: {' | '.join(self._stderr)}" if self._stderr else ""
        return f"{self.name} ended {when}{how}{said}"
