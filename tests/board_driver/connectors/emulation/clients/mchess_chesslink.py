"""python-mchess's ChessLink driver (``mchess/chess_link*.py`` of domschl/python-mchess),
run on a serial device through its own agent, reporting what it reads as JSON lines.

Run with a Python that has pyserial and python-chess, and a checkout of python-mchess
that is not part of this repository::

    python mchess_chesslink.py --mchess /work/ext/python-mchess/mchess --device /tmp/x/app

The driver finds its board from ``chess_link_config.json`` in the working directory (a
temporary one is made, naming the device, USB transport, no autodetection). The agent
(``ChessLinkAgent``) then does what it does at start: version, debounce, scan time,
position. Out (one JSON object a line): ``{"t": s, "fen": "..."}`` for each board the
driver reads (its ``raw_board_position``), ``{"t": s, "move": "e2e4"}`` when the driver
itself recognises a move it was told to expect, ``{"t": s, "ready": true}`` when the agent
has its first position, ``{"t": s, "other": {...}}`` for the rest. In (JSON lines):
``{"expect": FEN}``: the legal moves from FEN, handed to the driver as its agent does
(``set_valid_moves``); ``{"show": ["e2e4"], "fen": FEN}``: the agent's move display
(``visualize_variant``: the LED command); ``{"off": true}``: all LEDs off.
Nothing here copies python-mchess: it imports the driver and calls it.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import queue
import sys
import tempfile
import threading
import time

START = time.monotonic()


def emit(**fields) -> None:
    sys.stdout.write(json.dumps({"t": round(time.monotonic() - START, 3), **fields}) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mchess", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--log", default="")
    args = parser.parse_args()
    sys.path.insert(0, args.mchess)
    if args.log:
        logging.basicConfig(filename=args.log, level=logging.DEBUG)
    os.chdir(tempfile.mkdtemp(prefix="mchess-"))
    with open("chess_link_config.json", "w") as config:
        json.dump(
            {
                "transport": "chess_link_usb",
                "address": args.device,
                "autodetect": False,
                "orientation": True,
                "btle_iface": 0,
                "protocol_debug": bool(args.log),
            },
            config,
        )

    import chess
    import serial
    from chess_link_agent import ChessLinkAgent

    # The driver sets DTR, which a pseudo-terminal has not (ENOTTY): a USB serial port
    # has it. Only that is changed here, in pyserial, not in the driver.
    set_dtr = serial.Serial._update_dtr_state

    def set_dtr_if_any(self) -> None:
        try:
            set_dtr(self)
        except OSError as exc:
            if exc.errno not in (errno.ENOTTY, errno.EINVAL):
                raise

    serial.Serial._update_dtr_state = set_dtr_if_any

    appque: queue.Queue = queue.Queue()
    agent = ChessLinkAgent(appque, {"ply_vis_delay": 80, "max_plies_board": 3}, timeout=30)
    emit(ready=agent.agent_ready())

    def events() -> None:
        while True:
            message = appque.get()
            if message.get("cmd") == "raw_board_position":
                emit(fen=message["fen"].split()[0])
            elif message.get("cmd") == "move":
                emit(move=message["uci"])
            else:
                emit(other={k: v for k, v in message.items() if isinstance(v, str | bool)})

    threading.Thread(target=events, daemon=True).start()
    for line in sys.stdin:
        command = json.loads(line)
        if "expect" in command:
            board = chess.Board(command["expect"])
            legal = {}
            for move in board.legal_moves:
                board.push(move)
                legal[agent.cl_brd.short_fen(board.fen())] = move.uci()
                board.pop()
            agent.set_valid_moves(board, legal)
        elif "show" in command:
            agent.visualize_variant(chess.Board(command["fen"]), command["show"], plies=1)
        elif command.get("off"):
            agent.cl_brd.set_led_off()
        emit(done=command)
    os._exit(0)  # standard input closed: the test is over


if __name__ == "__main__":
    main()
