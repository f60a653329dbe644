"""The hands of the move in progress, kept in a small file beside the store as they happen.

The store keeps the committed moves; between two of them the only record of what the hands
did is the tracker's memory. A kill, a crash or a power cut inside a capture's settle time
(the victim lifted, the queen set down on its square, not yet judged) would leave a restart
guessing from the occupancy, which cannot tell ``Qxg7`` from the queen still in the hand
(issue 24). So every event the tracker is given (lift, place, promotion choice, button, a
player's expected move) is written here first, with its time, and a restart replays them
through a tracker made from the stored game (:mod:`.resumption`). When a restart finds
pieces that read several ways, the question it asks is a line too, and the lifts and
places held back while it stands follow it.

The journal starts again from an *anchor* whenever the tracker holds nothing but its game
(:meth:`~board_driver.arbiter.tracker.Tracker.at_rest`) and the store has every move: it
holds the events since the last moment when a tracker made afresh from the stored game
was in the same state, usually the hands of one move or two.

Crash safety, as the daemon dies at any instruction or the power goes:

- Each line ends with a CRC-32 of the line and of the anchor's generation (a random
  number drawn for each anchor). A torn line ends the journal there; lines of an older
  anchor left further on in the file never pass; the file ends at the first NUL.
- The room is made beforehand (zeros, :data:`CHUNK` bytes at a time) and lines are written
  into it with ``pwrite``: a full disk does not stop the journal, so the moves the store
  could not take are kept here until it can. Written without waiting for the card; a
  thread of its own asks the kernel to put them on it (``fdatasync``) right after.
- The anchor names the game (its number, when it started) and its line of moves (a digest
  of the start position and the moves): a journal of another game or store, or of a line
  that a take-back or a new game changed since, is not replayed (:meth:`Kept.fits`).
- A write that fails stops the journal there (a prefix of what happened is still true);
  the next anchor tries again.

The lines read like a board script's (``@1200 lift g7``), for a person reading one:

>>> import tempfile, pathlib
>>> from board_driver.physical.events import Lift, Place
>>> path = pathlib.Path(tempfile.mkdtemp()) / "games.sqlite.hands"
>>> journal = HandsJournal.open(path)
>>> journal.start(Anchor(1, "2026-05-01T10:00:00.000Z", "8/8/8/8/8/8/8/K6k w - - 0 1", ()))
>>> journal.add(Lift(1200, 0)); journal.add(Place(1500, 1)); journal.close()
>>> kept = HandsJournal.open(path).kept
>>> [event_line(e) for e in kept.events], kept.plies
(['@1200 lift a1', '@1500 place b1'], 0)
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

from board_driver.physical.events import (
    BUTTON_NAMES,
    PROMOTION_LETTERS,
    BoardEvent,
    Button,
    Choose,
    Lift,
    Place,
)
from board_driver.physical.squares import square, square_name

log = logging.getLogger("magboard")

#: The journal's first word, and the version of its format.
MAGIC = "magboard-hands"
VERSION = 1
#: Room is made this many bytes at a time (a move's events take a few dozen bytes each).
CHUNK = 64 * 1024
#: Past this size the journal stops: a restart then judges by the occupancy, as without one.
MAX_BYTES = 16 * CHUNK


def journal_path(store: Path) -> Path:
    """Where the journal of the store at ``store`` lives: beside it."""
    return store.with_name(store.name + ".hands")


@dataclass(frozen=True, slots=True)
class Expect:
    """A player not at the board chose its move (``uci``): the only one the board accepts."""

    t_ms: int
    uci: str


@dataclass(frozen=True, slots=True)
class Asked:
    """After a restart the board asked what the pieces ``standing`` then cannot tell: the
    lifts and places after this line were held back from the tracker, for the answer."""

    t_ms: int
    standing: int


@dataclass(frozen=True, slots=True)
class Decided:
    """The game changed by a decision from outside the board, as the door was told it:
    ``takeback N`` (plies), ``end TERMINATION WINNER`` (``white``, ``black`` or ``-``),
    ``options touch_move=warn,takeback=true,hints=false``."""

    t_ms: int
    what: str


JournalEvent = BoardEvent | Expect | Asked | Decided


def event_line(event: JournalEvent) -> str:
    """An event as its journal line (without the CRC).

    >>> event_line(Choose(300, "n")), event_line(Expect(900, "e7e5"))
    ('@300 choose n', '@900 expect e7e5')
    >>> event_line(Asked(950, 0xFFFF00000000FFF7))
    '@950 question ffff00000000fff7'
    """
    if isinstance(event, Lift | Place):
        what = f"{type(event).__name__.lower()} {square_name(event.square)}"
    elif isinstance(event, Choose):
        what = f"choose {event.piece}"
    elif isinstance(event, Button):
        what = f"button {event.name}"
    elif isinstance(event, Expect):
        what = f"expect {event.uci}"
    elif isinstance(event, Asked):
        what = f"question {event.standing:016x}"
    elif isinstance(event, Decided):
        what = event.what
    else:
        raise TypeError(f"not a journal event: {event!r}")
    return f"@{int(event.t_ms)} {what}"


def parse_event(line: str) -> JournalEvent:
    """The event of a journal line (without its CRC); ValueError if it is none.

    >>> parse_event("@700 end timeout white")
    Decided(t_ms=700, what='end timeout white')
    """
    stamp, kind, *args = line.split(" ")
    if kind == "end" and len(args) == 2 and args[1] in ("white", "black", "-"):
        return Decided(int(stamp[1:]), line.split(" ", 1)[1])
    if kind == "options" and args and "=" in args[0]:  # a value may hold a space: "5+3 delay"
        return Decided(int(stamp[1:]), line.split(" ", 1)[1])
    if len(args) != 1:
        raise ValueError(f"not an event: {line!r}")
    arg = args[0]
    if not stamp.startswith("@"):
        raise ValueError(f"no time: {line!r}")
    t = int(stamp[1:])
    if kind == "lift":
        return Lift(t, square(arg))
    if kind == "place":
        return Place(t, square(arg))
    if kind == "choose" and arg in PROMOTION_LETTERS:
        return Choose(t, arg)
    if kind == "button" and arg in BUTTON_NAMES:
        return Button(t, arg)
    if kind == "expect" and 4 <= len(arg) <= 5:
        return Expect(t, arg)
    if kind == "question" and len(arg) == 16:
        return Asked(t, int(arg, 16))
    if (kind == "takeback" and arg.isdigit()) or (kind == "options" and "=" in arg):
        return Decided(t, f"{kind} {arg}")
    raise ValueError(f"not an event: {line!r}")


@dataclass(frozen=True)
class Anchor:
    """Where the journal starts: a stored game (its number, when it started) at a line of
    moves (UCI), with no move in progress, and the pieces standing then (``board``, None:
    as the line leaves them)."""

    game_id: int
    started: str
    start_fen: str
    moves: tuple[str, ...]
    board: int | None = None

    def digest(self) -> str:
        return line_digest(self.start_fen, self.moves)


def line_digest(start_fen: str, moves: tuple[str, ...] | list[str]) -> str:
    """A short digest of a game's start and moves (to recognise the line a journal is of)."""
    text = start_fen + "|" + " ".join(moves)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Kept:
    """What a journal holds: its anchor and the events since, in order."""

    game_id: int
    started: str
    plies: int
    digest: str
    #: The pieces standing at the anchor (None: as its line leaves them).
    board: int | None
    events: tuple[JournalEvent, ...]
    generation: str = ""
    #: Where the last whole line ends in the file (the next one goes there).
    end: int = 0

    def fits(self, game_id: int | None, started: str, start_fen: str, moves: list[str]) -> str:
        """Why this journal is not of the stored game ``game_id`` (started ``started``)
        whose line is ``moves``: "" when it is (its anchor is that game at one of the
        line's plies)."""
        if game_id != self.game_id:
            return f"it is of game {self.game_id}, not of the game on the board ({game_id})"
        if started != self.started:
            return f"it is of another game {game_id} (started {self.started}, not {started})"
        if self.plies > len(moves):
            return f"it starts at ply {self.plies}; the store has {len(moves)}"
        if line_digest(start_fen, moves[: self.plies]) != self.digest:
            return f"the stored moves before its ply {self.plies} are not the ones it followed"
        return ""


