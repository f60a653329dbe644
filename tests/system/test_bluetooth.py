"""Phones on the board over Bluetooth LE, through the real BlueZ on a virtual radio.

Two machines, as in life: the board's, where BlueZ's ``btvirt`` makes an emulated LE radio
with the board's controller on the kernel's virtual HCI driver and the real ``bluetoothd``
runs it (``guest/boot/bluetooth.sh``); and the phone's, its own kernel and bluetoothd, whose
controller is another of btvirt's on the same radio, reaching it as a serial line
(``harness/wires.py``). The installed service advertises the board as a DGT Pegasus, a
Millennium board or a Chessnut Air; ``guest/ble_game.py``, a phone's app written on a real
BLE client library (``bleak``), scans, connects, subscribes and plays a whole game of
``selfplay.pgn`` into the board (through the board's page, across the machines' network),
reading the board after every move, lighting squares with the protocol's LED commands, and
disconnecting in the middle of the game and coming back. Other projects' drivers play too
when they are checked out here (python-mchess's for Millennium, ChessnutPy's for Chessnut);
the Chessnut game with ChessnutPy is recorded as a fixture for the default suite when
``MAGBOARD_RECORD_FIXTURES`` names a directory.

Why two machines: with both ends in one bluetoothd (btvirt's two controllers in one
kernel, as first built) bleak connected and bluetoothd dropped the link before the services
resolved, every time ("Device ... is already connected", "No matching connection for
device"). One bluetoothd as both central and peripheral of one link is no user's setup; our
reading of its log is that, busy with the board's end of the new link, it took the app's
ATT connection before the kernel's "Device Connected" event, and bleak, never told the
device was connected, gave up (not proven). With a phone's own bluetoothd, which has only
its own end to see to, the same games pass.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest

from tests.conftest import SHARED_DATA
from tests.system.harness.wires import BOARD_ADDRESS
from tests.system.steps import journal, journal_cursor, wait_active, wait_until

CONFIG = "/etc/magboard/config.toml"
CLIENT = "/opt/ble-client/bin/python"
TOKEN = "bluetooth-system-test"
PAGE = f"http://{BOARD_ADDRESS}:8080"
BOARD_CONFIG = """\
[sensing]
backend = "sim"

[leds]
backend = "sim"

[game]
touch_move = "off"

[store]
path = "/var/lib/magboard/bluetooth.sqlite"

[sim]
state_file = "/var/lib/magboard/bluetooth-sim.json"

[web]
host = "0.0.0.0"
port = 8080
token = "{token}"

[emulation]
protocol = "{protocol}"
transport = "ble"
trace = "{trace}"
"""
#: The emulation's trace (every byte in and out, every board event): a transcript.
TRACE = "/var/lib/magboard/emulation-trace.jsonl"
#: Whole games of selfplay.pgn (index): castling, captures, a promotion in each (two, one
#: of them Black's, and 20 captures in the Chessnut game).
GAMES = {"pegasus": 69, "chesslink": 73, "chessnut": 28}
NAMES = {
    "pegasus": "DGT_PEGASUS_00001",
    "chesslink": "MILLENNIUM CHESS",
    "chessnut": "Chessnut Air",
}
#: python-mchess's own protocol code, when it is checked out here (outside the repository:
#: tests/board_driver/connectors/emulation/fixtures/README.md says how).
MCHESS = Path(os.environ.get("MAGBOARD_EXT", "/work/ext")) / "python-mchess" / "mchess"
MCHESS_FILES = ("chess_link.py", "chess_link_agent.py", "chess_link_protocol.py")
#: ChessnutPy's Chessnut Air driver (staubsauger/ChessnutPy), when it is checked out here
#: (``fixtures/README.md`` in tests/board_driver/connectors/emulation says how).
CHESSNUTPY = Path(os.environ.get("MAGBOARD_EXT", "/work/ext")) / "ChessnutPy"
CHESSNUTPY_FILES = ("ChessnutAir.py", "ChessnutAir_Helpers/constants.py")
FIXTURES = Path(__file__).resolve().parents[1] / "board_driver/connectors/emulation/fixtures"


def game_file(index: int) -> dict:
    """The game's moves with the lifts and places that make them (a capture's victim
    lifted first on even plies, the mover first on odd ones; castling king first)."""
    with open(SHARED_DATA / "selfplay.pgn") as pgn:
        for _ in range(index):
            chess.pgn.skip_game(pgn)
        game = chess.pgn.read_game(pgn)
    assert game is not None
    board, moves = game.board(), []
    for ply, move in enumerate(game.mainline_moves()):
        frm, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
        if board.is_castling(move):
            rook_from, rook_to = {"g1": ("h1", "f1"), "c1": ("a1", "d1"),
                                  "g8": ("h8", "f8"), "c8": ("a8", "d8")}[to]  # fmt: skip
            steps = [["lift", frm], ["place", to], ["lift", rook_from], ["place", rook_to]]
        elif board.is_en_passant(move):
            victim = chess.square_name(move.to_square + (-8 if board.turn else 8))
            steps = [["lift", frm], ["place", to], ["lift", victim]]
        elif board.is_capture(move):
            first = [["lift", to], ["lift", frm]] if ply % 2 == 0 else [["lift", frm], ["lift", to]]
            steps = [*first, ["place", to]]
        else:
            steps = [["lift", frm], ["place", to]]
        entry = {"uci": move.uci(), "san": board.san(move), "steps": steps}
        if move.promotion and move.promotion != chess.QUEEN:
            entry["choose"] = chess.piece_symbol(move.promotion)
        board.push(move)
        entry["fen"] = board.fen()
        moves.append(entry)
    return {"index": index, "moves": moves}


def controllers(machine) -> list[str]:
    """The controllers a machine's bluetoothd has (their addresses)."""
    listed = machine.run("bluetoothctl", "list", timeout=30).stdout
    return [line.split()[1] for line in listed.splitlines() if line.startswith("Controller")]


