"""The system tests' machine kept running for a person: boot it (and install magboard in it),
then run commands in it from another shell until Ctrl-C.

    sudo .venv/bin/python -m tests.system.console boot --install   # boots, then waits
    sudo .venv/bin/python -m tests.system.console run journalctl -u magboard -n 20
    sudo .venv/bin/python -m tests.system.console run --check leds.py -- --backend=neopixel

``run`` goes through a socket beside the run's files; ``--check NAME`` runs
``tests/system/guest/NAME`` from the work tree (copied in, so a check can be edited and run
again without a new machine) with the installed venv's python. The serial console is in
``~/.cache/magboard-system/runs/latest/serial.log``.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
import threading
from pathlib import Path

from tests.system.harness.cache import Cache

GUEST = Path(__file__).resolve().parent / "guest"


def _socket_path() -> Path:
    return Cache().root / "runs" / "latest" / "console.sock"


def serve(install: bool, with_phone: bool) -> int:
    from tests.system import conftest, steps

    both = conftest.start_machines(Cache(), with_phone)
    machine = both.board
    print(f"booted in {machine.boot_seconds:.0f} s; serial log {machine.serial_log}", flush=True)
    if both.phone is not None:
        both.phone.wait_ready()
        print(f"the phone's machine up in {both.phone.boot_seconds:.0f} s", flush=True)
    if install:
        done = steps.install(machine)
        print(done.result.describe(), flush=True)
        steps.start_board(machine)
    lock = threading.Lock()
    server = socket.socket(socket.AF_UNIX)
    path = _socket_path()
    path.unlink(missing_ok=True)
    server.bind(str(path))
    server.listen()
    print(f"ready: python -m tests.system.console run ... (socket {path})", flush=True)

    def handle(conn: socket.socket) -> None:
        with conn:
            request = json.loads(conn.makefile().readline())
            target = both.phone if request.get("phone") else machine
            if target is None:
                conn.sendall(json.dumps({"rc": 2, "stdout": "", "stderr": "no phone (boot "
                                         "--phone)\n"}).encode() + b"\n")  # fmt: skip
                return
            with lock:
                result = target.run(*request["argv"], input=request.get("input"),
                                    timeout=request.get("timeout", 600),
                                    env=request.get("env"), cwd=request.get("cwd"))  # fmt: skip
            conn.sendall(json.dumps(result.__dict__).encode() + b"\n")

    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with &
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        while True:
            conn, _ = server.accept()
            threading.Thread(target=handle, args=(conn,), daemon=True).start()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        path.unlink(missing_ok=True)
        both.stop()
    return 0


def run(argv: list[str], check: str | None, timeout: float, phone: bool = False) -> int:
    from tests.system import steps

    request: dict = {"argv": argv, "timeout": timeout, "phone": phone}
    if check:
        text = (GUEST / check).read_text()
        target = f"/run/checks/{check}"
        copy = ["sh", "-c", f"mkdir -p /run/checks && cp /srv/payload/checks/*.py /run/checks/ "
                f"&& cat > {target}"]  # fmt: skip
        _send({"argv": copy, "input": text, "timeout": 60, "phone": phone})
        python = "/opt/ble-client/bin/python" if phone else steps.VENV_PYTHON
        request = {"argv": [python, target, *argv], "timeout": timeout, "phone": phone,
                   "env": {"BLINKA_FORCEBOARD": "RASPBERRY_PI_4B", "BLINKA_FORCECHIP": "BCM2XXX",
                           **steps.RPI_LGPIO}, "cwd": "/tmp"}  # fmt: skip
    reply = _send(request)
    sys.stdout.write(reply["stdout"])
    sys.stderr.write(reply["stderr"])
    return reply["rc"] if reply["rc"] is not None else 124


def _send(request: dict) -> dict:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(_socket_path()))
        sock.sendall(json.dumps(request).encode() + b"\n")
        return json.loads(sock.makefile().readline())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    boot = sub.add_parser("boot", help="boot the machine and wait (the default)")
    boot.add_argument("--install", action="store_true", help="install magboard in it first")
    boot.add_argument("--phone", action="store_true",
                      help="and the Bluetooth tests' phone beside it (harness/wires.py)")
    runner = sub.add_parser("run", help="run a command in the running machine")
    runner.add_argument("--check", help="a check from tests/system/guest/, run with the venv")
    runner.add_argument("--timeout", type=float, default=600)
    runner.add_argument("--phone", action="store_true", help="in the phone's machine")
    runner.add_argument("argv", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command == "run":
        argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
        return run(argv, args.check, args.timeout, args.phone)
    return serve(getattr(args, "install", False), getattr(args, "phone", False))


if __name__ == "__main__":
    sys.exit(main())
