"""Shared test helpers.

``SHARED_DATA`` is the project's read-only test data (``perft.epd``, ``selfplay.pgn``):
``<project root>/../shared/data`` in CI (a clone with ``shared/`` beside it), falling
back to ``/work/shared/data`` in a developer's worktree.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _find_shared_data() -> Path:
    for candidate in (ROOT / ".." / "shared" / "data", Path("/work/shared/data")):
        if candidate.is_dir():
            return candidate.resolve()
    return (ROOT / ".." / "shared" / "data").resolve()


SHARED_DATA = _find_shared_data()
