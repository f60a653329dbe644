#!/bin/sh
# mmdebstrap's customize hook for the test machine's root filesystem: "$1" is the new root.
# Only what every run shares goes here (it is cached); what a run brings (the repository,
# wheels, modules built here, the agent, the checks) comes on the payload disk, which
# magboard-test-boot.service mounts and whose boot.sh it runs.
set -eu
root="$1"

# Boot without a disk label lookup: the root is the first virtio disk, the payload the second.
# The payload's label is waited for up to 5 minutes: on a busy host udev's coldplug in the
# phone's machine took over 30 s (systemd's default wait here once), and then nothing ran.
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\nLABEL=payload /srv/payload ext4 ro,nofail,x-systemd.device-timeout=300s 0 0\n' > "$root/etc/fstab"
mkdir -p "$root/srv/payload"
echo magboard-vm > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 magboard-vm\n' > "$root/etc/hosts"

# A small initramfs that can find a virtio root and the agent's virtio-serial port.
printf 'virtio_pci\nvirtio_blk\nvirtio_console\next4\n' >> "$root/etc/initramfs-tools/modules"
sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
chroot "$root" update-initramfs -u -k all

# The payload's boot steps (kernel modules, the GPIO chip), then the agent the host talks to.
cat > "$root/etc/systemd/system/magboard-test-boot.service" <<'UNIT'
[Unit]
Description=magboard system tests: the payload's boot steps (modules, simulated chips)
RequiresMountsFor=/srv/payload
Before=magboard.service magboard-test-agent.service
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh /srv/payload/boot.sh
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
UNIT
cat > "$root/etc/systemd/system/magboard-test-agent.service" <<'UNIT'
[Unit]
Description=magboard system tests: the agent that runs the host's commands
RequiresMountsFor=/srv/payload
After=magboard-test-boot.service
Wants=dev-virtio\x2dports-org.magboard.agent.device
After=dev-virtio\x2dports-org.magboard.agent.device
[Service]
ExecStart=/usr/bin/python3 /srv/payload/agent.py
Restart=always
RestartSec=1
[Install]
WantedBy=multi-user.target
UNIT
chroot "$root" systemctl enable magboard-test-boot.service magboard-test-agent.service
# Nothing to do in a machine that lives a few minutes: no timers, no consoles but the serial one.
chroot "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
    fstrim.timer systemd-pstore.service getty@tty1.service e2scrub_reap.service 2>/dev/null || true
chroot "$root" passwd -d root >/dev/null   # the serial console, for a person debugging a run
# No mirror's address left in the image: the machine has no network, and apt is not used in it.
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
