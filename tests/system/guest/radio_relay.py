"""Inside the board's machine: a controller of btvirt's radio, carried to the phone's machine.

``btvirt -s`` serves LE controllers of its emulated radio on ``/tmp/bt-server-le``, one a
connection, speaking HCI as H4 (a packet-type byte, then the packet). This joins one to
the virtio port ``org.magboard.radio``, whose other end is the phone's second serial port
(``tests/system/harness/wires.py``); the phone's kernel drives it with ``btattach``.

What the phone sends is passed on whole packets at a time: btvirt's reader takes a packet
split across two reads only where the split falls after its header. What btvirt sends goes
as it comes (the phone's kernel reassembles H4 itself). While the phone's machine is not
connected the port reads empty and refuses writes (EPIPE): btvirt has nothing to say then.

Standard library only (Debian's python3)::

    python3 radio_relay.py [--server /tmp/bt-server-le] [--port /dev/virtio-ports/...]
"""

from __future__ import annotations

import argparse
import os
import select
import selectors
import socket
import sys
import time

SERVER = "/tmp/bt-server-le"
PORT = "/dev/virtio-ports/org.magboard.radio"
#: H4 packet types a host sends, with the size of their header and where its length is.
COMMAND, ACL = 0x01, 0x02


def packets(buffer: bytearray) -> list[bytes]:
    """The whole H4 packets at the start of ``buffer``, taken out of it.

    >>> b = bytearray(b"\\x01\\x03\\x0c\\x00\\x02\\x40\\x00\\x02\\x00\\xaa\\xbb\\x01\\x01")
    >>> packets(b), bytes(b)
    ([b'\\x01\\x03\\x0c\\x00', b'\\x02@\\x00\\x02\\x00\\xaa\\xbb'], b'\\x01\\x01')
    """
    found = []
    while buffer:
        kind = buffer[0]
        if kind == COMMAND:
            if len(buffer) < 4:
                break
            size = 4 + buffer[3]
        elif kind == ACL:
            if len(buffer) < 5:
                break
            size = 5 + int.from_bytes(buffer[3:5], "little")
        else:
            raise ValueError(f"not an H4 packet a host sends: type {kind:#04x}")
        if len(buffer) < size:
            break
        found.append(bytes(buffer[:size]))
        del buffer[:size]
    return found


def relay(server: str, port: str) -> None:
    radio = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    while True:  # until btvirt serves (a socket file left by the last btvirt refuses)
        try:
            radio.connect(server)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            time.sleep(0.1)
    line = os.open(port, os.O_RDWR | os.O_NONBLOCK)
    selector = selectors.DefaultSelector()
    selector.register(radio, selectors.EVENT_READ)
    selector.register(line, selectors.EVENT_READ)
    pending = bytearray()
    while True:
        for key, _ in selector.select():
            if key.fileobj is radio:
                data = radio.recv(65536)
                if not data:
                    raise SystemExit("btvirt closed the connection")
                _write(line, data)
                continue
            try:
                data = os.read(line, 65536)
            except BlockingIOError:
                continue
            if not data:  # the phone's machine is not connected (yet, or any more)
                time.sleep(0.2)
                continue
            pending += data
            for packet in packets(pending):
                radio.sendall(packet)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [], 1)
        except BrokenPipeError:
            return  # nobody on the line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=SERVER)
    parser.add_argument("--port", default=PORT)
    args = parser.parse_args()
    relay(args.server, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
