#!/usr/bin/env bash
# Install (or remove) magboard as a system service on Raspberry Pi OS Bookworm or Trixie,
# from the copy of the repository this script sits in (a git clone on the Pi: see
# hardware/README.md, "Setting up the Pi"; to update, `git pull` and run it again).
#
#   sudo systemd/install.sh                 install or update: packages, /opt/magboard venv with
#                                           this copy and its `pi` extra, user `magboard`, udev
#                                           rules, unit, SPI for the LEDs, a default
#                                           /etc/magboard/config.toml, enable + start
#   sudo systemd/install.sh --uninstall     stop and remove the service, unit, rules and venv;
#                                           keeps /etc/magboard and the games in /var/lib/magboard
#   sudo systemd/install.sh --uninstall --purge   also removes those and the user
#   sudo systemd/install.sh --with-engine   also installs Stockfish (apt package `stockfish`),
#                                           to play against the engine (docs/engine.md)
#   sudo systemd/install.sh --with-speech   also installs espeak-ng, the voice of [speech]
#                                           (docs/speech.md); both options may be given
#
#   In a chroot, or wherever systemd is not running (an SD-card image being built), the
#   service is installed and enabled offline (`systemctl --root=/ enable`): it starts at the
#   next boot. udevadm and the start are left out there, and said so; --uninstall likewise.
#
#   systemd/install.sh --prefix DIR [--with-venv]
#        stage everything under DIR instead of / (for tests and packaging). Under a prefix the
#        steps that change the running system are NOT run, only listed as "skipped (prefix)":
#        apt-get, groupadd/useradd/userdel, systemctl, udevadm, raspi-config. The virtual
#        environment is skipped too unless --with-venv is given, and the boot config is
#        changed only where the prefix holds one (boot/firmware/config.txt).
#
# Running it again is safe: every step checks before it acts.
set -euo pipefail

SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX=""
UNINSTALL=0
PURGE=0
WITH_VENV=0
APT_PACKAGES=(python3 python3-venv python3-dev gcc sqlite3)
WITH_ENGINE=0
WITH_SPEECH=0

# The comment above, up to the first line of code: what --help prints.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX="${2:?--prefix needs a directory}"; shift 2 ;;
        --prefix=*) PREFIX="${1#--prefix=}"; shift ;;
        --uninstall) UNINSTALL=1; shift ;;
        --purge) PURGE=1; shift ;;
        --with-venv) WITH_VENV=1; shift ;;
        --with-engine) WITH_ENGINE=1; shift ;;
        --with-speech) WITH_SPEECH=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

if [ "$PURGE" = 1 ] && [ "$UNINSTALL" = 0 ]; then
    echo "install.sh: --purge goes with --uninstall (it removes the config and the games)" >&2
    exit 2
fi
# The engine is optional: the board works without it.
[ "$WITH_ENGINE" = 1 ] && APT_PACKAGES+=(stockfish)
# So is speech: the board speaks with espeak-ng (speech-dispatcher, where a user runs it,
# is that user's own).
if [ "$WITH_SPEECH" = 1 ]; then APT_PACKAGES+=(espeak-ng); fi

if [ -n "$PREFIX" ]; then
    mkdir -p "$PREFIX"
    PREFIX="$(cd "$PREFIX" && pwd)"
    [ "$PREFIX" = "/" ] && PREFIX=""
fi

VENV="$PREFIX/opt/magboard"
UNIT="$PREFIX/etc/systemd/system/magboard.service"
COMMAND_LINK="$PREFIX/usr/local/bin/magboard"
RULES="$PREFIX/etc/udev/rules.d/99-magboard.rules"
CONFIG_DIR="$PREFIX/etc/magboard"
STATE_DIR="$PREFIX/var/lib/magboard"

say() { echo "magboard install: $*"; }

# A step that changes the running system: run it for real, or only list it under a prefix.
system() {
    if [ -n "$PREFIX" ]; then
        say "skipped (prefix): $*"
    else
        "$@"
    fi
}

# Is systemd running this system (sd_booted(3): it is PID 1 and made /run/systemd/system)?
# Not in a chroot, nor while an image is built: there the service is enabled offline and
# starts at the next boot, and udev's rules apply then.
systemd_running() {
    [ -z "$PREFIX" ] && [ -d /run/systemd/system ]
}

# A step that needs systemd or udev running: run it only where they are.
running() {
    if [ -n "$PREFIX" ]; then
        say "skipped (prefix): $*"
    elif systemd_running; then
        "$@"
    else
        say "skipped (systemd is not running here: a chroot, or an image being built): $*"
    fi
}

# Enable (or disable) the unit: through the running systemd, or on the files alone.
unit_files() {
    if [ -n "$PREFIX" ] || systemd_running; then
        system systemctl "$@" magboard.service
    else
        systemctl --root=/ "$@" magboard.service
        say "$1d offline (systemd is not running here): it takes effect at the next boot"
    fi
}

