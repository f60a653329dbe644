"""The examples in the Lichess player's docstrings (and the fake server's) are true."""

from __future__ import annotations

import doctest

import pytest

import board_driver.clock.lights
import board_driver.players.lichess.online
import board_driver.players.lichess.reconcile
import board_driver.players.lichess.sending
import tests.fakes.lichess.server

MODULES = [
    board_driver.players.lichess.reconcile,
    board_driver.players.lichess.online,
    board_driver.players.lichess.sending,
    board_driver.clock.lights,  # the low-time lights Lichess games use
    tests.fakes.lichess.server,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module) -> None:
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0
    assert failed == 0
