"""A simulated board: pieces you lift and place by calling methods, read like a matrix.

The replay, the tests, the web page and ``magboard diagnose --sim`` drive it. Its scans go
through the electrical model of :mod:`board_driver.physical.sensing.matrix`, so a board built
without diodes shows the ghosts a real one would.

>>> board = SimulatedBoard()
>>> board.lift(12); board.place(28)          # 1. e4
>>> f"{board.scan():016x}"
'ffff00001000efff'

With a ``state_file`` the pieces survive a restart of the daemon, as real pieces do: the
file is read on start and rewritten atomically after every change. A change is made even
when the file cannot be written (a full disk): the pieces in memory are the board, and
:class:`SimStateWriteError` says the file lags behind until :meth:`SimulatedBoard.save`
(or the next change) succeeds.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import threading
from pathlib import Path

from board_driver.physical.sensing.matrix import read_matrix
from board_driver.physical.squares import FULL_BOARD, square_name, squares_of
from board_driver.user_files import UnusableFile, read_text

#: The start position: ranks 1, 2, 7 and 8 full.
START = 0xFFFF00000000FFFF


class SimStateError(ValueError):
    """The simulated board's state file cannot be read."""


#: The largest state file read: it holds one line of JSON.
MAX_STATE_BYTES = 4096


class SimStateWriteError(OSError):
    """The simulated board's state file could not be written (a full disk, a read-only
    file system). The change that tried to save was made all the same; the file keeps the
    pieces as they were before it until a later save succeeds (``board.unsaved``)."""