@pytest.fixture(scope="module")
def bluetooth(machine, installed, phone):
    """The board's controller under the board's bluetoothd; the phone's, from the same radio,
    attached under the phone's own bluetoothd; the app's venv made; the board's config put
    back afterwards. The board's and the phone's addresses."""
    # Under emulation the kernel's first reset of a new controller can still time out before
    # btvirt answers it (dmesg: "hci0: Opcode 0x0c03 failed: -110"; guest/boot/bluetooth.sh
    # makes it rare): that controller never reaches bluetoothd. btvirt started again makes it
    # anew (before the phone's controller hangs on its radio).
    _until_up(machine, lambda: controllers(machine), "the board's bluetoothd to have its "
              "controller", again=lambda: machine.run("systemctl", "restart", "btvirt",
                                                      "radio-relay", timeout=60))  # fmt: skip
    # The phone's controller, once the board's end of the radio is there (guest/radio_relay.py).
    wait_until(lambda: "active" in machine.run("systemctl", "is-active", "radio-relay").stdout,
               60, "the radio's relay in the board's machine")  # fmt: skip

    def attach() -> None:
        phone.run("systemctl", "stop", "radio", timeout=60)
        phone.run("systemd-run", "--unit=radio", "btattach", "-B", "/dev/ttyS1", "-P", "h4",
                  check=True)  # fmt: skip

    attach()
    _until_up(phone, lambda: controllers(phone), "the phone's bluetoothd to have its controller",
              again=attach)  # fmt: skip
    wait_until(lambda: phone.run("systemctl", "show", "-P", "ActiveState",
                                 "ble-client-venv").stdout.strip() != "activating",
               900, "the phone's app venv")  # fmt: skip
    made = phone.run("systemctl", "is-active", "ble-client-venv").stdout.strip()
    assert made == "active", phone.run("journalctl", "-u", "ble-client-venv", "--no-pager").stdout
    before = machine.run("cat", CONFIG).stdout
    yield controllers(machine)[0], controllers(phone)[0]
    if before:
        machine.write(CONFIG, before)
    machine.run("systemctl", "restart", "magboard", timeout=300)


def _until_up(side, check, what: str, again, attempts: int = 4) -> None:
    """``check()`` true within a minute, with ``again()`` between attempts."""
    for attempt in range(1, attempts + 1):
        try:
            wait_until(check, 60, what)
            return
        except AssertionError:
            if attempt == attempts:
                dmesg = side.sh("dmesg | grep -i -E 'bluetooth|hci' | tail -8").stdout
                raise AssertionError(f"never {what}:\n{dmesg}") from None
            again()


