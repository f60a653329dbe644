"""Shared test helpers.

``SHARED_DATA`` is the read-only test data (``selfplay.pgn``, ``perft.epd``): in CI it sits
beside the project root as ``../shared/data``; in a developer's worktree it may only be
found at ``/work/shared/data``.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _shared_data() -> Path:
    beside = ROOT / ".." / "shared" / "data"
    if beside.is_dir():
        return beside.resolve()
    return Path("/work/shared/data")


SHARED_DATA = _shared_data()
