"""Choosing the board's voice as ``[speech]`` says, and starting its speaker.

``output`` set: the file sink (espeak-ng writing WAV files). Else ``backend``:
``"dispatcher"`` speaks through speech-dispatcher or not at all; ``"espeak"`` through
espeak-ng; ``"auto"`` through speech-dispatcher when it answers on its socket, else
espeak-ng (and espeak-ng takes over if speech-dispatcher goes away later).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from board_driver.connectors.speech.speaker import Speaker
from board_driver.connectors.speech.ssip import DispatcherError, DispatcherVoice, dispatcher_address
from board_driver.connectors.speech.voices import EspeakVoice, FileSink, espeak_program
from board_driver.door.extension import ExtensionError
from board_driver.spoken import Words
from board_driver.spoken.narrator import Narrator

log = logging.getLogger("magboard")


async def choose_voice(section: Any) -> tuple[Any, Any]:
    """The voice ``section`` asks for, and the one to fall back on (or None).
    ExtensionError says why none can speak."""
    words = Words(section.language)
    espeak_voice = section.voice or words.table.CODE
    program = espeak_program()
    espeak = EspeakVoice(program, espeak_voice, section.rate) if program else None
    if section.output:
        if program is None:
            raise ExtensionError("[speech] output: espeak-ng writes the files; install espeak-ng")
        try:
            return FileSink(Path(section.output), program, espeak_voice, section.rate), None
        except OSError as exc:
            raise ExtensionError(f"[speech] output: {section.output}: {exc.strerror}") from None
    if section.backend == "espeak":
        if espeak is None:
            raise ExtensionError("[speech] backend = \"espeak\": espeak-ng is not installed")
        return espeak, None
    address = dispatcher_address(section.dispatcher)
    dispatcher = DispatcherVoice(
        address, words.table.CODE, rate=section.rate, voice=section.voice
    )
    try:
        await dispatcher.connect()
    except DispatcherError as exc:
        if section.backend == "dispatcher":
            raise ExtensionError(f"[speech] backend = \"dispatcher\": {exc}") from None
        if espeak is None:
            raise ExtensionError(
                f"[speech] neither speech-dispatcher ({exc}) nor espeak-ng (not installed) "
                "can speak: sudo apt-get install espeak-ng"
            ) from None
        log.info("speech: speech-dispatcher does not answer (%s): espeak-ng speaks", exc)
        return espeak, None
    return dispatcher, espeak if section.backend == "auto" else None


async def start_speaker(door: Any, section: Any) -> Speaker:
    """The speaker of ``[speech]``, started on ``door``."""
    voice, fallback = await choose_voice(section)
    words = Words(section.language)
    narrator = Narrator(words, section.categories(), snapshot=door.snapshot())
    speaker = Speaker(door, narrator, voice, fallback=fallback, low_time_s=section.low_time_s)
    log.info("speech: %s, in %s, through %s", ", ".join(section.categories()) or "answers only",
             words.table.NAME, voice.name)  # fmt: skip
    return await speaker.start()
