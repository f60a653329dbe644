"""A game played through ``magboard run --sim --script -`` while the daemon is SIGKILLed at
random moments (at least 20 times), restarted each time on the same store and simulated board.

What a power cut must not do: lose a move the daemon had stored (it logs ``move N ... stored``
only after the commit), or end with any other game than the one the hands played.
The simulated board's pieces live in their own file, as real pieces outlive a power cut:
after each restart the test reads them to know which of its events the board saw, and
goes on from there.
"""

from __future__ import annotations

import io
import os
import random
import time

import chess
import chess.pgn

from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
    run_magboard,
    write_config,
)
from tests.board_driver.service.kill_hands import stored_moves

# 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. d3 Be7 5. O-O O-O 6. Nc3 d6 7. Ng5 Na5 8. Nxf7 Nxc4:
# plain moves, captures (the victim lifted first) and castling (king first).
GAME = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "d3", "Be7"]
GAME += ["O-O", "O-O", "Nc3", "d6", "Ng5", "Na5", "Nxf7", "Nxc4"]
MIN_KILLS = 20


def hand_events(sans: list[str]) -> tuple[list[list[str]], list[str]]:
    """The lift/place lines a hand makes for each move, and the moves in UCI."""
    board = chess.Board()
    per_move, ucis = [], []
    for san in sans:
        move = board.parse_san(san)
        frm, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
        if board.is_castling(move):
            short = chess.square_file(move.to_square) == 6
            rook_from, rook_to = (
                (f"h{frm[1]}", f"f{frm[1]}") if short else (f"a{frm[1]}", f"d{frm[1]}")
            )
            lines = [f"lift {frm}", f"place {to}", f"lift {rook_from}", f"place {rook_to}"]
        elif board.is_capture(move):
            lines = [f"lift {to}", f"lift {frm}", f"place {to}"]
        else:
            lines = [f"lift {frm}", f"place {to}"]
        per_move.append(lines)
        ucis.append(move.uci())
        board.push(move)
    return per_move, ucis


def occupancy_after(lines: list[str], start: int = 0xFFFF00000000FFFF) -> int:
    board = start
    for line in lines:
        word, sq = line.split()
        bit = 1 << chess.parse_square(sq)
        board = board & ~bit if word == "lift" else board | bit
    return board


def resume_point(daemon: DaemonProcess, boards: list[int], move_starts: list[int], seed) -> int:
    """Where to go on in the event stream after a restart, as a player would.

    The board may stand anywhere in the move that was being made when the power went.
    Half a move: the daemon takes it as on its way, and the player finishes it. A whole
    move not yet judged: the daemon judges it now, unless the board cannot tell what
    happened (a capture: the victim's square looks as full as before), and a position it
    cannot follow is lit to be put right. Then the player puts the pieces back where they
    stood after the last stored move and makes the move again.
    """
    directory = daemon.directory
    pieces = daemon.sim_pieces()
    assert pieces in boards, f"the simulated board is in no state of the game: {pieces:016x}"
    here = boards.index(pieces)
    ends = [*move_starts[1:], len(boards) - 1]
    committed = len(stored_moves(directory))
    if committed == len(move_starts):  # every move stored: the game is over
        return here
    if here == move_starts[committed]:
        return here
    if here == ends[committed]:
        # A whole move made: the daemon judges it now, unless it is a capture (three events:
        # the board cannot see it). Wait for that judgement, however loaded the machine is:
        # putting the pieces back before it comes would be a take-back of the move.
        capture = ends[committed] - move_starts[committed] == 3
        if not capture:
            ply = committed + 1
            assert daemon.wait_for(
                lambda: any(p == ply for p, _san, _uci in daemon.moves_logged()), timeout=15
            ), f"seed {seed}: a whole move stood on the board, not judged\n{daemon.output()}"
        committed = len(stored_moves(directory))
    waiting = "waiting for the board to match" in daemon.output()
    start = move_starts[committed] if committed < len(move_starts) else len(boards) - 1
    if start <= here < ends[min(committed, len(ends) - 1)] and not waiting:
        return here  # on the way: finish the move
    if here == start:
        return here
    wanted = boards[start]
    lines = ["gap 60"]
    lines += [f"lift {chess.square_name(sq)}" for sq in chess.SquareSet(pieces & ~wanted)]
    lines += [f"place {chess.square_name(sq)}" for sq in chess.SquareSet(wanted & ~pieces)]
    print(f"put back: board at event {here}, the stored game at move {committed}")
    daemon.send(*lines, "wait 350")
    assert daemon.wait_for(lambda: daemon.sim_pieces() == wanted, timeout=5)
    time.sleep(0.5)  # the board still: judged as the stored position again
    assert len(stored_moves(directory)) == committed, (
        f"seed {seed}: putting the pieces back changed the stored game\n{daemon.output()}"
    )
    return start


