"""Inside the phone's machine: a phone's app playing a whole game into the installed board
over Bluetooth LE, through the phone's own bluetoothd, the emulated radio and the board's.

The app is a real BLE client library (``bleak``) on ``--adapter`` (the phone's hci0): it
scans for the board by its service and name, connects, subscribes and speaks the board's
protocol as the public clients do (``--protocol pegasus``: dgtdriver's opening and Nordic
UART; ``chesslink``: python-mchess's opening, answers reassembled from notifications;
``chessnut``: Chessnut's API document, positions on one characteristic, answers on another). The
game is played into the board through the board's page (``--page``, across the machines'
network): its simulator API (``POST /api/sim``: lifts and places that go through the
daemon's sensing and debouncing); after every move the app's
view must show the game's position (a Pegasus app knows occupancy only: it recognises
the move among the legal ones, as DGT's app does), the daemon must have stored it; every
few moves the app lights the next move's squares and the daemon's LEDs must show them;
at ``--disconnect-at`` the app disconnects, two moves are played without it, and it comes
back to the board as it is.

Run with the client venv (bleak, python-chess)::

    /opt/ble-client/bin/python ble_game.py --protocol pegasus --game game.json \\
        --token T --page http://10.77.0.1:8080

Prints one JSON line: what it found, did and saw (``problems`` empty when all was well).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import sys
import tempfile
import threading
import time
import urllib.request
from typing import Any

import chess
from ble_views import ChessLinkView, ChessnutView, PegasusView, occupancy, pegasus_moves
from bleak import BleakClient, BleakScanner

SERVICES = {
    "pegasus": (
        "6e400001-b5a3-f393-e0a9-e50e24dcca9e",
        "6e400002-b5a3-f393-e0a9-e50e24dcca9e",
        "6e400003-b5a3-f393-e0a9-e50e24dcca9e",
    ),
    "chesslink": (
        "49535343-fe7d-4ae5-8fa9-9fafd205e455",
        "49535343-8841-43f4-a8d4-ecbe34729bb3",
        "49535343-1e4d-4bd9-ba61-23c647249616",
    ),
    "chessnut": (
        "1b7e8261-2877-41c3-b46e-cf057c562023",
        "1b7e8272-2877-41c3-b46e-cf057c562023",
        "1b7e8273-2877-41c3-b46e-cf057c562023",
    ),
}
#: Further characteristics the app subscribes to (a Chessnut board's position has its own).
ALSO_NOTIFY = {"chessnut": ("1b7e8262-2877-41c3-b46e-cf057c562023",)}
NAMES = {"pegasus": "DGT_PEGASUS", "chesslink": "MILLENNIUM CHESS", "chessnut": "Chessnut"}
VIEWS = {"pegasus": PegasusView, "chesslink": ChessLinkView, "chessnut": ChessnutView}


class MchessView:
    """python-mchess's own protocol code: its ``ChessLinkAgent`` (``chess_link_agent.py``,
    ``chess_link.py``, ``chess_link_protocol.py`` of domschl/python-mchess, passed in, not
    part of magboard) on our bleak transport (``chess_link_bleak.py``). Its view is the
    position its driver reads (``raw_board_position``); it also recognises each move
    itself among the legal moves it is given, as its agent does."""

    def __init__(self, directory: str, address: str, adapter: str) -> None:
        sys.path[:0] = [directory, os.path.dirname(os.path.abspath(__file__))]
        os.environ["MCHESS_BLEAK_ADAPTER"] = adapter
        os.chdir(tempfile.mkdtemp(prefix="mchess-"))
        config = {"transport": "chess_link_bleak", "address": address, "autodetect": False,
                  "orientation": True, "btle_iface": 0, "protocol_debug": False}  # fmt: skip
        with open("chess_link_config.json", "w") as file:
            json.dump(config, file)
        self.fen = ""
        self.moves: list[str] = []
        self.events: queue.Queue = queue.Queue()
        self.agent = None
        self.transport = None

    def start(self) -> None:
        """Blocking (python-mchess connects in its constructor): run it in a thread."""
        import chess_link_bleak
        from chess_link_agent import ChessLinkAgent

        self.agent = ChessLinkAgent(self.events, {"ply_vis_delay": 80, "max_plies_board": 3},
                                    timeout=30)  # fmt: skip
        self.transport = chess_link_bleak.LAST
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self) -> None:
        while True:
            event = self.events.get()
            if event.get("cmd") == "raw_board_position":
                self.fen = event["fen"].split()[0]
            elif event.get("cmd") == "move":
                self.moves.append(event["uci"])

    def ready(self) -> bool:
        return bool(self.fen)

    def board_fen(self) -> str:
        return self.fen

    def expect(self, board: chess.Board) -> None:
        """The legal moves, handed to the driver as its agent's caller does."""
        legal = {}
        for move in board.legal_moves:
            board.push(move)
            legal[self.agent.cl_brd.short_fen(board.fen())] = move.uci()
            board.pop()
        self.agent.set_valid_moves(board, legal)