class SimulatedBoard:
    """A board whose pieces are moved by calling :meth:`lift` and :meth:`place`.

    ``pieces`` is the bitmap of occupied squares. ``diodes=False`` models a matrix built
    without a diode per switch. Thread-safe: the scan thread reads while the web page or
    a test moves pieces.
    """

    def __init__(
        self,
        pieces: int = START,
        *,
        diodes: bool = True,
        state_file: Path | str | None = None,
    ) -> None:
        if not 0 <= pieces <= FULL_BOARD:
            raise ValueError(f"pieces must be a 64-bit bitmap, got {pieces!r}")
        self.diodes = diodes
        self.state_file = Path(state_file) if state_file else None
        self._lock = threading.Lock()
        self._pieces = pieces
        # Faults a builder could meet, for diagnose and tests: squares stuck open or
        # closed, and squares whose switch chatters on every scan.
        self._stuck_closed = 0
        self._stuck_open = 0
        self._flickering = 0
        self._flicker_phase = False
        self.scans = 0
        self.unsaved = False  # the state file lags behind the pieces (a save failed)
        #: Why the state file found at start could not be read, and where it was moved
        #: (None: it was read, or there was none). The pieces are then unknown: the daemon
        #: stands them as the game on the board.
        self.set_aside: str | None = None
        if self.state_file is not None:
            if self.state_file.exists():
                try:
                    self._pieces = self._load(self.state_file)
                except SimStateError as exc:
                    self.set_aside = self._move_aside(exc)
            else:
                self._save()

    @property
    def pieces(self) -> int:
        """The bitmap of squares holding a piece."""
        return self._pieces

    @pieces.setter
    def pieces(self, bitmap: int) -> None:
        if not 0 <= bitmap <= FULL_BOARD:
            raise ValueError(f"pieces must be a 64-bit bitmap, got {bitmap!r}")
        with self._lock:
            self._pieces = bitmap
            self._save()

    def lift(self, square: int) -> None:
        """Take the piece off ``square``; ValueError if it holds none."""
        with self._lock:
            if not self._pieces >> square & 1:
                raise ValueError(f"cannot lift from {square_name(square)}: it holds no piece")
            self._pieces &= ~(1 << square)
            self._save()

    def place(self, square: int) -> None:
        """Put a piece on ``square``; ValueError if it already holds one."""
        with self._lock:
            if self._pieces >> square & 1:
                raise ValueError(f"cannot place on {square_name(square)}: it holds a piece")
            self._pieces |= 1 << square
            self._save()

    def stick(self, square: int, closed: bool | None) -> None:
        """Make ``square``'s switch read closed (True) or open (False) whatever stands there;
        ``None`` repairs it."""
        bit = 1 << square
        self._stuck_closed &= ~bit
        self._stuck_open &= ~bit
        if closed is True:
            self._stuck_closed |= bit
        elif closed is False:
            self._stuck_open |= bit

    def flicker(self, square: int, on: bool = True) -> None:
        """Make ``square``'s switch chatter: it reads the other way on every second scan."""
        if on:
            self._flickering |= 1 << square
        else:
            self._flickering &= ~(1 << square)

    def scan(self) -> int:
        """One full scan of the matrix, through its electrical model."""
        closed = (self._pieces | self._stuck_closed) & ~self._stuck_open
        if self._flickering:
            self._flicker_phase = not self._flicker_phase
            if self._flicker_phase:
                closed ^= self._flickering
        self.scans += 1
        return read_matrix(closed, diodes=self.diodes)

    def close(self) -> None:
        """Nothing to release; the state file is already up to date."""

    def __repr__(self) -> str:
        names = " ".join(square_name(sq) for sq in squares_of(self._pieces))
        return f"<SimulatedBoard pieces={names or '-'} diodes={self.diodes}>"

    # The state file: {"pieces": "ffff00000000ffff"}, always of the same length: written
    # over in place (one write of a few dozen bytes, within a block the file has: a full
    # disk cannot stop it, and a crash leaves the old text or the new), else to a temporary
    # file renamed over the old one.
    def _save_in_place(self, text: bytes) -> bool:
        if self.state_file is None:
            return False
        try:
            fd = os.open(self.state_file, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size != len(text):
                return False
            if os.pwrite(fd, text, 0) != len(text):
                return False
            os.fsync(fd)
        except OSError:
            return False
        finally:
            os.close(fd)
        self.unsaved = False
        return True

    @staticmethod
    def _load(path: Path) -> int:
        try:
            # A state file is a few dozen bytes: a device, a FIFO or a huge file is
            # refused, not read into memory or waited on.
            data = json.loads(read_text(path, limit=MAX_STATE_BYTES))
            pieces = int(data["pieces"], 16)
        except UnusableFile as exc:
            raise SimStateError(f"{exc} (the simulated board's state file)") from exc
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            # RecursionError: JSON nested a thousand deep, which fits in the few KB read.
            raise SimStateError(
                f"{path}: not a simulated board state file (expected "
                f'{{"pieces": "<16 hex digits>"}}): {exc}'
            ) from exc
        if not 0 <= pieces <= FULL_BOARD:
            raise SimStateError(f"{path}: pieces {data['pieces']!r} is not a 64-bit bitmap")
        return pieces

    def _move_aside(self, exc: SimStateError) -> str:
        """The state file cannot be read: renamed aside (never written over), a new one
        begun. SimStateError again if it cannot be moved (it is not a regular file, ...)."""
        import datetime as _dt

        path = self.state_file
        assert path is not None
        if not path.is_file() or path.is_symlink():
            raise exc
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        target = path.with_name(f"{path.name}.unreadable-{stamp}")
        try:
            os.rename(path, target)
        except OSError as error:
            raise SimStateError(f"{exc} (and it cannot be moved aside: {error.strerror})") from exc
        self.unsaved = True  # saved once the daemon knows the pieces
        return f"{exc}; set aside as {target}"

    def save(self) -> None:
        """Write the pieces to the state file now (again, after a failed save).

        SimStateWriteError says why it cannot be written; the pieces stay as they are."""
        with self._lock:
            self._save()

    def _save(self) -> None:
        if self.state_file is None:
            return
        text = json.dumps({"pieces": f"{self._pieces:016x}"}).encode()
        if self._save_in_place(text):
            return
        directory = self.state_file.parent
        tmp = None
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".simboard-", dir=directory)
            with os.fdopen(fd, "wb") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.state_file)
            self.unsaved = False
        except OSError as exc:
            self.unsaved = True
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            error = SimStateWriteError(
                f"{self.state_file}: cannot save the simulated board's pieces "
                f"({exc.strerror or exc}); they are kept in memory and saved at the next change"
            )
            error.errno = exc.errno
            raise error from exc
        self.unsaved = False
