"""The immutable-file tests skip, saying why, where the machine cannot make a file immutable
(issue 32, item 9: on Raspberry Pi OS without ``mkfs.ext4`` they errored instead)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.board_driver import unwritable


def test_without_the_tools_to_make_an_ext4_the_tests_skip_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unwritable, "_supports_immutable", lambda _d: "Operation not supported")
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no chattr, mkfs.ext4 nor mount there
    with (
        pytest.raises(pytest.skip.Exception, match=r"no chattr, mkfs\.ext4, mount to make"),
        unwritable.immutable_capable_directory(tmp_path),
    ):
        pass