def start_board(machine, phone, protocol: str) -> None:
    """The installed service as a Bluetooth LE board of ``protocol``, on a fresh store and a
    fresh trace (Chessnut's games are traced); the phone meets it anew."""
    trace = TRACE if protocol == "chessnut" else ""
    machine.write(CONFIG, BOARD_CONFIG.format(token=TOKEN, protocol=protocol, trace=trace))
    machine.sh("rm -f /var/lib/magboard/bluetooth-sim.json /var/lib/magboard/bluetooth.sqlite* "
               f"{TRACE}")  # fmt: skip
    cursor = journal_cursor(machine)
    machine.run("systemctl", "restart", "magboard", check=True, timeout=300)
    wait_active(machine, timeout=300)
    # A new board for the app: the phone's bluetoothd forgets what it cached of the last one.
    phone.sh(
        "for d in $(busctl tree --list org.bluez | grep -E '^/org/bluez/hci0/dev_[0-9A-F_]+$'); do "
        "busctl call org.bluez /org/bluez/hci0 org.bluez.Adapter1 RemoveDevice o $d; done"
    )
    # What the radio carried, on both sides, for a failure's report.
    for side in (machine, phone):
        side.run("systemctl", "stop", "btmon-capture", timeout=30)
        side.run("mkdir", "-p", "/run/ble")
        side.run("systemd-run", "--unit=btmon-capture", "sh", "-c",
                 "btmon > /run/ble/btmon.txt 2>&1", check=True)  # fmt: skip
    wait_until(
        lambda: "advertised as" in journal(machine, cursor),
        120,
        f"the service to advertise the {protocol} board",
    )


def play_game(machine, phone, protocol: str, *, disconnect_at: int, extra: tuple = ()) -> dict:
    game = game_file(GAMES[protocol])
    phone.write(f"/run/ble/{protocol}.json", json.dumps(game))
    try:
        report = phone.python(
            "ble_game.py", "--protocol", protocol, "--game", f"/run/ble/{protocol}.json",
            "--token", TOKEN, "--page", PAGE, "--disconnect-at", str(disconnect_at), *extra,
            python=CLIENT, timeout=1800,
        )  # fmt: skip
    except Exception as exc:
        seen = "\n".join(
            f"--- {name}: bluetoothd, the kernel, btmon\n" + side.sh(
                "journalctl -u bluetooth -b --no-pager | tail -20; echo; dmesg | tail -8; "
                "echo; grep -n -i -E 'disconnect|reason|error|fail' /run/ble/btmon.txt | tail -15"
            ).stdout
            for name, side in (("the board", machine), ("the phone", phone))
        )
        raise AssertionError(f"{exc}\n{seen}") from None
    report["game"] = game
    return report


def assert_whole_game(report: dict, name: str, board: str) -> None:
    """The app found the board by ``name`` at ``board``'s address, read the game's position
    after every move, the board stored every move, its LEDs reached the board's lights and
    went out, and it came back after ply 22 to the board as it was."""
    game = report["game"]
    assert report["found"]["name"] == name
    assert report["found"]["address"] == board
    assert not report["problems"], report["problems"]
    assert report["moves"] == len(game["moves"])
    assert report["stored"] == [m["san"] for m in game["moves"]]
    assert report["led_checks"] and all("lit, out" in c for c in report["led_checks"])
    assert report["reconnects"] == [{"after_ply": 22, "reading_matches": True, "stored": True}]


def test_the_board_and_the_phone_each_have_a_controller_on_the_emulated_radio(
    machine, phone, bluetooth
):
    board, app = bluetooth
    assert controllers(machine) == [board] and controllers(phone) == [app] and board != app


@pytest.mark.parametrize("protocol", ["pegasus", "chesslink", "chessnut"])
def test_an_app_on_a_phone_plays_a_whole_game_through_bluetoothd(
    machine, phone, bluetooth, protocol
):
    start_board(machine, phone, protocol)
    report = play_game(machine, phone, protocol, disconnect_at=20)
    assert_whole_game(report, NAMES[protocol], bluetooth[0])
    if protocol == "pegasus":
        assert report["opening"]["version"].startswith("1.")
    if protocol == "chessnut":
        # Positions whole (38 bytes, one a notification) on their own characteristic; the
        # acknowledgements, the battery and the version on the answers' characteristic.
        assert report["cut_positions"] == 0 and report["largest_notification"] == 38
        channels = {uuid[4:8]: kinds for uuid, kinds in report["channels"].items()}
        assert channels == {"8262": [0x01], "8273": [0x23, 0x28, 0x2A]}, channels
        assert report["opening"]["battery"] == [100, False]
        assert report["opening"]["version"].startswith("magboard ")
    # Each notification within the connection's MTU (BlueZ would cut a longer one short).
    assert report["largest_notification"] <= report["found"]["mtu"] - 3


