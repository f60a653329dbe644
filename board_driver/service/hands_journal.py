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
(:meth:`~board_driver.arbiter.tracker.Tracker.at_rest`) and the store has everything (every
move, and every option and header set): it holds the events since the last moment when a
tracker made afresh from the stored game was in the same state, usually the hands of one
move or two. While the store cannot be written (a full disk) it does not start again: it
then holds everything the store lacks, take-backs and new games included, and the next
start replays it (:mod:`.replay`).

Crash safety, as the daemon dies at any instruction or the power goes:

- Each line ends with a CRC-32 of the line and of the anchor's generation (a random
  number drawn for each anchor). A torn line ends the journal there; lines of an older
  anchor left further on in the file never pass; the file ends at the first NUL.
- The room is made beforehand (zeros, :data:`CHUNK` bytes at a time) and lines are written
  into it with ``pwrite``: a full disk does not stop the journal, so the moves the store
  could not take are kept here until it can. Written without waiting for the card; a
  thread of its own asks the kernel to put them on it (``fdatasync``) right after.
- The anchor names the game (its number, when it started, its start position) and its
  whole line of moves: a journal of another game or store is not replayed
  (:meth:`Kept.fits`).
- A write that fails stops the journal there (a prefix of what happened is still true);
  the next anchor tries again.
- A journal that cannot be used (another version's, a damaged first line, one whose
  replay fails for any reason) is never written over: it is renamed aside
  (:meth:`HandsJournal.set_aside`) and a new one begun.

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

import datetime as _dt
import hashlib
import logging
import os
import re
import stat
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

from board_driver.service.journal_lines import (
    HEX64,
    MAX_PLIES,
    UCI,
    Asked,
    Decided,
    Expect,
    JournalEvent,
    event_line,
    parse_event,
)

__all__ = [
    "Anchor",
    "Asked",
    "Decided",
    "Expect",
    "HandsJournal",
    "JournalEvent",
    "Kept",
    "event_line",
    "journal_path",
    "parse",
    "parse_event",
    "read",
]

log = logging.getLogger("magboard")

#: The journal's first word, and the version of its format: 2 names the anchor's whole line
#: of moves (1, read still, named a digest of a line the store had to hold).
MAGIC = "magboard-hands"
VERSION = 2
READ_VERSIONS = (1, 2)
#: Room is made this many bytes at a time (a move's events take a few dozen bytes each).
CHUNK = 64 * 1024
#: Past this size the journal stops: a restart then judges by the occupancy, as without one.
MAX_BYTES = 16 * CHUNK
_STARTED = re.compile(r"[0-9A-Za-z:.+_-]{1,40}")
_FEN = re.compile(r"[0-9A-Za-z/_-]{1,100}")


def journal_path(store: Path) -> Path:
    """Where the journal of the store at ``store`` lives: beside it."""
    return store.with_name(store.name + ".hands")


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
    """What a journal holds: its anchor and the events since, in order.

    A journal of format 2 names its anchor's whole line (``start_fen``, ``line``); one of
    format 1 only its length (``plies``) and a digest, of a line the store must hold."""

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
    start_fen: str | None = None
    line: tuple[str, ...] | None = None
    #: Whole lines (their CRC holds) that were no event this magboard knows: skipped.
    skipped: int = 0

    def fits(self, game_id: int | None, started: str, start_fen: str, moves: list[str]) -> str:
        """Why this journal is not of the stored game ``game_id`` (started ``started``)
        whose line is ``moves``: "" when it is. A journal of format 2 carries its anchor's
        line: the store may have gone on past it, or have fewer moves (a take-back stored
        while a move was under way); one of format 1 must be anchored on the store's line."""
        if game_id != self.game_id:
            return f"it is of game {self.game_id}, not of the game on the board ({game_id})"
        if started != self.started:
            return f"it is of another game {game_id} (started {self.started}, not {started})"
        if self.line is not None:
            if self.start_fen != start_fen:
                return "it starts from another position than the stored game"
            return ""
        if self.plies > len(moves):
            return f"it starts at ply {self.plies}; the store has {len(moves)}"
        if line_digest(start_fen, moves[: self.plies]) != self.digest:
            return f"the stored moves before its ply {self.plies} are not the ones it followed"
        return ""

    def anchor_line(self, stored: list[str]) -> list[str]:
        """The anchor's moves (format 1: the stored moves up to its ply)."""
        return list(self.line) if self.line is not None else stored[: self.plies]


