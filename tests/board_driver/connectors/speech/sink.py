"""Reading what a board said through its file sink (``[speech] output``): the words of each
utterance in order, and its WAV decoded."""

from __future__ import annotations

import array
import re
import time
import wave
from collections.abc import Callable
from pathlib import Path

_WORDS = re.compile(r"^(\d{4,})\.txt$")
#: A sample above this (of 32767) is a voice, not a WAV of silence or noise.
LOUD = 3000


class Sink:
    """The directory a daemon's speech writes to."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def numbers(self) -> list[int]:
        if not self.directory.is_dir():
            return []
        found = (_WORDS.match(p.name) for p in self.directory.iterdir())
        return sorted(int(m[1]) for m in found if m)

    def texts(self) -> list[str]:
        """Every utterance's words, in the order they were said."""
        return [
            (self.directory / f"{n:04d}.txt").read_text(encoding="utf-8") for n in self.numbers()
        ]

    def wait_for(self, text: str | Callable[[list[str]], bool], timeout: float = 20.0) -> list[str]:
        """Wait until ``text`` has been said (or the predicate holds); the texts then."""
        predicate = text if callable(text) else (lambda texts: text in texts)
        deadline = time.monotonic() + timeout
        while True:
            texts = self.texts()
            if predicate(texts):
                return texts
            if time.monotonic() > deadline:
                raise AssertionError(f"never said {text!r}; said: {texts}")
            time.sleep(0.02)

    def wav(self, number: int) -> tuple[wave._wave_params, array.array]:
        """An utterance's WAV, decoded: its parameters and 16-bit samples."""
        with wave.open(str(self.directory / f"{number:04d}.wav"), "rb") as audio:
            params = audio.getparams()
            samples = array.array("h", audio.readframes(audio.getnframes()))
        return params, samples


def heard(sink: Sink, number: int) -> float:
    """Check utterance ``number``'s WAV is a voice (16-bit mono, loud enough, long enough
    for its words); returns its length in seconds."""
    params, samples = sink.wav(number)
    assert params.nchannels == 1 and params.sampwidth == 2 and params.framerate >= 8000
    seconds = params.nframes / params.framerate
    words = len((sink.directory / f"{number:04d}.txt").read_text(encoding="utf-8").split())
    assert seconds >= 0.15 * words, (number, seconds, words)  # not cut off
    assert max(abs(s) for s in samples) > LOUD, number  # not silent
    spoken = sum(1 for s in samples if abs(s) > LOUD // 10)
    assert spoken > 0.2 * len(samples), number  # a voice, not a click
    return seconds
