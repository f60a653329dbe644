"""The kernel's GPIO simulator (gpio-sim), built out of tree: Debian's kernel lacks it.

Three files of ``linux-source`` make one module: ``drivers/gpio/gpio-sim.c`` (with
``gpiolib.h``, which it includes) and ``kernel/irq/irq_sim.c`` (Debian does not build the
interrupt simulator either). Two changes, each checked to apply:

* ``irq_to_desc`` is not exported to modules, so the interrupt simulator's
  ``handle_simple_irq(irq_to_desc(n))`` becomes the exported ``generic_handle_irq(n)``.
* A line the chip turns into an input reads its pull again. The kernel emulates an
  open-drain output (our matrix rows) on a chip without open drain, as the Pi's is, by
  switching the line to an input to release it; gpio-sim kept the last driven value, so
  a released row still read low and no simulator could tell which row is selected. On a
  real board a released row floats: it reads whatever pulls it, as it does now.
"""

from __future__ import annotations

from pathlib import Path

from tests.system.harness.build import BuildError, OutOfTreeModule

_IRQ_OLD = "handle_simple_irq(irq_to_desc(irqnum));"
_IRQ_NEW = "generic_handle_irq(irqnum);"
_INPUT_OLD = """	__set_bit(offset, chip->direction_map);
	mutex_unlock(&chip->lock);"""
_INPUT_NEW = """	__set_bit(offset, chip->direction_map);
	/* magboard: a released (input) line reads its pull, as a real undriven line does. */
	__assign_bit(offset, chip->value_map, test_bit(offset, chip->pull_map));
	mutex_unlock(&chip->lock);"""


def _replace_once(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    if text.count(old) != 1:
        raise BuildError(
            f"{path.name} of this kernel's source does not have the code the gpio-sim build "
            f"changes ({old.strip()[:60]!r}): see tests/system/harness/gpiosim.py"
        )
    path.write_text(text.replace(old, new))


def _patch(directory: Path) -> None:
    _replace_once(directory / "irq-sim.c", _IRQ_OLD, _IRQ_NEW)
    _replace_once(directory / "gpio-sim-main.c", _INPUT_OLD, _INPUT_NEW)


GPIO_SIM = OutOfTreeModule(
    name="gpio-sim",
    files={
        "gpio-sim-main.c": "drivers/gpio/gpio-sim.c",
        "gpiolib.h": "drivers/gpio/gpiolib.h",
        "irq-sim.c": "kernel/irq/irq_sim.c",
    },
    objects=("gpio-sim-main", "irq-sim"),
    patch=_patch,
    patch_text=_IRQ_OLD + _IRQ_NEW + _INPUT_OLD + _INPUT_NEW,
)
