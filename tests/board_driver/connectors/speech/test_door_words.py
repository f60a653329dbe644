"""What a page (or any connector) gets from the door for the board's questions: the
words of :meth:`Door.describe`, the ``ask`` events of the ``say_*`` buttons, and the speech
extension answering them; in process, on the daemon with the simulated board."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from board_driver.connectors.speech.voices import espeak_program
from board_driver.door import ActionRefused
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from tests.board_driver.connectors.speech.sink import Sink
from tests.board_driver.service.sim_daemon import sim_daemon, start, until


async def carry(board: SimulatedBoard, daemon, from_: str, to: str) -> None:
    board.lift(square(from_))
    await until(lambda: not daemon.intake.debouncer.stable >> square(from_) & 1)
    board.place(square(to))


def test_describe_answers_in_each_language_and_names_what_it_cannot(tmp_path: Path):
    board = SimulatedBoard()
    daemon = sim_daemon(tmp_path, board, "[clock]\ncontrol = \"3+2\"\n")

    async def main():
        task = await start(daemon)
        door = daemon.door
        try:
            for frm, to in (("e2", "e4"), ("e7", "e5"), ("g1", "f3")):
                await carry(board, daemon, frm, to)
                plies = len(door.snapshot().moves)
                await until(lambda plies=plies: len(door.snapshot().moves) == plies + 1)
            assert door.describe("move") == "White played knight to f3."
            assert door.describe("move", language="fr", ply=2) == "Les noirs ont joué e5."
            assert door.describe("square", square="f3", language="de") == "Weißer Springer f3."
            assert door.describe("rank", rank=4, language="es") == "Fila 4: peón blanco e4."
            assert door.describe("file", file="e") == (
                "File e: white king e1, white pawn e4, black pawn e5 and black king e8."
            )
            assert door.describe("clocks").startswith("White: 3 minutes")
            assert door.describe("material").endswith("Material is even.")
            for what, details, why in [
                ("weather", {}, "not a question"),
                ("square", {"square": "z9"}, "not a square"),
                ("move", {"ply": 9}, "not a move of this game"),
                ("move", {"language": "it"}, "not one of the board's languages"),
            ]:
                with pytest.raises(ActionRefused, match=why):
                    door.describe(what, **details)
        finally:
            daemon.stop()
            await asyncio.wait_for(task, 10)

    asyncio.run(main())


@pytest.mark.skipif(espeak_program() is None, reason="espeak-ng is not installed")
def test_the_buttons_on_the_door_are_asked_and_answered_aloud(tmp_path: Path):
    board = SimulatedBoard()
    said = tmp_path / "said"
    daemon = sim_daemon(tmp_path, board, f'[speech]\nenabled = true\noutput = "{said}"\n')
    sink = Sink(said)

    async def main():
        task = await start(daemon)
        door = daemon.door
        try:
            async with door.subscribe() as events:
                asked = door.press("say_material")[-1]
                assert (asked["type"], asked["what"]) == ("ask", "material")
                await until(lambda: any("Material is even." in t for t in sink.texts()))
                door.press("say_square")
                board.lift(square("d1"))
                await until(lambda: not daemon.intake.debouncer.stable >> square("d1") & 1)
                board.place(square("d1"))
                await until(lambda: "White queen d1." in sink.texts())
                kinds = []
                while (event := events.get_nowait()) is not None:
                    kinds.append((event["type"], event.get("what")))
                assert ("ask", "square") in kinds
        finally:
            daemon.stop()
            await asyncio.wait_for(task, 10)

    asyncio.run(main())
