from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .rig import Rig, install_fakes

install_fakes()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    """The real firmware, powered, with the cable plugged in."""
    with Rig(tmp_path) as board:
        board.plug()
        board.power_on()
        yield board
        assert not board.crashes, f"the firmware crashed: {board.crashes!r}"
