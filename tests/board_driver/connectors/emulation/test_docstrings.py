"""The examples in the emulation's docstrings run as written (they show the protocols' bytes)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "board_driver.connectors.emulation.dgt",
    "board_driver.connectors.emulation.chesslink",
    "board_driver.connectors.emulation.pegasus",
    "board_driver.connectors.emulation.chessnut",
    "board_driver.connectors.emulation.view",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_the_bluetooth_profiles_examples_run():
    pytest.importorskip("dbus_fast")
    for name in ("board_driver.connectors.emulation.gatt", "board_driver.connectors.emulation.ble"):
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, name
