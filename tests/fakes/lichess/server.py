"""A loopback fake of the Lichess Board API, for tests driven by the real ``berserk``.

Written from the official API description (``lichess-org/api``, ``doc/specs``): every
endpoint the product uses, with the request forms, the answers and the error bodies that
the spec gives (``{"ok": true}``, ``{"error": ...}``, ``{"error": "Not found."}``, the
OAuth errors). See docs/lichess.md for what of the real service it does not model.

The fake runs an aiohttp server on 127.0.0.1 in a thread of its own. The test plays the
other side of the board through its control methods (thread-safe, each returns once
done): start a game, play the opponent's moves, offer and answer draws and take-backs,
resign, let the opponent leave, cut or hang the streams, take the network down, revoke
a token, refuse the next moves.

>>> fake = FakeLichess().start()
>>> token = fake.add_account("Ann")
>>> import berserk
>>> client = berserk.Client(berserk.TokenSession(token), base_url=fake.base_url)
>>> client.account.get()["username"]
'Ann'
>>> fake.stop()
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import chess
from aiohttp import web

from tests.fakes.lichess.model import (
    Account,
    AiPlayer,
    Challenge,
    FakeGame,
    new_id,
    speed_of,
)

CLOSE = object()  # a stream's queue item: finish the response properly
CUT = object()  # a stream's queue item: drop the connection (no proper end)
HANG = object()  # a stream's queue item: stop sending, keep the connection open
BOARD_SCOPE = "board:play"
# What the middleware leaves on each request for the handlers.
_key = getattr(web, "RequestKey", None)
BODY: Any = _key("body", dict) if _key else "body"
ACCOUNT: Any = _key("account", object) if _key else "account"
TOKEN: Any = _key("token", object) if _key else "token"
SEEK_DAYS = (1, 2, 3, 5, 7, 10, 14)


def _ok() -> web.Response:
    return web.json_response({"ok": True})


def _error(message: str, status: int = 400) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _not_found() -> web.Response:
    return web.json_response({"error": "Not found."}, status=404)


@dataclass
class Token:
    account: Account
    scopes: tuple[str, ...]
    revoked: bool = False


@dataclass
class Stream:
    account: Account
    queue: asyncio.Queue
    kind: str  # "event" | "game" | "seek"
    game_id: str | None = None
    transport: Any = None


@dataclass
class Request:
    """One request the fake received (for the tests' and the bench's eyes)."""

    method: str
    path: str
    account: str | None
    at: float  # time.monotonic() on arrival
    body: dict[str, Any] = field(default_factory=dict)


class FakeLichess:
    """The fake server and its control interface."""

    def __init__(
        self,
        *,
        keepalive_s: float = 7.0,
        castling: str = "king_to_rook",
        ai_delay_s: float = 0.05,
    ) -> None:
        self.keepalive_s = keepalive_s
        self.castling = castling
        self.ai_delay_s = ai_delay_s
        self.accounts: dict[str, Account] = {}
        self.tokens: dict[str, Token] = {}
        self.games: dict[str, FakeGame] = {}
        self.challenges: dict[str, Challenge] = {}
        self.streams: list[Stream] = []
        self.requests: list[Request] = []
        self.down = False
        self.refusals: dict[str, list[str]] = {}  # game id -> errors for its next moves
        self.seek_partner: Account | None = None  # pairs every seek at once when set
        self.oauth_answer = "approve"  # or "deny": what the user does at /oauth
        self._codes: dict[str, dict[str, str]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._changed = threading.Condition()
        self.port = 0

    # ------------------------------------------------------------------ running

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeLichess:
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(self._serve())
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="fake-lichess", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the fake Lichess did not start")
        return self

    async def _serve(self) -> None:
        app = web.Application(middlewares=[self._middleware])
        r = app.router
        r.add_get("/api/stream/event", self._event_stream)
        r.add_get("/api/board/game/stream/{id}", self._game_stream)
        r.add_post("/api/board/game/{id}/move/{move}", self._move)
        r.add_post("/api/board/game/{id}/draw/{accept}", self._draw)
        r.add_post("/api/board/game/{id}/takeback/{accept}", self._takeback)
        r.add_post("/api/board/game/{id}/resign", self._resign)
        r.add_post("/api/board/game/{id}/abort", self._abort)
        r.add_post("/api/board/game/{id}/claim-victory", self._claim_victory)
        r.add_post("/api/board/game/{id}/claim-draw", self._claim_draw)
        r.add_post("/api/board/seek", self._seek)
        r.add_get("/api/challenge", self._challenge_list)
        r.add_post("/api/challenge/ai", self._challenge_ai)
        r.add_post("/api/challenge/{id}/accept", self._challenge_accept)
        r.add_post("/api/challenge/{id}/decline", self._challenge_decline)
        r.add_post("/api/challenge/{id}/cancel", self._challenge_cancel)
        r.add_post("/api/challenge/{username}", self._challenge_create)
        r.add_get("/api/account", self._account)
        r.add_get("/api/account/playing", self._playing)
        r.add_get("/oauth", self._oauth)
        r.add_post("/api/token", self._token)
        r.add_delete("/api/token", self._token_delete)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def stop(self) -> None:
        if self._loop is None:
            return
        self._call(self._cut_all)

        async def shutdown() -> None:
            assert self._runner is not None
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None
        self._thread.join(10)
        self._loop = None

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` on the fake's loop (from a test's thread) and return its value."""
        assert self._loop is not None, "start() the fake first"

        async def run() -> Any:
            result = fn(*args)
            if asyncio.iscoroutine(result):
                result = await result
            return result

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(10)

    def _note_change(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Wait until ``predicate()`` is true (checked whenever the fake changes)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    return value
                self._changed.wait(min(left, 0.05))

    # ------------------------------------------------------------------ control: accounts

    def add_account(
        self, username: str, *, rating: int = 1500, scopes: tuple[str, ...] = (BOARD_SCOPE,)
    ) -> str:
        """A new account; returns a personal token for it (``lip_...``)."""
        account = Account(username, rating)
        self.accounts[account.id] = account
        return self.add_token(username, scopes)

    def add_token(self, username: str, scopes: tuple[str, ...] = (BOARD_SCOPE,)) -> str:
        token = "lip_" + new_id(20)
        self.tokens[token] = Token(self.accounts[username.lower()], scopes)
        return token

    def revoke(self, token: str) -> None:
        """Revoke ``token``: its open streams are closed, every later request is a 401."""

        def revoke() -> None:
            self.tokens[token].revoked = True
            account = self.tokens[token].account
            for stream in list(self.streams):
                if stream.account is account:
                    stream.queue.put_nowait(CLOSE)

        self._call(revoke)

    def account(self, username: str) -> Account:
        return self.accounts[username.lower()]

    # ------------------------------------------------------------------ control: games

    def start_game(
        self,
        white: str,
        black: str,
        *,
        clock: tuple[int, int] | None = (600, 0),
        clock_ms: tuple[int, int] | None = None,
        days: int | None = None,
        rated: bool = False,
        fen: str | None = None,
        variant: str = "standard",
        source: str = "friend",
    ) -> str:
        """A game between two accounts (``"ai:N"`` for the Lichess AI at level N), as if a
        challenge had been accepted. ``clock`` in seconds, ``clock_ms`` in milliseconds
        (short clocks for the tests), None for a correspondence game."""

        def player(name: str) -> Account | AiPlayer:
            if name.startswith("ai:"):
                return AiPlayer(int(name[3:]))
            return self.accounts[name.lower()]

        if clock_ms is None and clock is not None:
            clock_ms = (clock[0] * 1000, clock[1] * 1000)
        return self._call(
            self._create_game,
            player(white),
            player(black),
            clock_ms,
            days,
            rated,
            fen,
            variant,
            source,
        )

    def game(self, game_id: str) -> FakeGame:
        return self.games[game_id]

    def play(self, game_id: str, uci: str) -> None:
        """The side to move plays ``uci`` (the test's opponent); ValueError if refused."""

        def play() -> None:
            game = self.games[game_id]
            error = self._play(game, game.turn(), uci)
            if error:
                raise ValueError(error)

        self._call(play)

    def act(self, game_id: str, color: str, action: str, answer: str = "yes") -> None:
        """``color`` does ``action`` (``draw``, ``takeback`` with ``yes``/``no``;
        ``resign``, ``abort``) as the API would let it."""

        def act() -> None:
            game = self.games[game_id]
            handlers = {
                "draw": lambda: self._do_draw(game, color, answer),
                "takeback": lambda: self._do_takeback(game, color, answer),
                "resign": lambda: self._do_resign(game, color),
                "abort": lambda: self._do_abort(game, color),
            }
            error = handlers[action]()
            if error:
                raise ValueError(error)

        self._call(act)

    def opponent_gone(self, game_id: str, color: str, gone: bool = True, claim_in: int = 0):
        """``color`` left the game (or came back): the other side's stream is told."""

        def tell() -> None:
            game = self.games[game_id]
            game.__dict__.setdefault("gone", {})[color] = gone
            line: dict[str, Any] = {"type": "opponentGone", "gone": gone}
            if gone:
                line["claimWinInSeconds"] = claim_in
            other = game.player("black" if color == "white" else "white")
            for stream in self.streams:
                if stream.kind == "game" and stream.game_id == game_id and stream.account is other:
                    stream.queue.put_nowait(line)

        self._call(tell)

    def chat(self, game_id: str, username: str, text: str) -> None:
        line = {"type": "chatLine", "room": "player", "username": username, "text": text}
        self._call(self._to_game_streams, game_id, line)

    def refuse_moves(self, game_id: str, *errors: str) -> None:
        """The game's next moves (one per error) are refused with a 400 and that error."""
        self._call(lambda: self.refusals.setdefault(game_id, []).extend(errors))

    def challenge(
        self,
        challenger: str,
        dest: str,
        *,
        clock: tuple[int, int] | None = (600, 0),
        days: int | None = None,
        rated: bool = False,
        color: str = "random",
        variant: str = "standard",
    ) -> str:
        """``challenger`` challenges ``dest``; returns the challenge's id."""

        def create() -> str:
            ch = Challenge(
                new_id(),
                self.accounts[challenger.lower()],
                self.accounts[dest.lower()],
                rated,
                None if clock is None else clock[0],
                None if clock is None else clock[1],
                days,
                color,
                variant,
            )
            self.challenges[ch.id] = ch
            self._to_event_streams(ch.dest, {"type": "challenge", "challenge": ch.json(ch.dest)})
            self._to_event_streams(
                ch.challenger, {"type": "challenge", "challenge": ch.json(ch.challenger)}
            )
            return ch.id

        return self._call(create)

    def accept_challenge(self, challenge_id: str) -> str:
        """The challenged account accepts; returns the new game's id."""
        return self._call(lambda: self._accept(self.challenges[challenge_id]))

    # ------------------------------------------------------------------ control: the network

    def cut_streams(self) -> None:
        """Drop every open stream's connection (as a Wi-Fi drop ends them)."""
        self._call(self._cut_all)

    def hang_streams(self) -> None:
        """Every open stream stops sending, its connection left open (a half-open link)."""
        self._call(lambda: [s.queue.put_nowait(HANG) for s in self.streams])

    def go_down(self) -> None:
        """No request gets through (connections dropped) until :meth:`come_back`."""
        self.down = True
        self.cut_streams()

    def come_back(self) -> None:
        self.down = False

    def open_streams(self, kind: str | None = None) -> int:
        return sum(1 for s in self.streams if kind is None or s.kind == kind)

    def moves_posted(self, game_id: str) -> list[Request]:
        prefix = f"/api/board/game/{game_id}/move/"
        return [r for r in self.requests if r.path.startswith(prefix)]

    # ------------------------------------------------------------------ the server side

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if self.down:
            if request.transport is not None:
                request.transport.abort()
            raise web.HTTPServiceUnavailable()
        account = None
        token = None
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            token = self.tokens.get(auth[len("Bearer ") :])
            account = token.account if token is not None and not token.revoked else None
        body: dict[str, Any] = {}
        if request.method in ("POST", "DELETE") and request.can_read_body:
            body = await _read_body(request)
        request[BODY] = body
        request[ACCOUNT] = account
        request[TOKEN] = token
        self.requests.append(
            Request(
                request.method,
                request.path,
                account.id if account else None,
                time.monotonic(),
                body,
            )
        )
        self._note_change()
        public = request.path in ("/oauth", "/api/token") and request.method != "DELETE"
        if not public:
            if account is None:
                return web.json_response({"error": "No such token"}, status=401)
            assert token is not None
            if request.path.startswith("/api/board/") and BOARD_SCOPE not in token.scopes:
                return web.json_response({"error": f"Missing scope: {BOARD_SCOPE}"}, status=403)
        try:
            return await handler(request)
        finally:
            self._note_change()

    # -- streams

    async def _stream(self, request: web.Request, stream: Stream, first: list) -> Any:
        response = web.StreamResponse(
            headers={"Content-Type": "application/x-ndjson", "Access-Control-Allow-Origin": "*"}
        )
        await response.prepare(request)
        stream.transport = request.transport
        self.streams.append(stream)
        self._note_change()
        try:
            for line in first:
                await response.write((json.dumps(line) + "\n").encode())
            hung = False  # a half-open link: nothing more gets through, no end either
            while True:
                try:
                    item = await asyncio.wait_for(stream.queue.get(), self.keepalive_s)
                except TimeoutError:
                    if not hung:
                        await response.write(b"\n")  # keep-alive
                    continue
                if item is CUT or (item is CLOSE and hung):
                    if request.transport is not None:
                        request.transport.abort()
                    return response
                if item is CLOSE:
                    break
                if item is HANG:
                    hung = True
                if hung:
                    continue
                await response.write((json.dumps(item) + "\n").encode())
            await response.write_eof()
            return response
        except (ConnectionResetError, asyncio.CancelledError):
            return response
        finally:
            if stream in self.streams:
                self.streams.remove(stream)
            self._note_change()

    async def _event_stream(self, request: web.Request) -> Any:
        account = request[ACCOUNT]
        for old in [s for s in self.streams if s.kind == "event" and s.account is account]:
            old.queue.put_nowait(CLOSE)  # only one event stream per account
        first: list[dict[str, Any]] = []
        for ch in self.challenges.values():
            if ch.status == "created" and account in (ch.challenger, ch.dest):
                first.append({"type": "challenge", "challenge": ch.json(account)})
        for game in self.games.values():
            if not game.over and game.color_of(account):
                first.append({"type": "gameStart", "game": game.event_info(account)})
        stream = Stream(account, asyncio.Queue(), "event")
        return await self._stream(request, stream, first)

    async def _game_stream(self, request: web.Request) -> Any:
        game = self.games.get(request.match_info["id"])
        account = request[ACCOUNT]
        if game is None or game.color_of(account) is None:
            return _not_found()
        stream = Stream(account, asyncio.Queue(), "game", game.id)
        if game.over:
            stream.queue.put_nowait(CLOSE)
        return await self._stream(request, stream, [game.full()])

    def _to_event_streams(self, account: Any, line: dict[str, Any]) -> None:
        for stream in self.streams:
            if stream.kind == "event" and stream.account is account:
                stream.queue.put_nowait(line)

    def _to_game_streams(self, game_id: str, line: Any) -> None:
        for stream in self.streams:
            if stream.kind == "game" and stream.game_id == game_id:
                stream.queue.put_nowait(line)

    def _cut_all(self) -> None:
        for stream in list(self.streams):
            stream.queue.put_nowait(CUT)

    def _changed_game(self, game: FakeGame) -> None:
        """Tell the game's streams (and, when it ended, the event streams)."""
        self._to_game_streams(game.id, game.state())
        if game.over:
            self._to_game_streams(game.id, CLOSE)
            for color in ("white", "black"):
                player = game.player(color)
                if isinstance(player, Account):
                    line = {"type": "gameFinish", "game": game.event_info(player)}
                    self._to_event_streams(player, line)
        else:
            self._schedule_ai(game)
        self._note_change()

    # -- games

    def _create_game(
        self,
        white: Any,
        black: Any,
        clock_ms: tuple[int, int] | None,
        days: int | None,
        rated: bool,
        fen: str | None,
        variant: str,
        source: str,
        game_id: str | None = None,
    ) -> str:
        game = FakeGame(
            game_id or new_id(),
            white,
            black,
            rated,
            None if clock_ms is None else clock_ms[0],
            0 if clock_ms is None else clock_ms[1],
            days,
            source,
            variant,
            fen,
            self.castling,
        )
        self.games[game.id] = game
        for color in ("white", "black"):
            player = game.player(color)
            if isinstance(player, Account):
                self._to_event_streams(
                    player, {"type": "gameStart", "game": game.event_info(player)}
                )
        assert self._loop is not None
        self._loop.create_task(self._flag_watch(game))
        self._schedule_ai(game)
        self._note_change()
        return game.id

    async def _flag_watch(self, game: FakeGame) -> None:
        """End the game when the running clock reaches zero (``outoftime``)."""
        while not game.over:
            await asyncio.sleep(0.02)
            if game.clock_running() and game.time_left(game.turn()) <= 0:
                loser = game.turn()
                winner = "black" if loser == "white" else "white"
                if game.board.has_insufficient_material(
                    chess.WHITE if winner == "white" else chess.BLACK
                ):
                    winner = None
                game.finish("outoftime", winner)
                self._changed_game(game)

    def _schedule_ai(self, game: FakeGame) -> None:
        if game.over or not isinstance(game.player(game.turn()), AiPlayer):
            return
        assert self._loop is not None

        def move() -> None:
            if game.over or not isinstance(game.player(game.turn()), AiPlayer):
                return
            choice = sorted(game.board.legal_moves, key=lambda m: m.uci())[0]
            self._play(game, game.turn(), game.board.uci(choice))

        self._loop.call_later(self.ai_delay_s, move)

    def _play(self, game: FakeGame, color: str, uci: str) -> str | None:
        """``color`` plays ``uci``: None, or the error the API answers."""
        if game.over:
            return "Not your turn, or game already over"
        if game.turn() != color:
            return "Not your turn, or game already over"
        try:
            move = game.parse_move(uci)
        except ValueError as exc:
            return str(exc)
        game.play(move)
        self._changed_game(game)
        return None

    def _do_draw(self, game: FakeGame, color: str, answer: str) -> str | None:
        if game.over:
            return "The game is over"
        if answer in ("yes", "true"):
            if game.draw_offer and game.draw_offer != color:
                game.finish("draw", None)
            elif self._threefold(game):
                game.finish("draw", None)  # an offer on a repetition is a claim
            else:
                game.draw_offer = color
        elif answer in ("no", "false"):
            if game.draw_offer and game.draw_offer != color:
                game.draw_offer = None
        else:
            return f"Invalid answer: {answer}"
        self._changed_game(game)
        return None

    @staticmethod
    def _threefold(game: FakeGame) -> bool:
        return game.board.can_claim_threefold_repetition() or game.board.can_claim_fifty_moves()

    def _do_takeback(self, game: FakeGame, color: str, answer: str) -> str | None:
        if game.over:
            return "The game is over"
        if not game.takebacks_allowed:
            return "Takebacks are disabled by the opponent"
        if answer in ("yes", "true"):
            if game.takeback_offer and game.takeback_offer != color:
                # Back to the proposer's turn: their last move, and the reply if any.
                proposer = game.takeback_offer
                plies = 1 if game.turn() != proposer else 2
                game.take_back(min(plies, len(game.ucis)))
            elif game.ucis:
                game.takeback_offer = color
            else:
                return "No move to take back"
        elif answer in ("no", "false"):
            game.takeback_offer = None
        else:
            return f"Invalid answer: {answer}"
        self._changed_game(game)
        return None

    def _do_resign(self, game: FakeGame, color: str) -> str | None:
        if game.over:
            return "The game is over"
        game.finish("resign", "black" if color == "white" else "white")
        self._changed_game(game)
        return None

    def _do_abort(self, game: FakeGame, color: str) -> str | None:
        if game.over:
            return "The game is over"
        if len(game.ucis) >= 2:
            return "This game can no longer be aborted"
        game.finish("aborted", None)
        self._changed_game(game)
        return None

    def _mine(self, request: web.Request) -> tuple[FakeGame | None, str | None]:
        game = self.games.get(request.match_info["id"])
        if game is None:
            return None, None
        return game, game.color_of(request[ACCOUNT])

    async def _move(self, request: web.Request) -> web.Response:
        game, color = self._mine(request)
        if game is None or color is None:
            return _not_found()
        refusals = self.refusals.get(game.id)
        if refusals:
            return _error(refusals.pop(0))
        error = self._play(game, color, request.match_info["move"])
        if error:
            return _error(error)
        if request.query.get("offeringDraw") == "true":
            self._do_draw(game, color, "yes")
        return _ok()

    async def _draw(self, request: web.Request) -> web.Response:
        game, color = self._mine(request)
        if game is None or color is None:
            return _not_found()
        error = self._do_draw(game, color, request.match_info["accept"])
        return _error(error) if error else _ok()

    async def _takeback(self, request: web.Request) -> web.Response:
        game, color = self._mine(request)
        if game is None or color is None:
            return _not_found()
        error = self._do_takeback(game, color, request.match_info["accept"])
        return _error(error) if error else _ok()

    async def _resign(self, request: web.Request) -> web.Response:
        game, color = self._mine(request)
        if game is None or color is None:
            return _not_found()
        error = self._do_resign(game, color)
        return _error(error) if error else _ok()

    async def _abort(self, request: web.Request) -> web.Response:
        game, color = self._mine(request)
        if game is None or color is None:
            return _not_found()
        error = self._do_abort(game, color)
        return _error(error) if error else _ok()

    async def _claim_victory(self, request: web.Request) -> web.Response:
        game, color = self._mine(request)
        if game is None or color is None:
            return _not_found()
        other = "black" if color == "white" else "white"
        if game.over or not game.__dict__.get("gone", {}).get(other):
            return _error("The opponent has not left the game")
        game.finish("timeout", color)
        self._changed_game(game)
        return _ok()

    async def _claim_draw(self, request: web.Request) -> web.Response:
        game, color = self._mine(request)
        if game is None or color is None:
            return _not_found()
        other = "black" if color == "white" else "white"
        if game.over or not game.__dict__.get("gone", {}).get(other):
            return _error("The opponent has not left the game")
        game.finish("timeout", None)
        self._changed_game(game)
        return _ok()

    # -- seeks and challenges

    async def _seek(self, request: web.Request) -> web.StreamResponse:
        body = request[BODY]
        account = request[ACCOUNT]
        variant = str(body.get("variant") or "standard")
        if variant not in ("standard", "chess960"):
            return _error(f"The Board API plays standard chess and Chess960, not {variant}")
        if "days" in body:
            days = _int(body["days"])
            if days not in SEEK_DAYS:
                return _error(f"Invalid days: {body['days']}")
            seek_id = new_id()
            if self.seek_partner is not None:
                self._pair(account, None, days, _bool(body.get("rated")), "random", variant)
            return web.json_response({"id": seek_id})
        if "time" not in body or "increment" not in body:
            return _error("time and increment are required for a real-time seek")
        minutes, increment = float(body["time"]), _int(body["increment"])
        if not (0 <= minutes <= 180 and 0 <= increment <= 180):
            return _error("Invalid time control")
        speed = speed_of(int(minutes * 60), increment, None)
        if speed in ("ultraBullet", "bullet", "blitz"):
            return _error(f"Board API seeks must be rapid, classical or correspondence: {speed}")
        stream = Stream(account, asyncio.Queue(), "seek")
        if self.seek_partner is not None:
            clock = (int(minutes * 60_000), increment * 1000)
            color = str(body.get("color") or "random")
            self._loop.call_later(  # type: ignore[union-attr]
                0.05,
                self._pair_seek,
                stream,
                account,
                clock,
                _bool(body.get("rated")),
                color,
                variant,
            )
        return await self._stream(request, stream, [])

    def _pair_seek(
        self,
        stream: Stream,
        account: Account,
        clock: tuple[int, int],
        rated: bool,
        color: str,
        variant: str,
    ) -> None:
        if stream not in self.streams:
            return  # the seek was cancelled: its connection closed
        self._pair(account, clock, None, rated, color, variant)
        stream.queue.put_nowait(CLOSE)

    def _pair(
        self,
        account: Account,
        clock: tuple[int, int] | None,
        days: int | None,
        rated: bool,
        color: str,
        variant: str = "standard",
    ) -> str:
        partner = self.seek_partner
        assert partner is not None
        if color == "random":
            color = secrets.choice(("white", "black"))
        white, black = (account, partner) if color == "white" else (partner, account)
        return self._create_game(white, black, clock, days, rated, None, variant, "lobby")

    async def _challenge_list(self, request: web.Request) -> web.Response:
        account = request[ACCOUNT]
        live = [c for c in self.challenges.values() if c.status == "created"]
        return web.json_response(
            {
                "in": [c.json(account) for c in live if c.dest is account],
                "out": [c.json(account) for c in live if c.challenger is account],
            }
        )

    def _clock_args(self, body: dict[str, Any]) -> tuple[int | None, int | None, int | None, str]:
        limit = body.get("clock.limit")
        increment = body.get("clock.increment")
        days = body.get("days")
        if limit is not None or increment is not None:
            if limit is None or increment is None:
                return None, None, None, "clock.limit and clock.increment go together"
            limit, increment = _int(limit), _int(increment)
            if not (0 <= limit <= 10800 and 0 <= increment <= 60):
                return None, None, None, "Invalid clock"
            if limit not in (0, 15, 30, 45, 60, 90) and limit % 60:
                return None, None, None, f"Invalid clock.limit: {limit}"
            return limit, increment, None, ""
        if days is not None:
            if _int(days) not in SEEK_DAYS:
                return None, None, None, f"Invalid days: {days}"
            return None, None, _int(days), ""
        return None, None, None, ""

    async def _challenge_create(self, request: web.Request) -> web.Response:
        body = request[BODY]
        account = request[ACCOUNT]
        dest = self.accounts.get(request.match_info["username"].lower())
        if dest is None:
            return _error(f"No such user: {request.match_info['username']}")
        limit, increment, days, problem = self._clock_args(body)
        if problem:
            return _error(problem)
        color = str(body.get("color") or "random")
        if color not in ("white", "black", "random"):
            return _error(f"Invalid color: {color}")
        ch = Challenge(
            new_id(),
            account,
            dest,
            _bool(body.get("rated")),
            limit,
            increment,
            days,
            color,
            str(body.get("variant") or "standard"),
            body.get("fen"),
        )
        self.challenges[ch.id] = ch
        self._to_event_streams(dest, {"type": "challenge", "challenge": ch.json(dest)})
        self._to_event_streams(account, {"type": "challenge", "challenge": ch.json(account)})
        if dest.answers_challenges == "accept":
            self._loop.call_later(0.05, self._accept, ch)  # type: ignore[union-attr]
        elif dest.answers_challenges == "decline":
            self._loop.call_later(0.05, self._decline, ch, "later")  # type: ignore[union-attr]
        return web.json_response(ch.json(account))

    def _accept(self, ch: Challenge) -> str:
        ch.status = "accepted"
        color = ch.color if ch.color != "random" else secrets.choice(("white", "black"))
        white, black = (ch.challenger, ch.dest) if color == "white" else (ch.dest, ch.challenger)
        clock = None if ch.limit_s is None else (ch.limit_s * 1000, (ch.increment_s or 0) * 1000)
        return self._create_game(
            white, black, clock, ch.days, ch.rated, ch.fen, ch.variant, "friend", ch.id
        )

    def _decline(self, ch: Challenge, reason: str) -> None:
        ch.status = "declined"
        ch.decline_reason = reason
        line = {"type": "challengeDeclined", "challenge": ch.json(ch.challenger)}
        self._to_event_streams(ch.challenger, line)

    async def _challenge_ai(self, request: web.Request) -> web.Response:
        body = request[BODY]
        level = body.get("level")
        if level is None or not 1 <= _int(level) <= 8:
            return _error("level: must be between 1 and 8")
        limit, increment, days, problem = self._clock_args(body)
        if problem:
            return _error(problem)
        color = str(body.get("color") or "random")
        if color == "random":
            color = secrets.choice(("white", "black"))
        account = request[ACCOUNT]
        ai = AiPlayer(_int(level))
        white, black = (account, ai) if color == "white" else (ai, account)
        clock = None if limit is None else (limit * 1000, (increment or 0) * 1000)
        variant = str(body.get("variant") or "standard")
        game_id = self._create_game(
            white, black, clock, days, False, body.get("fen"), variant, "ai"
        )
        game = self.games[game_id]
        return web.json_response(
            {
                "id": game.id,
                "variant": game.full()["variant"],
                "speed": game.speed,
                "perf": game.speed,
                "rated": False,
                "fen": game.board.fen(),
                "turns": 0,
                "source": "ai",
                "status": {"id": 20, "name": "started"},
                "createdAt": game.created_at,
                "player": color,
                "fullId": game.full_ids[color],
            },
            status=201,
        )

    async def _challenge_accept(self, request: web.Request) -> web.Response:
        ch = self.challenges.get(request.match_info["id"])
        if ch is None or ch.dest is not request[ACCOUNT] or ch.status != "created":
            return _not_found()
        self._accept(ch)
        return _ok()

    async def _challenge_decline(self, request: web.Request) -> web.Response:
        ch = self.challenges.get(request.match_info["id"])
        if ch is None or ch.dest is not request[ACCOUNT] or ch.status != "created":
            return _not_found()
        self._decline(ch, str(request[BODY].get("reason") or "generic"))
        return _ok()

    async def _challenge_cancel(self, request: web.Request) -> web.Response:
        ch = self.challenges.get(request.match_info["id"])
        if ch is None or ch.challenger is not request[ACCOUNT]:
            return _not_found()
        ch.status = "canceled"
        line = {"type": "challengeCanceled", "challenge": ch.json(ch.dest)}
        self._to_event_streams(ch.dest, line)
        return _ok()

    # -- account

    async def _account(self, request: web.Request) -> web.Response:
        return web.json_response(request[ACCOUNT].profile())

    async def _playing(self, request: web.Request) -> web.Response:
        account = request[ACCOUNT]
        games = [g for g in self.games.values() if not g.over and g.color_of(account)]
        infos = [g.event_info(account) for g in games]
        for info in infos:
            info["status"] = info["status"]["name"]  # a GameStatusName here
        return web.json_response(
            {"nowPlaying": infos, "nbMyTurn": sum(1 for i in infos if i["isMyTurn"])}
        )

    # -- OAuth2 with PKCE

    async def _oauth(self, request: web.Request) -> web.Response:
        q = request.query
        problems = []
        if q.get("response_type") != "code":
            problems.append("response_type must be code")
        if q.get("code_challenge_method") != "S256":
            problems.append("code_challenge_method must be S256")
        for key in ("client_id", "redirect_uri", "code_challenge"):
            if not q.get(key):
                problems.append(f"{key} is required")
        if problems:
            return web.Response(status=400, text="; ".join(problems))
        redirect = q["redirect_uri"]
        answer: dict[str, str] = {}
        if self.oauth_answer == "approve":
            code = "liu_" + new_id(24)
            self._codes[code] = {
                "challenge": q["code_challenge"],
                "client_id": q["client_id"],
                "redirect_uri": redirect,
                "scope": q.get("scope", ""),
                "account": next(iter(self.accounts)),
            }
            answer["code"] = code
        else:
            answer.update(error="access_denied", error_description="user cancelled")
        if q.get("state"):
            answer["state"] = q["state"]
        separator = "&" if "?" in redirect else "?"
        raise web.HTTPFound(redirect + separator + urlencode(answer))

    async def _token(self, request: web.Request) -> web.Response:
        body = request[BODY]

        def oauth_error(error: str, description: str) -> web.Response:
            return web.json_response({"error": error, "error_description": description}, status=400)

        if body.get("grant_type") != "authorization_code":
            return oauth_error("unsupported_grant_type", "grant_type must be authorization_code")
        grant = self._codes.pop(str(body.get("code", "")), None)
        if grant is None:
            return oauth_error("invalid_grant", "unknown or used authorization code")
        verifier = str(body.get("code_verifier", ""))
        digest = hashlib.sha256(verifier.encode()).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != grant["challenge"]:
            return oauth_error(
                "invalid_grant", "hash of code_verifier does not match code_challenge"
            )
        if body.get("redirect_uri") != grant["redirect_uri"]:
            return oauth_error("invalid_grant", "redirect_uri does not match")
        if body.get("client_id") != grant["client_id"]:
            return oauth_error("invalid_client", "client_id does not match")
        scopes = tuple(grant["scope"].split())
        token = "lio_" + new_id(32)
        self.tokens[token] = Token(self.accounts[grant["account"]], scopes)
        return web.json_response(
            {"token_type": "Bearer", "access_token": token, "expires_in": 31536000}
        )

    async def _token_delete(self, request: web.Request) -> web.Response:
        token = request[TOKEN]
        if token is not None:
            token.revoked = True
        return web.Response(status=204)


async def _read_body(request: web.Request) -> dict[str, Any]:
    """A form body (as the spec says) or a JSON one (as berserk sends challenges);
    JSON nulls are left out, as absent fields."""
    if request.content_type == "application/json":
        with contextlib.suppress(ValueError):
            data = await request.json()
            if isinstance(data, dict):
                return {k: v for k, v in data.items() if v is not None}
        return {}
    form = await request.post()
    return {k: v for k, v in form.items() if isinstance(v, str)}


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def _bool(value: Any) -> bool:
    return value is True or str(value).lower() == "true"
