"""speech-dispatcher's voice: the user's own (the synthesizer, voice and rate the screen
reader Orca uses), spoken to in SSIP, speech-dispatcher's text protocol, on its socket.

Why SSIP by hand: the ``speechd`` Python bindings come only with Debian's python3-speechd
(not on PyPI, so not in a virtual environment), and ``spd-say`` is a process per utterance
that cannot tell when speaking ends. SSIP is a handful of lines on one connection: the
board sets its client name, language and (when configured) rate and voice, sends each
utterance with ``SPEAK``, is told when it ends (``702 END``, ``703 CANCELED``: notifications
on), and cuts it short with ``CANCEL SELF``. All on the daemon's loop, never blocking it.

A reply is lines of ``NNN-text`` ending with one ``NNN text``; 2xx is success, 7xx an
event (its message number, the client's, then ``BEGIN``/``END``/``CANCELED``):

>>> parse_reply([b"225-17", b"225 OK MESSAGE QUEUED"])
(225, ['17', 'OK MESSAGE QUEUED'])
>>> dispatcher_address("", {"SPEECHD_ADDRESS": "unix_socket:/tmp/s.sock"})
'/tmp/s.sock'
>>> dispatcher_address("", {"XDG_RUNTIME_DIR": "/run/user/1000"})
'/run/user/1000/speech-dispatcher/speechd.sock'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Mapping

log = logging.getLogger("magboard")

#: Seconds a command may take to be answered (speech-dispatcher answers at once).
REPLY_S = 5.0
#: Seconds an utterance may last before the board gives up waiting for its end.
UTTERANCE_S = 120.0


class DispatcherError(OSError):
    """speech-dispatcher cannot be reached or refused a command; the message says which."""


def dispatcher_address(setting: str, environ: Mapping[str, str] = os.environ) -> str:
    """The socket of speech-dispatcher: ``[speech] dispatcher`` if set, else
    ``$SPEECHD_ADDRESS``, else the user's usual one
    (``$XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock``). ``unix_socket:PATH`` is PATH;
    ``inet_socket:HOST:PORT`` is kept as it is (TCP)."""
    address = setting or environ.get("SPEECHD_ADDRESS", "")
    if not address:
        runtime = environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
        return f"{runtime}/speech-dispatcher/speechd.sock"
    if address.startswith("unix_socket:"):
        return address.split(":", 1)[1]
    return address


def parse_reply(lines: list[bytes]) -> tuple[int, list[str]]:
    """A reply's code and its texts (see the module docstring)."""
    texts = [line[4:].decode("utf-8", "replace") for line in lines]
    return int(lines[-1][:3]), texts


