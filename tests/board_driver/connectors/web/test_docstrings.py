"""The examples in the web modules' docstrings hold."""

from __future__ import annotations

import doctest

import pytest

import board_driver.connectors.web.inputs
import board_driver.connectors.web.spoken
import board_driver.connectors.web.token


@pytest.mark.parametrize(
    "module",
    [
        board_driver.connectors.web.inputs,
        board_driver.connectors.web.spoken,
        board_driver.connectors.web.token,
    ],
)
def test_module_examples_run(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0, module.__name__
