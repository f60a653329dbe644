"""The game in the store after each step, when the store cannot take it: the part of
:class:`~board_driver.service.daemon.Daemon` that says a failure loudly (the log, the
store-failing pattern on the edge lights, the page's 503), keeps the game in memory and
tries again every second until the store takes it (the recorder keeps what waits beside
the moves: :meth:`.Recorder.behind`), and at a stop that still cannot store says what it
could not, and where it was kept instead: the hands journal, which the next start stores,
and a PGN beside the store, removed once the store has the game.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rules
from board_driver.service.lights import STORE_FAILING_FRAME
from board_driver.service.parts import DaemonParts
from board_driver.service.store import StoreError
from board_driver.service.store_errors import EXIT_STORE_REFUSED, StoreRefusedError

log = logging.getLogger("magboard")

#: A store that failed is tried again this often.
STORE_RETRY_S = 1.0
#: What a store write can raise that is the world's fault (a full disk, a file removed).
STORE_ERRORS = (StoreError, OSError, sqlite3.Error)


class Storing(DaemonParts):
    """The store's failures, said, lit and retried (see the module docstring)."""


    def _sync_store(self, fresh: bool) -> bool:
        """The game in the store; a failure is loud, lit, and retried (the game is kept)."""
        before = self._recorder.stored_line
        entries = self.clock.pending()
        try:
            self._recorder.sync(self.tracker.game, self.tracker.options, fresh, entries)
            self.clock.stored(len(entries))
        except StoreRefusedError as exc:  # damaged under us: retrying cannot mend it
            self.fault(f"{exc}", code=EXIT_STORE_REFUSED)
            return False
        except STORE_ERRORS as exc:
            self._store_failed("cannot store the game", exc)
            return False
        if self._store_failing is not None:
            self._store_failing = None
            handle = self._timers.pop("store", None)
            if handle is not None:
                handle.cancel()
            game = self.tracker.game
            same = _common(before, tuple(game.moves))
            sans = game.san_moves()[same:]
            log.warning(
                "the store works again: game %s is stored (%d plies%s%s)",
                self.game_id,
                len(game.moves),
                f"; taken back from ply {same + 1}" if len(before) > same else "",
                f"; now stored: {' '.join(sans)}" if sans else "",
            )
            self._keep_journal(False)
            self.lights.set_warning(None)
            self.door.announce_state()
        self._unstored_pgn_done()
        return True

    def store_call(self, write: Callable[..., Any], *args: Any) -> None:
        """A write beside the moves (options, headers, an extension's data): like the
        moves, a failure is loud and lit, and the recorder's writes wait for the store and
        are written by its next sync (a write to another stored game is not retried)."""
        try:
            write(*args)
        except StoreRefusedError as exc:
            self.fault(f"{exc}", code=EXIT_STORE_REFUSED)
        except STORE_ERRORS as exc:
            self._store_failed("cannot store", exc)

    def _store_failed(self, what: str, exc: BaseException) -> None:
        message = f"{what}: {exc}"
        self._store_problem = str(exc)
        if self._store_failing != message:
            log.error("%s (the game is kept in memory; retrying every %g s)",
                      message, STORE_RETRY_S)  # fmt: skip
        first = self._store_failing is None
        self._store_failing = message
        self.lights.set_warning(STORE_FAILING_FRAME)
        if first:
            self.door.announce_state()
        if "store" not in self._timers and self.loop is not None:
            self._timers["store"] = self.loop.call_later(STORE_RETRY_S, self._retry_store)

    def _retry_store(self) -> None:
        self._timers.pop("store", None)
        if self._sync_store(False):
            self.lights.refresh()

    def _unstored_pgn(self) -> Path:
        """Where a stop that cannot store writes the game as PGN (beside the store)."""
        store = self.config.store_path()
        game = f"game-{self.game_id}" if self.game_id is not None else "new-game"
        return store.with_name(f"{store.name}.{game}-unstored.pgn")

    def _unstored_pgn_done(self) -> None:
        """The store has the game on the board: a PGN an earlier stop wrote of it (saying
        its moves were not stored) is true no more. Removed once the store holds every
        move it has (a PGN with moves the store lacks stays, and is said)."""
        if self._unstored_checked == self.game_id or self.game_id is None:
            return
        self._unstored_checked = self.game_id
        store = self.config.store_path()
        paths = [self._unstored_pgn()]
        if self._new_game_replayed:  # the new game a stop could not store, stored now
            paths.append(store.with_name(f"{store.name}.new-game-unstored.pgn"))
        game = self.tracker.game
        for path in paths:
            if not path.is_file():
                continue
            if _empty(path):  # an older magboard's write on a full disk left it so
                with contextlib.suppress(OSError):
                    path.unlink()
                    log.info("%s: empty, holds no moves: removed", path)
                continue
            found = _pgn_line(path)
            moves = [str(m) for m in game.moves]
            if found is not None and found[0] == game.start.fen() and (
                found[1] == moves[: len(found[1])]
            ):
                with contextlib.suppress(OSError):
                    path.unlink()
                    log.info("%s: its moves are stored now (game %s): removed", path, self.game_id)
                continue
            log.warning(
                "%s %s (game %s): kept for you to read",
                path,
                "cannot be read as one game" if found is None
                else "holds moves the store does not have",
                self.game_id,
            )  # fmt: skip

    def _say_unstored(self) -> None:
        """At a stop with the store still failing: what could not be stored, loudly, and
        where it was kept instead (the journal, which the next start replays; a PGN beside
        the store, if it can be written)."""
        game = self.tracker.game
        stored = self._recorder.stored_line if self.game_id is not None else ()
        moves = tuple(game.moves)
        same = _common(stored, moves)
        sans = game.san_moves()[same:]
        what = []
        if self.game_id is None:
            what.append(f"a new game from {game.start.fen()}")
        if len(stored) > same:
            upto = f"-{len(stored)}" if len(stored) > same + 1 else ""
            what.append(f"the take-back of ply {same + 1}{upto}")
        if sans:
            upto = f"-{len(moves)}" if len(sans) > 1 else ""
            what.append(f"ply {same + 1}{upto} ({' '.join(sans)})")
        waiting = self._recorder.waiting()
        what += waiting
        if not what:
            what.append(f"the game as it stands (the store has {len(stored)} plies)")
        kept, not_kept = [], []
        journal = self.journal
        if journal is not None and journal.keeps():
            kept.append(f"in the hands journal {journal.path} (the next start stores them)")
        elif journal is not None:
            not_kept.append(f"not in the hands journal ({journal.problem or 'not kept'})")
        pgn = self._unstored_pgn()
        try:
            headers = {"Event": f"magboard game {self.game_id or '(new)'} (not stored)",
                       "Site": "magboard"}  # fmt: skip
            _write_whole(pgn, game.pgn({**headers, **self._recorder.headers()}))
            kept.append(f"as PGN in {pgn}")
        except OSError as exc:
            not_kept.append(f"not as PGN ({pgn}: {exc.strerror})")
        where = f"Kept {'; '.join(kept)}" if kept else "Kept nowhere"
        log.error(
            "NOT STORED: game %s, %s: %s. %s%s.",
            self.game_id if self.game_id is not None else "(new)",
            "; ".join(what),
            self._store_problem,
            where,
            f"; {'; '.join(not_kept)}" if not_kept else "",
        )


def _common(a: tuple, b: tuple) -> int:
    """How many first plies two lines of moves share."""
    same = 0
    while same < min(len(a), len(b)) and a[same] == b[same]:
        same += 1
    return same


def _write_whole(path: Path, text: str) -> None:
    """``text`` in ``path``, whole or not at all: written beside it and renamed over it, so
    that a full disk leaves no empty or cut PGN that says less than the game (OSError)."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def _empty(path: Path) -> bool:
    """Whether the file at ``path`` holds nothing but white space (a few bytes read)."""
    try:
        with open(path, "rb") as handle:
            return not handle.read(4096).strip() and os.fstat(handle.fileno()).st_size < 4096
    except OSError:
        return False


def _pgn_line(path: Path) -> tuple[str, list[str]] | None:
    """The start (FEN) and moves (UCI) of the PGN file at ``path``, None if it cannot be
    read as one game."""
    from board_driver.user_files import UnusableFile, read_text

    try:
        found = rules.read_pgn(read_text(path, limit=1 << 20))
    except (UnusableFile, ValueError):
        return None
    if len(found) != 1 or found[0].game is None:
        return None
    game = found[0].game
    return game.start.fen(), [str(m) for m in game.moves]