def test_sigkill_at_random_moments_loses_no_stored_move_and_the_game_survives(tmp_path):
    seed = int(os.environ.get("MAGBOARD_KILL_SEED", "20261122"))
    rng = random.Random(seed)
    write_config(tmp_path)
    per_move, ucis = hand_events(GAME)
    # The event stream: a still moment (longer than the settle time) before each move.
    stream: list[str] = []
    move_starts: list[int] = []
    for lines in per_move:
        move_starts.append(len(stream))
        stream.extend(lines)
    starts_move = set(move_starts)
    boards = [occupancy_after(stream[:i]) for i in range(len(stream) + 1)]
    assert len(set(boards)) == len(boards), "the test game must not repeat an occupancy"

    logged: dict[int, str] = {}  # ply -> uci, every move the daemon said it had stored
    kills = 0
    position = 0  # next event of the stream
    started = time.monotonic()
    while position < len(stream) or kills < MIN_KILLS:
        daemon = DaemonProcess(tmp_path)
        daemon.wait_ready()
        # Every move logged as stored before any kill is in the store, at its ply.
        stored = stored_moves(tmp_path)
        for ply, uci in logged.items():
            assert ply <= len(stored) and stored[ply - 1] == uci, (
                f"kill {kills} (seed {seed}): move {ply} {uci} was stored before the kill, "
                f"the store now has {stored}\n{daemon.output()}"
            )
        # The pieces tell which of the events sent before the kill the board saw.
        position = resume_point(daemon, boards, move_starts, seed)

        count = rng.choice([0, 1, 2, 2, 3, 4])
        lines = ["gap 60"]
        for i in range(position, min(position + count, len(stream))):
            if i in starts_move:
                lines.append("wait 350")  # the board still: the move before is judged
            lines.append(stream[i])
        daemon.send(*lines)
        time.sleep(rng.uniform(0.0, 1.0))
        daemon.kill()
        kills += 1
        for ply, _san, uci in daemon.moves_logged():
            logged[ply] = uci
        assert time.monotonic() - started < 120, f"no end: {kills} kills, at event {position}"

    # The last run: let the daemon finish judging, then stop it cleanly.
    daemon = DaemonProcess(tmp_path)
    daemon.wait_ready()
    assert daemon.sim_pieces() == boards[-1]
    assert daemon.wait_for(lambda: len(stored_moves(tmp_path)) == len(ucis), timeout=10), (
        f"stored {stored_moves(tmp_path)}\n{daemon.output()}"
    )
    daemon.terminate()
    assert daemon.proc.returncode == 0

    print(f"{kills} kills in {time.monotonic() - started:.1f} s (seed {seed})")
    assert kills >= MIN_KILLS
    assert stored_moves(tmp_path) == ucis
    for ply, uci in logged.items():
        assert ucis[ply - 1] == uci
    pgn = run_magboard("pgn", "--config", str(daemon.config))
    assert pgn.returncode == 0, pgn.stderr
    game = chess.pgn.read_game(io.StringIO(pgn.stdout))
    assert [str(m) for m in game.mainline_moves()] == ucis
    games = run_magboard("games", "--config", str(daemon.config)).stdout
    assert len(games.strip().splitlines()) == 2, games  # one game, however many restarts


def test_a_mate_stored_without_its_result_is_finished_at_the_next_start(tmp_path) -> None:
    from board_driver.service.store import Store

    # The daemon stored the mating move and was killed before it stored the result.
    config = write_config(tmp_path)
    with Store.open(tmp_path / "games.sqlite") as store:
        game_id = store.new_game()
        line = [("f2f3", "f3"), ("e7e5", "e5"), ("g2g4", "g4"), ("d8h4", "Qh4#")]
        store.sync_moves(game_id, line)
    before = run_magboard("games", "--config", str(config))
    assert "* (on the board)" in before.stdout

    proc = DaemonProcess(tmp_path)
    try:
        proc.wait_ready(timeout=30)
    finally:
        proc.terminate()
    # A finished game is not "resumed": the log says what stands on the board.
    assert f"game {game_id} on the board, over at ply 4 (0-1, checkmate)" in proc.output()
    assert "resuming" not in proc.output()
    listed = run_magboard("games", "--config", str(config))
    assert listed.returncode == 0, listed.stderr
    assert "0-1 (checkmate)" in listed.stdout, listed.stdout
