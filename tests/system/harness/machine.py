"""One test machine: QEMU booting the cached root filesystem, and the agent to talk to it.

The machine boots headless under plain emulation (TCG; ``MAGBOARD_VM_ACCEL=kvm`` tries
KVM where it works), with no network (``-nic none``; ``devices`` may add a wire to a
second machine, :mod:`.wires`), its root disk a throwaway qcow2
overlay over the cached image, the run's payload as a second read-only disk, the kernel's
console in a serial log file, and a virtio-serial port that the agent inside answers on.
``run()`` runs one command inside and returns its result; ``python()`` runs a Python
check and returns what it printed as JSON. ``stop()`` powers it off (killing QEMU if it
will not go) and removes the overlay. ``devices`` are more QEMU arguments (the wires
between two machines, :mod:`.wires`); ``start()`` starts QEMU without waiting for the
machine to come up, so that a second machine can boot while the first is busy.

    machine = Machine.boot(image, payload_image, workdir)
    machine.run("systemctl", "is-active", "magboard").stdout   # 'active\\n'
"""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


class MachineError(RuntimeError):
    """The machine did not boot, its agent stopped answering, or a command failed."""


@dataclass(frozen=True)
class Result:
    """What one command inside printed and returned (``rc`` None: it timed out)."""

    argv: tuple[str, ...]
    rc: int | None
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def describe(self) -> str:
        return (
            f"$ {shlex.join(self.argv)}\n(exit {self.rc}, {self.seconds:.1f} s)\n"
            f"--- stdout\n{self.stdout[-4000:]}--- stderr\n{self.stderr[-4000:]}"
        )


@dataclass(frozen=True)
class Image:
    """A bootable root filesystem: its disk image, kernel and initramfs."""

    disk: Path
    kernel: Path
    initrd: Path


