"""A real Mosquitto broker for the tests: Debian's ``mosquitto``, on a free loopback port,
with a config, passwords and access rules of its own under a temporary directory.

>>> # broker = Mosquitto(tmp_path).start()     # anonymous, everything allowed
>>> # broker = Mosquitto(tmp_path, users={"board1": "pw", "hall": "pw"},
>>> #                    acl=docs_acl_text).start()
>>> # broker.kill(); broker.start()           # the same port, the same persistence file
>>> # Mosquitto(tmp_path, extra=("autosave_interval 2",))   # more lines for its config

Tests that need it skip, saying why, where ``mosquitto`` is not installed (``.ci/run``
installs it).
"""

from __future__ import annotations

import getpass
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path(
    "/usr/sbin/mosquitto").exists() else None)
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd")
#: Every broker started and not yet stopped, so that a failed test leaves none running.
RUNNING: list[Mosquitto] = []


def need_mosquitto() -> None:
    if MOSQUITTO is None:
        pytest.skip("Debian's mosquitto is not installed (apt-get install mosquitto)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_certificates(directory: Path, host: str) -> tuple[Path, Path, Path]:
    """A CA of our own and a certificate it signed for ``host`` (openssl): (ca, cert, key)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    ca_key, ca, key, csr, cert = (directory / n for n in (
        "ca.key", "ca.crt", "broker.key", "broker.csr", "broker.crt"))

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
        "/CN=magboard test CA", "-keyout", str(ca_key), "-out", str(ca))
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={host}", "-keyout", str(key),
        "-out", str(csr))
    extensions = directory / "san.ext"
    extensions.write_text(f"subjectAltName=DNS:{host},IP:127.0.0.1\n")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
        "-CAcreateserial", "-days", "2", "-extfile", str(extensions), "-out", str(cert))
    return ca, cert, key


class Mosquitto:
    """One broker process; :meth:`start` again after :meth:`kill` brings it back on the
    same port (retained messages as its persistence file had them)."""

    def __init__(
        self,
        directory: Path,
        *,
        users: dict[str, str] | None = None,
        acl: str | None = None,
        persistence: bool = True,
        tls: bool = False,
        extra: tuple[str, ...] = (),
    ) -> None:
        need_mosquitto()
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.host = "127.0.0.1"
        self.log = directory / "mosquitto.log"
        #: With ``tls``: the CA certificate that signed the broker's (a client's ``tls_ca``).
        self.ca_file: Path | None = None
        lines = [
            f"listener {self.port} 127.0.0.1",
            f"persistence {'true' if persistence else 'false'}",
            f"persistence_location {directory}/",
            "log_type error",
            "log_type warning",
            "log_type notice",
            f"log_dest file {self.log}",
            # The tests' boards and hall are all on loopback; a slow machine must not
            # trip the broker's own limits.
            "max_queued_messages 100000",
            # Started as root (CI), mosquitto would switch to its own user, which cannot
            # read this temporary directory: stay who we are.
            f"user {getpass.getuser()}",
            *extra,
        ]
        if tls:
            self.ca_file, cert, key = make_certificates(directory, "localhost")
            lines += [f"cafile {self.ca_file}", f"certfile {cert}", f"keyfile {key}"]
        if users:
            if MOSQUITTO_PASSWD is None:
                pytest.skip("mosquitto_passwd is not installed (apt-get install mosquitto)")
            passwords = directory / "passwords"
            passwords.write_text("")
            for name, password in users.items():
                subprocess.run(
                    [MOSQUITTO_PASSWD, "-b", str(passwords), name, password],
                    check=True,
                    capture_output=True,
                )
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        if acl is not None:
            acl_file = directory / "acl"
            acl_file.write_text(acl)
            lines.append(f"acl_file {acl_file}")
        self.config = directory / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 10.0) -> Mosquitto:
        assert MOSQUITTO is not None
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        if self not in RUNNING:
            RUNNING.append(self)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise AssertionError(f"mosquitto exited at once:\n{err}\n{self.log_text()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"mosquitto never listened on {self.port}:\n{self.log_text()}")

    def kill(self) -> None:
        """SIGKILL: the broker vanishes as in a power cut (no last save)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self in RUNNING:
            RUNNING.remove(self)

    def set_password(self, name: str, password: str) -> None:
        """Give account ``name`` a new password; the running broker reloads its files."""
        assert MOSQUITTO_PASSWD is not None and self.proc is not None
        subprocess.run([MOSQUITTO_PASSWD, "-b", str(self.directory / "passwords"), name,
                        password], check=True, capture_output=True)
        self.proc.send_signal(signal.SIGHUP)

    @property
    def saved(self) -> Path:
        """The persistence file (written at each autosave and at a clean stop)."""
        return self.directory / "mosquitto.db"

    def log_text(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def section(self, **keys: object) -> str:
        """TOML keys naming this broker, for a ``[broadcast]`` or ``[hall]`` section."""
        out = [f'host = "{self.host}"', f"port = {self.port}"]
        for key, value in keys.items():
            if isinstance(value, bool):
                out.append(f"{key} = {'true' if value else 'false'}")
            elif isinstance(value, str):
                out.append(f'{key} = "{value}"')
            else:
                out.append(f"{key} = {value}")
        return "\n".join(out)


@pytest.fixture
def mosquitto(tmp_path):
    """A fresh anonymous broker for one test."""
    broker = Mosquitto(tmp_path / "mosquitto").start()
    yield broker
    broker.stop()


@pytest.fixture(autouse=True)
def no_broker_left_running():
    yield
    for broker in list(RUNNING):
        broker.stop()
