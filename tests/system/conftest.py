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
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.system.harness import build
from tests.system.harness.cache import LEDGER, Cache
from tests.system.harness.gpiosim import GPIO_SIM
from tests.system.harness.machine import Machine
from tests.system.harness.wires import Wires

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


BOOT = HERE / "guest" / "boot"
MACHINE = build.GuestSpec(
    packages=(
        # A Raspberry Pi OS Lite's base: systemd, udev, kernel modules, the journal.
        "systemd", "systemd-sysv", "udev", "kmod", "procps",
        *installer_packages(),
        # For the checks: libgpiod's tools (gpioinfo), strace for the scan's syscalls.
        "gpiod", "strace",
        # Bluetooth LE: the real bluetoothd, and btvirt for an emulated radio (the board's
        # controller, and the phone's, which goes to the phone's machine).
        "bluez", "bluez-test-tools",
    ),
    out_of_tree=(GPIO_SIM,),
    requirements=(*product_requirements(), *TEST_REQUIREMENTS),
    boot_steps=(BOOT / "gpio-chip.sh", BOOT / "bluetooth.sh", BOOT / "link.sh"),
    checks=HERE / "guest",
)
#: The Bluetooth tests' phone: a second machine, its own kernel and bluetoothd, and an app on
#: bleak; wired to the board's machine by a radio and a network (harness/wires.py). Its
#: packages are the board's, so it boots the same cached root filesystem; it installs no
#: magboard.
PHONE = build.GuestSpec(
    packages=MACHINE.packages,
    requirements=MACHINE.requirements,
    boot_steps=(BOOT / "link.sh", BOOT / "phone.sh"),
    checks=HERE / "guest",
)
#: The phone's memory: Debian, bluetoothd and a Python app.
PHONE_MEMORY_MB = 768


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


@dataclass
class Machines:
    """The board's machine, and the phone's when one was asked for (started, maybe not up)."""

    board: Machine
    phone: Machine | None
    report: list[str]

    def stop(self) -> None:
        if self.phone is not None:
            self.phone.stop()
        self.board.stop()


def start_machines(cache: Cache, with_phone: bool) -> Machines:
    """The stages built or reused, the board's machine booted, and the phone's started
    beside it (it comes up while the board's machine is busy)."""
    build.check_host_tools()
    started = time.monotonic()
    kernel = build.current_kernel()
    image = build.rootfs(cache, MACHINE, kernel)
    modules = [build.kernel_module(cache, m, kernel) for m in MACHINE.out_of_tree]
    wheels = build.wheels(cache, MACHINE.requirements)
    workdir = _run_dir(cache)
    payload = build.payload_image(MACHINE, modules, wheels, ROOT, workdir)
    wires = Wires(workdir)
    board = Machine.start(image, payload, workdir, devices=wires.board())
    phone = None
    try:
        if with_phone:
            wires.wait_for_board()
            phone_dir = workdir / "phone"
            phone_payload = build.payload_image(PHONE, [], wheels, None, phone_dir)
            phone = Machine.start(image, phone_payload, phone_dir, memory_mb=PHONE_MEMORY_MB,
                                  devices=wires.phone())  # fmt: skip
        prepared = time.monotonic() - started
        board.wait_ready()
    except BaseException:
        Machines(board, phone, []).stop()
        raise
    report = [
        f"kernel {kernel.abi} ({kernel.version}), cache {cache.root}",
        *(f"stage {u.name}: {'built' if u.cold else 'reused'} in {u.seconds:.1f} s"
          for u in LEDGER),
        f"stages and payload ready in {prepared:.1f} s; booted to the agent in "
        f"{board.boot_seconds:.1f} s",
    ]  # fmt: skip
    (workdir / "report.txt").write_text("\n".join(report) + "\n")
    return Machines(board, phone, report)


def _wants_phone(session) -> bool:
    return any(Path(str(item.fspath)).stem == "test_bluetooth" for item in session.items)


@pytest.fixture(scope="session")
def machines(request):
    """The booted test machine (stages built or reused), and the phone's machine started
    when the Bluetooth tests are to run; stopped when the session ends."""
    started = time.monotonic()
    both = start_machines(Cache(), _wants_phone(request.session))
    request.config._magboard_machines = both
    request.config._magboard_report = both.report
    yield both
    both.stop()
    both.report.append(f"machine up for the whole session: {time.monotonic() - started:.1f} s; "
                       f"files in {both.board.workdir}")  # fmt: skip
    (both.board.workdir / "report.txt").write_text("\n".join(both.report) + "\n")


@pytest.fixture(scope="session")
def machine(machines):
    """The board's machine, booted."""
    return machines.board


@pytest.fixture(scope="session")
def phone(machines):
    """The phone's machine, up (its controller not attached yet: test_bluetooth.py)."""
    if machines.phone is None:
        pytest.fail("the phone's machine was not started (only for test_bluetooth.py)")
    machines.phone.wait_ready()
    machines.report.append(f"the phone's machine answered {machines.phone.boot_seconds:.1f} s "
                           "after its start, when first needed")  # fmt: skip
    return machines.phone


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    machines = getattr(item.config, "_magboard_machines", None)
    vm = machines.board if machines is not None else None
    if rep.failed and vm is not None and HERE in Path(str(item.fspath)).parents:
        try:
            journal = vm.run("journalctl", "-u", "magboard", "-b", "--no-pager", "-n", "60",
                             timeout=60).stdout  # fmt: skip
        except Exception as exc:  # the machine itself may be what failed
            journal = f"(could not read the journal: {exc})"
        rep.sections.append(("magboard's journal in the machine (last 60 lines)", journal))
        rep.sections.append(("the machine's serial console (last 30 lines)", vm.serial_tail(30)))
        if machines.phone is not None:
            rep.sections.append(("the phone's serial console (last 15 lines)",
                                 machines.phone.serial_tail(15)))  # fmt: skip
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