def _crc(generation: str, line: str) -> str:
    return f"{zlib.crc32(f'{generation} {line}'.encode()):08x}"


def _header(generation: str, anchor: Anchor) -> str:
    board = "-" if anchor.board is None else f"{anchor.board:016x}"
    return (
        f"{MAGIC} {VERSION} {generation} {anchor.game_id} {anchor.started} "
        f"{len(anchor.moves)} {anchor.digest()} {board}"
    )


def parse(data: bytes) -> Kept | None:
    """What ``data`` (a journal file's bytes) holds, or None when no anchor can be read."""
    text = data.split(b"\0", 1)[0].decode("ascii", errors="replace")
    lines = text.split("\n")
    try:
        header, crc = lines[0].rsplit(" ", 1)
        magic, version, generation, game_id, started, plies, digest, board = header.split(" ")
        if magic != MAGIC or int(version) != VERSION or crc != _crc(generation, header):
            return None
        standing = None if board == "-" else int(board, 16)
        anchor = (int(game_id), started, int(plies), digest, standing)
    except ValueError:
        return None
    events: list[JournalEvent] = []
    end = len(lines[0]) + 1
    for raw in lines[1:]:
        body, _, crc = raw.rpartition(" ")
        if not body or crc != _crc(generation, body) or end + len(raw) >= len(text):
            break  # torn, or a line of an older anchor, or not ended: the journal ends here
        try:
            events.append(parse_event(body))
        except ValueError:
            # Whole (its CRC holds) but not understood: one event skipped, not the rest lost.
            log.warning("hands journal: line skipped, not an event: %r", body)
        end += len(raw) + 1
    return Kept(*anchor, tuple(events), generation, end)


