"""Chess960 through the running board (issue 35): a game started from the config or
through the door (a start position by number, at random, or from an X-FEN or Shredder-FEN),
its castling made as FIDE recommends on the simulated board, stored with its variant,
exported with ``Variant``, ``SetUp`` and ``FEN`` (python-chess reads it back), rebuilt after
a restart, and the next game set up on the board of the same kind. In process."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from pathlib import Path

import chess
import chess.pgn
import pytest

import rules
from board_driver.door import ActionRefused
from board_driver.physical.leds import Renderer, SimulatedLeds
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.physical.squares import square
from board_driver.service.config import parse_config
from board_driver.service.daemon import Daemon, Hardware
from board_driver.service.notify import Notifier
from board_driver.service.store import Store, game_pgn
from tests.board_driver.players.puzzles.test_puzzles_daemon import set_up
from tests.board_driver.service.sim_daemon import until

# Chess960 position 3, BQNNRKRB: the king on f1 castles short by swapping with its g1 rook.
POSITION_3 = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"
KNIGHTS_OUT = [("d1", "e3"), ("d8", "e6"), ("c1", "d3"), ("c8", "d6")]


def make_daemon(tmp_path: Path, game: str = "") -> tuple[Daemon, SimulatedBoard]:
    config = parse_config(
        f'[sensing]\nbackend = "sim"\n[leds]\nbackend = "sim"\n[web]\nenabled = false\n'
        f'[store]\npath = "{tmp_path / "g.sqlite"}"\n[game]\n{game}'
    )
    board = SimulatedBoard()
    hardware = Hardware(board, SimulatedLeds(), Renderer().render, sim_board=board)
    return Daemon(config, hardware, notifier=Notifier(environ={})), board


def run(daemon: Daemon, scenario: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        task = asyncio.create_task(daemon.run())
        try:
            await until(lambda: daemon.tracker is not None and daemon.lights.pattern is None)
            await scenario()
        finally:
            daemon.stop()
            assert await asyncio.wait_for(task, 10) == 0

    asyncio.run(main())


def sensed(daemon: Daemon, name: str) -> bool:
    return bool(daemon.intake.debouncer.stable >> square(name) & 1)


async def lift(board: SimulatedBoard, daemon: Daemon, name: str) -> None:
    board.lift(square(name))
    await until(lambda: not sensed(daemon, name))  # taken by the daemon (debounced)


async def place(board: SimulatedBoard, daemon: Daemon, name: str) -> None:
    board.place(square(name))
    await until(lambda: sensed(daemon, name))


async def play(board: SimulatedBoard, daemon: Daemon, moves: list[tuple[str, str]]) -> None:
    for from_, to in moves:
        before = len(daemon.tracker.game.moves)
        await lift(board, daemon, from_)
        await place(board, daemon, to)
        await until(lambda b=before: len(daemon.tracker.game.moves) == b + 1)


async def castle_by_swapping(board: SimulatedBoard, daemon: Daemon, king: str, rook: str) -> None:
    """The king lifted first and held while the rook takes its square, then the king set
    down where the rook stood (FIDE Guidelines II.3): the squares filled are as before."""
    before = len(daemon.tracker.game.moves)
    await lift(board, daemon, king)
    await lift(board, daemon, rook)
    await place(board, daemon, king)
    await place(board, daemon, rook)
    await until(lambda: len(daemon.tracker.game.moves) == before + 1)


def test_a_chess960_game_from_the_config_is_played_stored_exported_and_rebuilt(
    tmp_path: Path,
) -> None:
    daemon, board = make_daemon(tmp_path, 'variant = "chess960"\nchess960_position = 3\n')

    async def scenario() -> None:
        snap = daemon.door.snapshot()
        assert (snap.variant, snap.chess960, snap.start_fen) == ("chess960", 3, POSITION_3)
        assert snap.in_sync  # every Chess960 array stands on the squares of the standard one
        await play(board, daemon, KNIGHTS_OUT)
        await castle_by_swapping(board, daemon, "f1", "g1")
        await castle_by_swapping(board, daemon, "f8", "g8")
        snap = daemon.door.snapshot()
        assert snap.moves[-2:] == ("O-O", "O-O") and snap.ucis[-2:] == ("f1g1", "f8g8")
        assert snap.in_sync and snap.position().fen() == snap.fen
        assert snap.game().position.fen() == snap.fen  # the door rebuilds it by its rules

    run(daemon, scenario)
    judge = chess.Board(POSITION_3, chess960=True)
    for san in ["Ne3", "Ne6", "Nd3", "Nd6", "O-O", "O-O"]:
        judge.push_san(san)
    with Store.open(tmp_path / "g.sqlite") as store:
        stored = store.game(1)
        pgn = game_pgn(stored)
    assert stored.variant == "chess960" and stored.start_fen == POSITION_3
    assert '[Variant "Chess960"]' in pgn and '[SetUp "1"]' in pgn
    assert f'[FEN "{POSITION_3}"]' in pgn
    read = chess.pgn.read_game(io.StringIO(pgn))
    assert read is not None and read.end().board().fen() == judge.fen()

    again, _board = make_daemon(tmp_path)  # the config now says standard: the game is kept

    async def after_restart() -> None:
        snap = again.door.snapshot()
        assert (snap.game_id, snap.variant, snap.chess960) == (1, "chess960", 3)
        assert snap.fen == judge.fen() and snap.moves[-1] == "O-O"

    run(again, after_restart)


def test_new_games_through_the_door_by_number_at_random_and_from_a_fen(tmp_path: Path) -> None:
    daemon, _board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        assert door.snapshot().variant == "standard" and door.snapshot().chess960 is None
        events = door.new_game(variant="chess960", chess960=123)
        assert events[0]["type"] == "new_game"
        assert (events[0]["variant"], events[0]["chess960"]) == ("chess960", 123)
        assert door.snapshot().chess960 == 123
        door.new_game(variant="chess960")  # at random
        drawn = door.snapshot().chess960
        assert door.snapshot().variant == "chess960" and 0 <= drawn <= 959
        shredder = POSITION_3.replace("KQkq", "GEge")
        door.new_game(shredder, variant="chess960")
        assert (door.snapshot().chess960, door.snapshot().start_fen) == (3, POSITION_3)
        for bad, says in [
            ({"variant": "chess960", "chess960": 960}, "0 to 959"),
            ({"variant": "standard", "chess960": 5}, 'for variant "chess960"'),
            ({"variant": "crazyhouse"}, "variant"),
            ({"fen": shredder}, "FEN castling"),  # a Shredder-FEN is no standard position
        ]:
            with pytest.raises(ActionRefused, match=says):
                door.new_game(**bad)
        assert door.snapshot().start_fen == POSITION_3  # a refusal changes nothing
        # The board's new-game button starts the same kind of game: Chess960, drawn anew.
        door.new_game(variant="chess960", chess960="random")
        door.press("new_game")
        # The standard array still stands: the drawn array's back ranks are lit kind by kind.
        await until(lambda: door.snapshot().setup_pending and door.snapshot().setup is not None)
        setup = door.snapshot().setup
        assert setup is not None
        drawn_array = rules.Position.from_fen(setup["fen"], variant="chess960")
        assert drawn_array.chess960_number() is not None
        await set_up(daemon, _board)
        assert door.snapshot().variant == "chess960" and door.snapshot().moves == ()
        door.new_game(variant="standard")
        door.press("new_game")
        await until(lambda: door.snapshot().variant == "standard")
        assert door.snapshot().start_fen == chess.STARTING_FEN

    run(daemon, scenario)
    with Store.open(tmp_path / "g.sqlite") as store:
        variants = [store.game(g.id).variant for g in store.games()]
    assert variants[:2] == ["standard", "chess960"] and variants[-1] == "standard"


def test_a_chess960_new_game_in_the_hands_journal_is_replayed_as_chess960() -> None:
    """A new game set beside the board (the page, Lichess) is a ``newgame`` line of the
    hands journal, replayed at the next start when the store could not take it: a Chess960
    one carries its variant with its options, so that its castling (here the king taking
    its rook at once, start position 3) replays; a line without one (an older magboard's)
    is standard chess as before."""
    import rules
    from board_driver.arbiter.tracker import Timing
    from board_driver.service.hands_journal import Decided, Kept
    from board_driver.service.journal_lines import newgame_line
    from board_driver.service.replay import replay_journal

    position_3 = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"

    def replayed(line: str):
        kept = Kept(1, "T", 0, "", None, (Decided(100, line),), start_fen=rules.STARTING_FEN,
                    line=())  # fmt: skip
        return replay_journal(kept, rules.Game(), timing=Timing())

    options = {"variant": "chess960", "hints": "true"}
    done = replayed(newgame_line(position_3, ["f1g1"], False, options))
    (new_game,) = [e for e in done.events if e["type"] == "new_game"]
    assert new_game["variant"] == "chess960" and new_game["chess960"] == 3
    game = done.tracker.game
    assert game.start.variant == "chess960" and game.san_moves() == ["O-O"]
    assert done.tracker.options.hints and done.warnings == []

    done = replayed(newgame_line(rules.STARTING_FEN, ["e2e4"], False, {"hints": "true"}))
    assert done.tracker.game.start.variant == "standard"
    assert done.tracker.game.san_moves() == ["e4"]


def test_a_chess960_game_begun_on_the_last_games_pieces_waits_for_its_array(
    tmp_path: Path,
) -> None:
    """A Chess960 game begun through the door while the last game's pieces stand elsewhere
    reads none of them as a move: it waits, lit to its own array, and begins (the same
    game, no other drawn) once every square of the start position is filled."""
    daemon, board = make_daemon(tmp_path)

    async def scenario() -> None:
        door = daemon.door
        await play(board, daemon, [("e2", "e4")])
        events = door.new_game(variant="chess960", chess960=3)
        lit = [e for e in events if e["type"] == "setup"]
        assert lit and lit[0]["fen"] == POSITION_3
        game_id = door.snapshot().game_id
        assert door.snapshot().setup_pending
        await lift(board, daemon, "d2")  # a move of the old position, not of this game
        await place(board, daemon, "d4")
        await lift(board, daemon, "d4")
        await place(board, daemon, "d2")
        assert door.snapshot().moves == () and door.snapshot().setup_pending
        await set_up(daemon, board)  # the back ranks kind by kind, the pawn home
        snap = door.snapshot()
        assert (snap.game_id, snap.start_fen, snap.chess960) == (game_id, POSITION_3, 3)
        assert snap.moves == () and snap.in_sync
        await play(board, daemon, KNIGHTS_OUT[:1])
        assert door.snapshot().moves == ("Ne3",)

    run(daemon, scenario)