def test_python_mchess_own_driver_on_bleak_plays_a_whole_game_through_bluetoothd(
    machine, phone, bluetooth
):
    if not all((MCHESS / name).exists() for name in MCHESS_FILES):
        pytest.skip(f"python-mchess is not checked out at {MCHESS}")
    for name in MCHESS_FILES:
        phone.write(f"/run/ble/mchess/{name}", (MCHESS / name).read_text())
    start_board(machine, phone, "chesslink")
    report = play_game(
        machine, phone, "chesslink", disconnect_at=20, extra=("--mchess", "/run/ble/mchess")
    )
    assert report["found"]["name"] == "MILLENNIUM CHESS"
    assert not report["problems"], report["problems"]
    assert report["moves"] == len(report["game"]["moves"])
    assert report["stored"] == [m["san"] for m in report["game"]["moves"]]
    assert report["led_checks"] and all("lit, out" in c for c in report["led_checks"])
    assert report["reconnects"] == [{"after_ply": 22, "reading_matches": True, "stored": True}]


def test_chessnutpy_own_driver_plays_a_whole_game_through_bluetoothd(machine, phone, bluetooth):
    if not all((CHESSNUTPY / name).exists() for name in CHESSNUTPY_FILES):
        pytest.skip(f"ChessnutPy is not checked out at {CHESSNUTPY}")
    for name in CHESSNUTPY_FILES:
        phone.write(f"/run/ble/chessnutpy/{name}", (CHESSNUTPY / name).read_text())
    start_board(machine, phone, "chessnut")
    report = play_game(
        machine, phone, "chessnut", disconnect_at=20, extra=("--chessnutpy", "/run/ble/chessnutpy")
    )
    game = report["game"]
    assert_whole_game(report, "Chessnut Air", bluetooth[0])  # found by ChessnutPy's own scan
    driver = report["driver"]
    assert driver["whole"] and report["largest_notification"] == 38
    read = [r["fen"] for r in driver["readings"]]
    unseen = {20}  # the first move played while the app was away
    for ply, move in enumerate(game["moves"]):
        if ply not in unseen:
            assert move["fen"].split()[0] in read, f"ChessnutPy never read {move['san']}"
    directory = os.environ.get("MAGBOARD_RECORD_FIXTURES")
    if directory:
        trace = [json.loads(line) for line in machine.run("cat", TRACE).stdout.splitlines()]
        record_fixture(Path(directory), game, report, trace, unseen)


def record_fixture(directory: Path, game: dict, report: dict, trace: list, unseen: set) -> None:
    """The ChessnutPy game as a fixture (``fixtures/README.md``): the emulation's trace in the
    board's machine and what the driver read in the phone's."""
    commit = (CHESSNUTPY / "COMMIT").read_text().strip()
    magboard = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=FIXTURES,
                              capture_output=True, text=True).stdout.strip()  # fmt: skip
    meta = {
        "protocol": "chessnut",
        "driver": "ChessnutPy",
        "repository": "https://github.com/staubsauger/ChessnutPy",
        "commit": commit,
        "files": list(CHESSNUTPY_FILES),
        "harness": "tests/system/guest/chessnutpy_view.py (with tests/system/guest/ble_game.py)",
        "command": "MAGBOARD_RECORD_FIXTURES=DIR .venv/bin/python -m pytest -m system "
        "tests/system/test_bluetooth.py -k chessnutpy",
        "transport": "Bluetooth LE: the installed service under the board's bluetoothd, the "
        "driver on bleak under the phone's bluetoothd, btvirt's emulated radio between",
        "game": f"selfplay.pgn game {game['index'] + 1} (index {game['index']}), lifts and "
        "places from tests/system/test_bluetooth.py's game_file",
        "touch_move": "off",
        "moves": [m["san"] for m in game["moves"]],
        "unseen": sorted(unseen),
        "magboard": magboard,
        "mtu": report["found"]["mtu"],
        "problems": report["problems"],
        # The emulated machine on a busy host: a timer, or the daemon between a command and
        # its answer, held up for up to 1.7 s in the first recording (the mean 49 ms).
        "time_slack_ms": 2000,
        "notes": [
            "the app left after ply 20 and came back after ply 22 (a new connection)",
            "timed in an emulated machine (TCG) on a busy host: the replay allows 2 s",
        ],
    }
    driver = [{"t": r["t"], "fen": r["fen"]} for r in report["driver"]["readings"]]
    path = directory / "chessnut-chessnutpy.json"
    path.write_text(json.dumps({"meta": meta, "trace": trace, "driver": driver}) + "\n")
