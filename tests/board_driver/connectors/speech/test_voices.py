"""The voices' processes: run off the daemon's loop, cut short at once when cancelled, and
the file sink's files whole and numbered on from what is already there."""

from __future__ import annotations

import asyncio
import time

import pytest

from board_driver.connectors.speech.voices import FileSink, Worker, espeak_program
from tests.board_driver.connectors.speech.sink import Sink, heard


def test_a_process_cut_short_is_stopped_at_once():
    async def main():
        worker = Worker()
        began = time.monotonic()
        speaking = asyncio.create_task(
            worker.run(["sh", "-c", "cat >/dev/null; sleep 30"], "x")
        )
        await asyncio.sleep(0.3)
        speaking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await speaking
        worker.close()
        return time.monotonic() - began

    assert asyncio.run(main()) < 5


def test_the_loop_runs_on_while_a_voice_speaks():
    async def main():
        worker = Worker()
        speaking = asyncio.create_task(worker.run(["sh", "-c", "cat >/dev/null; sleep 0.5"], "x"))
        wakes = 0
        while not speaking.done():
            await asyncio.sleep(0.01)
            wakes += 1
        worker.close()
        return wakes

    assert asyncio.run(main()) > 10  # the loop woke all along: nothing waited on it


@pytest.mark.skipif(espeak_program() is None, reason="espeak-ng is not installed")
def test_the_file_sink_numbers_on_from_what_is_there(tmp_path):
    (tmp_path / "0007.txt").write_text("an earlier run")

    async def main():
        sink = FileSink(tmp_path, espeak_program(), "fr")
        await sink.speak("Cavalier f3, échec.", 1)
        await sink.speak("L'échiquier correspond de nouveau.", 2)
        await sink.close()

    asyncio.run(main())
    said = Sink(tmp_path)
    assert said.numbers() == [7, 8, 9]
    assert said.texts()[1:] == ["Cavalier f3, échec.", "L'échiquier correspond de nouveau."]
    assert heard(said, 8) > 0.5 and heard(said, 9) > 1.0
    assert not list(tmp_path.glob(".*.part"))  # nothing half written left behind
