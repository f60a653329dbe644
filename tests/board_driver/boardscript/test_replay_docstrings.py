"""The examples in the docstrings of debounce, script and replay are true."""

from __future__ import annotations

import doctest

import pytest

import board_driver.boardscript.replay
import board_driver.boardscript.script
import board_driver.physical.debounce


@pytest.mark.parametrize(
    "module",
    [
        board_driver.physical.debounce,
        board_driver.boardscript.script,
        board_driver.boardscript.replay,
    ],
    ids=str,
)
def test_docstring_examples(module):
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0
    assert failed == 0
