"""A real speech-dispatcher of a test's own, on a socket in the test's directory.

Its one output module is speech-dispatcher's generic module (``sd_generic``) running a
shell line that notes, for each message it is given, the language, voice, rate and text
(``said.txt``), then takes ``seconds`` to "speak" (a ``sleep``: a test machine has no
sound card; the sound goes to ALSA's null device). So a test reads exactly what
speech-dispatcher was asked to say, with which settings, and sees it cancel a message
being spoken.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

PROGRAM = shutil.which("speech-dispatcher")
needs_dispatcher = pytest.mark.skipif(
    PROGRAM is None, reason="speech-dispatcher is not installed (apt-get install speech-dispatcher)"
)


class Dispatcher:
    """``speech-dispatcher -s`` with a recording module (see the module docstring)."""

    def __init__(self, directory: Path, seconds: float = 0.2) -> None:
        self.directory = directory
        self.socket = directory / "speechd.sock"
        self.said = directory / "said.txt"
        conf = directory / "conf"
        (conf / "modules").mkdir(parents=True, exist_ok=True)
        (directory / "log").mkdir(exist_ok=True)
        (conf / "speechd.conf").write_text(
            f'LogLevel 3\nLogDir "{directory / "log"}"\n'
            'AddModule "recorder" "sd_generic" "recorder.conf"\n'
            'DefaultModule "recorder"\nDefaultLanguage "en"\n'
            'AudioOutputMethod "alsa"\nAudioALSADevice "null"\n'
        )
        languages = "".join(
            f'GenericLanguage "{code}" "{code}" "utf-8"\nAddVoice "{code}" "MALE1" "{code}"\n'
            for code in ("en", "fr", "de", "es")
        )
        (conf / "modules" / "recorder.conf").write_text(
            "GenericExecuteSynth \"printf '%s|%s|%s|%s\\\\n' \\'$LANGUAGE\\' \\'$VOICE\\' "
            f"\\'$RATE\\' \\'$DATA\\' >> {self.said}; sleep {seconds}\"\n" + languages
        )
        command = [PROGRAM, "-s", "-c", "unix_socket", "-S", str(self.socket)]
        command += ["-C", str(conf), "-t", "0", "-P", str(directory / "pid")]
        self.proc = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 10
        while not self.socket.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                logs = "".join(p.read_text() for p in (directory / "log").glob("*.log"))
                raise AssertionError(f"speech-dispatcher did not start:\n{logs[-2000:]}")
            time.sleep(0.02)

    def lines(self) -> list[list[str]]:
        """What it was asked to say: ``[language, voice, rate, text]`` each."""
        if not self.said.exists():
            return []
        return [line.split("|", 3) for line in self.said.read_text().splitlines()]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
