"""The board speaking through a real speech-dispatcher (SSIP on its socket): the words,
the language and rate it is given, an utterance cut short, and espeak-ng taking over when
speech-dispatcher goes away."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from board_driver.connectors.speech import SpeechConfig
from board_driver.connectors.speech.setup import choose_voice
from board_driver.connectors.speech.speaker import Speaker
from board_driver.connectors.speech.ssip import DispatcherError, DispatcherVoice
from board_driver.connectors.speech.voices import EspeakVoice, espeak_program
from board_driver.door.extension import ExtensionError
from board_driver.spoken import Words
from board_driver.spoken.narrator import Narrator, Utterance
from tests.board_driver.connectors.speech.dispatcher import Dispatcher, needs_dispatcher
from tests.board_driver.connectors.speech.test_queue import QuietDoor, TimedVoice, settle

pytestmark = needs_dispatcher


@pytest.fixture
def dispatcher(tmp_path):
    running = Dispatcher(tmp_path, seconds=0.2)
    yield running
    running.stop()


def test_each_utterance_goes_to_speech_dispatcher_in_its_language_and_rate(dispatcher):
    async def main():
        voice = DispatcherVoice(str(dispatcher.socket), "fr", rate=30)
        began = time.monotonic()
        await voice.speak("Cavalier f3, échec.", 1)
        took = time.monotonic() - began
        await voice.speak("L'échiquier correspond de nouveau.", 2)
        await voice.close()
        return took

    took = asyncio.run(main())
    assert took >= 0.2  # speak() returns when speech-dispatcher says the message ended
    assert dispatcher.lines() == [
        ["fr", "fr", "30.00", "Cavalier f3, échec."],
        ["fr", "fr", "30.00", "L'échiquier correspond de nouveau."],
    ]


def test_the_users_rate_and_voice_are_left_alone_unless_set(dispatcher):
    async def main():
        voice = DispatcherVoice(str(dispatcher.socket), "de")
        await voice.speak("Springer f3.", 1)
        await voice.close()
        return voice.settings

    settings = asyncio.run(main())
    assert not any("RATE" in s or "SYNTHESIS_VOICE" in s for s in settings)
    assert dispatcher.lines()[0][0] == "de" and dispatcher.lines()[0][3] == "Springer f3."


def test_an_utterance_is_cut_short_at_once(tmp_path):
    slow = Dispatcher(tmp_path, seconds=5)
    try:

        async def main():
            voice = DispatcherVoice(str(slow.socket), "en")
            speaking = asyncio.create_task(voice.speak("Last moves: a long list.", 1))
            while not slow.lines():
                await asyncio.sleep(0.02)
            began = time.monotonic()
            speaking.cancel()
            with pytest.raises(asyncio.CancelledError):
                await speaking
            cut = time.monotonic() - began
            await voice.close()
            return cut

        assert asyncio.run(main()) < 1.0  # not the five seconds of the message
    finally:
        slow.stop()


@pytest.mark.skipif(espeak_program() is None, reason="espeak-ng is not installed")
def test_auto_finds_speech_dispatcher_and_falls_back_on_espeak(dispatcher, tmp_path):
    async def main():
        found = SpeechConfig(enabled=True, dispatcher=str(dispatcher.socket))
        voice, fallback = await choose_voice(found)
        assert isinstance(voice, DispatcherVoice) and isinstance(fallback, EspeakVoice)
        await voice.close()
        gone = SpeechConfig(enabled=True, dispatcher=str(tmp_path / "nobody.sock"))
        voice, fallback = await choose_voice(gone)
        assert isinstance(voice, EspeakVoice) and fallback is None
        with pytest.raises(ExtensionError, match=r"nobody\.sock"):
            await choose_voice(SpeechConfig(enabled=True, backend="dispatcher",
                                            dispatcher=str(tmp_path / "nobody.sock")))  # fmt: skip

    asyncio.run(main())


def test_when_speech_dispatcher_goes_away_the_other_voice_goes_on(dispatcher, caplog):
    async def main():
        voice = DispatcherVoice(str(dispatcher.socket), "en")
        fallback = TimedVoice(seconds=lambda text: 0.01)
        speaker = Speaker(QuietDoor(), Narrator(Words("en"), []), voice, fallback=fallback)
        await speaker.start()
        speaker.submit([Utterance("Knight to f3.", "move")])
        await settle(speaker, fallback)
        dispatcher.stop()
        speaker.submit([Utterance("Knight to f6.", "move")])
        await settle(speaker, fallback)
        await speaker.stop()
        return fallback

    with caplog.at_level(logging.WARNING, logger="magboard"):
        fallback = asyncio.run(main())
    assert [line[3] for line in dispatcher.lines()] == ["Knight to f3."]
    assert fallback.texts("ended") == ["Knight to f6."]
    assert "speaking with a test's voice from now on" in caplog.text


def test_a_dispatcher_that_is_not_there_is_said_in_words(tmp_path):
    async def main():
        with pytest.raises(DispatcherError, match=r"nobody\.sock"):
            await DispatcherVoice(str(tmp_path / "nobody.sock"), "en").speak("e4.", 1)

    asyncio.run(main())
