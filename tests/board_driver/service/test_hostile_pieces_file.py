"""Nothing the simulated board's pieces file holds keeps the board from starting (issue 32:
"a start that cannot be stopped by its own files ... pieces file"), through the real daemon.

The file is the board's own (``{"pieces": "<16 hex digits>"}``), written over in place at
every change. One a person edited, another version wrote or a crash left torn is set aside
(renamed, never deleted, named in the log) and the daemon stands the pieces as the game on
the board: it becomes ready, the stored moves are kept, and the next start finds a sound
file. JSON nested a thousand deep (a few KB) raised RecursionError past the reader's checks:
exit 1 on every start.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rules
from board_driver.service.store import Store
from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
    write_config,
)
from tests.board_driver.service.stored import store_game

MOVES = ["e2e4", "e7e5", "g1f3"]

#: (what, the file's bytes)
HOSTILE = [
    ("JSON nested 2000 deep", b"[" * 2000 + b"]" * 2000),
    ("an object nested 1500 deep", b'{"pieces":' * 1500 + b'"0"' + b"}" * 1500),
    ("pieces past 64 bits", json.dumps({"pieces": "f" * 20}).encode()),
    ("pieces of -1", json.dumps({"pieces": "-1"}).encode()),
    ("pieces a number", json.dumps({"pieces": 65535}).encode()),
    ("pieces of 5000 digits", json.dumps({"pieces": "1" * 3000}).encode()),
    ("not UTF-8", b'{"pieces": "\xff\xfe"}'),
    ("a list", b"[1, 2, 3]"),
    ("torn", b'{"pieces": "ffff00'),
]
DEFAULT = {"JSON nested 2000 deep"}  # the others: -m slow


def _check(tmp_path: Path, what: str, data: bytes) -> None:
    write_config(tmp_path, "[web]\nenabled = false\n")
    store_game(tmp_path / "games.sqlite", MOVES)
    pieces = tmp_path / "sim-board.json"
    pieces.write_bytes(data)
    logs = []
    for _attempt in range(2):  # the second start finds the file the first wrote
        daemon = DaemonProcess(tmp_path)
        daemon.wait_ready()
        daemon.terminate()
        out = daemon.output()
        logs.append(out)
        assert daemon.proc.returncode == 0, (what, out)
        assert "Traceback" not in out, out
        with Store.open(tmp_path / "games.sqlite", readonly=True) as store:
            assert store.game(1).ucis == MOVES, (what, out)
    aside = list(tmp_path.glob("sim-board.json.unreadable-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == data, (what, logs[0])
    assert "pieces file could not be read" in logs[0] and f"set aside as {aside[0]}" in logs[0]
    assert "could not be read" not in logs[1], logs[1]
    game = rules.Game.from_record(rules.Position(), MOVES)
    assert json.loads(pieces.read_text()) == {"pieces": f"{game.position.occupancy():016x}"}


@pytest.mark.parametrize(
    ("what", "data"),
    [case for case in HOSTILE if case[0] in DEFAULT],
    ids=[case[0] for case in HOSTILE if case[0] in DEFAULT],
)
def test_a_hostile_pieces_file_is_set_aside_and_the_board_starts(
    tmp_path: Path, what: str, data: bytes
) -> None:
    _check(tmp_path, what, data)


@pytest.mark.slow
@pytest.mark.parametrize(("what", "data"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_every_hostile_pieces_file_is_set_aside_and_the_board_starts(
    tmp_path: Path, what: str, data: bytes
) -> None:
    _check(tmp_path, what, data)
