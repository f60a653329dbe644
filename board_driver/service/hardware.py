"""Opening the board's ports from the config: sensing, LEDs, buttons, the serial bridge.

:func:`open_hardware` opens what the config names and hands back a :class:`Hardware`;
a port that cannot be opened is a :class:`HardwareError` that names the port and why
(the ports already opened are closed again).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from board_driver.physical.frame import Frame


class HardwareError(Exception):
    """A port cannot be opened; the message names the config section and why."""


@dataclass
class Hardware:
    """The ports the daemon drives, opened from the config by :func:`open_hardware`."""

    sensing: Any
    leds: Any
    render: Callable[[Frame, bool], list]  # (frame, phase on) -> 64 RGB
    sim_board: Any = None  # the SimulatedBoard, with --sim
    bridge: Any = None  # the BridgeLink, when a port is on the serial bridge
    buttons: Any = None  # GpioButtons, or None

    def close(self, *, lights_off: bool = True) -> None:
        """Every port released, the lights off (or left as they are); safe to call twice."""
        for port in (self.buttons, self.leds, self.sensing, self.bridge):
            if port is None or (port is self.leds and not lights_off):
                continue
            if port is self.bridge and not lights_off and self.leds is self.bridge:
                continue
            with contextlib.suppress(Exception):
                port.close()


#: What opening a port can raise that is the world's fault, not a bug: named, not traced.
def _open_errors() -> tuple[type[BaseException], ...]:
    from board_driver.physical.hwlib import MissingLibraryError

    return (MissingLibraryError, ValueError, OSError, RuntimeError, ImportError)


def open_hardware(config: Any) -> Hardware:
    """Open the ports the config names (a :class:`~board_driver.service.config.Config`);
    HardwareError says which port failed and why."""
    from board_driver.physical.buttons import open_buttons
    from board_driver.physical.leds import Renderer, open_leds
    from board_driver.physical.sensing import open_sensing
    from board_driver.physical.sensing.sim import SimulatedBoard

    s, lc = config.sensing, config.leds
    opened: list[Any] = []
    bridge = sim_board = None
    sensing: Any  # a SensingPort: the simulator, the bridge or a GPIO matrix
    leds: Any  # a LedPort: the bridge or a strip
    try:
        renderer = Renderer(colours=dict(lc.colours), brightness=lc.brightness, gamma=lc.gamma)
        if "bridge" in (s.backend, lc.backend, config.buttons.backend):
            try:
                from firmware_bridge import BridgeLink

                bridge = BridgeLink(config.bridge.device, config.bridge.baud)
            except _open_errors() as exc:
                raise HardwareError(f"[bridge] cannot open {config.bridge.device}: {exc}") from exc
            opened.append(bridge)
        try:
            if s.backend == "sim":
                sim_board = SimulatedBoard(state_file=config.sim_state_file())
                sensing = sim_board
            elif s.backend == "bridge":
                sensing = bridge
            else:
                sensing = open_sensing(
                    s.backend,
                    rows=list(s.rows),
                    columns=list(s.columns),
                    chip=s.chip,
                    active_low=s.active_low,
                    settle_us=s.settle_us,
                    rotation=s.rotation,
                    mirror=s.mirror,
                )
                opened.append(sensing)
        except _open_errors() as exc:
            raise HardwareError(f"[sensing] backend {s.backend!r}: cannot open: {exc}") from exc
        try:
            if lc.backend == "bridge":
                leds = bridge
            else:
                leds = open_leds(
                    lc.backend,
                    count=lc.count,
                    order=lc.order,
                    first=lc.first,
                    along=lc.along,
                    pin=lc.pin,
                    pixel_order=lc.pixel_order,
                )
                opened.append(leds)
        except _open_errors() as exc:
            raise HardwareError(f"[leds] backend {lc.backend!r}: cannot open: {exc}") from exc
        buttons = None
        if config.buttons.backend in ("gpiod", "rpigpio", "gpio"):
            library = config.buttons.backend
            if library == "gpio":  # the name before gpiod/rpigpio: the matrix's library
                library = "rpigpio" if s.backend == "rpigpio" else "gpiod"
            try:
                buttons = open_buttons(library, **config.buttons.pins(), chip=s.chip)
            except _open_errors() as exc:
                raise HardwareError(f"[buttons] cannot open: {exc}") from exc
    except BaseException:
        for port in opened:
            with contextlib.suppress(Exception):
                port.close()
        raise
    return Hardware(sensing, leds, renderer.render, sim_board, bridge, buttons)


def gpio_present() -> bool:
    """Whether this machine has GPIO chips (a Raspberry Pi, or another board with some)."""
    return any(Path("/dev").glob("gpiochip*"))