# Write a file only if its content differs; PUT_CHANGED=1 if it did. Called as a plain
# command (never in `&&` or `if`, where bash ignores set -e), so a failure stops the script.
PUT_CHANGED=0
put() {
    local src="$1" dest="$2" mode="$3"
    PUT_CHANGED=0
    mkdir -p "$(dirname "$dest")"
    if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
        say "unchanged: ${dest#"$PREFIX"}"
        return 0
    fi
    install -m "$mode" "$src" "$dest"
    say "installed: ${dest#"$PREFIX"}"
    PUT_CHANGED=1
}

check_os() {
    local release="$PREFIX/etc/os-release" codename=""
    if [ -n "$PREFIX" ] && [ ! -r "$release" ]; then
        say "system: not checked (staging under $PREFIX, which holds no etc/os-release)"
        return 0
    fi
    [ -r "$release" ] && codename="$(. "$release" && echo "${VERSION_CODENAME:-}")"
    case "$codename" in
        bookworm|trixie) say "system: $codename" ;;
        *) say "warning: made for Raspberry Pi OS Bookworm or Trixie, this is '${codename:-unknown}'; going on" ;;
    esac
}

need_root() {
    if [ -z "$PREFIX" ] && [ "$(id -u)" -ne 0 ]; then
        echo "install.sh: run as root (sudo), or stage with --prefix DIR" >&2
        exit 1
    fi
}

ensure_group() {
    if [ -n "$PREFIX" ] || ! getent group "$1" >/dev/null; then
        system groupadd --system "$1"
    fi
}

install_all() {
    need_root
    check_os
    local missing=()
    for package in "${APT_PACKAGES[@]}"; do
        if [ -n "$PREFIX" ] || ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
            missing+=("$package")
        fi
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        system apt-get update
        system apt-get install -y --no-install-recommends "${missing[@]}"
    fi

    # bluetooth: BlueZ's group (made here when bluez is not installed yet, as its package
    # would), for [emulation] over Bluetooth LE; audio: the sound card, for [speech]; the unit
    # asks for all five.
    for group in gpio spi dialout bluetooth audio; do ensure_group "$group"; done
    if [ -n "$PREFIX" ] || ! getent passwd magboard >/dev/null; then
        system useradd --system --user-group --home-dir /var/lib/magboard --no-create-home \
            --shell /usr/sbin/nologin --groups gpio,spi,dialout,bluetooth,audio magboard
    else
        system usermod --append --groups gpio,spi,dialout,bluetooth,audio magboard
    fi

    if [ -z "$PREFIX" ] || [ "$WITH_VENV" = 1 ]; then
        if [ ! -x "$VENV/bin/python" ]; then
            python3 -m venv "$VENV"
            say "created venv: ${VENV#"$PREFIX"}"
        fi
        "$VENV/bin/python" -m pip install --quiet --upgrade pip
        "$VENV/bin/python" -m pip install --quiet --upgrade "$SOURCE_DIR[pi]"
        say "installed magboard[pi] into ${VENV#"$PREFIX"}"
    else
        say "skipped (prefix): python3 -m venv /opt/magboard && pip install '$SOURCE_DIR[pi]'"
    fi

    # The command on everyone's PATH: `magboard games`, `magboard config check`, ...
    mkdir -p "$(dirname "$COMMAND_LINK")"
    if [ "$(readlink "$COMMAND_LINK" 2>/dev/null)" != /opt/magboard/bin/magboard ]; then
        ln -sfn /opt/magboard/bin/magboard "$COMMAND_LINK"
        say "linked: /usr/local/bin/magboard -> /opt/magboard/bin/magboard"
    fi

    local unit_changed=0 rules_changed=0
    put "$SOURCE_DIR/systemd/magboard.service" "$UNIT" 0644
    unit_changed=$PUT_CHANGED
    put "$SOURCE_DIR/systemd/99-magboard.rules" "$RULES" 0644
    rules_changed=$PUT_CHANGED

    mkdir -p "$CONFIG_DIR" "$STATE_DIR"
    if [ ! -e "$CONFIG_DIR/config.toml" ]; then
        write_default_config > "$CONFIG_DIR/config.toml"
        chmod 0644 "$CONFIG_DIR/config.toml"
        say "wrote default config: ${CONFIG_DIR#"$PREFIX"}/config.toml"
    else
        say "kept existing config: ${CONFIG_DIR#"$PREFIX"}/config.toml"
    fi
    system chown magboard:magboard /var/lib/magboard
    chmod 0750 "$STATE_DIR"

    if command -v raspi-config >/dev/null 2>&1 || [ -n "$PREFIX" ]; then
        # NeoPixels over SPI need /dev/spidev0.0 (in a chroot the boot config is changed,
        # and raspi-config's own live change may fail: said, not fatal).
        if ! system raspi-config nonint do_spi 0; then
            say "warning: raspi-config could not turn SPI on; add dtparam=spi=on to the boot config"
        fi
    fi
    spi_without_chip_selects
    if [ "$rules_changed" = 1 ]; then
        running udevadm control --reload-rules
        running udevadm trigger --subsystem-match=tty --subsystem-match=gpio --subsystem-match=spidev
    fi
    if [ "$unit_changed" = 1 ]; then
        running systemctl daemon-reload
    fi
    unit_files enable
    if [ -z "$PREFIX" ] && ! systemd_running; then
        say "not started: systemd is not running here; the service starts when this system boots"
    else
        system systemctl restart magboard.service
    fi
    say "installed from $SOURCE_DIR; to update: git -C $SOURCE_DIR pull && sudo $SOURCE_DIR/systemd/install.sh"
    say "done. Logs: journalctl -u magboard -f   Config: /etc/magboard/config.toml"
}

