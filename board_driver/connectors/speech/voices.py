"""The voices the board speaks with: espeak-ng through the sound card, and a file sink that
writes each utterance as a WAV file (what espeak-ng made of it) with its words beside it.
speech-dispatcher's voice is in :mod:`.ssip`.

A voice speaks one utterance at a time: ``await voice.speak(text, number)`` returns when it
has been said; cancelling that call cuts it short (the process speaking it is stopped).
A voice that ``takes_time`` is cut short by news of the game; the file sink takes none, so
nothing it writes is ever cut or left out.

espeak-ng reads the text on its standard input (UTF-8: ``-b 1``), never as an argument, so
no text is ever taken for an option.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
from pathlib import Path
from typing import Protocol

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


async def _run(args: list[str], text: str) -> tuple[int, bytes]:
    """Run ``args`` with ``text`` on its standard input; a cancellation stops it first."""
    proc = await asyncio.create_subprocess_exec(
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, err = await proc.communicate(text.encode("utf-8"))
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        with contextlib.suppress(Exception):
            await asyncio.shield(proc.wait())
        raise
    return proc.returncode or 0, err or b""


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

    async def speak(self, text: str, number: int) -> None:
        code, err = await _run(self.args, text)
        if code != 0 or b"error" in err.lower():
            if not self._failed:  # said once: a board without a sound card says it once
                log.error("speech: espeak-ng cannot speak (exit %s): %s", code, _said(err))
            self._failed = True
        else:
            self._failed = False

    async def close(self) -> None:
        return None


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

    async def speak(self, text: str, number: int) -> None:
        n = self.next
        self.next += 1
        wav = self.directory / f"{n:04d}.wav"
        part = self.directory / f".{n:04d}.wav.part"
        code, err = await _run([*self.args, "-w", str(part)], text)
        if code != 0:
            log.error("speech: espeak-ng could not write %s (exit %s): %s", wav, code, _said(err))
        await asyncio.to_thread(self._finish, n, part, wav, text)

    def _finish(self, n: int, part: Path, wav: Path, text: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.replace(part, wav)
        words = self.directory / f".{n:04d}.txt.part"
        words.write_text(text, encoding="utf-8")
        os.replace(words, self.directory / f"{n:04d}.txt")

    async def close(self) -> None:
        return None