class HandsJournal:
    """The journal file of one store, open for the daemon's life. Use :meth:`open`.

    ``kept`` is what the file held when it was opened (None: nothing usable);
    ``problem`` says why it cannot be kept now (None while it works).
    """

    def __init__(self, path: Path, fd: int | None, kept: Kept | None, problem: str | None) -> None:
        self.path = path
        self.kept = kept
        self.problem = problem
        self._fd = fd
        self._size = 0
        self._end = 0  # where the next line goes
        self._generation = ""
        self._anchored = False
        self._anchor: tuple[int, int] | None = None  # (game, plies) of the anchor written
        self._count = 0  # events written since
        self._syncer = _Syncer(fd) if fd is not None else None

    @classmethod
    def open(cls, path: Path) -> HandsJournal:
        """Open (or create) the journal at ``path`` and read what it holds. Never raises:
        a journal that cannot be read or written is said (``problem``) and left aside."""
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            return cls._aside(path, _read_only(path), f"cannot open it ({exc.strerror})")
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(0, "not a regular file")
            data = os.pread(fd, min(info.st_size, MAX_BYTES), 0)
        except OSError as exc:
            os.close(fd)
            return cls._aside(path, None, f"cannot read it ({exc.strerror})")
        journal = cls(path, fd, parse(data), None)
        journal._size = info.st_size
        return journal

    @classmethod
    def _aside(cls, path: Path, kept: Kept | None, why: str) -> HandsJournal:
        log.error(
            "cannot keep the hands journal %s: %s; a restart during a move will judge the "
            "board by its pieces only",
            path,
            why,
        )
        return cls(path, None, kept, why)

    # ------------------------------------------------------------------ writing

    def start(self, anchor: Anchor) -> None:
        """Start again from ``anchor``: the events written so far are dropped."""
        fd, syncer = self._fd, self._syncer
        if fd is None or syncer is None:
            return
        generation = os.urandom(8).hex()
        header = _header(generation, anchor)
        line = f"{header} {_crc(generation, header)}\n".encode()
        try:
            self._make_room(len(line) + 1)
            os.pwrite(fd, line + b"\0", 0)
        except OSError as exc:
            self._failed(exc)
            return
        self._generation = generation
        self._end = len(line)
        self._anchored = True
        self._anchor = (anchor.game_id, len(anchor.moves))
        self._count = 0
        if self.problem is not None:
            log.warning("the hands journal %s is kept again", self.path)
            self.problem = None
        syncer.poke()

    def add(self, event: JournalEvent) -> None:
        """Write ``event`` (before the tracker is given it)."""
        fd, syncer = self._fd, self._syncer
        if not self._anchored or fd is None or syncer is None:
            return
        body = event_line(event)
        line = f"{body} {_crc(self._generation, body)}\n".encode()
        try:
            self._make_room(self._end + len(line) + 1)
            os.pwrite(fd, line + b"\0", self._end)
        except OSError as exc:
            self._failed(exc)
            return
        self._end += len(line)
        self._count += 1
        syncer.poke()

    def go_on(self) -> None:
        """Write on after the events read at open (they were replayed: they still count)."""
        kept = self.kept
        if self._fd is None or kept is None:
            return
        self._generation, self._end = kept.generation, kept.end
        self._anchored = True
        self._anchor = (kept.game_id, kept.plies)
        self._count = len(kept.events)

    def unsettled(self, game_id: int | None, plies: int) -> bool:
        """Does the journal need to start again for game ``game_id`` at ``plies`` with no
        move in progress (events since its anchor, another anchor, or none written)?"""
        if self._fd is None:
            return False
        return not self._anchored or self._count > 0 or self._anchor != (game_id, plies)

    def keeps(self, game_id: int | None, stored_plies: int) -> bool:
        """Does it hold every event since a position of game ``game_id`` the store has (at
        most ``stored_plies`` plies in): a restart then replays what the store lacks?"""
        return (
            self._anchored
            and self._anchor is not None
            and self._anchor[0] == game_id
            and self._anchor[1] <= stored_plies
        )

    def _make_room(self, needed: int) -> None:
        """Zeros up to ``needed`` bytes (a chunk at a time), so that lines never need new
        blocks from a full disk."""
        if needed <= self._size:
            return
        size = -(-needed // CHUNK) * CHUNK
        if size > MAX_BYTES:
            raise OSError(0, f"more than {MAX_BYTES} bytes of events since the last position")
        if self._fd is None:
            raise OSError(0, "the journal is closed")
        os.pwrite(self._fd, bytes(size - self._size), self._size)
        self._size = size

    def _failed(self, exc: OSError) -> None:
        """Stop here: what is written stays true (a prefix of what happened)."""
        self._anchored = False
        why = exc.strerror or str(exc)
        if self.problem is None:
            log.error(
                "cannot keep the hands journal %s (%s): a restart during a move will judge "
                "the board by its pieces only",
                self.path,
                why,
            )
        self.problem = why

    def close(self) -> None:
        if self._fd is None or self._syncer is None:
            return
        self._syncer.stop()
        fd, self._fd = self._fd, None
        try:
            os.fdatasync(fd)
        except OSError:
            pass
        os.close(fd)


def _read_only(path: Path) -> Kept | None:
    """What a journal that cannot be opened for writing holds (a read-only file)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        return parse(os.pread(fd, min(info.st_size, MAX_BYTES), 0))
    except OSError:
        return None
    finally:
        os.close(fd)


class _Syncer:
    """Puts the journal's writes on the card soon after they are made, in a thread of its
    own: the loop never waits for the card (a write survives a crash of the process at
    once; ``fdatasync`` makes it survive a power cut)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._wanted = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def poke(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="hands-journal", daemon=True)
            self._thread.start()
        self._wanted.set()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            if self._stopping:
                return
            self._wanted.clear()
            try:
                os.fdatasync(self._fd)
            except OSError:
                pass  # the next write says what is wrong, if anything is

    def stop(self) -> None:
        if self._thread is not None:
            self._stopping = True
            self._wanted.set()
            self._thread.join(5)