# The NeoPixels need only SPI0's data and clock (GPIO 10, 11): its chip selects and MISO
# (GPIO 7, 8, 9) are the buttons' (hardware/README.md, pin map). One line in the boot config.
SPI_OVERLAY="dtoverlay=spi0-0cs,no_miso"
spi_without_chip_selects() {
    local boot=""
    for candidate in "$PREFIX/boot/firmware/config.txt" "$PREFIX/boot/config.txt"; do
        if [ -f "$candidate" ]; then boot="$candidate"; break; fi
    done
    if [ -z "$boot" ]; then
        say "no boot config (/boot/firmware/config.txt): not a Raspberry Pi? For buttons on GPIO 7-9 add: $SPI_OVERLAY"
        return 0
    fi
    if grep -Eq '^[[:space:]]*dtoverlay=spi0-[0-9]cs' "$boot"; then
        say "unchanged: ${boot#"$PREFIX"} (SPI0's chip selects as configured there)"
        return 0
    fi
    printf '\n# magboard: SPI0 for the NeoPixels without chip selects or MISO (GPIO 7-9 are buttons)\n%s\n' \
        "$SPI_OVERLAY" >> "$boot"
    say "boot config changed: ${boot#"$PREFIX"} ($SPI_OVERLAY); reboot once (sudo reboot)"
}

write_default_config() {
    cat <<'TOML'
# magboard config (every key optional; `magboard config show` prints them all with defaults,
# `magboard config check` validates this file). Restart after a change:
#   sudo systemctl restart magboard
[sensing]
backend = "gpiod"

[leds]
backend = "neopixel_spi"
brightness = 0.3

[buttons]
# Off until you wire them. Wired as hardware/README.md draws (adjust GPIO2, promote GPIO3,
# claim_draw GPIO9, resign GPIO8, new_game GPIO7, each to ground), this is all they need:
#   backend = "gpiod"
backend = "none"

[clock]
# The board is the chess clock: "none", or a time control ("5+0", "3+2", "90+30",
# "5+3 delay", "40/5400+30:1800+30"); the page changes it per game.
control = "none"

[speech]
# The board says the game aloud, for a player who listens (docs/speech.md, and
# docs/speech-card.md for that player). Install its voice with
# `sudo systemd/install.sh --with-speech`, then:
#   enabled = true
#   language = "en"          # or "fr", "de", "es"
enabled = false

[store]
path = "/var/lib/magboard/magboard.sqlite"

[sim]
state_file = "/var/lib/magboard/sim-board.json"

[web]
# The page listens on every network this Pi is on: the unit has no IP address filter
# (Lichess and a hall's broker may be anywhere). Watching needs nothing; anything that
# changes the game needs the token printed in the journal. To keep the page to one network,
# set host to this Pi's address on it, or filter port 8080 in a firewall.
host = "0.0.0.0"
port = 8080
TOML
}

remove() {
    local path="$1"
    if [ -e "$path" ] || [ -L "$path" ]; then
        rm -rf "$path"
        say "removed: ${path#"$PREFIX"}"
    fi
}

uninstall_all() {
    need_root
    if [ -n "$PREFIX" ] || systemd_running; then
        if [ -n "$PREFIX" ] || [ -e "$UNIT" ]; then
            system systemctl disable --now magboard.service
        fi
    elif [ -e "$UNIT" ]; then
        unit_files disable  # nothing runs to stop here
    fi
    remove "$UNIT"
    running systemctl daemon-reload
    if [ -e "$RULES" ]; then
        remove "$RULES"
        running udevadm control --reload-rules
    fi
    remove "$VENV"
    if [ "$(readlink "$COMMAND_LINK" 2>/dev/null)" = /opt/magboard/bin/magboard ]; then
        remove "$COMMAND_LINK"
    fi
    if [ "$PURGE" = 1 ]; then
        remove "$CONFIG_DIR"
        remove "$STATE_DIR"
        if [ -n "$PREFIX" ] || getent passwd magboard >/dev/null; then
            system userdel magboard
        fi
    else
        say "kept: /etc/magboard (config) and /var/lib/magboard (games); --purge removes them"
    fi
    say "uninstalled"
}

if [ "$UNINSTALL" = 1 ]; then
    uninstall_all
else
    install_all
fi
