"""Build the device from config and run it forever (``code.py`` calls :func:`main`)."""

import os
import time

import board
import usb_cdc

from magboard_fw import VERSION, config
from magboard_fw.buttons import Buttons
from magboard_fw.device import Device
from magboard_fw.matrix import Matrix
from magboard_fw.pixels import Pixels


def now_ms():
    return time.monotonic_ns() // 1000000


def _pin(name):
    try:
        return getattr(board, name)
    except AttributeError:
        raise ValueError("config: this board has no pin " + name) from None


def _boot_id():
    try:
        return int.from_bytes(os.urandom(4), "little")
    except (AttributeError, NotImplementedError):
        return time.monotonic_ns() & 0xFFFFFFFF


def _serial():
    # boot.py enables the data port; without it (boot.py missing) use the console.
    serial = usb_cdc.data if usb_cdc.data is not None else usb_cdc.console
    serial.timeout = 0
    serial.write_timeout = 0
    return serial


def build():
    """The device as wired in :mod:`magboard_fw.config`."""
    matrix = Matrix(
        [_pin(name) for name in config.ROW_PINS],
        [_pin(name) for name in config.COLUMN_PINS],
        debounce_ms=config.DEBOUNCE_MS,
    )
    pixels = Pixels(_pin(config.NEOPIXEL_PIN), config.PIXEL_ORDER, config.PIXEL_FIRST)
    pixels.off()
    buttons = Buttons(
        {name: _pin(pin) for name, pin in config.BUTTON_PINS.items()},
        debounce_ms=config.BUTTON_DEBOUNCE_MS,
    )
    return Device(
        _serial(),
        matrix,
        pixels,
        buttons,
        boot_id=_boot_id(),
        firmware="magboard-fw " + VERSION,
        scan_period_ms=config.SCAN_PERIOD_MS,
        heartbeat_ms=config.HEARTBEAT_MS,
        host_lost_ms=config.HOST_LOST_MS,
    )


def run(device):
    """Poll forever. An exception in one round is reported to the host, not fatal."""
    device.start(now_ms())
    while True:
        now = now_ms()
        try:
            device.poll(now)
        except Exception as error:  # keep scanning whatever happens; the host is told
            try:
                device.report_internal(error, now)
            except Exception:
                pass
            time.sleep(0.01)
        # Sleep until the next scan, but never long: LED frames and pings wait meanwhile.
        idle = device.next_due_ms() - now_ms()
        if idle > 0:
            time.sleep(min(idle, 1) / 1000)


def main():
    run(build())