def _crc(generation: str, line: str) -> str:
    return f"{zlib.crc32(f'{generation} {line}'.encode()):08x}"


def _header(generation: str, anchor: Anchor) -> str:
    board = "-" if anchor.board is None else f"{anchor.board:016x}"
    fen = anchor.start_fen.replace(" ", "_")
    return (
        f"{MAGIC} {VERSION} {generation} {anchor.game_id} {anchor.started or '-'} {board} "
        f"{fen} {','.join(anchor.moves) or '-'}"
    )


class Unreadable(ValueError):
    """A journal file that holds something this magboard cannot read (another version's,
    a damaged first line): set aside, never written over."""


def parse(data: bytes) -> Kept | None:
    """What ``data`` (a journal file's bytes) holds, or None when no anchor can be read."""
    try:
        return read(data)
    except Unreadable:
        return None


def read(data: bytes) -> Kept | None:
    """What ``data`` (a journal file's bytes) holds; None when it holds nothing (empty, or
    only the room made beforehand); :class:`Unreadable` says why it cannot be used."""
    text = data.split(b"\0", 1)[0].decode("ascii", errors="replace")
    if not text.strip():
        return None
    lines = text.split("\n")
    head, _, crc = lines[0].rpartition(" ")
    fields = head.split(" ")
    if fields[0] != MAGIC:
        raise Unreadable("it is not a hands journal (its first line is not one)")
    if len(fields) < 2 or not fields[1].isdigit() or int(fields[1][:3]) not in READ_VERSIONS:
        version = fields[1][:12] if len(fields) > 1 else "?"
        raise Unreadable(
            f"it was written by another magboard (format {version}; this one reads "
            f"{' and '.join(map(str, READ_VERSIONS))})"
        )
    generation = fields[2] if len(fields) > 2 else ""
    if not HEX64.fullmatch(generation) or crc != _crc(generation, head):
        raise Unreadable("its first line is damaged (its check does not hold)")
    anchor = _anchor_fields(fields)
    events: list[JournalEvent] = []
    skipped = 0
    end = len(lines[0]) + 1
    for raw in lines[1:]:
        body, _, crc = raw.rpartition(" ")
        if not body or crc != _crc(generation, body) or end + len(raw) >= len(text):
            break  # torn, or a line of an older anchor, or not ended: the journal ends here
        try:
            events.append(parse_event(body))
        except ValueError as exc:
            # Whole (its CRC holds) but not understood: one line skipped, not the rest lost.
            skipped += 1
            if skipped <= 3:
                log.warning("hands journal: line skipped: %s", exc)
        end += len(raw) + 1
    if skipped > 3:
        log.warning("hands journal: %d lines skipped in all", skipped)
    return Kept(**anchor, events=tuple(events), generation=generation, end=end, skipped=skipped)


