"""The Board API through ``berserk``: blocking calls, for threads beside the daemon's loop.

Every call either returns what the server said or raises one of three errors, so the
player decides what to do from the kind of failure, never from a message's text:

- :class:`TokenRejected`: the token is missing a scope, revoked or wrong (401, 403):
  retrying will not help; the page asks for a new one;
- :class:`Refused`: the server understood and said no (400, 404): a move refused, a
  challenge to nobody; the message is the server's ``error``;
- :class:`Unreachable`: the network or the server failed (no connection, a timeout, a
  5xx, a 429 rate limit): try again later (``retry_after_s`` when the server asked).

Streams (the event stream, a game's stream, a real-time seek) have a read timeout longer
than the server's keep-alive (an empty line every 7 s), so a link that died without
closing is noticed; :meth:`BoardApi.close_streams` ends them from another thread.
The token is only ever in the ``Authorization`` header: no message or log line holds it.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import berserk
import requests

T = TypeVar("T")

#: Seconds to connect, and to wait for the next bytes of an answer (a stream's
#: keep-alive comes every 7 s: three missed mean the link is dead).
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 21.0
#: Lichess asks to wait a minute after a 429 before trying again.
RATE_LIMIT_WAIT_S = 60.0
USER_AGENT = "magboard (a chessboard with reed switches; Board API)"


class LichessError(Exception):
    """Something the server or the network did; the message is for the page and the log."""


class TokenRejected(LichessError):
    """The token is wrong, revoked, or lacks the ``board:play`` scope."""


class Refused(LichessError):
    """The server said no (a move refused, a challenge that cannot be made)."""


class Unreachable(LichessError):
    """No answer: the link or the server is down, or we must wait (``retry_after_s``)."""

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class _Session(berserk.TokenSession):
    """berserk's token session with timeouts, and its streaming answers kept so that
    another thread can end them (closing a socket another thread reads does not wake
    it on Linux; shutting it down does)."""

    def __init__(self, token: str, read_timeout_s: float) -> None:
        super().__init__(token)
        self.headers["User-Agent"] = USER_AGENT
        self.read_timeout_s = read_timeout_s
        self.streams: set[requests.Response] = set()
        self.on_open: Callable[[], None] | None = None  # a stream's answer has come
        self._lock = threading.Lock()

    def request(
        self, method: str, url: str | bytes, *args: Any, **kwargs: Any
    ) -> requests.Response:
        kwargs.setdefault("timeout", (CONNECT_TIMEOUT_S, self.read_timeout_s))
        response = super().request(method, url, *args, **kwargs)
        if kwargs.get("stream"):
            with self._lock:
                self.streams.add(response)
            if response.ok and self.on_open is not None:
                self.on_open()
        return response

    def close_streams(self) -> None:
        with self._lock:
            streams, self.streams = list(self.streams), set()
        for response in streams:
            _shut(response)


def _shut(response: requests.Response) -> None:
    """End a streaming answer now, even while another thread is blocked reading it."""
    connection = getattr(getattr(response, "raw", None), "_connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(Exception):
        response.close()


def _server_error(exc: berserk.exceptions.ResponseError) -> str:
    cause = exc.cause
    if isinstance(cause, dict) and cause.get("error"):
        return str(cause["error"])
    return f"HTTP {exc.status_code} {exc.reason}"


def translate(exc: BaseException, where: str = "") -> LichessError:
    """The error a client failure means (see the module docstring); ``where`` is the
    server's address, for the words of an :class:`Unreachable`."""
    if isinstance(exc, LichessError):
        return exc
    if isinstance(exc, berserk.exceptions.ResponseError):
        status = exc.status_code
        if status in (401, 403):
            return TokenRejected(f"Lichess rejected the token: {_server_error(exc)}")
        if status == 429:
            return Unreachable("Lichess asks us to slow down (429)", RATE_LIMIT_WAIT_S)
        if status in (400, 404):
            return Refused(_server_error(exc))
        return Unreachable(f"Lichess answered {status} {exc.reason}")
    if isinstance(exc, berserk.exceptions.ApiError | requests.RequestException | OSError):
        at = f" at {where}" if where else ""
        return Unreachable(
            f"cannot reach Lichess{at} ({network_failure(exc)}): check the network and "
            "[lichess] base_url"
        )
    return Unreachable(f"the link to Lichess failed: {_short(exc)}")


