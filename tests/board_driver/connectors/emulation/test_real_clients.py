"""The conformance proof: other projects' drivers, not our reading of the protocols.

PicoChess's DGT board driver and python-mchess's ChessLink driver run against
``magboard run --sim --script -`` over a linked pair of pseudo-terminals, while a game of
``selfplay.pgn`` is played by hand (see ``real_clients.py``). After every move the daemon
has stored it and the driver has read the game's position (python-mchess has also
recognised the move itself, from the legal moves it was given, or a move whose position
the board really held for the pass time: a slide the script made, held up on a busy
machine, as the daemon's own trace shows; see ``Result.notes``); every few moves the
driver's LED command lights the move's two squares on our LEDs, and its "off" puts them
out. The drivers are fetched and kept outside this repository: without them these skip
(the recorded conversations are replayed in every run: ``test_replay.py``).
"""

from __future__ import annotations

import shutil

import pytest

from tests.board_driver.connectors.emulation.real_clients import CLIENTS, missing, play

pytestmark = pytest.mark.skipif(shutil.which("socat") is None, reason="socat is not installed")


def _skip_without(protocol: str) -> None:
    why = missing(protocol)
    if why:
        pytest.skip(f"{CLIENTS[protocol]['name']}: {why}")


@pytest.mark.parametrize("protocol", ["dgt", "chesslink"])
def test_the_real_driver_follows_the_first_moves_of_a_game(protocol, tmp_path):
    _skip_without(protocol)
    result = play(protocol, 52, 3, tmp_path, led_every=3, plies=6)
    assert not result.problems, result.problems
    assert (
        len(result.moves) == 6
        and result.led_checks
        and all(c.endswith(": lit") for c in result.led_checks)
    )


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["dgt", "chesslink"])
@pytest.mark.parametrize(
    ("game", "seed"),
    [
        (52, 7),  # 129 plies: en passant, castling on both sides, a promotion
        (30, 9),  # 106 plies: an under-promotion
    ],
)
def test_the_real_driver_reads_every_move_of_a_whole_game(protocol, game, seed, tmp_path):
    _skip_without(protocol)
    result = play(protocol, game, seed, tmp_path)
    assert not result.problems, result.problems
    assert result.client_fen == result.final_fen
    assert all(c.endswith(": lit") for c in result.led_checks) and result.led_checks
    if protocol == "chesslink":
        assert all(result.driver_moves), result.driver_moves
