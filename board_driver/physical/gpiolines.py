"""Find the GPIO chip and line offsets for BCM numbers with libgpiod, never by chip number.

The Raspberry Pi's header GPIOs live on the chip labelled ``pinctrl-bcm2835`` (Pi 1-3,
Zero), ``pinctrl-bcm2711`` (Pi 4) or ``pinctrl-rp1`` (Pi 5, which is ``gpiochip4`` or
``gpiochip0`` depending on the kernel), where offset *n* is GPIO *n*. ``chip`` in the
config may name another chip by label or path; lines given as strings are looked up by
name (``"GPIO17"``) on the chip.
"""

from __future__ import annotations

import errno
import glob
import os
from collections.abc import Sequence
from types import ModuleType

#: Labels of the chip carrying the header GPIOs, newest Pi first.
PI_CHIP_LABELS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")


class GpioChipError(ValueError):
    """No GPIO chip or line matches the config."""


def chip_paths(dev_dir: str = "/dev") -> list[str]:
    """The GPIO character devices, ``gpiochip0`` first."""

    def number(path: str) -> int:
        digits = path.rsplit("gpiochip", 1)[-1]
        return int(digits) if digits.isdigit() else 1 << 30

    return sorted(glob.glob(os.path.join(dev_dir, "gpiochip*")), key=number)


def open_lines(
    gpiod: ModuleType, chip: str, lines: Sequence[int | str], dev_dir: str = "/dev"
) -> tuple[str, list[int]]:
    """The chip path and the offsets on it of ``lines`` (BCM numbers or line names).

    ``chip`` is ``""`` (find the Pi's GPIO chip by label, or a chip that has every named
    line), a path like ``/dev/gpiochip4``, or a chip label.
    """
    paths = [p for p in chip_paths(dev_dir) if gpiod.is_gpiochip_device(p)]
    labels: dict[str, str] = {}
    for path in paths:
        with open_chip(gpiod, path) as handle:
            labels[path] = handle.get_info().label
    seen = ", ".join(f"{os.path.basename(p)} {label!r}" for p, label in labels.items())
    seen = seen or f"none in {dev_dir}"

    if chip.startswith("/"):
        candidates = [chip]
    elif chip:
        candidates = [p for p, label in labels.items() if label == chip]
        if not candidates:
            raise GpioChipError(f"no GPIO chip is labelled {chip!r} (chips found: {seen})")
    else:
        candidates = [p for label in PI_CHIP_LABELS for p, lab in labels.items() if lab == label]
        if not candidates and any(isinstance(line, str) for line in lines):
            candidates = list(labels)  # a non-Pi board: the chip that has the named lines
        if not candidates:
            raise GpioChipError(
                "no Raspberry Pi GPIO chip found (looked for labels "
                f"{', '.join(PI_CHIP_LABELS)}; chips found: {seen}); set [sensing] chip to "
                "your GPIO chip's label or path, or give the lines by name"
            )

    errors = []
    for path in candidates:
        try:
            with open_chip(gpiod, path) as handle:
                return path, [_offset(handle, line) for line in lines]
        except (OSError, ValueError) as exc:
            errors.append(f"{path}: {exc}")
    raise GpioChipError("cannot find the GPIO lines: " + "; ".join(errors))


def open_chip(gpiod: ModuleType, path: str):
    """``gpiod.Chip(path)``; an OSError that names the device and what usually denies it.

    libgpiod's own error names neither (``[Errno 1] Operation not permitted``).
    """
    try:
        return gpiod.Chip(path)
    except OSError as exc:
        hints: dict[int | None, str] = {
            errno.EACCES: "the user needs the 'gpio' group (udev gives it the chips)",
            errno.EPERM: "a systemd unit must allow the device: DeviceAllow=char-gpiochip rw",
        }
        hint = hints.get(exc.errno)
        raise OSError(
            exc.errno, f"cannot open {path}: {exc.strerror}" + (f" ({hint})" if hint else "")
        ) from exc


def _offset(handle, line: int | str) -> int:
    try:
        return handle.line_offset_from_id(line)
    except (OSError, ValueError) as exc:
        what = f"GPIO{line}" if isinstance(line, int) else f"line {line!r}"
        raise ValueError(f"{what} is not on this chip ({exc})") from exc
