"""What a scan of the matrix costs on a real kernel GPIO chip through the real gpiod.

Emulation (TCG) inflates every time measured here several times over: the number to carry
to a Pi is the count of system calls per scan, which does not depend on the CPU. Measured
with the service and the board simulator stopped (an empty board: the columns read their
pull-ups), first at the Pi's default settle time (10 µs, spun), then at this machine's."""

from __future__ import annotations

import re

from tests.system import steps

SCANS = (300, 1300)


def _strace_calls(machine, scans: int) -> dict[str, int]:
    machine.run("strace", "-c", "-f", "-o", "/tmp/strace.txt", steps.VENV_PYTHON,
                f"{steps.CHECKS}/scancost.py", f"--scans={scans}", "--settle-us=10",
                check=True, timeout=900)  # fmt: skip
    table = machine.run("cat", "/tmp/strace.txt", check=True).stdout
    calls = {}
    for line in table.splitlines():
        fields = line.split()
        # % time, seconds, usecs/call, calls, [errors,] syscall
        if (len(fields) >= 5 and re.fullmatch(r"\d+", fields[3]) and fields[-1].isidentifier()
                and fields[-1] != "total"):  # fmt: skip
            calls[fields[-1]] = int(fields[3])
    return calls


#: Clocks the kernel reads in user space (vDSO): a Pi's (arch_sys_counter), a PC's (tsc), a
#: virtual machine's under KVM (kvm-clock). Emulation gets hpet or acpi_pm, which are not,
#: so there every clock reading of the settle time's spin is a system call too.
VDSO_CLOCKS = {"arch_sys_counter", "tsc", "kvm-clock"}


def test_a_scan_costs_seventeen_ioctls_and_nothing_else_but_the_clock(machine, installed):
    machine.run("systemctl", "stop", "magboard", "magboard-boardsim", check=True, timeout=60)
    try:
        pi_default = machine.python("scancost.py", "--scans=2000", "--settle-us=10",
                                    python=steps.VENV_PYTHON, timeout=900)  # fmt: skip
        here = machine.python("scancost.py", "--scans=300", python=steps.VENV_PYTHON,
                              timeout=900)  # fmt: skip
        few, many = (_strace_calls(machine, n) for n in SCANS)
        per_scan = {name: (many.get(name, 0) - few.get(name, 0)) / (SCANS[1] - SCANS[0])
                    for name in many}  # fmt: skip
        per_scan = {name: round(n, 2) for name, n in per_scan.items() if n > 0.01}
        print(f"scan cost in the emulated machine: at 10 µs settle {pi_default['scans_per_s']} "
              f"scans/s, {pi_default['cpu_ms_per_scan']} ms CPU per scan; at "
              f"{here['settle_us']:.0f} µs settle {here['scans_per_s']} scans/s, "
              f"{here['cpu_ms_per_scan']} ms CPU; system calls per scan {per_scan}")
        clock = machine.run("cat", "/sys/devices/system/clocksource/clocksource0/"
                            "current_clocksource", check=True).stdout.strip()  # fmt: skip
        print(f"clock source {clock}")
        # Eight rows driven, eight column reads, the last row released: one ioctl each.
        assert per_scan.pop("ioctl") == 17.0
        # And nothing else, but reading the clock where the clock is not read in user space.
        assert set(per_scan) <= ({"clock_gettime"} if clock not in VDSO_CLOCKS else set()), (
            per_scan, clock)
        assert pi_default["scans_per_s"] > 50  # a hang or a lock-step, not a measurement
    finally:
        steps.start_board(machine)
        machine.run("systemctl", "start", "magboard", timeout=120)
