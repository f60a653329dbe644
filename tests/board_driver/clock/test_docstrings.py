"""The examples in the clock package's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "board_driver.clock.control",
    "board_driver.clock.clock",
    "board_driver.clock.keeper",
    "board_driver.clock.texts",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
