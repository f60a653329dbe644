#!/bin/sh
# The board's Bluetooth LE: BlueZ's btvirt (Debian's bluez-test-tools) makes an emulated LE
# radio. This machine's controller is on the kernel's virtual HCI driver (hci_vhci); more
# controllers of the same radio are served on a socket (-s), and one of them is carried to
# the phone's machine (guest/radio_relay.py, tests/system/harness/wires.py), which has its
# own kernel and bluetoothd, as a phone has. Then the real bluetoothd, which finds hci0.
set -eu
modprobe hci_vhci
# btvirt sets up its crypto (AF_ALG sockets for ecb(aes) and cmac(aes)) after it has opened
# its controller and before it answers anything. Loading those kernel modules then, on an
# emulated CPU, outlasted the kernel's 2 s for the controller's first HCI_Reset
# ("hci0: Opcode 0x0c03 failed: -110", 4 boots in 6), and that controller never reached
# bluetoothd. Asked for here first, the modules are loaded when btvirt needs them.
python3 -c '
import socket
for kind, name in (("skcipher", "ecb(aes)"), ("hash", "cmac(aes)")):
    with socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET) as s:
        s.bind((kind, name))
'
systemd-run --unit=btvirt --property=Restart=on-failure /usr/bin/btvirt -L -l1 -s
i=0
while [ ! -e /sys/class/bluetooth/hci0 ] || [ ! -S /tmp/bt-server-le ]; do
    i=$((i + 1))
    [ "$i" -le 100 ] || { echo "bluetooth.sh: btvirt made no controller" >&2; exit 1; }
    sleep 0.1
done
systemd-run --unit=radio-relay --property=Restart=on-failure \
    python3 /srv/payload/checks/radio_relay.py
systemctl start --no-block bluetooth.service
