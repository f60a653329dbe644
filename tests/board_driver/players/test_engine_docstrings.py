"""The examples in the engine modules' docstrings are true."""

from __future__ import annotations

import doctest

import pytest

import board_driver.arbiter.expected
import board_driver.door.review
import board_driver.players.engine.player
import board_driver.players.engine.review
import board_driver.players.engine.seat
import board_driver.players.engine.uci

MODULES = [
    board_driver.players.engine.uci,
    board_driver.players.engine.player,
    board_driver.players.engine.seat,
    board_driver.players.engine.review,
    board_driver.arbiter.expected,
    board_driver.door.review,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module) -> None:
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0
    assert failed == 0
