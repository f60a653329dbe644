"""Files a user names are checked before they are read (issue 24, item 4): a device, a
FIFO, a file far too large or not UTF-8 is refused in words, at once, never read forever
nor waited on; through the helper and through every command that reads such a file."""

from __future__ import annotations

import doctest
import os
import threading
from pathlib import Path

import pytest

import board_driver.commands
import board_driver.door.config_values
import board_driver.service.config.paths
import board_driver.user_files
from board_driver.user_files import UnusableFile, check_regular, read_private_text, read_text
from tests.board_driver.daemon_process import run_magboard


def at_once(call, *args, **kwargs):
    """``call(*args)`` in a thread: its result or error, or a failure if it takes more
    than 10 s (a FIFO waited on, /dev/zero read forever)."""
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = call(*args, **kwargs)
        except Exception as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), f"{call.__name__}{args} did not return"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    binary = tmp_path / "binary"
    binary.write_bytes(b"lip_\xff\xfe\n")
    huge = tmp_path / "huge"
    huge.write_bytes(b"x" * 70_000)
    link = tmp_path / "link"
    link.symlink_to("/dev/zero")
    return {
        "/dev/zero": Path("/dev/zero"),
        "/dev/full": Path("/dev/full"),
        "fifo": fifo,
        "binary": binary,
        "huge": huge,
        "link": link,
        "directory": tmp_path,
        "missing": tmp_path / "missing",
    }


def test_the_modules_examples_hold():
    for module in (board_driver.user_files, board_driver.door.config_values,
                   board_driver.service.config.paths, board_driver.commands):  # fmt: skip
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__


def test_what_is_no_file_to_read_is_refused_at_once_in_words(files):
    expected = {
        "/dev/zero": "/dev/zero is not a regular file (a character device)",
        "/dev/full": "/dev/full is not a regular file (a character device)",
        "fifo": "fifo is not a regular file (a named pipe)",
        "binary": "binary is not UTF-8 text (byte 0xff at offset 4)",
        "huge": "huge is 68.4 KB, more than such a file can be (4.0 KB)",
        "link": "link is not a regular file (a character device)",
        "directory": "is a directory, not a file",
        "missing": "missing does not exist",
    }
    for name, path in files.items():
        with pytest.raises(UnusableFile) as refused:
            at_once(read_text, path, limit=4096)
        assert str(refused.value).endswith(expected[name]), (name, str(refused.value))
        assert refused.value.missing is (name == "missing")
    assert at_once(check_regular, files["binary"]).st_size == 7  # a check reads nothing


def test_a_secret_others_may_read_is_refused(tmp_path):
    token = tmp_path / "token"
    token.write_text("lip_abc\n")
    token.chmod(0o644)
    with pytest.raises(UnusableFile, match=r"may be read by others than its owner \(mode 644\)"):
        read_private_text(token)
    token.chmod(0o600)
    assert read_private_text(token) == "lip_abc\n"


def test_the_config_file_itself_is_checked_before_it_is_read(files):
    for name in ("/dev/zero", "fifo", "binary", "link"):
        result = run_magboard("config", "check", "--config", str(files[name]), timeout=30)
        assert result.returncode == 2, (name, result.stderr)
        assert "is not" in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_a_script_that_is_no_file_is_refused_with_the_way_to_pipe_one(files, tmp_path):
    from tests.board_driver.daemon_process import write_config

    config = write_config(tmp_path / "daemon")
    for name in ("fifo", "/dev/zero", "binary"):
        ran = run_magboard("run", "--sim", "--config", str(config), "--script", str(files[name]))
        replayed = run_magboard("replay", str(files[name]))
        for result in (ran, replayed):
            assert result.returncode == 2, (name, result.stderr)
            assert "cannot read the script" in result.stderr, result.stderr
            assert "Traceback" not in result.stderr
        if name != "binary":
            assert "'-' reads standard input" in ran.stderr + replayed.stderr


def test_store_recover_refuses_a_store_that_is_no_file_and_leaves_no_lock(tmp_path):
    """`store recover` on a link to /dev/zero spun without a word (store check refused it)."""
    store = tmp_path / "games.sqlite"
    store.symlink_to("/dev/zero")
    for action in ("check", "recover"):
        result = run_magboard("store", action, "--store", str(store), timeout=30)
        assert result.returncode in (1, 65), result.stderr
        assert "not a regular file" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]  # no .lock


def test_store_recover_leaves_no_lock_file_behind(tmp_path):
    import sqlite3

    from board_driver.service.store import Store

    store = tmp_path / "games.sqlite"
    with Store.open(store) as opened:
        game = opened.new_game()
        opened.sync_moves(game, [("e2e4", "e4"), ("e7e5", "e5")])
    with sqlite3.connect(store) as db:  # damage: a blob where a time was
        db.execute("UPDATE moves SET t = x'00ff' WHERE ply = 2")
    result = run_magboard("store", "recover", "--store", str(store))
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert not [n for n in names if n.endswith(".lock")], names
    assert [n for n in names if ".damaged-" in n] and [n for n in names if n.endswith(".pgn")]
