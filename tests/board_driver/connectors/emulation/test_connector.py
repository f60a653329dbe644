"""The emulation on the door: the app's lights in the connector's layer, and what happens
when the app goes, the door drops events, or a trace cannot be written."""

from __future__ import annotations

import asyncio
import json
import logging

from board_driver.connectors.emulation.dgt import field
from board_driver.physical.squares import square
from tests.board_driver.connectors.emulation.apps import chesslink_command
from tests.board_driver.connectors.emulation.rig import Rig

SHOW_E2E4 = bytes([0x60, 0x04, 0x01, field(square("e2")), field(square("e4")), 0x00])


def test_the_apps_lights_are_the_emulations_layer_and_go_out_when_it_stops():
    async def go() -> None:
        rig = await Rig("dgt").start()
        await rig.send(SHOW_E2E4)
        assert rig.layer.lit() == {"e2": "c", "e4": "c"}
        await rig.stop()
        assert rig.layer.frame is None

    asyncio.run(go())


def test_when_the_app_goes_its_lights_go_out_and_a_new_app_starts_afresh():
    async def go() -> None:
        rig = await Rig("chesslink").start()
        corners = "".join("FF" if i in (0, 1, 9, 10) else "00" for i in range(81))
        await rig.send(chesslink_command("W0203") + chesslink_command("L20" + corners))
        assert rig.layer.lit() == {"a8": "c"}
        rig.transport.on_link(False, "the other end hung up")
        await rig.pump()
        assert rig.layer.frame is None
        rig.transport.on_link(True, "")  # the registers are kept (E2ROM on a real board)
        rig.door.lift("e2")
        await rig.until(rig.clock.now + 200)
        rig.read()
        assert rig.app.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR"
        await rig.stop()

    asyncio.run(go())


def test_events_lost_by_a_slow_emulation_are_made_up_from_the_snapshot():
    async def go() -> None:
        rig = await Rig("dgt").start()
        await rig.send(bytes([0x44, 0x42]))
        for name in ("g1", "f3"):
            (rig.door.lift if name == "g1" else rig.door.place)(name)
            rig.clock.now += 300
        subscription = rig.door.subscriptions[0]
        while not subscription.queue.empty():
            subscription.queue.get_nowait()  # the lift and place, lost
        subscription.put({"t": rig.clock.now, "type": "overflow", "lost": 2})
        await rig.pump()  # (before the tracker commits Nf3: the game still at the start)
        rig.read()
        assert rig.app.fen() == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"
        await rig.stop()

    asyncio.run(go())


def test_a_trace_records_the_start_events_and_bytes_both_ways(tmp_path):
    trace = tmp_path / "trace.jsonl"

    async def go() -> None:
        rig = await Rig("dgt", trace=trace).start()
        await rig.send(bytes([0x4D]))
        rig.door.lift("e2")
        await rig.until(rig.clock.now + 200)
        await rig.stop()

    asyncio.run(go())
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    assert records[0]["start"]["protocol"] == "dgt" and records[0]["start"]["pass_ms"] == 100
    assert {"t": 0, "in": "4d"} in records and {"t": 0, "out": "9300050107"} in records
    assert any(r.get("event", {}).get("type") == "lift" for r in records)


def test_a_trace_that_cannot_be_written_is_a_warning_not_a_failure(tmp_path, caplog):
    async def go() -> None:
        rig = Rig("dgt", trace=tmp_path / "no" / "such" / "dir" / "trace.jsonl")
        with caplog.at_level(logging.WARNING, logger="magboard.emulation"):
            await rig.start()
        assert await rig.send(bytes([0x4D]))
        await rig.stop()

    asyncio.run(go())
    assert any("no trace: cannot write" in r.getMessage() for r in caplog.records)
