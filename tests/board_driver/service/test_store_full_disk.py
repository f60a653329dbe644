"""Writes that fail, on a real full file system: a small tmpfs mounted for the test (root
only; elsewhere the tmpfs tests are skipped and the injected-error ones still run).

A store write that fails raises StoreWriteError saying why, stores nothing of that call,
leaves the store as it was, and the same call succeeds once there is room again. The
simulated board's state file likewise: SimStateWriteError, the pieces kept in memory,
the file saved again later.
"""

from __future__ import annotations

import errno
import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import rules
from board_driver.physical.sensing.sim import START, SimStateWriteError, SimulatedBoard
from board_driver.service.store import Store, StoreWriteError
from tests.board_driver.service.stored import stored_ucis


class SmallDisk:
    """A tmpfs of ``size`` bytes at ``path``; :meth:`fill` takes all the room left."""

    def __init__(self, path: Path, size: int) -> None:
        self.path = path
        path.mkdir()
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
        self.filler = path / "filler"

    def fill(self) -> None:
        with open(self.filler, "ab", buffering=0) as out:
            try:
                while True:
                    out.write(b"\0" * 4096)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        with open(self.filler, "ab", buffering=0) as out:  # the last bytes too
            try:
                while True:
                    out.write(b"\0")
            except OSError:
                pass

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], check=False)


@pytest.fixture
def disk(tmp_path) -> Iterator[SmallDisk]:
    small = SmallDisk(tmp_path / "disk", 8 << 20)
    yield small
    small.unmount()


def _line(game: rules.Game) -> list[tuple[str, str]]:
    return list(zip(map(str, game.moves), game.san_moves(), strict=True))


def test_a_full_disk_stores_nothing_of_the_move_and_the_same_call_succeeds_later(disk):
    path = disk.path / "games.sqlite"
    store = Store.open(path)
    gid = store.new_game()
    game = rules.Game()
    game.push_san("e4")
    store.sync_moves(gid, _line(game))
    disk.fill()
    game.push_san("e5")
    with pytest.raises(StoreWriteError, match="the disk is full") as failed:
        store.sync_moves(gid, _line(game))
    assert failed.value.reason == "full" and str(path) in str(failed.value)
    assert stored_ucis(path, gid) == ["e2e4"]  # as it was: nothing half stored
    assert store.game(gid).ucis == ["e2e4"]
    with pytest.raises(StoreWriteError):  # still full: still refused, still consistent
        store.sync_moves(gid, _line(game))
    disk.free()
    store.sync_moves(gid, _line(game))  # the same call, once there is room
    assert stored_ucis(path, gid) == ["e2e4", "e7e5"]
    store.close()
    with Store.open(path) as again:
        assert again.game(gid).ucis == ["e2e4", "e7e5"]


def test_games_played_while_the_disk_fills_and_frees_lose_and_double_nothing(disk):
    """40 random games, the disk filled before a random 1 in 3 of the moves and freed at
    random: every move is stored once room returns (each retry the same call), none is
    stored twice, none out of order, and every game reads back as played."""
    rng = random.Random(17)
    path = disk.path / "games.sqlite"
    store = Store.open(path)
    failures = 0
    played = {}
    for _ in range(40):
        while True:
            try:
                gid = store.new_game()
                break
            except StoreWriteError:
                failures += 1
                disk.free()
        game = rules.Game()
        for _ in range(rng.randrange(4, 30)):
            if game.outcome() is not None:
                break
            game.push(rng.choice(sorted(game.position.legal_moves(), key=str)))
            if rng.random() < 1 / 3:
                disk.fill()
            while True:
                try:
                    store.sync_moves(gid, _line(game))
                    break
                except StoreWriteError as exc:
                    assert exc.reason == "full", exc
                    failures += 1
                    assert stored_ucis(path, gid) == [str(m) for m in game.moves[:-1]]
                    disk.free()
        played[gid] = [str(m) for m in game.moves]
        disk.free()
    store.close()
    assert failures >= 20  # the disk was full often enough to matter
    with Store.open(path) as again:
        assert {g: again.game(g).ucis for g in played} == played


def test_a_store_removed_or_read_only_is_a_write_error_that_says_so(disk, tmp_path):
    path = disk.path / "games.sqlite"
    with Store.open(path) as store:
        gid = store.new_game()
    read_only = tmp_path / "ro"
    read_only.mkdir()
    subprocess.run(["mount", "--bind", str(disk.path), str(read_only)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(read_only)], check=True)
        with pytest.raises(StoreWriteError, match="read-only") as failed:
            Store.open(read_only / "games.sqlite").sync_moves(gid, [("e2e4", "e4")])
        assert failed.value.reason == "read_only"
    finally:
        subprocess.run(["umount", str(read_only)], check=False)

    store = Store.open(path)
    os.unlink(path)  # SQLite alone would go on writing to the unlinked file
    with pytest.raises(StoreWriteError, match="removed") as failed:
        store.sync_moves(gid, [("e2e4", "e4")])
    assert failed.value.reason == "removed"
    store.close()


def test_a_new_store_on_a_full_disk_leaves_no_cut_short_file(disk):
    disk.fill()
    path = disk.path / "games.sqlite"
    with pytest.raises(StoreWriteError, match="cannot create the games database"):
        Store.open(path)
    assert not path.exists()  # so the next start, with room, makes a whole new store
    assert [p.name for p in disk.path.iterdir()] == ["filler"]
    disk.free()
    with Store.open(path) as store:
        assert store.new_game() == 1


def test_the_simulated_boards_state_file_on_a_full_disk(disk):
    """The file is written over in place, within the block it has: a full disk does not
    stop it (issue 32, item 7: not saved, stale pieces were read as moves never made)."""
    state = disk.path / "sim-board.json"
    board = SimulatedBoard(state_file=state)
    disk.fill()
    board.lift(12)
    assert board.pieces == START & ~(1 << 12) and not board.unsaved
    assert SimulatedBoard(state_file=state).pieces == START & ~(1 << 12)
    # A file of another length (another version's, a hand's) cannot be written over in
    # place: on a full disk that save fails, said, and the file stays whole as it was.
    state.write_text(f'{{"pieces":"{START:x}"}}')  # no space: another length
    with pytest.raises(SimStateWriteError, match="cannot save the simulated board") as failed:
        board.lift(13)
    assert failed.value.errno == errno.ENOSPC and str(state) in str(failed.value)
    assert board.pieces == START & ~(1 << 12) & ~(1 << 13) and board.unsaved
    assert SimulatedBoard(state_file=state).pieces == START  # the file as it was, whole
    disk.free()
    board.save()
    assert not board.unsaved
    assert SimulatedBoard(state_file=state).pieces == START & ~(1 << 12) & ~(1 << 13)
    assert sorted(p.name for p in disk.path.iterdir()) == ["sim-board.json"]  # no leftovers


def test_the_simulated_boards_failed_save_without_a_tmpfs(tmp_path, monkeypatch):
    """The same with ENOSPC injected at the file layer (os.replace), where no tmpfs can be
    mounted."""
    state = tmp_path / "sim-board.json"
    board = SimulatedBoard(state_file=state)

    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    monkeypatch.setattr(os, "pwrite", full)  # no writing over in place either
    with pytest.raises(SimStateWriteError, match="No space left on device"):
        board.place(30)
    assert board.pieces >> 30 & 1 and board.unsaved
    monkeypatch.undo()
    board.lift(30)  # the next change saves the whole board
    assert not board.unsaved and SimulatedBoard(state_file=state).pieces == START
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sim-board.json"]
