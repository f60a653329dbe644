"""Wires between two test machines: a Bluetooth LE radio and a network, for a phone.

The board's machine runs BlueZ's ``btvirt``, an emulated LE radio: its own controller is
on the kernel's virtual HCI driver, and ``btvirt -s`` serves more controllers of the same
radio as HCI (H4) byte streams on a socket. The phone's machine is a second computer
with its own kernel and its own ``bluetoothd``, as a phone is: one of those controllers
reaches it as a serial line, its second serial port (``ttyS1``), and ``btattach`` makes
it the phone's ``hci0``, as a Pi's Bluetooth chip on its UART is made one.

    board's bluetoothd - hci0 (hci_vhci) - btvirt = radio = btvirt's LE server
        - guest/radio_relay.py - virtio port org.magboard.radio
        == radio.sock ==
        ttyS1 - btattach (hci_uart, H4) - hci0 - phone's bluetoothd - bleak

The network (``link.sock``, a QEMU stream netdev: no port on the host, nothing beyond
the two machines) carries what the phone's tests say to the board's page.

    wires = Wires(workdir)
    board = Machine.start(image, payload, workdir, devices=wires.board())
    wires.wait_for_board()
    phone = Machine.start(image, phone_payload, workdir / "phone", devices=wires.phone())
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

#: The board's and the phone's addresses on the link (``guest/boot/``).
BOARD_ADDRESS = "10.77.0.1"
PHONE_ADDRESS = "10.77.0.2"
BOARD_MAC = "52:54:00:4d:42:01"
PHONE_MAC = "52:54:00:4d:42:02"


@dataclass(frozen=True)
class Wires:
    """The sockets in ``directory`` that join the board's QEMU to the phone's."""

    directory: Path

    @property
    def radio(self) -> Path:
        return self.directory / "radio.sock"

    @property
    def link(self) -> Path:
        return self.directory / "link.sock"

    def board(self) -> tuple[str, ...]:
        """The board's QEMU listens on both (it starts first)."""
        for path in (self.radio, self.link):
            path.unlink(missing_ok=True)
        return (
            "-chardev", f"socket,id=radio,path={self.radio},server=on,wait=off",
            "-device", "virtserialport,chardev=radio,name=org.magboard.radio",
            "-netdev", f"stream,id=link,server=on,addr.type=unix,addr.path={self.link}",
            "-device", f"virtio-net-pci,netdev=link,mac={BOARD_MAC}",
        )  # fmt: skip

    def phone(self) -> tuple[str, ...]:
        """The phone's QEMU connects to both; its second serial port is the radio."""
        return (
            "-chardev", f"socket,id=radio,path={self.radio}",
            "-serial", "chardev:radio",
            "-netdev", f"stream,id=link,server=off,addr.type=unix,addr.path={self.link}",
            "-device", f"virtio-net-pci,netdev=link,mac={PHONE_MAC}",
        )  # fmt: skip

    def wait_for_board(self, timeout: float = 30) -> None:
        """Until the board's QEMU listens on both sockets."""
        deadline = time.monotonic() + timeout
        while not (self.radio.exists() and self.link.exists()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the board's QEMU made no {self.radio} and {self.link}")
            time.sleep(0.1)

    def remove(self) -> None:
        for path in (self.radio, self.link):
            path.unlink(missing_ok=True)
