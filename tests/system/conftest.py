"""The system tests' machine: built from cached stages, booted once per session, stopped after.

Every test under ``tests/system/`` carries the ``system`` marker: the default ``pytest``
leaves them out, ``make system-test`` runs them (``pytest -m system tests/system``). They
need root, QEMU, mmdebstrap and the kernel's headers and source (``.ci/run`` installs
them; ``docs/testing.md`` says what each stage costs).

The run's files (the serial log, QEMU's log, the report) are kept in
``$XDG_CACHE_HOME/magboard-system/runs/latest/``; a failing test's report ends with the
magboard unit's journal and the serial console's last lines.
"""

from __future__ import annotations

import re
import shutil
import time
import tomllib
from pathlib import Path

import pytest

from tests.system.harness import build
from tests.system.harness.cache import LEDGER, Cache
from tests.system.harness.gpiosim import GPIO_SIM
from tests.system.harness.machine import Machine

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
#: Test-only packages beside the product's: lgpio's RPi.GPIO, for the rpigpio backend;
#: bleak and python-chess for the phone's app on the second Bluetooth controller.
TEST_REQUIREMENTS = ("rpi-lgpio>=0.6", "bleak>=0.22", "chess>=1.11")


def installer_packages() -> tuple[str, ...]:
    """The Debian packages ``systemd/install.sh`` installs: the machine has them already, as
    a Pi would after the installer's apt-get (the machine has no network)."""
    text = (ROOT / "systemd" / "install.sh").read_text()
    match = re.search(r"^APT_PACKAGES=\(([^)]*)\)", text, re.M)
    assert match, "systemd/install.sh no longer lists APT_PACKAGES=(...)"
    return tuple(match.group(1).split())


def product_requirements() -> tuple[str, ...]:
    """magboard's dependencies with its ``pi`` extra, and what building it needs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return (
        *project["build-system"]["requires"],
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["pi"],
    )


MACHINE = build.GuestSpec(
    packages=(
        # A Raspberry Pi OS Lite's base: systemd, udev, kernel modules, the journal.
        "systemd", "systemd-sysv", "udev", "kmod", "procps",
        *installer_packages(),
        # For the checks: libgpiod's tools (gpioinfo), strace for the scan's syscalls.
        "gpiod", "strace",
        # Bluetooth LE: the real bluetoothd, and btvirt for two controllers on an emulated
        # radio (the board's and the app's).
        "bluez", "bluez-test-tools",
    ),
    out_of_tree=(GPIO_SIM,),
    requirements=(*product_requirements(), *TEST_REQUIREMENTS),
    boot_steps=(HERE / "guest" / "boot" / "gpio-chip.sh", HERE / "guest" / "boot" / "bluetooth.sh"),
    checks=HERE / "guest",
)


#: The order the modules run in, one machine for all: the install first, the breakages last.
ORDER = ("test_machine", "test_service", "test_matrix", "test_leds", "test_fakes",
         "test_scan_cost", "test_bluetooth", "test_broken_unit")  # fmt: skip


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        name = Path(str(item.fspath)).stem
        return ORDER.index(name) if name in ORDER else len(ORDER)

    # The modules right here need the machine; unit/ holds quick tests of the harness's
    # own parts, which the default suite runs.
    mine = [item for item in items if Path(str(item.fspath)).parent == HERE]
    for item in mine:
        item.add_marker(pytest.mark.system)
    ordered = iter(sorted(mine, key=rank))  # stable: a module's tests keep their order
    items[:] = [next(ordered) if Path(str(item.fspath)).parent == HERE else item
                for item in items]  # fmt: skip


def _run_dir(cache: Cache) -> Path:
    runs = cache.root / "runs"
    latest = runs / "latest"
    if latest.exists():
        previous = runs / "previous"
        shutil.rmtree(previous, ignore_errors=True)
        latest.rename(previous)
    latest.mkdir(parents=True)
    return latest


@pytest.fixture(scope="session")
def machine(request):
    """The booted test machine (stages built or reused), stopped when the session ends."""
    build.check_host_tools()
    cache = Cache()
    started = time.monotonic()
    kernel = build.current_kernel()
    image = build.rootfs(cache, MACHINE, kernel)
    modules = [build.kernel_module(cache, m, kernel) for m in MACHINE.out_of_tree]
    wheels = build.wheels(cache, MACHINE.requirements)
    workdir = _run_dir(cache)
    payload = build.payload_image(MACHINE, modules, wheels, ROOT, workdir)
    prepared = time.monotonic() - started
    vm = Machine.boot(image, payload, workdir)
    request.config._magboard_machine = vm
    report = [
        f"kernel {kernel.abi} ({kernel.version}), cache {cache.root}",
        *(f"stage {u.name}: {'built' if u.cold else 'reused'} in {u.seconds:.1f} s"
          for u in LEDGER),
        f"stages and payload ready in {prepared:.1f} s; booted to the agent in "
        f"{vm.boot_seconds:.1f} s",
    ]  # fmt: skip
    (workdir / "report.txt").write_text("\n".join(report) + "\n")
    request.config._magboard_report = report
    yield vm
    vm.stop()
    total = time.monotonic() - started
    report.append(f"machine up for the whole session: {total:.1f} s; files in {workdir}")
    (workdir / "report.txt").write_text("\n".join(report) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    vm = getattr(item.config, "_magboard_machine", None)
    if rep.failed and vm is not None and HERE in Path(str(item.fspath)).parents:
        try:
            journal = vm.run("journalctl", "-u", "magboard", "-b", "--no-pager", "-n", "60",
                             timeout=60).stdout  # fmt: skip
        except Exception as exc:  # the machine itself may be what failed
            journal = f"(could not read the journal: {exc})"
        rep.sections.append(("magboard's journal in the machine (last 60 lines)", journal))
        rep.sections.append(("the machine's serial console (last 30 lines)", vm.serial_tail(30)))
        rep.sections.append(("the run's files", str(vm.workdir)))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    report = getattr(config, "_magboard_report", None)
    if report:
        terminalreporter.section("magboard system machine")
        for line in report:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def installed(machine):
    """magboard installed in the machine by ``systemd/install.sh``, then the pieces set up
    on the simulated board (as a builder would: the service waits for them); the install's
    output and time."""
    from tests.system import steps

    done = steps.install(machine)
    steps.start_board(machine)
    return done


@pytest.fixture
def service(machine, installed):
    """The installed service, running (READY sent); the machine."""
    from tests.system import steps

    if not installed.result.ok:
        pytest.fail("the install failed, so the service cannot run:\n"
                    + installed.result.describe())
    machine.run("systemctl", "reset-failed", "magboard")
    if steps.show(machine, "ActiveState")["ActiveState"] != "active":
        machine.run("systemctl", "start", "magboard", timeout=120)
    steps.wait_active(machine)
    return machine
