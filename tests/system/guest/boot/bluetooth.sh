#!/bin/sh
# Two Bluetooth LE controllers that see each other over an emulated radio: BlueZ's btvirt
# (Debian's bluez-test-tools) on the kernel's virtual HCI driver (hci_vhci). Then the real
# bluetoothd, which finds both: the board advertises on hci0, the tests' app uses hci1.
set -eu
modprobe hci_vhci
systemd-run --unit=btvirt --property=Restart=on-failure /usr/bin/btvirt -L -l2
i=0
while [ ! -e /sys/class/bluetooth/hci1 ]; do
    i=$((i + 1))
    [ "$i" -le 100 ] || { echo "bluetooth.sh: btvirt made no controllers" >&2; exit 1; }
    sleep 0.1
done
# One bluetoothd runs both ends: it need not also browse the app's own GATT database from
# the board's side while the app browses the board's.
sed -i 's/^#*ReverseServiceDiscovery *=.*/ReverseServiceDiscovery = false/' /etc/bluetooth/main.conf
systemctl start --no-block bluetooth.service
