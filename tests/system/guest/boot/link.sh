#!/bin/sh
# The wire between the board's machine and the phone's (tests/system/harness/wires.py): a
# network of two, each end addressed by the MAC address QEMU gave its card. The phone's app
# reaches the board's page on it; nothing else is on it.
set -eu
mkdir -p /etc/systemd/network
printf '[Match]\nMACAddress=52:54:00:4d:42:01\n[Network]\nAddress=10.77.0.1/24\n' \
    > /etc/systemd/network/50-magboard-board.network
printf '[Match]\nMACAddress=52:54:00:4d:42:02\n[Network]\nAddress=10.77.0.2/24\n' \
    > /etc/systemd/network/50-magboard-phone.network
systemctl start --no-block systemd-networkd.service
