"""The examples in the engine modules' docstrings are true."""

from __future__ import annotations

import doctest

import pytest

import board_driver.engine.player
import board_driver.engine.seat
import board_driver.engine.uci
import board_driver.tracking.expected

MODULES = [
    board_driver.engine.uci,
    board_driver.engine.player,
    board_driver.engine.seat,
    board_driver.tracking.expected,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module) -> None:
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0
    assert failed == 0
