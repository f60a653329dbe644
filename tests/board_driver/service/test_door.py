"""The one door, as a connector uses it: snapshots, bounded event streams, actions, light
layers, players, game data. In process, on the daemon with the simulated board."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from board_driver.door import ActionRefused
from board_driver.physical.frame import Frame
from board_driver.physical.leds import Renderer, SimulatedLeds
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from board_driver.service.config import parse_config
from board_driver.service.daemon import Daemon, Hardware
from board_driver.service.lights import STARTING_FRAME
from board_driver.service.notify import Notifier
from board_driver.service.store import Store, game_pgn
from tests.board_driver.service.sim_daemon import until

SCHOLAR = [("e2", "e4"), ("e7", "e5"), ("f1", "c4"), ("b8", "c6"), ("d1", "h5"), ("g8", "f6")]


def make_daemon(tmp_path: Path) -> tuple[Daemon, SimulatedBoard]:
    config = parse_config(
        f'[sensing]\nbackend = "sim"\n[leds]\nbackend = "sim"\n'
        f'[store]\npath = "{tmp_path / "g.sqlite"}"\n[engine]\npath = "/nonexistent/engine"\n'
    )
    board = SimulatedBoard()
    hardware = Hardware(board, SimulatedLeds(), Renderer().render, sim_board=board)
    return Daemon(config, hardware, notifier=Notifier(environ={})), board


def run(daemon: Daemon, scenario: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        task = asyncio.create_task(daemon.run())
        try:
            await until(lambda: daemon.tracker is not None and daemon.lights.pattern is None)
            await until(lambda: "engine" in daemon.door.snapshot().player_states)
            await scenario()
        finally:
            daemon.stop()
            assert await asyncio.wait_for(task, 10) == 0

    asyncio.run(main())


async def carry(board: SimulatedBoard, daemon: Daemon, from_: str, to: str) -> None:
    """A piece lifted and, once the daemon has taken the lift (debounced), placed: however
    slow the machine, the lift is never shorter than the debounce time."""
    board.lift(square(from_))
    await until(lambda: not daemon.intake.debouncer.stable >> square(from_) & 1)
    board.place(square(to))


async def play(board: SimulatedBoard, daemon: Daemon, moves: list[tuple[str, str]]) -> None:
    for from_, to in moves:
        before = len(daemon.tracker.game.moves)
        await carry(board, daemon, from_, to)
        await until(lambda b=before: len(daemon.tracker.game.moves) == b + 1)


def drain(events) -> list[dict]:
    out = []
    while (event := events.get_nowait()) is not None:
        out.append(event)
    return out


def test_a_subscriber_sees_moves_board_events_and_lights(tmp_path: Path) -> None:
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        events = door.subscribe(board=True, lights=True)
        await play(board, daemon, SCHOLAR[:1])
        seen = drain(events)
        kinds = [e["type"] for e in seen]
        assert {"t": seen[kinds.index("lift")]["t"], "type": "lift", "square": "e2"} in seen
        assert any(e["type"] == "place" and e["square"] == "e4" for e in seen)
        move = next(e for e in seen if e["type"] == "move")
        assert (move["san"], move["uci"]) == ("e4", "e2e4")
        assert "lights" in kinds  # the white flash
        plain = door.subscribe()  # game events only
        await play(board, daemon, SCHOLAR[1:2])
        assert {e["type"] for e in drain(plain)} == {"move"}
        snap = door.snapshot()
        assert snap.moves == ("e4", "e5") and snap.ucis == ("e2e4", "e7e5")
        assert snap.turn == "white" and snap.in_sync and snap.result == "*"
        assert snap.sensed == snap.position().occupancy()
        assert snap.game().position.fen() == snap.fen

    run(daemon, scenario)


def test_the_board_stream_carries_buttons_and_choices_in_their_place(tmp_path: Path) -> None:
    """What a recording needs (issue 16, item 5): every event the tracker took, in order."""
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        events = door.subscribe(board=True)
        await play(board, daemon, SCHOLAR[:1])
        door.press("adjust")
        door.choose("n")
        seen = [e for e in drain(events) if e["type"] in ("lift", "place", "button", "choose")]
        assert [e["type"] for e in seen] == ["lift", "place", "button", "choose"]
        assert (seen[2]["name"], seen[3]["piece"]) == ("adjust", "n")
        assert [e["t"] for e in seen] == sorted(e["t"] for e in seen)
        assert not [e for e in drain(door.subscribe()) if e["type"] in ("button", "choose")]

    run(daemon, scenario)


def test_a_slow_subscriber_loses_events_is_told_so_and_never_holds_up_the_board(
    tmp_path: Path,
) -> None:
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        slow = daemon.door.subscribe(board=True, maxsize=3)  # never read while moves go on
        await play(board, daemon, SCHOLAR)
        first = slow.get_nowait()
        assert first["type"] == "overflow" and first["lost"] > 0
        assert slow.lost >= first["lost"]
        assert len(drain(slow)) <= 3  # bounded, whatever it missed
        with Store.open(tmp_path / "g.sqlite") as store:  # every move stored meanwhile
            assert len(store.game(daemon.game_id).moves) == len(SCHOLAR)

    run(daemon, scenario)


def test_an_ending_from_outside_is_stored_and_lit_as_the_board_would(tmp_path: Path) -> None:
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        await play(board, daemon, SCHOLAR[:2])
        with pytest.raises(ActionRefused, match="cannot end the game with checkmate"):
            door.end_game("checkmate", "white")
        events = door.end_game("timeout", "black")
        assert events[0]["type"] == "game_over" and events[0]["result"] == "0-1"
        snap = door.snapshot()
        assert (snap.result, snap.termination, snap.winner) == ("0-1", "timeout", "black")
        frame = snap.lights
        assert frame.colours[square("e8")] == "g" and frame.colours[square("e1")] == "r"
        with pytest.raises(ActionRefused, match="over already"):
            door.end_game("aborted", None)

    run(daemon, scenario)
    with Store.open(tmp_path / "g.sqlite") as store:
        stored = store.game(1)
        assert (stored.result, stored.termination) == ("0-1", "timeout")


def test_a_take_back_from_outside_lights_what_to_put_back_until_it_is(tmp_path: Path) -> None:
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        await play(board, daemon, SCHOLAR[:2])
        events = door.take_back(1)
        assert [e["type"] for e in events] == ["takeback"] and events[0]["san"] == "e5"
        snap = door.snapshot()
        assert snap.moves == ("e4",) and not snap.in_sync
        assert (snap.empty, snap.fill) == (("e5",), ("e7",))
        # Once the last move's white flash is over: red to empty, blue to fill.
        await until(lambda: door.snapshot().lights.colours[square("e5")] == "r")
        assert door.snapshot().lights.colours[square("e7")] == "b"
        await carry(board, daemon, "e5", "e7")
        await until(lambda: door.snapshot().in_sync)
        with pytest.raises(ActionRefused, match="2 plies asked, the game has 1"):
            door.take_back(2)

    run(daemon, scenario)


def test_a_connector_layer_lights_above_the_game_below_the_guidance(tmp_path: Path) -> None:
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        layer = door.light_layer("app")
        layer.show(Frame.off().with_square(square("d4"), "c").with_square(square("e2"), "g"))
        lights = door.snapshot().lights
        assert lights.colours[square("d4")] == "c" and lights.colours[square("e2")] == "g"
        board.lift(square("b1"))  # out of sync once still: b1 to be filled
        board.place(square("b3"))
        await until(lambda: not door.snapshot().in_sync)
        layer.show(Frame.off().with_square(square("b1"), "g"))
        lights = door.snapshot().lights
        assert lights.colours[square("b1")] == "b" and lights.blink >> square("b1") & 1
        layer.show(None)
        assert door.snapshot().lights.colours[square("d4")] == "."

    run(daemon, scenario)


def test_headers_game_data_and_a_resumed_game(tmp_path: Path) -> None:
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        await play(board, daemon, SCHOLAR[:2])
        door.set_headers(White="Ann", Black="Bob", Event="Club night")
        door.set_game_data("lichess", {"id": "abcd1234"})
        first = door.snapshot().game_id
        fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
        events = door.new_game(fen, headers={"Round": "2"})
        assert events[0]["type"] == "new_game" and door.snapshot().game_id == first + 1
        assert door.snapshot().headers == {"Round": "2"} and door.game_data("lichess") == {}
        assert door.game_data("lichess", first) == {"id": "abcd1234"}
        with pytest.raises(ActionRefused, match="FEN"):
            door.new_game("not a fen")
        door.resume_game(first)
        snap = door.snapshot()
        assert snap.game_id == first and snap.moves == ("e4", "e5")
        assert snap.headers["White"] == "Ann"

    run(daemon, scenario)
    with Store.open(tmp_path / "g.sqlite") as store:
        pgn = game_pgn(store.game(1))
    assert '[White "Ann"]' in pgn and '[Event "Club night"]' in pgn

    # A restart comes back to the resumed game, not to the newer one it adjourned.
    again, _board = make_daemon(tmp_path)

    async def after_restart() -> None:
        snap = again.door.snapshot()
        assert snap.game_id == 1 and snap.moves == ("e4", "e5")

    run(again, after_restart)


def test_players_are_named_and_a_move_from_elsewhere_is_the_only_one_accepted(
    tmp_path: Path,
) -> None:
    daemon, board = make_daemon(tmp_path)

    class Remote:
        name = "remote"

        def state(self) -> dict:
            return {"connected": True}

        def configure(self, settings: dict) -> None:
            if settings:
                raise ValueError(f"remote: unknown {', '.join(settings)}")

        async def command(self, action: str, args: dict) -> dict:
            return {"did": action}

    async def scenario() -> None:
        door = daemon.door
        with pytest.raises(ActionRefused, match="'remote' is not one of human, engine"):
            door.set_player("black", "remote")
        door.add_player(Remote())
        with pytest.raises(ValueError, match="remote: unknown level"):
            door.set_player("black", "remote", {"level": 3})
        events = door.set_player("black", "remote")
        assert events == [{"t": events[0]["t"], "type": "players", "white": "human",
                           "black": "remote"}]  # fmt: skip
        assert door.snapshot().player_states["remote"] == {"connected": True}
        assert await door.command("remote", "seek", {}) == {"did": "seek"}
        await play(board, daemon, SCHOLAR[:1])
        assert door.snapshot().awaiting == "remote"
        with pytest.raises(ActionRefused, match="illegal move e2e4"):
            door.expect("e2e4")
        door.expect("e7e5")
        snap = door.snapshot()
        assert snap.expected == "e7e5" and snap.lights.colours[square("e7")] == "c"
        await carry(board, daemon, "d7", "d5")  # the wrong piece: out of sync, not a move
        await until(lambda: not door.snapshot().in_sync)
        await carry(board, daemon, "d5", "d7")
        await until(lambda: door.snapshot().in_sync)
        await play(board, daemon, SCHOLAR[1:2])
        assert door.snapshot().moves == ("e4", "e5")

    run(daemon, scenario)


def test_the_board_is_not_held_up_by_a_starting_daemon_snapshot(tmp_path: Path) -> None:
    """The starting pattern shows until the game is loaded; then the board state is ok."""
    daemon, _board = make_daemon(tmp_path)
    assert daemon.lights.pattern is STARTING_FRAME

    async def scenario() -> None:
        assert daemon.door.snapshot().board_state == "ok"

    run(daemon, scenario)


def test_a_new_game_on_the_last_games_pieces_waits_for_them_and_a_side_resigns(
    tmp_path: Path,
) -> None:
    """Issue 34: a new game from the start position begun (with its options) on pieces left
    as after 1. e4 does not read that pawn as its first move: it waits, as after the
    new_game button, until all 32 stand home, and is then the same stored game; either side
    may resign, whoever is to move."""
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        await play(board, daemon, SCHOLAR[:1])
        door.resign("white")  # Black is to move
        snap = door.snapshot()
        assert (snap.result, snap.winner, snap.termination) == ("0-1", "black", "resignation")
        with pytest.raises(ActionRefused, match="is not one of white, black"):
            door.resign("nobody")
        events = door.new_game(options={"clock": "3+2"})
        assert [e["type"] for e in events][-1] == "setup"  # kind by kind (arbiter/setup.py)
        snap = door.snapshot()
        game = snap.game_id
        assert (game, snap.setup_pending, snap.moves, snap.options["clock"]) == (2, True, (), "3+2")
        await asyncio.sleep(0.6)  # longer than the settle time: e4 stands, and is no move
        assert door.snapshot().moves == () and door.snapshot().setup_pending
        await carry(board, daemon, "e4", "e2")
        await until(lambda: not door.snapshot().setup_pending)
        snap = door.snapshot()
        assert (snap.game_id, snap.moves, snap.in_sync) == (game, (), True)
        await play(board, daemon, SCHOLAR[:1])
        assert door.snapshot().moves == ("e4",)

    run(daemon, scenario)
    with Store.open(tmp_path / "g.sqlite") as store:
        assert [(g.id, g.result, g.plies) for g in store.games()] == [(1, "0-1", 1), (2, "*", 1)]
        assert store.game(2).options["clock"] == "3+2"
        assert store.game(1).options.get("clock", "none") == "none"  # its own kept
