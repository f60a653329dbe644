"""The machine itself: Debian's kernel booted headless, the simulated GPIO chip as a Pi's."""

from __future__ import annotations

from tests.system.harness.wires import BOARD_MAC


def test_the_machine_runs_debians_kernel_with_the_simulated_pi_gpio_chip(machine):
    uname = machine.run("uname", "-r", check=True).stdout.strip()
    assert uname.endswith("-amd64")
    info = machine.run("gpioinfo", check=True).stdout
    # The daemon finds the Pi's chip by its label, and BCM GPIO n at offset n.
    assert "54 lines" in info
    assert '"GPIO4"' in info and '"GPIO53"' in info
    label = machine.sh("cat /sys/kernel/config/gpio-sim/pi/gpio-bank0/label").stdout.strip()
    assert label == "pinctrl-bcm2711"


def test_the_machine_has_no_network_but_loopback_and_the_phones_wire(machine):
    # The Bluetooth tests' phone, when it runs, is wired to this machine alone
    # (harness/wires.py): a network of two, with no route beyond it.
    links = machine.run("ls", "/sys/class/net", check=True).stdout.split()
    macs = {link: machine.run("cat", f"/sys/class/net/{link}/address").stdout.strip()
            for link in links if link != "lo"}  # fmt: skip
    assert "lo" in links and set(macs.values()) <= {BOARD_MAC.lower()}, macs
    routes = machine.run("cat", "/proc/net/route", check=True).stdout.splitlines()[1:]
    assert all(line.split()[1] != "00000000" for line in routes), routes  # no default route
