"""The board speaks: every move, the move to make for the engine or an online opponent, an
illegal position and how to put it right, check, the end of a game, and the answers to the
``say_*`` buttons, for players who cannot see the lights or the page, and for blindfold
practice. ``docs/speech.md`` is the guide; ``docs/speech-card.md`` the card for the player.

``[speech]`` turns it on (off by default)::

    [speech]
    enabled = true
    language = "en"          # "en", "fr", "de", "es": the words, and the voice's language
    backend = "auto"         # speech-dispatcher if it runs, else espeak-ng; "dispatcher", "espeak"
    voice = ""               # "" = the user's (speech-dispatcher) or the language's (espeak-ng)
    rate = 0                 # -100 (slow) .. 100 (fast); 0 = the user's own
    dispatcher = ""          # speech-dispatcher's socket ("" = $SPEECHD_ADDRESS or the usual one)
    output = ""              # a directory: each utterance written there as NNNN.wav + NNNN.txt
    low_time_s = 20          # the running clock's time said once below this (0: never)
    moves = true             # what is said, each on or off (see board_driver.spoken.narrator)
    other_side = true
    check = true
    endings = true
    illegal = true
    touch_move = true
    controls = true
    questions = true
    setup = true
    clock = true

The words are :mod:`board_driver.spoken`'s; the queue and its interruptions
:mod:`.speaker`'s; the voices :mod:`.voices` (espeak-ng, the file sink) and :mod:`.ssip`
(speech-dispatcher), imported only when the section is enabled.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

from board_driver.door.config_values import Bad, Check, boolean, integer, one_of, quote, text
from board_driver.door.extension import Extension, ExtensionError
from board_driver.spoken.narrator import CATEGORIES
from board_driver.spoken.words import LANGUAGES

BACKENDS = ("auto", "dispatcher", "espeak")


@dataclass(frozen=True)
class SpeechConfig:
    """``[speech]``: the board's voice (``docs/speech.md``)."""

    enabled: bool = False
    language: str = "en"
    backend: str = "auto"
    voice: str = ""
    rate: int = 0
    dispatcher: str = ""
    output: str = ""
    low_time_s: int = 20
    # What is said (board_driver.spoken.narrator.CATEGORIES), each on or off.
    moves: bool = True
    other_side: bool = True
    check: bool = True
    endings: bool = True
    illegal: bool = True
    touch_move: bool = True
    controls: bool = True
    questions: bool = True
    setup: bool = True
    clock: bool = True

    def categories(self) -> list[str]:
        """The categories of speech turned on."""
        return [name for name in CATEGORIES if getattr(self, name)]


def _voice_name(_key: str, value: Any) -> str:
    value = text(_key, value)
    if any(c.isspace() for c in value) or value.startswith("-"):
        raise Bad(f"{quote(value)} is not a voice's name (one word, as `espeak-ng --voices` lists)")
    return value


class SpeechExtension(Extension):
    """Says the game aloud (see the module docstring)."""

    name = "speech"
    config_class = SpeechConfig
    checks: ClassVar[Mapping[str, Check]] = {
        "enabled": boolean,
        "language": one_of(*LANGUAGES),
        "backend": one_of(*BACKENDS),
        "voice": _voice_name,
        "rate": integer(-100, 100),
        "dispatcher": text,
        "output": text,
        "low_time_s": integer(0, 3600),
        **{name: boolean for name in CATEGORIES},
    }

    def check_across(self, section: Any, config: Any) -> list[str]:
        if not section.enabled or not section.output:
            return []
        return output_problems(section.output)

    def validate_environment(self, section: Any) -> None:
        from board_driver.connectors.speech.voices import espeak_program

        if (section.output or section.backend == "espeak") and espeak_program() is None:
            why = "writes its files with espeak-ng" if section.output else "speaks with espeak-ng"
            raise ExtensionError(
                f"[speech] {why}, which is not installed: sudo apt-get install espeak-ng"
            )

    async def start(self, door: Any, section: Any) -> Any:
        from board_driver.connectors.speech.setup import start_speaker

        return await start_speaker(door, section)


def output_problems(output: str) -> list[str]:
    """Why ``[speech] output`` cannot be the directory of the file sink (empty: it can)."""
    path = Path(output).expanduser()
    if path.exists() and not path.is_dir():
        return [f"[speech] output: {output} is not a directory"]
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            return [f"[speech] output: {output} has no directory that exists above it"]
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        return [f"[speech] output: {output} cannot be written in {probe} by this user"]
    return []


#: The keys of ``[speech]``, for the guide's check that it names them all.
KEYS = tuple(f.name for f in fields(SpeechConfig))

extension = SpeechExtension()
