"""``magboard run`` as a newcomer meets it (issue 16): where it keeps its state, the terminal
board, and ``--record``."""

from __future__ import annotations

import os

from tests.board_driver.daemon_process import run_magboard


def _env(tmp_path, **extra: str) -> dict[str, str]:
    # Empty, not absent: run_magboard starts from the tests' own environment, which gives
    # every process a state directory of the tests' (tests/conftest.py).
    return {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": "", "STATE_DIRECTORY": "", **extra}


def test_only_the_service_uses_the_services_state_directory(tmp_path):
    """Item 4: outside systemd, root included (these tests run as root in CI), the state is
    the user's own; the service is told its directory by systemd ($STATE_DIRECTORY)."""
    config = tmp_path / "empty.toml"
    config.write_text("")
    mine = run_magboard("games", "--config", str(config), env=_env(tmp_path))
    assert f"{tmp_path}/home/.local/state/magboard/magboard.sqlite" in mine.stderr
    assert "/var/lib/magboard" not in mine.stderr
    service = run_magboard(
        "games", "--config", str(config), env=_env(tmp_path, STATE_DIRECTORY=str(tmp_path / "s"))
    )
    assert f"{tmp_path}/s/magboard.sqlite" in service.stderr


# ---------------------------------------------------------------- the terminal board


class Terminal:
    """``magboard run --sim`` on a pseudo-terminal, as a person at a keyboard runs it."""

    FILES = "   a  b  c  d  e  f  g  h"

    def __init__(self, directory, extra: str = "") -> None:
        import pty
        import subprocess
        import sys

        from tests.board_driver.daemon_process import ROOT, write_config

        config = write_config(directory, extra="[web]\nenabled = false\n" + extra)
        master, slave = pty.openpty()
        env = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "NOTIFY_SOCKET")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "board_driver", "run", "--sim", "--config", str(config)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.raw = b""

    def read_until(self, predicate, timeout: float = 15.0) -> str:
        import select
        import time

        deadline = time.monotonic() + timeout
        while not predicate(self.text()) and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    self.raw += os.read(self.master, 65536)
                except OSError:
                    break
        return self.text()

    def text(self) -> str:
        import re

        return re.sub(r"\x1b\[[0-9;]*m", "", self.raw.decode(errors="replace")).replace("\r", "")

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def drawings(self) -> list[str]:
        """Each board drawn so far, with its words (up to the next drawing)."""
        parts = self.text().split(self.FILES)
        return [
            parts[i][-8 * 30 :] + self.FILES + parts[i + 1].split("\n8 ")[0]
            for i in range(len(parts) - 1)
        ]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        os.close(self.master)


def test_the_terminal_board_tells_white_from_black_and_draws_once_per_change(tmp_path):
    """Item 10: pieces as FEN letters (white capitals, black small), drawn after a lift too,
    and a move drawn once (not once with its white flash and again without)."""
    terminal = Terminal(tmp_path)
    try:
        terminal.read_until(lambda t: "White to move" in t)
        first = terminal.drawings()[-1]
        assert "8  r  n  b  q  k  b  n  r" in first and "1  R  N  B  Q  K  B  N  R" in first
        assert "capitals white, small letters black" in terminal.text()

        terminal.type("lift e2")
        terminal.read_until(lambda t: "(P)" in t)
        terminal.read_until(lambda t: False, timeout=0.8)  # anything more it would draw
        after_lift = [d for d in terminal.drawings() if "(P)" in d]
        assert len(after_lift) == 1, terminal.text()
        assert "2  P  P  P  P (P) P  P  P" in after_lift[0]

        terminal.type("place e4")
        terminal.read_until(lambda t: "last move: e4" in t)
        terminal.read_until(lambda t: False, timeout=1.0)  # the flash ends meanwhile
        moved = [d for d in terminal.drawings() if "last move: e4" in d]
        assert len(moved) == 1, terminal.text()
        assert "4              P" in moved[0] and "Black to move" in moved[0]
    finally:
        terminal.stop()


def test_the_terminal_board_shows_the_clock_and_its_pause(tmp_path):
    """Issue 27: the clock on every screen, the terminal's too: the running side marked."""
    terminal = Terminal(tmp_path, '[clock]\ncontrol = "3+2"\n')
    try:
        terminal.read_until(lambda t: "White to move" in t)
        assert "Clock 3+2: White 3:00 · Black 3:00 (starts with the first move)" in (
            terminal.drawings()[-1]
        )
        terminal.type("lift e2")
        terminal.type("place e4")
        terminal.read_until(lambda t: "Black > " in t)
        assert "Clock 3+2: White 3:00 · Black > " in terminal.drawings()[-1]
        terminal.type("button pause")
        terminal.read_until(lambda t: "(paused: button)" in t)
        assert "Black > " not in terminal.drawings()[-1]
    finally:
        terminal.stop()


def test_a_daemon_refused_at_a_terminal_says_only_why(tmp_path):
    """Issue 24, item 13: a second daemon on the same store printed "type board-script
    lines" (as if it would take them) before its refusal."""
    from tests.board_driver.daemon_process import DaemonProcess, write_config

    write_config(tmp_path)
    first = DaemonProcess(tmp_path)  # the Terminal's config: the same store
    try:
        first.wait_ready(timeout=30)
        second = Terminal(tmp_path)
        try:
            text = second.read_until(lambda t: "is running with the store" in t, timeout=30)
            assert second.proc.wait(30) != 0
        finally:
            os.close(second.master)
        assert "is running with the store" in text, text
        assert "type board-script lines" not in text, text
    finally:
        first.terminate()
    # A daemon that starts says it, once it is ready.
    terminal = Terminal(tmp_path)
    try:
        text = terminal.read_until(lambda t: "type board-script lines" in t)
        assert text.index("ready: game") < text.index("type board-script lines"), text
    finally:
        terminal.stop()
