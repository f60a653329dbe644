"""PicoChess's own DGT board driver (``dgt/board.py`` of JohanSjoblom/picochess), run on a
serial device, reporting what it reads as JSON lines on standard output.

Run with a Python that has PicoChess's driver dependencies (pyserial, configobj,
typing_extensions) and a checkout of PicoChess that is not part of this repository::

    python picochess_dgt.py --picochess /work/ext/picochess --device /tmp/x/app

Out (one JSON object a line): ``{"t": s, "fen": "..."}`` for every board PicoChess reads
(its ``DGT_FEN`` message: the board part of a FEN, not rotated), ``{"t": s, "connected":
"..."}`` when the driver has shaken hands with the board, ``{"t": s, "clock": {"left": s,
"right": s, "connect": bool}}`` for every clock time it reads (its ``DGT_CLOCK_TIME``, in
seconds: PicoChess takes the left clock as White's), ``{"t": s, "clock_version": "m.n"}``
when it finds a clock, ``{"t": s, "message": "..."}`` for the driver's other messages.
In (JSON lines on standard input): ``{"light": "e2e4"}``,
``{"light_square": "e4"}``, ``{"clear": true}``: the driver's Revelation II LED calls
(its ``light_squares_on_revelation`` and friends), as PicoChess makes them to show a move.
Nothing here copies PicoChess: it imports the driver from the checkout and calls it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import threading
import time

START = time.monotonic()


def emit(**fields) -> None:
    sys.stdout.write(json.dumps({"t": round(time.monotonic() - START, 3), **fields}) + "\n")
    sys.stdout.flush()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--picochess", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--log", default="")
    args = parser.parse_args()
    sys.path.insert(0, args.picochess)
    if args.log:
        logging.basicConfig(filename=args.log, level=logging.DEBUG)

    import utilities
    from dgt.board import DgtBoard

    async def show(message) -> None:  # PicoChess's display bus: we are its only display
        name = repr(message)
        if name == "MSG_DGT_FEN":
            emit(fen=message.fen)
        elif name == "MSG_DGT_EBOARD_VERSION":
            emit(connected=message.channel)
        elif name == "MSG_DGT_CLOCK_TIME":
            clock = {"left": message.time_left, "right": message.time_right}
            emit(clock={**clock, "connect": bool(message.connect)})
        elif name == "MSG_DGT_CLOCK_VERSION":
            emit(clock_version=f"{message.main}.{message.sub}")
        else:
            emit(message=name)

    utilities.DisplayMsg.show = staticmethod(show)
    loop = asyncio.get_running_loop()
    board = DgtBoard(
        args.device, disable_revelation_leds=False, is_pi=False, disable_end=True, loop=loop
    )
    board.run()

    def commands() -> None:
        for line in sys.stdin:
            command = json.loads(line)
            # The driver lights LEDs only on a Revelation II: say it is one.
            board.is_revelation = True
            if "light" in command:
                board.light_squares_on_revelation(command["light"])
            elif "light_square" in command:
                board.light_square_on_revelation(command["light_square"])
            elif command.get("clear"):
                board.clear_light_on_revelation()
            emit(done=command)
        os._exit(0)  # standard input closed: the test is over (the driver's thread never ends)

    threading.Thread(target=commands, daemon=True).start()
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
