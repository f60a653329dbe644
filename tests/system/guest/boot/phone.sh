#!/bin/sh
# The phone's machine: its own kernel and bluetoothd. Its controller comes from the board's
# radio on its second serial port, attached by the test once the board's end is there
# (btattach, hci_uart's H4). Meanwhile the app's venv is made, from the wheels passed in,
# while the board's machine installs magboard.
set -eu
modprobe hci_uart
systemd-run --no-block --unit=ble-client-venv --property=Type=oneshot --property=RemainAfterExit=yes \
    sh -ec 'python3 -m venv /opt/ble-client; /opt/ble-client/bin/pip install --quiet bleak chess'
