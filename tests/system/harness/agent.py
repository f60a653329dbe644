"""The test agent inside the virtual machine: runs the host's commands, one at a time.

Started at boot by ``magboard-test-agent.service`` (baked into the root filesystem) from
the payload disk, it reads requests from the virtio-serial port the host listens on and
answers each with one JSON line. Standard library only: it runs on Debian's ``python3``.

A request is one JSON line, ``{"id": 7, "argv": ["systemctl", "is-active", "magboard"],
"input": null, "timeout": 60, "env": {}, "cwd": "/"}``; the answer is ``{"id": 7, "rc": 0,
"stdout": "active\\n", "stderr": "", "seconds": 0.02}``. A command that outlives its timeout
is killed and answered with ``"rc": null, "timed_out": true``. Background work is the
guest's own business (``systemd-run``), so the agent never has two commands at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

PORT = "/dev/virtio-ports/org.magboard.agent"


def answer(request: dict) -> dict:
    started = time.monotonic()
    env = {**os.environ, "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    env.update(request.get("env") or {})
    reply = {"id": request.get("id")}
    try:
        done = subprocess.run(
            request["argv"],
            input=request.get("input"),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=request.get("timeout", 120),
            env=env,
            cwd=request.get("cwd") or "/",
        )
        reply.update(rc=done.returncode, stdout=done.stdout, stderr=done.stderr)
    except subprocess.TimeoutExpired as exc:
        reply.update(
            rc=None,
            timed_out=True,
            stdout=_text(exc.stdout),
            stderr=_text(exc.stderr),
        )
    except OSError as exc:  # no such program, say
        reply.update(rc=None, stdout="", stderr=f"agent: cannot run {request['argv']!r}: {exc}")
    reply["seconds"] = round(time.monotonic() - started, 3)
    return reply


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode(errors="replace")


def main() -> int:
    # One descriptor both ways: the port can be open only once at a time.
    fd = os.open(PORT, os.O_RDWR)
    pending = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:  # the host is not connected yet, or went away: wait for it
            time.sleep(0.2)
            continue
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                reply = answer(json.loads(line))
            except (ValueError, KeyError, TypeError) as exc:
                reply = {"id": None, "rc": None, "stdout": "", "stderr": f"agent: {exc}"}
            data = json.dumps(reply).encode() + b"\n"
            while data:
                data = data[os.write(fd, data):]

if __name__ == "__main__":
    sys.exit(main())
