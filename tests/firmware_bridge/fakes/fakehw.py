"""The electrical world behind the fake CircuitPython modules (not a CircuitPython module).

Tests close reed switches and press buttons here; the fake ``digitalio`` reads pin levels
from it, the fake ``neopixel`` records what the strip shows, the fake ``usb_cdc`` raises
:class:`PowerOff` out of the firmware's main loop when the board loses power.
"""

from __future__ import annotations

import threading


class PowerOff(BaseException):
    """The microcontroller lost power: ends ``code.py`` the way a power cut does."""


class Hardware:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.powered = True
        self.claimed: dict[object, object] = {}
        self.closed: frozenset[tuple[object, object]] = frozenset()  # (row pin, column pin)
        self.pressed: frozenset[object] = frozenset()  # button pins held down
        self.strips: list[object] = []

    def release_all(self) -> None:
        """What a reset does to the pins: every one back to an unclaimed input."""
        with self.lock:
            self.claimed.clear()
            self.strips.clear()

    def claim(self, pin: object, user: object) -> None:
        with self.lock:
            if pin in self.claimed:
                raise ValueError(f"{pin} in use")
            self.claimed[pin] = user

    def release(self, pin: object) -> None:
        with self.lock:
            self.claimed.pop(pin, None)

    def level(self, pin: object, pull: object) -> bool:
        """The level an input pin reads: pulled low by a closed switch whose row is driven
        low (the diode lets current flow only into a low row), by a pressed button, or else
        by its pull resistor."""
        if pin in self.pressed:
            return False
        for row, column in self.closed:
            if column == pin:
                driver = self.claimed.get(row)
                if driver is not None and driver.is_driving_low():
                    return False
        import digitalio

        return pull is digitalio.Pull.UP


hw = Hardware()
