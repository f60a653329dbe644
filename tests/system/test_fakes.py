"""The fast suite's fake hardware libraries against the real ones, so they cannot drift.

Here, in the machine, because three of the six real libraries (Blinka's ``board``,
``neopixel``, ``RPi.GPIO`` from rpi-lgpio) import only where they find a Raspberry Pi's GPIO
chip; see ``guest/signatures.py`` for what is compared."""

from __future__ import annotations

from tests.system import steps
from tests.system.test_leds import PI_4


def test_each_fake_library_offers_only_what_the_real_one_has_with_its_parameters(
    machine, installed
):
    steps.install_rpi_lgpio(machine)
    env = {**PI_4, **steps.RPI_LGPIO}
    seen = machine.python("signatures.py", f"{steps.CLONE}/tests/fakes/modules",
                          python=steps.VENV_PYTHON, env=env, timeout=300)  # fmt: skip
    assert seen["problems"] == [], "\n".join(seen["problems"])
    for library, names in seen["compared"].items():
        assert names > 0, f"nothing of {library} was compared"