# ------------------------------------------------------------------ the board's page


class Api:
    def __init__(self, page: str, token: str) -> None:
        self.base = page.rstrip("/")
        self.token = token

    def _post(self, action: str, body: dict) -> dict:
        request = urllib.request.Request(
            f"{self.base}/api/{action}", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=60) as reply:
            return json.loads(reply.read() or b"{}")

    def _state(self) -> dict:
        with urllib.request.urlopen(f"{self.base}/api/state", timeout=30) as reply:
            return json.loads(reply.read())

    async def post(self, action: str, body: dict) -> dict:
        return await asyncio.to_thread(self._post, action, body)

    async def state(self) -> dict:
        return await asyncio.to_thread(self._state)


# ------------------------------------------------------------------ the app


class App:
    def __init__(self, protocol: str, adapter: str, mchess: str = "", chessnutpy: str = "") -> None:
        self.protocol = protocol
        self.adapter = adapter
        self.mchess = mchess
        self.chessnutpy = chessnutpy
        self.service, self.write_uuid, self.notify_uuid = SERVICES[protocol]
        self.client: BleakClient | None = None
        self.view: Any = None
        self.found: dict[str, Any] = {}
        self.notifications = 0
        self.largest = 0
        #: The kinds of message (first byte) each characteristic carried, by UUID.
        self.channels: dict[str, set[int]] = {}

    async def connect(self, timeout: float = 60) -> None:
        if self.chessnutpy:
            await self._connect_chessnutpy()
            return

        def wanted(device, advertisement) -> bool:
            name = advertisement.local_name or device.name or ""
            return NAMES[self.protocol] in name and self.service in [
                u.lower() for u in advertisement.service_uuids
            ]

        device = await BleakScanner.find_device_by_filter(
            wanted, timeout=timeout, bluez={"adapter": self.adapter}
        )
        if device is None:
            raise SystemExit(json.dumps({"problems": ["no board found by the scan"]}))
        self.found = {"name": device.name, "address": device.address}
        if self.mchess:
            if self.view is None:
                self.view = MchessView(self.mchess, device.address, self.adapter)
                await asyncio.to_thread(self.view.start)
            else:
                await asyncio.to_thread(self.view.transport.come_back)
                self.view.fen = ""
                self.view.agent.cl_brd.get_position()  # what a reconnecting app asks
            await until(self.view.ready, 60, "python-mchess's first position")
            self.found["mtu"] = 23  # (bleak's own MTU is not python-mchess's business)
            return
        for attempt in range(3):  # as apps do: a connection can fail to come up
            self.client = BleakClient(device, timeout=60, bluez={"adapter": self.adapter})
            try:
                await self.client.connect()
                break
            except Exception as exc:
                self.found.setdefault("connect_failures", []).append(repr(exc))
                try:
                    await self.client.disconnect()
                except Exception:
                    pass
                if attempt == 2:
                    raise SystemExit(
                        json.dumps({"problems": [f"cannot connect: {exc!r}"], "found": self.found})
                    ) from None
                await asyncio.sleep(2)
        try:  # the MTU BlueZ negotiated (bleak asks for it only when told to)
            await self.client._backend._acquire_mtu()
        except Exception as exc:
            self.found["mtu_problem"] = repr(exc)
        self.found["mtu"] = self.client.mtu_size
        self.view = VIEWS[self.protocol]()
        for uuid in (*ALSO_NOTIFY.get(self.protocol, ()), self.notify_uuid):
            await self.client.start_notify(uuid, self._notified)
        for command in self.view.OPENING:
            data = command if isinstance(command, bytes) else ChessLinkView.command(command)
            await self.send(data)
        await until(self.view.ready, 30, "the board's first answers")

    async def _connect_chessnutpy(self) -> None:
        """ChessnutPy finds the board and connects itself (its own scan, by name)."""
        from chessnutpy_view import ChessnutPyView

        if self.view is None:
            self.view = ChessnutPyView(self.chessnutpy)
            await self.view.start()
        else:
            await self.view.come_back()
        await until(self.view.ready, 90, "ChessnutPy's first position")
        self.found = {**self.view.found, "mtu": await self.view.mtu()}

    def _notified(self, characteristic, data: bytearray) -> None:
        self.notifications += 1
        self.largest = max(self.largest, len(data))
        if data:
            self.channels.setdefault(str(characteristic.uuid), set()).add(data[0])
        self.view.feed(bytes(data))

    async def send(self, data: bytes) -> None:
        assert self.client is not None
        await self.client.write_gatt_char(self.write_uuid, data, response=True)

    async def show(self, board: chess.Board, uci: str) -> None:
        """The app shows a move with the board's LEDs."""
        if self.mchess:
            self.view.agent.visualize_variant(board, [uci], plies=1)
            return
        squares = [chess.parse_square(uci[:2]), chess.parse_square(uci[2:4])]
        if self.chessnutpy:
            self.view.show(squares)
            return
        await self.send(self.view.lights(squares))

    async def lights_off(self) -> None:
        if self.mchess:
            self.view.agent.cl_brd.set_led_off()
            return
        if self.chessnutpy:
            self.view.lights_off()
            return
        await self.send(self.view.OFF)

    async def disconnect(self) -> None:
        if self.mchess and self.view is not None:
            await asyncio.to_thread(self.view.transport.drop)
            return
        if self.chessnutpy and self.view is not None:
            await self.view.drop()
            return
        if self.client is not None:
            await self.client.disconnect()
            self.client = None


