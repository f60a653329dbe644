"""The usage examples in the rules package's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "rules",
    "rules.core",
    "rules.position",
    "rules.game",
    "rules.pgn",
    "rules._pgn_writer",
    "rules.san",
    "rules.dead",
    "rules.fen",
    "rules.chess960",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
