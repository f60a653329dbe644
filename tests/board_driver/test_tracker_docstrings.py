"""The examples in the docstrings of the tracker, its parts and feedback are true."""

from __future__ import annotations

import doctest

import pytest

import board_driver.feedback
import board_driver.tracker
import board_driver.tracking.footprint
import board_driver.tracking.touch

MODULES = [
    board_driver.tracker,
    board_driver.tracking.footprint,
    board_driver.tracking.touch,
    board_driver.feedback,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0
    assert failed == 0