def network_failure(exc: BaseException) -> str:
    """What went wrong on the network, in a few words (a refused connection, a name not
    found, no answer in time), from the innermost cause that says it, never the client
    libraries' own text (urllib3's ``HTTPSConnectionPool(...): Max retries exceeded``).

    >>> import requests
    >>> try:
    ...     raise ConnectionRefusedError(111, "Connection refused")
    ... except OSError as cause:
    ...     failure = requests.ConnectionError("HTTPSConnectionPool(host=...)")
    ...     failure.__cause__ = cause
    >>> network_failure(failure)
    'connection refused'
    """
    causes: list[BaseException] = []
    todo = [exc]
    while todo:
        current = todo.pop(0)
        if any(current is seen for seen in causes):
            continue
        causes.append(current)
        nested = [getattr(current, "reason", None), current.__cause__, current.__context__]
        nested += list(getattr(current, "args", ()))
        todo += [n for n in nested if isinstance(n, BaseException)]
    for cause in reversed(causes):  # the innermost first
        if isinstance(cause, socket.gaierror):
            return "the server's name is not known: no network, or no DNS"
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, ConnectionResetError):
            return "the connection was reset"
        if isinstance(cause, TimeoutError) or "Timeout" in type(cause).__name__:
            return "no answer in time"
        if isinstance(cause, ssl.SSLError):
            detail = getattr(cause, "verify_message", None) or cause.reason or "handshake"
            return f"TLS failed: {detail}"
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[:1].lower() + cause.strerror[1:]
    return type(exc).__name__


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


