# Boot step: a simulated Raspberry Pi GPIO chip, as the daemon finds the Pi's: labelled
# pinctrl-bcm2711 (a Pi 4), 54 lines named GPIO0..GPIO53, offset n being BCM GPIO n.
set -eu
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
chip=/sys/kernel/config/gpio-sim/pi
bank=$chip/gpio-bank0
mkdir -p "$bank"
echo pinctrl-bcm2711 > "$bank/label"
echo 54 > "$bank/num_lines"
n=0
while [ $n -lt 54 ]; do
    mkdir -p "$bank/line$n"
    echo "GPIO$n" > "$bank/line$n/name"
    n=$((n + 1))
done
echo 1 > "$chip/live"
udevadm settle
echo "gpio-chip: $(cat "$bank/chip_name") labelled $(cat "$bank/label") on $(cat "$chip/dev_name")"
