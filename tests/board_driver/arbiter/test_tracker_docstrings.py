"""The examples in the docstrings of the tracker, its parts and feedback are true."""

from __future__ import annotations

import doctest

import pytest

import board_driver.arbiter.expected
import board_driver.arbiter.feedback
import board_driver.arbiter.footprint
import board_driver.arbiter.game_events
import board_driver.arbiter.options
import board_driver.arbiter.reading
import board_driver.arbiter.touch
import board_driver.arbiter.tracker
import board_driver.arbiter.words

MODULES = [
    board_driver.arbiter.tracker,
    board_driver.arbiter.reading,
    board_driver.arbiter.options,
    board_driver.arbiter.game_events,
    board_driver.arbiter.expected,
    board_driver.arbiter.footprint,
    board_driver.arbiter.touch,
    board_driver.arbiter.feedback,
    board_driver.arbiter.words,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0
    assert failed == 0