class Stream:
    """One streamed answer, read by iterating (lines as dicts; keep-alive lines skipped)
    in one thread, ended from any other by :meth:`close`."""

    def __init__(self, api: BoardApi, open_: Callable[[berserk.Client], Iterator[Any]]) -> None:
        self._api = api
        self._open = open_
        self._session = _Session(api._token, api._read_timeout_s)
        self._closed = False

    def __iter__(self) -> Iterator[Any]:
        session = self._session
        try:
            if self._closed or self._api._closed:
                raise Unreachable("the stream was closed")
            client = berserk.Client(session, base_url=self._api.base_url)
            try:
                yield from self._open(client)
            except GeneratorExit:
                raise
            except Exception as exc:
                raise translate(exc, self._api.base_url) from exc
            if self._closed:
                raise Unreachable("the stream was closed")
        finally:
            self._api._streams.discard(self)
            session.close_streams()
            session.close()

    def on_open(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (in the reading thread) once the server has answered."""
        self._session.on_open = callback

    def close(self) -> None:
        self._closed = True
        self._session.close_streams()


class BoardApi:
    """The Board API for one token at ``base_url`` (blocking: call it from threads).

    Each stream gets a session (a connection) of its own; the other calls share one,
    one at a time, as Lichess asks.
    """

    def __init__(
        self, token: str, base_url: str, *, read_timeout_s: float = READ_TIMEOUT_S
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._read_timeout_s = read_timeout_s
        self._session = _Session(token, read_timeout_s)
        self._client = berserk.Client(self._session, base_url=self.base_url)
        self._lock = threading.Lock()
        self._streams: set[Stream] = set()
        self._closed = False

    def __repr__(self) -> str:  # never the token
        return f"BoardApi({self.base_url!r})"

    # ------------------------------------------------------------------ plumbing

    def _call(self, fn: Callable[[berserk.Client], T]) -> T:
        with self._lock:
            try:
                return fn(self._client)
            except Exception as exc:
                raise translate(exc, self.base_url) from exc

    def _stream(self, open_: Callable[[berserk.Client], Iterator[Any]]) -> Stream:
        stream = Stream(self, open_)
        self._streams.add(stream)
        return stream

    def close_streams(self) -> None:
        """End every open stream now (each reader sees an :class:`Unreachable`)."""
        for stream in list(self._streams):
            stream.close()

    def close(self) -> None:
        self._closed = True
        self.close_streams()
        with contextlib.suppress(Exception):
            self._session.close()

    # ------------------------------------------------------------------ reading

    def account(self) -> dict[str, Any]:
        """``GET /api/account``: the token's account (TokenRejected if it is no good)."""
        return dict(self._call(lambda c: c.account.get()))

    def playing(self) -> list[dict[str, Any]]:
        """``GET /api/account/playing``: the ongoing games, most urgent first."""
        return list(self._call(lambda c: c.games.get_ongoing(50)))

    def stream_events(self) -> Stream:
        """``GET /api/stream/event``: games starting and ending, challenges."""
        return self._stream(lambda c: c.board.stream_incoming_events())

    def stream_game(self, game_id: str) -> Stream:
        """``GET /api/board/game/stream/{id}``: ``gameFull``, then its changes."""
        return self._stream(lambda c: c.board.stream_game_state(game_id))

    # ------------------------------------------------------------------ playing

    def move(self, game_id: str, uci: str) -> None:
        """``POST /api/board/game/{id}/move/{uci}``."""
        self._call(lambda c: c.board.make_move(game_id, uci))

    def draw(self, game_id: str, yes: bool) -> None:
        """Offer or accept a draw (``yes``), or decline the opponent's offer."""
        self._call(lambda c: c.board.handle_draw_offer(game_id, yes))

    def takeback(self, game_id: str, yes: bool) -> None:
        """Propose or accept a take-back (``yes``), or decline the opponent's."""
        self._call(lambda c: c.board.handle_takeback_offer(game_id, yes))

    def resign(self, game_id: str) -> None:
        self._call(lambda c: c.board.resign_game(game_id))

    def abort(self, game_id: str) -> None:
        self._call(lambda c: c.board.abort_game(game_id))

    def claim_victory(self, game_id: str) -> None:
        """``POST /api/board/game/{id}/claim-victory``: the opponent left."""
        # The spec's path: berserk 0.14 adds a trailing slash the spec does not have.
        self._post(f"/api/board/game/{game_id}/claim-victory")

    def claim_draw(self, game_id: str) -> None:
        """``POST /api/board/game/{id}/claim-draw``: the opponent left, a draw."""
        self._post(f"/api/board/game/{game_id}/claim-draw")

    def _post(self, path: str) -> None:
        def post(_client: berserk.Client) -> None:
            response = self._session.post(self.base_url + path)
            if not response.ok:
                raise berserk.exceptions.ResponseError(response)

        self._call(post)

    # ------------------------------------------------------------------ finding games

    def seek(
        self,
        minutes: float,
        increment: int,
        *,
        rated: bool,
        color: str,
        variant: str = "standard",
    ) -> None:
        """A real-time seek (``variant``: ``standard`` or ``chess960``): blocks until a
        game is found (it starts on the event stream) or :meth:`close_streams` cancels it."""

        def seek(client: berserk.Client) -> Iterator[None]:
            client.board.seek(
                minutes,  # type: ignore[arg-type]
                increment,
                rated=rated,
                variant=variant,  # type: ignore[arg-type]
                color=color,  # type: ignore[arg-type]
            )
            yield None

        self._seek = self._stream(seek)
        for _ in self._seek:
            pass

    def cancel_seek(self) -> None:
        """End a real-time seek (closing its connection cancels it on the server)."""
        seek = getattr(self, "_seek", None)
        if seek is not None:
            seek.close()

    def seek_correspondence(self, days: int, *, rated: bool, variant: str = "standard") -> str:
        """A correspondence seek; returns its id at once."""

        def seek(_client: berserk.Client) -> str:
            data = {"days": days, "rated": "true" if rated else "false", "variant": variant}
            response = self._session.post(self.base_url + "/api/board/seek", data=data)
            if not response.ok:
                raise berserk.exceptions.ResponseError(response)
            return str(response.json().get("id", ""))

        return self._call(seek)

    def challenge(
        self,
        username: str,
        *,
        rated: bool,
        clock: tuple[int, int] | None,
        days: int | None,
        color: str,
        variant: str = "standard",
    ) -> dict[str, Any]:
        """``POST /api/challenge/{username}`` (``variant``: ``standard`` or ``chess960``,
        whose start position Lichess draws); the game starts on the event stream."""
        limit, increment = clock if clock is not None else (None, None)
        return dict(
            self._call(
                lambda c: c.challenges.create(
                    username,
                    rated,
                    clock_limit=limit,
                    clock_increment=increment,
                    days=days,
                    color=color,  # type: ignore[arg-type]
                    variant=variant,  # type: ignore[arg-type]
                )
            )
        )

    def challenge_ai(
        self,
        level: int,
        *,
        clock: tuple[int, int] | None,
        days: int | None,
        color: str,
        variant: str = "standard",
    ) -> dict[str, Any]:
        """``POST /api/challenge/ai``: a game against the Lichess AI starts at once."""
        limit, increment = clock if clock is not None else (None, None)
        return dict(
            self._call(
                lambda c: c.challenges.create_ai(
                    level,
                    clock_limit=limit,
                    clock_increment=increment,
                    days=days,
                    color=color,  # type: ignore[arg-type]
                    variant=variant,  # type: ignore[arg-type]
                )
            )
        )

    def accept(self, challenge_id: str) -> None:
        self._call(lambda c: c.challenges.accept(challenge_id))

    def decline(self, challenge_id: str, reason: str = "generic") -> None:
        self._call(lambda c: c.challenges.decline(challenge_id, reason))  # type: ignore[arg-type]

    def cancel(self, challenge_id: str) -> None:
        self._call(lambda c: c.challenges.cancel(challenge_id))