async def until(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        await asyncio.sleep(0.05)


async def wait_state(api: Api, check, timeout: float) -> dict | None:
    deadline = time.monotonic() + timeout
    while True:
        state = await api.state()
        if check(state):
            return state
        if time.monotonic() > deadline:
            return None
        await asyncio.sleep(0.2)


# ------------------------------------------------------------------ the game


class Player:
    """The app's side of the game: what its view shows against the game, move by move."""

    def __init__(self, app: App, game: dict) -> None:
        self.app = app
        self.game = game
        self.board = chess.Board()  # the app's own game (a Pegasus app names the pieces)
        self.problems: list[str] = []

    def reading_matches(self, fen: str) -> bool:
        view = self.app.view
        target = chess.Board(fen)
        if self.app.protocol == "pegasus":
            return view.occupied == occupancy(target)
        return view.board_fen() == target.board_fen()

    def follow(self, move: dict) -> None:
        """A Pegasus app recognises the move from what it saw (:func:`pegasus_moves`)."""
        if self.app.protocol != "pegasus":
            self.board.push(chess.Move.from_uci(move["uci"]))
            return
        fits = pegasus_moves(self.board, self.app.view)
        chosen = [m for m in fits if m.uci() == move["uci"]] or fits[:1]
        if len(fits) > 1 and {m.uci()[:4] for m in fits} != {move["uci"][:4]}:
            self.problems.append(f"{move['san']}: the occupancy fits {len(fits)} moves")
        if not chosen:
            self.problems.append(f"{move['san']}: no legal move fits the occupancy read")
            self.board = chess.Board(move["fen"])
            return
        # Several fit only for a promotion: the app asks its user, who names the piece.
        self.board.push(chosen[0])


async def play(args: argparse.Namespace) -> dict:
    with open(args.game) as file:
        game = json.load(file)
    api = Api(args.page, args.token)
    app = App(args.protocol, args.adapter, args.mchess, args.chessnutpy)
    if args.protocol == "chesslink":
        ChessLinkView.OFF = ChessLinkView.command("X")
    started = time.monotonic()
    report: dict[str, Any] = {"protocol": args.protocol, "led_checks": [], "reconnects": []}
    await app.connect()
    report["found"] = dict(app.found)
    if args.mchess:
        report["opening"] = {"python-mchess": app.view.fen}
    elif args.chessnutpy:
        report["opening"] = {"ChessnutPy": app.view.board_fen()}
    elif args.protocol == "chessnut":
        report["opening"] = {"battery": app.view.battery, "version": app.view.version}
    elif args.protocol == "pegasus":
        report["opening"] = {"version": app.view.version,
                             "trademark": app.view.trademark.splitlines()[:1]}  # fmt: skip
    else:
        report["opening"] = {"answers": app.view.answers[:3]}
    player = Player(app, game)
    if not player.reading_matches(chess.STARTING_FEN):
        player.problems.append("the first reading is not the start position")
    played = 0
    for index, move in enumerate(game["moves"]):
        if index < played:
            continue  # played while the app was away
        if args.leds_every and index % args.leds_every == 0:
            await check_lights(app, api, move, report, player)
        if index == args.disconnect_at:
            await app.disconnect()
            away = game["moves"][index : index + 2]
            for other in away:
                await api.post("sim", {"steps": other["steps"]})
                if other.get("choose"):
                    await api.post("choose", {"piece": other["choose"]})
            count = index + len(away)
            stored = await wait_state(api, lambda s, n=count: len(s["moves"]) >= n, 30)
            await app.connect()
            fen = away[-1]["fen"]
            ok = player.reading_matches(fen)
            report["reconnects"].append({"after_ply": index + len(away), "reading_matches": ok,
                                         "stored": stored is not None})  # fmt: skip
            if not ok:
                player.problems.append(f"after reconnecting the app reads something else ({fen})")
            for other in away:
                player.board.push(chess.Move.from_uci(other["uci"]))  # the app catches up
            played += len(away)
            continue
        if args.mchess:
            app.view.expect(player.board.copy())
        await api.post("sim", {"steps": move["steps"]})
        if move.get("choose"):
            await api.post("choose", {"piece": move["choose"]})
        stored = await wait_state(api, lambda s, n=index + 1: len(s["moves"]) >= n, 30)
        if stored is None:
            player.problems.append(f"ply {index + 1} {move['san']}: not stored by the board")
        try:
            await until(lambda f=move["fen"]: player.reading_matches(f), 20, "the position")
        except TimeoutError:
            player.problems.append(f"ply {index + 1} {move['san']}: the app reads otherwise")
        if args.mchess:
            try:
                await until(lambda u=move["uci"]: u in app.view.moves, 10, "the move recognised")
            except TimeoutError:
                player.problems.append(f"ply {index + 1} {move['san']}: python-mchess "
                                       f"recognised {app.view.moves[-1:]}")  # fmt: skip
        player.follow(move)
        if player.board.board_fen() != chess.Board(move["fen"]).board_fen():
            player.problems.append(f"ply {index + 1} {move['san']}: the app's game went astray")
            player.board = chess.Board(move["fen"])
        played = index + 1
        if len(player.problems) > 5:
            break
    state = await api.state()
    if args.mchess:
        counted = (app.view.transport.notifications, app.view.transport.largest)
    elif args.chessnutpy:
        counted = (app.view.driver.notifications, app.view.driver.largest)
    else:
        counted = (app.notifications, app.largest)
    report.update(
        moves=played,
        stored=list(state["moves"]),
        problems=player.problems,
        notifications=counted[0],
        largest_notification=counted[1],
        channels={uuid: sorted(kinds) for uuid, kinds in app.channels.items()},
        seconds=round(time.monotonic() - started, 1),
    )
    if args.chessnutpy:  # what the driver read and was told, for the test's transcript
        driver = app.view.driver
        report["driver"] = {"readings": driver.readings, "pieces": driver.pieces,
                            "whole": driver.whole}  # fmt: skip
    elif args.protocol == "chessnut":
        report["cut_positions"] = app.view.cut
    await app.disconnect()
    return report


async def check_lights(app: App, api: Api, move: dict, report: dict, player: Player) -> None:
    """The app shows the move with its LEDs; the daemon's lights show it; then off."""
    squares = [chess.parse_square(move["uci"][:2]), chess.parse_square(move["uci"][2:4])]
    if app.mchess:
        # python-mchess answers every status the board sends with its own LED command (the
        # squares that differ from its reference: none), which would put out the move shown
        # now: its start-up writes and their answers are let through first.
        await until(lambda: app.view.transport.quiet(1.0), 30, "python-mchess to be quiet")
    await app.show(player.board.copy(), move["uci"])

    def lit(state: dict, want: bool) -> bool:
        colours = state["leds"]["colours"]
        return all((colours[sq] == "c") == want for sq in squares)

    on = await wait_state(api, lambda s: lit(s, True), 10)
    await app.lights_off()
    off = await wait_state(api, lambda s: lit(s, False), 10)
    report["led_checks"].append(f"{move['uci']}: {'lit' if on else 'NOT lit'}, "
                                f"{'out' if off else 'NOT out'}")  # fmt: skip
    if not (on and off):
        player.problems.append(f"{move['uci']}: the app's LED command {report['led_checks'][-1]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", choices=sorted(SERVICES), required=True)
    parser.add_argument("--game", required=True, help="the moves, with their lifts and places")
    parser.add_argument("--token", required=True)
    parser.add_argument("--page", default="http://127.0.0.1:8080", help="the board's page")
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--leds-every", type=int, default=8)
    parser.add_argument("--disconnect-at", type=int, default=-1)
    parser.add_argument("--mchess", default="", help="python-mchess's mchess/ (its own code)")
    parser.add_argument("--chessnutpy", default="", help="ChessnutPy's files (its own code)")
    args = parser.parse_args()
    report = asyncio.run(play(args))
    print(json.dumps(report))
    sys.stdout.flush()
    os._exit(0)  # python-mchess's threads do not end by themselves


if __name__ == "__main__":
    sys.exit(main())
