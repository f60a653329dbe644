"""The board's publisher against a real Mosquitto, driven through a door of our own.

What a spectator on the broker sees: every move with its ply, the game's record and PGN
retained (a late spectator sees the whole game at once), the result, the board online and
offline; and when the broker is lost and comes back empty, every game and ply the broker
missed, once, while the board never waited for it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import ssl

import aiomqtt
import chess
import chess.pgn

from board_driver.connectors.broadcast import BroadcastConfig
from board_driver.connectors.broadcast.publisher import Publisher
from board_driver.connectors.broadcast.topics import Topics
from tests.board_driver.connectors.broadcast.fake_door import FakeDoor
from tests.board_driver.connectors.broadcast.listener import Listener
from tests.mosquitto import Mosquitto

T = Topics("club")


def section(broker: Mosquitto, **keys) -> BroadcastConfig:
    return BroadcastConfig(
        enabled=True, host=broker.host, port=broker.port, board=4, prefix="club", **keys
    )


def result(got: Listener, board: int, game: int) -> str | None:
    record = got.last(T.record(board, game))
    return record.json()["result"] if record else None


def read_pgn(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, text
    return game


def test_each_move_then_the_record_pgn_and_result_reach_the_broker(mosquitto):
    async def main():
        door = FakeDoor()
        async with Listener(mosquitto, "club/#") as got:
            publisher = await Publisher(door, section(mosquitto, event="Club night")).start()
            door.play("e4", "e5", "Qh5", "Nc6", "Bc4")
            assert await got.until(lambda g: len(g.on("/game/1/move")) == 5)
            door.set_headers(White="Ann Example", Black="Bob Example")
            door.play("Nf6", "Qxf7#")
            assert await got.until(lambda g: result(g, 4, 1) == "1-0")
            await publisher.stop()
            assert await got.until(lambda g: g.last(T.status(4)).payload == "offline")

        moves = [m.json() for m in got.on("/game/1/move")]
        assert [(m["ply"], m["san"], m["uci"]) for m in moves] == [
            (1, "e4", "e2e4"), (2, "e5", "e7e5"), (3, "Qh5", "d1h5"), (4, "Nc6", "b8c6"),
            (5, "Bc4", "f1c4"), (6, "Nf6", "g8f6"), (7, "Qxf7#", "h5f7"),
        ]
        board = chess.Board()
        for m in moves:
            board.push_uci(m["uci"])
            assert m["fen"] == board.fen(), f"ply {m['ply']}"
            assert m["board"] == 4 and m["game"] == 1
            assert m["at"].endswith("Z") and 0 <= m["elapsed_ms"] < 60_000
        assert all(not m.retain for m in got.on("/game/1/move"))

        data = got.last(T.record(4, 1)).json()
        assert data["result"] == "1-0" and data["termination"] == "checkmate"
        assert data["headers"]["Event"] == "Club night"
        assert data["headers"]["White"] == "Ann Example"
        pgn = read_pgn(got.last(T.pgn(4, 1)).payload)
        assert pgn.headers["Board"] == "4" and pgn.headers["Result"] == "1-0"
        assert pgn.headers["White"] == "Ann Example" and pgn.headers["Event"] == "Club night"
        assert [m.uci() for m in pgn.mainline_moves()] == [m["uci"] for m in moves]

    asyncio.run(main())


def test_a_late_spectator_sees_the_whole_game_from_the_retained_messages(mosquitto):
    async def main():
        door = FakeDoor()
        publisher = await Publisher(door, section(mosquitto, round="2")).start()
        door.play("d4", "d5", "c4")
        async with Listener(mosquitto, "club/#") as early:
            assert await early.until(lambda g: g.last(T.record(4, 1)) and len(
                g.last(T.record(4, 1)).json()["moves"]) == 3)
        async with Listener(mosquitto, "club/#") as late:
            assert await late.until(lambda g: g.last(T.pgn(4, 1)) is not None)
            # Live messages reach a subscriber with the retain flag clear: these come from
            # the broker's store.
            assert late.last(T.status(4)).payload == "online"
            assert late.last(T.status(4)).retain and late.last(T.pgn(4, 1)).retain
            pgn = read_pgn(late.last(T.pgn(4, 1)).payload)
            assert [board_san for board_san in _sans(pgn)] == ["d4", "d5", "c4"]
            assert pgn.headers["Result"] == "*" and pgn.headers["Round"] == "2"
        await publisher.stop()

    asyncio.run(main())


def _sans(game: chess.pgn.Game) -> list[str]:
    board = game.board()
    out = []
    for move in game.mainline_moves():
        out.append(board.san(move))
        board.push(move)
    return out


def test_a_takeback_names_where_the_game_ends_and_the_new_ply_wins(mosquitto):
    async def main():
        door = FakeDoor()
        async with Listener(mosquitto, "club/#") as got:
            publisher = await Publisher(door, section(mosquitto)).start()
            door.play("e4", "e5")
            assert await got.until(lambda g: len(g.on("/move")) == 2)
            door.take_back(1)
            assert await got.until(lambda g: len(g.on("/takeback")) == 1)
            door.play("c5")
            assert await got.until(lambda g: len(g.on("/move")) == 3)
            assert await got.until(
                lambda g: g.last(T.record(4, 1)).json()["moves"] == ["e4", "c5"]
            )
            await publisher.stop()
        assert got.on("/takeback")[0].json() == {"board": 4, "game": 1, "plies": 1}
        assert [(m.json()["ply"], m.json()["san"]) for m in got.on("/move")] == [
            (1, "e4"), (2, "e5"), (2, "c5")
        ]

    asyncio.run(main())


def test_a_lost_broker_costs_the_board_nothing_and_gets_what_it_missed(tmp_path):
    """The broker is killed (no last save: it comes back empty) while the board plays on,
    takes a move back and starts a second game: once it is back, a spectator finds both
    games whole, and the plies the broker missed arrive once each."""
    broker = Mosquitto(tmp_path / "broker").start()

    async def main():
        door = FakeDoor()
        publisher = await Publisher(door, section(broker, round="1")).start()
        door.play("e4", "c5", "Nf3")
        async with Listener(broker, "club/#") as got:
            assert await got.until(lambda g: g.last(T.record(4, 1)) and len(
                g.last(T.record(4, 1)).json()["moves"]) == 3)
        broker.kill()
        await asyncio.sleep(0.3)
        # The board plays on: nothing here waits for the broker.
        door.play("d6", "d4", "cxd4")
        door.take_back(1)
        door.play("Nc6")
        door.end_game("resignation", "1-0")
        door.new_game()
        door.play("g3")
        for _ in range(300):  # a burst far past the subscription's size
            door.set_headers(Annotator="x")
        for _ in range(1000):  # the loss noticed, however slow the machine (10 s at most)
            if not publisher.connected:
                break
            await asyncio.sleep(0.01)
        assert not publisher.connected
        broker.start()
        async with Listener(broker, "club/#") as got:
            assert await got.until(
                lambda g: g.last(T.record(4, 2)) is not None
                and g.last(T.record(4, 1)) is not None
                and g.last(T.record(4, 1)).json()["result"] == "1-0",
                timeout=15,
            ), got.messages
            first = got.last(T.record(4, 1)).json()
            assert first["moves"] == ["e4", "c5", "Nf3", "d6", "d4", "Nc6"]
            assert first["termination"] == "resignation"
            assert got.last(T.record(4, 2)).json()["moves"] == ["g3"]
            assert got.last(T.status(4)).payload == "online"
            # Wait for the resent plies, then check none came twice.
            assert await got.until(lambda g: len(g.on("/game/2/move")) >= 1)
            await asyncio.sleep(0.3)
            plies = [m.json()["ply"] for m in got.on("/game/1/move")]
            assert sorted(plies) == [4, 5, 6], plies
            # The move taken back while the broker was away never reached it: nothing to undo.
            assert got.on("/game/1/takeback") == []
        await publisher.stop()

    try:
        asyncio.run(main())
    finally:
        broker.stop()


def test_the_config_headers_give_way_to_the_pages(mosquitto):
    async def main():
        door = FakeDoor()
        config = section(mosquitto, event="League", round="5", white="A. White", black="B. Black")
        publisher = await Publisher(door, config).start()
        door.set_headers(White="Carla", Event="")
        async with Listener(mosquitto, "club/#") as got:
            assert await got.until(lambda g: g.last(T.record(4, 1)) is not None and g.last(
                T.record(4, 1)).json()["headers"].get("White") == "Carla")
            headers = got.last(T.record(4, 1)).json()["headers"]
        await publisher.stop()
        assert headers["White"] == "Carla"
        assert headers["Black"] == "B. Black"
        assert headers["Event"] == "League" and headers["Round"] == "5"

    asyncio.run(main())


def test_a_broker_back_without_its_retained_messages_gets_every_game_again(tmp_path):
    """A game finished and acknowledged before the broker died is in the broker again once
    it is back empty: a hall started after that still sees it."""
    broker = Mosquitto(tmp_path / "broker").start()

    async def main():
        door = FakeDoor()
        publisher = await Publisher(door, section(broker)).start()
        door.play("f3", "e5", "g4", "Qh4#")
        door.new_game()
        door.play("e4")
        async with Listener(broker, "club/#") as got:
            assert await got.until(lambda g: result(g, 4, 1) == "0-1" and g.last(
                T.record(4, 2)) is not None)
        broker.kill()
        await asyncio.sleep(0.5)
        broker.start()
        async with Listener(broker, "club/#") as late:
            assert await late.until(lambda g: result(g, 4, 1) == "0-1" and g.last(
                T.record(4, 2)) is not None, timeout=15), late.messages
            # The plies were acknowledged before: they are not sent again.
            assert late.on("/move") == []
        await publisher.stop()

    try:
        asyncio.run(main())
    finally:
        broker.stop()


def test_a_game_left_before_its_first_move_leaves_the_broker(mosquitto):
    async def main():
        door = FakeDoor()
        publisher = await Publisher(door, section(mosquitto)).start()
        async with Listener(mosquitto, "club/#") as got:
            assert await got.until(lambda g: g.last(T.record(4, 1)) is not None)
            door.new_game()
            door.play("Nf3")
            assert await got.until(lambda g: g.last(T.record(4, 2)) is not None)
            assert await got.until(lambda g: g.last(T.record(4, 1)).payload == "")
        async with Listener(mosquitto, "club/#") as late:
            assert await late.until(lambda g: g.last(T.record(4, 2)) is not None)
            await asyncio.sleep(0.3)
            assert late.last(T.record(4, 1)) is None and late.last(T.pgn(4, 1)) is None
        await publisher.stop()

    asyncio.run(main())


def test_with_tls_ca_the_board_speaks_tls_and_checks_the_brokers_certificate(tmp_path):
    broker = Mosquitto(tmp_path / "broker", tls=True).start()

    async def main():
        door = FakeDoor()
        config = dataclasses.replace(section(broker, tls_ca=str(broker.ca_file)),
                                     host="localhost")
        publisher = await Publisher(door, config).start()
        door.play("e4")
        # A spectator needs TLS too: the listener speaks nothing else.
        client = aiomqtt.Client("localhost", broker.port, tls_context=ssl.create_default_context(
            cafile=str(broker.ca_file)))
        async with client:
            await client.subscribe("club/#", qos=1)
            async with asyncio.timeout(10):
                async for message in client.messages:
                    if str(message.topic) == T.record(4, 1):
                        assert json.loads(message.payload)["moves"] == ["e4"]
                        break
        assert publisher.connected
        await publisher.stop()
        # A board that does not know the CA does not connect (and says so in the log).
        wrong = dataclasses.replace(config, tls_ca=str(tmp_path / "broker" / "broker.crt"))
        other = await Publisher(FakeDoor(), wrong).start()
        await asyncio.sleep(1.0)
        assert not other.connected
        await other.stop()

    try:
        asyncio.run(main())
    finally:
        broker.stop()


def test_a_board_restarted_with_its_clock_behind_gives_newer_revisions(mosquitto, monkeypatch,
                                                                        tmp_path):
    """A Pi with no clock of its own, restarted after a power cut with its clock a day
    behind: its records still come after the ones it sent before (the revision it reserved
    is kept beside the store), so the hall takes them."""
    from board_driver.connectors.broadcast import revision

    def plies(got: Listener) -> int:
        record = got.last(T.record(4, 1))
        return len(record.json()["moves"]) if record else 0

    async def main():
        door = FakeDoor(state_dir=tmp_path)
        async with Listener(mosquitto, "club/#") as got:
            first = await Publisher(door, section(mosquitto)).start()
            door.play("e4", "e5")
            assert await got.until(lambda g: plies(g) == 2)
            before = got.last(T.record(4, 1)).json()["revision"]
            await first.stop()
            monkeypatch.setattr(revision, "_wall_clock_ms", lambda: before - 86_400_000)
            door.play("Nf3")
            again = await Publisher(door, section(mosquitto)).start()
            assert await got.until(lambda g: plies(g) == 3)
            assert got.last(T.record(4, 1)).json()["revision"] > before
            await again.stop()

    asyncio.run(main())
