"""The speaker's queue: one utterance at a time, in order; news of the game cuts short and
drops what it makes stale; a voice that takes no time (the file sink) keeps everything.

The voice here takes the time a test gives each utterance, and notes when each began,
ended, or was cut short, and how many spoke at once."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from board_driver.connectors.speech.speaker import Speaker
from board_driver.service.subscriptions import Subscription
from board_driver.spoken import Words
from board_driver.spoken.narrator import Narrator, Utterance
from rules import STARTING_FEN


class TimedVoice:
    """Each utterance lasts ``seconds(text)``; notes what happened to it."""

    name = "a test's voice"

    def __init__(self, takes_time: bool = True, seconds=lambda text: 0.2) -> None:
        self.takes_time = takes_time
        self.seconds = seconds
        self.log: list[tuple[str, str]] = []  # (what, text): began, ended, cut
        self.speaking = 0
        self.most_at_once = 0

    async def speak(self, text: str, number: int) -> None:
        self.speaking += 1
        self.most_at_once = max(self.most_at_once, self.speaking)
        self.log.append(("began", text))
        try:
            await asyncio.sleep(self.seconds(text) if self.takes_time else 0)
            self.log.append(("ended", text))
        except asyncio.CancelledError:
            self.log.append(("cut", text))
            raise
        finally:
            self.speaking -= 1

    async def close(self) -> None:
        pass

    def texts(self, what: str) -> list[str]:
        return [text for kind, text in self.log if kind == what]


class QuietDoor:
    """A door on which nothing happens but what the test submits."""

    def __init__(self, clock=None) -> None:
        self.clock = clock
        self.events = Subscription(board=True, maxsize=64)

    def subscribe(self, **_: object) -> Subscription:
        return self.events

    def snapshot(self) -> SimpleNamespace:
        return SimpleNamespace(fen=STARTING_FEN, start_fen=STARTING_FEN, moves=(), result="*",
                               question=(), clock=self.clock, players={})  # fmt: skip


def started(voice: TimedVoice, door: QuietDoor | None = None, **options) -> Speaker:
    narrator = Narrator(Words("en"), [])  # nothing of its own at the start
    return Speaker(door or QuietDoor(), narrator, voice, **options)


async def settle(speaker: Speaker, voice: TimedVoice, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while speaker._pending or speaker._current is not None:
            await asyncio.sleep(0.01)


def u(kind: str, text: str) -> Utterance:
    return Utterance(text, kind)


def run(coroutine) -> None:
    asyncio.run(coroutine)


def test_one_at_a_time_in_order():
    async def main():
        voice = TimedVoice(seconds=lambda text: 0.05)
        speaker = await started(voice).start()
        speaker.submit([u("ask", "one"), u("ask", "two")])  # one batch: never cut by itself
        speaker.submit([u("control", "three")])
        await settle(speaker, voice)
        await speaker.stop()
        assert voice.texts("ended") == ["one", "two", "three"]
        assert voice.most_at_once == 1

    run(main())


def test_a_new_move_cuts_a_long_answer_short_and_drops_what_waits():
    async def main():
        voice = TimedVoice(seconds=lambda text: 5.0 if text.startswith("Last moves") else 0.05)
        speaker = await started(voice).start()
        speaker.submit([u("ask", "Last moves: a long list")])
        speaker.submit([u("control", "Black offers a draw.")])  # waiting behind it
        while not voice.texts("began"):
            await asyncio.sleep(0.01)
        speaker.submit([u("move", "Knight to f3.")])
        await settle(speaker, voice)
        await speaker.stop()
        assert voice.texts("cut") == ["Last moves: a long list"]
        assert voice.texts("ended") == ["Knight to f3."]  # the offer's news was dropped

    run(main())


def test_a_newer_question_cuts_the_older_answer():
    async def main():
        voice = TimedVoice(seconds=lambda text: 5.0 if text.startswith("Last moves") else 0.05)
        speaker = await started(voice).start()
        speaker.submit([u("ask", "Last moves: a long list")])
        while not voice.texts("began"):
            await asyncio.sleep(0.01)
        speaker.submit([u("ask", "White: 1 queen.")])
        await settle(speaker, voice)
        await speaker.stop()
        assert voice.texts("cut") == ["Last moves: a long list"]
        assert voice.texts("ended") == ["White: 1 queen."]

    run(main())


def test_the_engines_move_waits_for_the_players_move_and_done_cuts_the_instruction():
    async def main():
        voice = TimedVoice(seconds=lambda text: 5.0 if text.startswith("Black plays") else 0.3)
        speaker = await started(voice).start()
        speaker.submit([u("move", "Knight to f3.")])
        await asyncio.sleep(0.05)
        speaker.submit([u("to_play", "Black plays knight to f6: move the knight ...")])
        while len(voice.texts("began")) < 2:
            await asyncio.sleep(0.01)
        speaker.submit([u("done", "Done.")])  # the player made it: the instruction is stale
        await settle(speaker, voice)
        await speaker.stop()
        assert voice.texts("ended")[0] == "Knight to f3."  # not cut by the engine's move
        assert voice.texts("cut") == ["Black plays knight to f6: move the knight ..."]
        assert voice.texts("ended") == ["Knight to f3.", "Done."]

    run(main())


def test_the_end_of_a_game_said_with_its_move_is_not_cut():
    async def main():
        voice = TimedVoice(seconds=lambda text: 0.05)
        speaker = await started(voice).start()
        speaker.submit([u("move", "Rook takes e8, checkmate."), u("end", "Checkmate. White wins.")])
        speaker.submit([u("ask", "White: 2 rooks.")])
        await settle(speaker, voice)
        await speaker.stop()
        assert voice.texts("ended") == [
            "Rook takes e8, checkmate.", "Checkmate. White wins.", "White: 2 rooks."
        ]

    run(main())


def test_a_voice_that_takes_no_time_keeps_everything_in_order():
    """The file sink: nothing is cut or dropped, whatever comes while it writes."""

    async def main():
        voice = TimedVoice(takes_time=False)
        speaker = await started(voice).start()
        batches = [
            [u("ask", "Last moves: ...")],
            [u("move", "e4.")],
            [u("to_play", "Black plays ...")],
            [u("done", "Done.")],
            [u("illegal", "Illegal: ...")],
            [u("restored", "The board matches again.")],
        ]
        for batch in batches:
            speaker.submit(batch)
        await settle(speaker, voice)
        await speaker.stop()
        assert voice.texts("ended") == [b[0].text for b in batches]
        assert not voice.texts("cut")

    run(main())


def test_low_time_is_said_once_when_the_running_clock_falls_below_it():
    async def main():
        voice = TimedVoice(seconds=lambda text: 0.01)
        running = {"white_ms": 1_150, "black_ms": 60_000, "state": "running", "turn": "white"}
        door = QuietDoor(clock=running)
        speaker = Speaker(door, Narrator(Words("en")), voice, low_time_s=1)
        await speaker.start()
        running["white_ms"] = 1_150  # the timer reads the snapshot again when it fires
        door.clock = {**running, "white_ms": 990}
        async with asyncio.timeout(3):
            while not any("left" in t for t in voice.texts("ended")):
                await asyncio.sleep(0.02)
        door.clock = {**running, "white_ms": 500}
        speaker._watch_clock(door.snapshot())  # the next event: not said again
        await settle(speaker, voice)
        await speaker.stop()
        assert [t for t in voice.texts("ended") if "left" in t] == ["White: 1 second left."]

    run(main())


def test_the_file_sink_writes_what_it_was_given_before_the_daemon_stops():
    async def main():
        voice = TimedVoice(takes_time=False)
        original = voice.speak

        async def writing(text: str, number: int) -> None:
            await asyncio.sleep(0.05)  # writing a WAV takes a moment
            await original(text, number)

        voice.speak = writing
        speaker = await started(voice).start()
        speaker.submit([u("move", f"Move {n}.") for n in range(5)])
        await speaker.stop()
        assert voice.texts("ended") == [f"Move {n}." for n in range(5)]

    run(main())


def test_the_events_of_the_last_moment_are_in_the_record_when_the_daemon_stops():
    """The daemon stops right after a move: the file sink still says it."""

    async def main():
        voice = TimedVoice(takes_time=False)
        door = QuietDoor()
        speaker = Speaker(door, Narrator(Words("en"), ["moves"]), voice)
        await speaker.start()
        after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        door.events.put({"type": "move", "san": "e4", "uci": "e2e4", "fen": after_e4})
        await speaker.stop()  # before the speaker's task has even looked
        assert voice.texts("ended") == ["e4."]

    run(main())
