"""Fake CircuitPython ``board`` module of a Raspberry Pi Pico: pins ``GP0`` .. ``GP28``."""

from __future__ import annotations

board_id = "raspberry_pi_pico"


class Pin:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"board.{self.name}"


for _number in range(29):
    globals()[f"GP{_number}"] = Pin(f"GP{_number}")
LED = globals()["GP25"]
del _number