def _die_with_parent() -> None:
    """In the child before QEMU starts: killed when the test run that started it dies, so
    no machine outlives an interrupted run."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _accel() -> list[str]:
    # The probe found /dev/kvm unusable here (a nested hypervisor Debian's kernel hangs
    # under); plain emulation is the default, KVM an option for machines where it works.
    accel = os.environ.get("MAGBOARD_VM_ACCEL", "tcg")
    if accel == "kvm":
        return ["-accel", "kvm", "-cpu", "host"]
    return ["-accel", "tcg", "-cpu", "max"]


class Machine:
    """A booted test machine; see the module docstring."""

    def __init__(self, process: subprocess.Popen, workdir: Path, sock: socket.socket) -> None:
        self.process = process
        self.workdir = workdir
        self.serial_log = workdir / "serial.log"
        self._sock = sock
        self._buffer = b""
        self._ids = itertools.count(1)
        self._started = time.monotonic()
        self.boot_seconds = 0.0

    @classmethod
    def boot(cls, image: Image, payload: Path, workdir: Path, *, timeout: float = 600,
             **options) -> Machine:  # fmt: skip
        """Start QEMU and wait until the agent inside answers (MachineError after
        ``timeout`` seconds, with the serial log's end); ``options`` as :meth:`start`'s."""
        return cls.start(image, payload, workdir, **options).wait_ready(timeout)

    @classmethod
    def start(
        cls,
        image: Image,
        payload: Path,
        workdir: Path,
        *,
        memory_mb: int = 1536,
        cpus: int = 1,
        devices: tuple[str, ...] = (),
    ) -> Machine:
        """Start QEMU, not waiting for the machine to boot (:meth:`wait_ready` does)."""
        workdir.mkdir(parents=True, exist_ok=True)
        overlay = workdir / "root-overlay.qcow2"
        overlay.unlink(missing_ok=True)
        subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(image.disk), "-F", "raw",
             str(overlay)],
            check=True,
        )  # fmt: skip
        agent = workdir / "agent.sock"
        agent.unlink(missing_ok=True)
        argv = [
            "qemu-system-x86_64", "-machine", "q35", *_accel(),
            "-smp", str(cpus), "-m", str(memory_mb),
            "-display", "none", "-vga", "none", "-no-reboot", "-nic", "none",
            "-kernel", str(image.kernel), "-initrd", str(image.initrd),
            "-append", "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=auto",
            "-drive", f"file={overlay},if=virtio,format=qcow2",
            "-drive", f"file={payload},if=virtio,format=raw,readonly=on",
            "-device", "virtio-serial",
            "-chardev", f"socket,id=agent,path={agent},server=on,wait=off",
            "-device", "virtserialport,chardev=agent,name=org.magboard.agent",
            "-serial", f"file:{workdir / 'serial.log'}", "-monitor", "none",
            *devices,
        ]  # fmt: skip
        started = time.monotonic()
        log = (workdir / "qemu.log").open("w")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True, preexec_fn=_die_with_parent)  # fmt: skip
        sock = None
        while sock is None:
            if process.poll() is not None:
                raise MachineError(f"QEMU exited at once ({process.returncode}): "
                                   + (workdir / "qemu.log").read_text()[-2000:])  # fmt: skip
            try:
                sock = socket.socket(socket.AF_UNIX)
                sock.connect(str(agent))
            except OSError:
                sock.close()
                sock = None
                if time.monotonic() - started > 30:
                    process.kill()
                    raise MachineError("QEMU never opened the agent's socket") from None
                time.sleep(0.1)
        machine = cls(process, workdir, sock)
        machine._started = started
        return machine

    def wait_ready(self, timeout: float = 600) -> Machine:
        """Wait until the agent answers, ``timeout`` seconds from QEMU's start (and a minute
        at least: a machine started long ago, as the Bluetooth tests' phone is, is asked
        only when it is needed). Ten minutes: on our shared 2-core host at load 9 the board's
        machine ended its boot steps 270 s after its kernel started, and its agent did not
        answer within the 300 s allowed before."""
        self._wait_for_agent(max(self._started + timeout, time.monotonic() + 60))
        self.boot_seconds = time.monotonic() - self._started
        return self

    def _wait_for_agent(self, deadline: float) -> None:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.process.poll() is not None:
                self.stop()
                raise MachineError(
                    "the machine did not come up (no answer from its agent); the serial "
                    f"log ends:\n{self.serial_tail(40)}"
                )
            try:
                self._request({"argv": ["true"], "timeout": 10}, wait=min(5.0, remaining))
                return
            except TimeoutError:
                continue

    def _request(self, request: dict, wait: float) -> dict:
        ident = next(self._ids)
        self._sock.sendall(json.dumps({**request, "id": ident}).encode() + b"\n")
        deadline = time.monotonic() + wait
        while True:
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"no answer from the agent in {wait:.0f} s")
                self._sock.settimeout(remaining)
                try:
                    chunk = self._sock.recv(1 << 16)
                except TimeoutError:
                    continue
                if not chunk:
                    raise MachineError("the agent's connection closed (did the machine stop?)")
                self._buffer += chunk
            line, self._buffer = self._buffer.split(b"\n", 1)
            reply = json.loads(line)
            if reply.get("id") == ident:
                return reply  # older answers (pings nobody waited for) are dropped

    def run(
        self,
        *argv: str,
        input: str | None = None,
        timeout: float = 120,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        check: bool = False,
    ) -> Result:
        """Run ``argv`` inside, as root; ``check``: MachineError unless it exits 0."""
        request = {"argv": list(argv), "input": input, "timeout": timeout, "env": env or {},
                   "cwd": cwd}  # fmt: skip
        reply = self._request(request, wait=timeout + 30)
        result = Result(tuple(argv), reply.get("rc"), reply.get("stdout", ""),
                        reply.get("stderr", ""), reply.get("seconds", 0.0))  # fmt: skip
        if check and not result.ok:
            raise MachineError(f"a command failed inside the machine:\n{result.describe()}")
        return result

    def sh(self, script: str, **kwargs) -> Result:
        """Run a shell script inside (``sh -ec``)."""
        return self.run("sh", "-ec", script, **kwargs)

    def python(self, script: str, *args: str, python: str = "python3", **kwargs) -> object:
        """Run a check from the payload's ``checks/`` with ``python`` and return the JSON it
        printed last; MachineError (with its output) if it failed."""
        result = self.run(python, f"/srv/payload/checks/{script}", *args, **kwargs)
        if not result.ok:
            raise MachineError(f"the check {script} failed inside:\n{result.describe()}")
        try:
            return json.loads(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise MachineError(
                f"the check {script} printed no JSON:\n{result.describe()}"
            ) from None

    def write(self, path: str, text: str, mode: str = "0644") -> None:
        """A file inside, written whole (atomically: a reader never sees half of it)."""
        self.run("sh", "-ec", f'umask 022; d=$(dirname "$1"); mkdir -p "$d"; t="$1.tmp$$"; '
                 f'cat > "$t"; chmod {mode} "$t"; mv -f "$t" "$1"', "write", path,
                 input=text, check=True)  # fmt: skip

    def serial_tail(self, lines: int = 60) -> str:
        try:
            text = self.serial_log.read_text(errors="replace")
        except FileNotFoundError:
            return "(no serial log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Power off (at most 30 s), else kill QEMU; the overlay disk is removed."""
        if self.process.poll() is None:
            try:
                self._sock.sendall(json.dumps({"id": 0, "argv": ["systemctl", "poweroff"],
                                               "timeout": 5}).encode() + b"\n")  # fmt: skip
                self.process.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self._sock.close()
        (self.workdir / "root-overlay.qcow2").unlink(missing_ok=True)
        (self.workdir / "agent.sock").unlink(missing_ok=True)