class SsipConnection:
    """One SSIP connection: commands and their replies, and the events of its messages."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self._replies: asyncio.Queue[tuple[int, list[str]]] = asyncio.Queue()
        self._ends: dict[str, asyncio.Future[str]] = {}
        self._ended: dict[str, str] = {}  # events that came before anyone waited
        self._lock = asyncio.Lock()
        self._task = asyncio.create_task(self._read(), name="speech-ssip")
        self.closed = False

    @classmethod
    async def open(cls, address: str) -> SsipConnection:
        try:
            if address.startswith("inet_socket:"):
                _, host, port = address.split(":", 2)
                reader, writer = await asyncio.open_connection(host, int(port))
            else:
                reader, writer = await asyncio.open_unix_connection(address)
        except (OSError, ValueError) as exc:
            raise DispatcherError(f"speech-dispatcher at {address}: {exc}") from None
        return cls(reader, writer)

    async def _read(self) -> None:
        lines: list[bytes] = []
        try:
            while True:
                line = await self.reader.readline()
                if not line:
                    break
                line = line.rstrip(b"\r\n")
                if len(line) < 4 or not line[:3].isdigit():
                    continue
                lines.append(line)
                if line[3:4] == b"-":
                    continue
                code, texts = parse_reply(lines)
                lines = []
                if 700 <= code < 800:
                    self._event(code, texts)
                else:
                    self._replies.put_nowait((code, texts))
        except (OSError, ValueError):
            pass
        finally:
            self.closed = True
            self._replies.put_nowait((0, ["the connection was closed"]))
            for future in self._ends.values():
                if not future.done():
                    future.set_result("LOST")

    def _event(self, code: int, texts: list[str]) -> None:
        if code not in (702, 703) or not texts:
            return
        message, what = texts[0], texts[-1]
        future = self._ends.pop(message, None)
        if future is not None and not future.done():
            future.set_result(what)
        elif future is None:
            self._ended[message] = what

    async def command(self, line: str, data: str | None = None) -> list[str]:
        """Send one command (and ``data``, for ``SPEAK``); its reply's texts, or
        DispatcherError."""
        async with self._lock:
            self.writer.write(line.encode("utf-8") + b"\r\n")
            await self.writer.drain()
            code, texts = await self._reply(line)
            if data is not None:
                if code != 230:
                    raise DispatcherError(f"speech-dispatcher refused {line}: {' '.join(texts)}")
                body = data.replace("\r", " ").replace("\n", " ")
                if body.startswith("."):
                    body = "." + body  # a line that begins with a dot has it doubled
                self.writer.write(body.encode("utf-8") + b"\r\n.\r\n")
                await self.writer.drain()
                code, texts = await self._reply(line)
            if not 200 <= code < 300:
                raise DispatcherError(f"speech-dispatcher refused {line}: {' '.join(texts)}")
            return texts

    async def _reply(self, line: str) -> tuple[int, list[str]]:
        try:
            async with asyncio.timeout(REPLY_S):
                code, texts = await self._replies.get()
        except TimeoutError:
            raise DispatcherError(f"speech-dispatcher did not answer {line}") from None
        if code == 0:
            raise DispatcherError("speech-dispatcher closed the connection")
        return code, texts

    def ended(self, message: str) -> asyncio.Future[str]:
        """A future of how message ``message`` ended (``END``, ``CANCELED``, ``LOST``)."""
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        if message in self._ended:
            future.set_result(self._ended.pop(message))
        elif self.closed:
            future.set_result("LOST")
        else:
            self._ends[message] = future
        return future

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await self.command("QUIT")
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task


class DispatcherVoice:
    """speech-dispatcher's voice (see the module docstring). ``language`` is the words'
    (``SET SELF LANGUAGE``); ``rate`` (-100..100) and ``voice`` (a synthesis voice's name)
    are sent only when set: otherwise the user's own settings speak."""

    takes_time = True

    def __init__(self, address: str, language: str, *, rate: int = 0, voice: str = "") -> None:
        self.address = address
        self.settings = [
            "SET SELF CLIENT_NAME magboard:magboard:speech",
            "SET SELF NOTIFICATION END on",
            "SET SELF NOTIFICATION CANCEL on",
            "SET SELF PRIORITY message",
            f"SET SELF LANGUAGE {language}",
        ]
        if rate:
            self.settings.append(f"SET SELF RATE {rate}")
        if voice:
            self.settings.append(f"SET SELF SYNTHESIS_VOICE {voice}")
        self.name = f"speech-dispatcher ({address}, language {language})"
        self._connection: SsipConnection | None = None

    async def connect(self) -> SsipConnection:
        """The connection, opened and set up if it is not (DispatcherError if it cannot)."""
        if self._connection is not None and not self._connection.closed:
            return self._connection
        connection = await SsipConnection.open(self.address)
        try:
            for line in self.settings:
                await connection.command(line)
        except DispatcherError:
            await connection.close()
            raise
        self._connection = connection
        return connection

    async def speak(self, text: str, number: int) -> None:
        connection = await self.connect()
        texts = await connection.command("SPEAK", text)
        message = texts[0] if texts else ""
        ending = connection.ended(message)
        try:
            async with asyncio.timeout(UTTERANCE_S):
                how = await asyncio.shield(ending)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(connection.command("CANCEL SELF"))
            raise
        except TimeoutError:
            how = "TIMEOUT"
        if how == "LOST":
            raise DispatcherError("speech-dispatcher closed the connection while speaking")

    async def close(self) -> None:
        if self._connection is not None:
            await self._connection.close()
            self._connection = None
