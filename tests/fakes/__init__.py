"""Fake hardware libraries for the tests: installed modules, not mocks.

``tests/fakes/modules`` holds ``gpiod``, ``RPi.GPIO``, ``board``, ``neopixel`` and
``neopixel_spi`` written against the real libraries' APIs; the :func:`fake_hw` fixture
puts that directory first on ``sys.path`` and gives the test the :class:`World` they all
act on. Import the fixture function into a test module and ask for ``fake_hw``::

    from tests.fakes import fake_hw_fixture  # noqa: F401

    def test_something(fake_hw): ...
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes import world as world_module
from tests.fakes.world import World

MODULES = Path(__file__).resolve().parent / "modules"
FAKE_NAMES = ("gpiod", "RPi", "board", "neopixel", "neopixel_spi", "_pixelbuf")


def _forget_fakes() -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in FAKE_NAMES:
            del sys.modules[name]


@pytest.fixture(name="fake_hw")
def fake_hw_fixture(tmp_path, monkeypatch):
    """A fresh fake Raspberry Pi 5 (see :class:`World`) with the fake libraries importable."""
    world = World(tmp_path / "dev")
    _forget_fakes()
    monkeypatch.syspath_prepend(str(MODULES))
    world_module.set_current(world)
    yield world
    world_module.set_current(None)
    _forget_fakes()


@pytest.fixture(name="no_hw_libs")
def no_hw_libs_fixture(monkeypatch):
    """No hardware library installed, as on a laptop (None in sys.modules makes import fail)."""
    _forget_fakes()
    for name in ("gpiod", "RPi", "RPi.GPIO", "board", "neopixel", "neopixel_spi"):
        monkeypatch.setitem(sys.modules, name, None)