def _anchor_fields(fields: list[str]) -> dict:
    """The anchor of a journal's first line, every field checked."""
    version = int(fields[1])
    if len(fields) != 8:
        raise Unreadable(f"its first line is damaged ({len(fields)} fields, not 8)")
    game_id, started = fields[3], fields[4]
    if not (game_id.isdigit() and len(game_id) <= 18 and int(game_id) >= 1):
        raise Unreadable(f"its first line is damaged (no game number: {game_id[:20]!r})")
    if not _STARTED.fullmatch(started):
        raise Unreadable("its first line is damaged (no time of the game's start)")
    if version == 1:
        plies, digest, board = fields[5], fields[6], fields[7]
        if not (plies.isdigit() and len(plies) <= 5 and int(plies) <= MAX_PLIES):
            raise Unreadable(f"its first line is damaged (no number of plies: {plies[:20]!r})")
        if not HEX64.fullmatch(digest):
            raise Unreadable("its first line is damaged (no digest of a line of moves)")
        line, fen, count = None, None, int(plies)
    else:
        board, fen, moves = fields[5], fields[6], fields[7]
        if not _FEN.fullmatch(fen):
            raise Unreadable("its first line is damaged (no position it starts from)")
        fen = fen.replace("_", " ")
        line = () if moves == "-" else tuple(moves.split(","))
        if len(line) > MAX_PLIES or not all(UCI.fullmatch(m) for m in line):
            raise Unreadable("its first line is damaged (not a line of moves)")
        digest, count = line_digest(fen, line), len(line)
    if board != "-" and not HEX64.fullmatch(board):
        raise Unreadable(f"its first line is damaged (not the pieces standing: {board[:20]!r})")
    return {
        "game_id": int(game_id),
        "started": "" if started == "-" else started,
        "plies": count,
        "digest": digest,
        "board": None if board == "-" else int(board, 16),
        "start_fen": fen,
        "line": line,
    }


class HandsJournal:
    """The journal file of one store, open for the daemon's life. Use :meth:`open`.

    ``kept`` is what the file held when it was opened (None: nothing usable);
    ``problem`` says why it cannot be kept now (None while it works).
    """

    def __init__(self, path: Path, fd: int | None, kept: Kept | None, problem: str | None) -> None:
        self.path = path
        self.kept = kept
        self.problem = problem
        #: Why what the file held at open cannot be used (None: it can, or held nothing).
        self.unreadable: str | None = None
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
        try:
            kept, unreadable = read(data), None
        except Unreadable as exc:
            kept, unreadable = None, str(exc)
        journal = cls(path, fd, kept, None)
        journal.unreadable = unreadable
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

    def set_aside(self) -> Path | None:
        """Rename the file aside (``NAME.unreplayed-STAMP``, beside it) and begin a new one:
        what it holds is kept for a person to read, never written over. Returns where it
        went; None when it could not be moved (the journal is then not kept at all, so
        that nothing writes over it)."""
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        target = self.path.with_name(f"{self.path.name}.unreplayed-{stamp}")
        number = 1
        while os.path.lexists(target):
            number += 1
            target = self.path.with_name(f"{self.path.name}.unreplayed-{stamp}-{number}")
        try:
            os.rename(self.path, target)
        except OSError as exc:
            log.error(
                "cannot set the hands journal %s aside (%s): it is left as it is and not "
                "kept this time",
                self.path,
                exc.strerror or exc,
            )
            self._close_fd()
            self.problem = f"cannot be set aside ({exc.strerror or exc})"
            return None
        self._close_fd()
        fresh = HandsJournal.open(self.path)
        self._fd, self._size, self.problem = fresh._fd, fresh._size, fresh.problem
        self._syncer = fresh._syncer
        fresh._fd = None
        self.kept, self.unreadable = None, None
        self._anchored, self._anchor, self._count, self._end = False, None, 0, 0
        return target

    def _close_fd(self) -> None:
        if self._fd is None:
            return
        if self._syncer is not None:
            self._syncer.stop()
        fd, self._fd = self._fd, None
        self._syncer = None
        os.close(fd)

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
        self._count = len(kept.events) + kept.skipped

    def unsettled(self, game_id: int | None, plies: int) -> bool:
        """Does the journal need to start again for game ``game_id`` at ``plies`` with no
        move in progress (events since its anchor, another anchor, or none written)?"""
        if self._fd is None:
            return False
        return not self._anchored or self._count > 0 or self._anchor != (game_id, plies)

    def keeps(self) -> bool:
        """Does it hold every event since its anchor (no write failed since)? The journal
        starts again only when the store has everything, so a restart then replays what
        the store lacks."""
        return self._fd is not None and self._anchored

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
        if self._syncer is not None:
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
