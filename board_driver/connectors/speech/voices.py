"""The voices the board speaks with: espeak-ng through the sound card, and a file sink that
writes each utterance as a WAV file (what espeak-ng made of it) with its words beside it.
speech-dispatcher's voice is in :mod:`.ssip`.

A voice speaks one utterance at a time: ``await voice.speak(text, number)`` returns when it
has been said; cancelling that call cuts it short (the process speaking it is stopped).
A voice that ``takes_time`` is cut short by news of the game; the file sink takes none, so
nothing it writes is ever cut or left out.

espeak-ng reads the text on its standard input (UTF-8: ``-b 1``), never as an argument, so
no text is ever taken for an option. Its processes are started, fed and waited for on a
thread of the voice's own (:class:`Worker`), never on the daemon's loop: asyncio's own
subprocesses cost the loop about 5 ms each to start (``bench/speech.py``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger("magboard")

#: espeak-ng's own speed, words per minute, for ``rate = 0``; and its range.
ESPEAK_WPM = 175
ESPEAK_MIN_WPM, ESPEAK_MAX_WPM = 80, 450
#: The file sink's names: ``0001.wav`` and ``0001.txt``.
_NUMBERED = re.compile(r"^(\d{4,})\.(?:wav|txt)$")


class Voice(Protocol):
    """What speaks (see the module docstring)."""

    #: How the log names it: ``espeak-ng (voice fr)``, ``speech-dispatcher (...)``.
    name: str
    #: Whether an utterance lasts (a sound card); the file sink's take no time.
    takes_time: bool

    async def speak(self, text: str, number: int) -> None: ...

    async def close(self) -> None: ...


def espeak_program() -> str | None:
    """espeak-ng's path (or espeak's, which reads the same options), None if neither."""
    return shutil.which("espeak-ng") or shutil.which("espeak")


def espeak_wpm(rate: int) -> int:
    """``[speech] rate`` (-100 .. 100, 0: the voice's own) as espeak-ng's words per minute.

    >>> espeak_wpm(0), espeak_wpm(-100), espeak_wpm(100)
    (175, 80, 450)
    """
    if rate < 0:
        return round(ESPEAK_WPM + rate * (ESPEAK_WPM - ESPEAK_MIN_WPM) / 100)
    return round(ESPEAK_WPM + rate * (ESPEAK_MAX_WPM - ESPEAK_WPM) / 100)


def espeak_arguments(program: str, voice: str, rate: int) -> list[str]:
    """espeak-ng's command line, reading the text from its standard input."""
    return [program, "-v", voice, "-s", str(espeak_wpm(rate)), "-b", "1", "--stdin"]


class Worker:
    """One thread that runs a voice's processes, one at a time, off the daemon's loop."""

    def __init__(self) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(1, "magboard-speech")

    async def run(
        self, args: list[str], text: str, then: Callable[[], Any] | None = None
    ) -> tuple[int, bytes]:
        """Run ``args`` with ``text`` on its standard input, then ``then()`` (on the same
        thread); a cancellation stops the process and waits for it before it is raised."""
        stop = threading.Event()
        running: list[subprocess.Popen[bytes]] = []

        def work() -> tuple[int, bytes]:
            if stop.is_set():
                return -1, b""
            proc = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own group: stopped with whatever it started
            )
            running.append(proc)
            if stop.is_set():  # cut short while it was starting
                _stop(proc)
            _, err = proc.communicate(text.encode("utf-8"))
            if then is not None and not stop.is_set():
                then()
            return proc.returncode or 0, err or b""

        future = asyncio.get_running_loop().run_in_executor(self._pool, work)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            stop.set()
            for proc in running:
                _stop(proc)
            with contextlib.suppress(Exception):
                await future
            raise

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a voice's process and anything it started (its process group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)


def _said(err: bytes) -> str:
    lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


class EspeakVoice:
    """espeak-ng, playing through the sound card: one process per utterance, stopped to
    cut it short."""

    takes_time = True

    def __init__(self, program: str, voice: str, rate: int = 0) -> None:
        self.args = espeak_arguments(program, voice, rate)
        self.name = f"espeak-ng (voice {voice}, {espeak_wpm(rate)} words a minute)"
        self._failed = False
        self._worker = Worker()

    async def speak(self, text: str, number: int) -> None:
        code, err = await self._worker.run(self.args, text)
        if code != 0 or b"error" in err.lower():
            if not self._failed:  # said once: a board without a sound card says it once
                log.error("speech: espeak-ng cannot speak (exit %s): %s", code, _said(err))
            self._failed = True
        else:
            self._failed = False

    async def close(self) -> None:
        self._worker.close()


class FileSink:
    """Every utterance as a file in ``directory``: ``NNNN.wav`` (espeak-ng's voice, written
    with ``-w``) and ``NNNN.txt`` (the words, UTF-8, no newline), numbered in the order they
    were said, from one more than the highest number already there. Each file is written
    under another name and renamed, the WAV first: once ``NNNN.txt`` exists, both are whole.
    It takes no time, so it writes everything, whole and in order (``takes_time`` False)."""

    takes_time = False

    def __init__(self, directory: Path, program: str, voice: str, rate: int = 0) -> None:
        self.directory = Path(directory).expanduser()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.args = espeak_arguments(program, voice, rate)
        self.name = f"files in {self.directory} (espeak-ng, voice {voice})"
        self.next = 1 + max(
            (int(m[1]) for p in self.directory.iterdir() if (m := _NUMBERED.match(p.name))),
            default=0,
        )
        self._worker = Worker()

    async def speak(self, text: str, number: int) -> None:
        n = self.next
        self.next += 1
        wav = self.directory / f"{n:04d}.wav"
        part = self.directory / f".{n:04d}.wav.part"
        args = [*self.args, "-w", str(part)]
        code, err = await self._worker.run(args, text, lambda: self._finish(n, part, wav, text))
        if code != 0:
            log.error("speech: espeak-ng could not write %s (exit %s): %s", wav, code, _said(err))

    def _finish(self, n: int, part: Path, wav: Path, text: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.replace(part, wav)
        words = self.directory / f".{n:04d}.txt.part"
        words.write_text(text, encoding="utf-8")
        os.replace(words, self.directory / f"{n:04d}.txt")

    async def close(self) -> None:
        self._worker.close()
