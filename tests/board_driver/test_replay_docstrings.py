"""The examples in the docstrings of debounce, script and replay are true."""

from __future__ import annotations

import doctest

import pytest

import board_driver.debounce
import board_driver.replay
import board_driver.script


@pytest.mark.parametrize(
    "module", [board_driver.debounce, board_driver.script, board_driver.replay], ids=str
)
def test_docstring_examples(module):
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0
    assert failed == 0
