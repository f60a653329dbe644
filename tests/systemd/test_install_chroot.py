"""systemd/install.sh in a chroot, where systemd is not PID 1 (issue 32, item 9): as people
building an SD-card image run it.

On an emulated Raspberry Pi OS it stopped at ``udevadm control --reload-rules`` (no udev
runs in a chroot) and would have stopped at ``systemctl restart``. Now it installs and
enables the service offline (``systemctl --root=/ enable``), leaves udevadm and the start
out and says so; ``--uninstall`` likewise.

The chroot is made here, cheaply, from this machine's own ``/usr`` (read-only), a copy of
the few files of ``/etc`` the installer's tools read, and empty directories for what it
writes, all in a mount namespace of the test's (nothing outside it changes). The real
``bash``, ``systemctl``, ``udevadm``, ``useradd``, ``chown`` and ``dpkg-query`` run in it; only
``apt-get`` and the virtual environment's ``python`` are stand-ins that note their calls
(the venv and pip are the system tests', in a virtual machine).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SETUP = r"""
set -euo pipefail
root="$1"; src="$2"
mount -t tmpfs tmpfs "$root"
mkdir -p "$root"/{usr,etc,var/lib/dpkg,tmp,run,dev,proc,src,opt/magboard/bin,fake,boot/firmware}
for link in bin lib lib64 sbin; do ln -s "usr/$link" "$root/$link"; done
mount --bind /usr "$root/usr" && mount -o remount,bind,ro "$root/usr"
mount -t tmpfs tmpfs "$root/usr/local"
mount --bind /var/lib/dpkg "$root/var/lib/dpkg" && mount -o remount,bind,ro "$root/var/lib/dpkg"
mount --bind /dev "$root/dev"
mount --bind "$src" "$root/src" && mount -o remount,bind,ro "$root/src"
for f in passwd group shadow gshadow login.defs nsswitch.conf os-release; do
    cp -L "/etc/$f" "$root/etc/$f" 2>/dev/null || true
done
mkdir -p "$root/etc/default" "$root/etc/skel"
printf '# a Raspberry Pi boot config\n' > "$root/boot/firmware/config.txt"
for tool in apt-get raspi-config; do
    printf '#!/bin/bash\necho "%s $*" >> /calls.log\n' "$tool" > "$root/fake/$tool"
done
printf '#!/bin/bash\necho "venv-python $*" >> /calls.log\n' > "$root/opt/magboard/bin/python"
chmod +x "$root"/fake/* "$root/opt/magboard/bin/python"
shift 2
for run in "$@"; do
    chroot "$root" /usr/bin/env -i PATH=/fake:/usr/sbin:/usr/bin HOME=/root \
        bash /src/systemd/install.sh $run > "$root/tmp/out-${run:-install}.log" 2>&1 \
        || { echo "install.sh $run failed:"; cat "$root/tmp/out-${run:-install}.log"; exit 1; }
    echo "=== install.sh $run"
    cat "$root/tmp/out-${run:-install}.log"
    echo "=== files"
    (cd "$root" && find etc/systemd etc/udev usr/local/bin var/lib/magboard etc/magboard opt \
        -maxdepth 4 \( -type f -o -type l \) -printf '%p %l\n' 2>/dev/null | sort)
    echo "=== magboard user"
    grep '^magboard:' "$root/etc/passwd" || echo "(none)"
    echo "=== boot config"
    cat "$root/boot/firmware/config.txt"
    echo "=== calls"
    cat "$root/calls.log" 2>/dev/null; : > "$root/calls.log"
done
"""


def _in_a_chroot(tmp_path: Path, *runs: str) -> str:
    for tool in ("unshare", "chroot", "mount", "systemctl", "udevadm", "useradd"):
        if shutil.which(tool) is None:
            pytest.skip(f"no {tool} on this machine to make a chroot with")
    script = tmp_path / "setup.sh"
    script.write_text(SETUP)
    root = tmp_path / "root"
    root.mkdir()
    result = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", str(script), str(root),
         str(ROOT), *runs],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if result.returncode and "Operation not permitted" in result.stderr + result.stdout:
        pytest.skip(f"cannot make a chroot here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _part(out: str, title: str, index: int = 0) -> str:
    return out.split(f"=== {title}")[index + 1].split("\n===")[0]


def test_in_a_chroot_it_installs_and_enables_offline_and_starts_nothing(tmp_path: Path) -> None:
    out = _in_a_chroot(tmp_path, "", "--uninstall")
    installed = _part(out, "install.sh ")
    files = _part(out, "files")
    # Installed, the user made, SPI's boot line written, enabled offline: it starts at boot.
    assert "etc/systemd/system/magboard.service" in files, out
    wants = "etc/systemd/system/multi-user.target.wants/magboard.service"
    assert f"{wants} /etc/systemd/system/magboard.service" in files, out
    assert "usr/local/bin/magboard /opt/magboard/bin/magboard" in files
    assert "etc/udev/rules.d/99-magboard.rules" in files, out
    assert _part(out, "magboard user").startswith("\nmagboard:"), out
    assert "dtoverlay=spi0-0cs,no_miso" in _part(out, "boot config")
    assert "enabled offline (systemd is not running here)" in installed, installed
    assert "not started: systemd is not running here" in installed, installed
    skipped = "skipped (systemd is not running here: a chroot, or an image being built): "
    for step in ("udevadm control --reload-rules", "udevadm trigger", "systemctl daemon-reload"):
        assert skipped + step in installed, installed
    assert "restart" not in _part(out, "calls"), out
    assert "venv-python -m pip install --quiet --upgrade /src[pi]" in _part(out, "calls")
    # Uninstalled the same way: disabled offline, nothing stopped, the files gone.
    removed = _part(out, "install.sh --uninstall")
    assert "disabled offline (systemd is not running here)" in removed, removed
    assert "skipped (systemd is not running here: a chroot, or an image being built): " \
        "udevadm control --reload-rules" in removed, removed
    left = _part(out, "files", 1)
    assert "magboard.service" not in left and "usr/local/bin/magboard" not in left, out
