"""The board's web page: HTTP and WebSocket (aiohttp) on the daemon's own asyncio loop.

Routes::

    GET  /                      the page (static files come only from this package)
    GET  /static/<file>         its script and style sheet
    GET  /ws                    WebSocket: the state on connect, then every change, pushed
    GET  /api/state             the same state, once, as JSON
    GET  /api/games             the stored games, newest first
    GET  /games/<n>.pgn         a stored game as PGN (``current.pgn``: the game on the board)
    POST /api/<action>          needs ``Authorization: Bearer <token>``:
         button   {"button": "resign"|"draw_offer"|"draw_accept"|"claim_draw"|"new_game"|"adjust"
                   |"hint"}
         choose   {"piece": "q"|"r"|"b"|"n"}
         new_game {"fen": "..." (optional), "options": {...} (optional)}
         options  {"touch_move": "off"|"warn"|"enforce", "takeback": bool, "hints": bool}
         engine   {"side": "none"|"white"|"black", "skill": 0..20, "depth": n|null,
                   "movetime_ms": n|null}   (the level's fields optional: kept when left out)
         sim      {"steps": [["lift", "e2"], ["place", "e4"]]}   (simulated board only)
         setup    {}  the simulated board's pieces set as the lights ask
         takeback {}  the simulated board's pieces moved back one move
         player/<name>/<action> {...}   a player's own action (online play: seek, ...)

The page is a connector: it sees the board only through the door
(:class:`board_driver.door.Door`). Every action goes the hardware's way: buttons and
promotion choices are the door's ``press``/``choose``; simulator steps lift and place
pieces on the simulated board, so the scans flow through sensing and debouncing exactly
as a real board's do.

A page never holds up the board, nor grows the daemon's memory: the server follows the
door through one bounded subscription; each browser keeps only the newest state and the
last few events not yet sent to it; there are at most :data:`MAX_CLIENTS` WebSockets and
:data:`MAX_CONNECTIONS` connections at once (more are closed at once, so the daemon's file
descriptors are never exhausted by a page).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from board_driver.connectors.web import inputs
from board_driver.connectors.web.inputs import InputError
from board_driver.connectors.web.mdns import Announcer, is_loopback, lan_addresses
from board_driver.connectors.web.state import PageState, setup_target, snapshot
from board_driver.connectors.web.token import Token, load_token
from board_driver.door import ActionRefused, Door
from board_driver.squares import square_name

log = logging.getLogger("magboard")

STATIC_FILES = {
    "board.js": "text/javascript",
    "board.css": "text/css",
    "index.html": "text/html",
}
#: Messages kept for a page that connects later (the newest last).
RECENT_EVENTS = 20
#: The WebSockets served at once; more are refused (503).
MAX_CLIENTS = 64
#: The connections (HTTP and WebSocket) open at once; more are closed as they come.
MAX_CONNECTIONS = 256
#: Loop turns an action's answer waits for the players' immediate reactions (a hint
#: refused, an engine's level announced) to be in it.
REACTION_TURNS = 3
#: A JSON body nested deeper than this is refused (it would only be an attack).
MAX_JSON_DEPTH = 20
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _error(status: int, message: str, **headers: str) -> web.Response:
    return web.json_response({"error": message}, status=status, headers=headers)


def _depth(value: Any, limit: int) -> int:
    """How deeply ``value`` nests, counting no further than ``limit`` + 1."""
    depth, level = 0, [value]
    while level and depth <= limit:
        depth += 1
        level = [
            child
            for item in level
            if isinstance(item, dict | list)
            for child in (item.values() if isinstance(item, dict) else item)
        ]
    return depth


class _Client:
    """One browser's WebSocket: the newest state only, and the last events not yet sent."""

    __slots__ = ("events", "ready")

    def __init__(self) -> None:
        self.events: collections.deque[dict] = collections.deque(maxlen=RECENT_EVENTS)
        self.ready = asyncio.Event()


class _Counted(asyncio.Protocol):
    """A connection's protocol, counted by its site (see :class:`_CappedSite`)."""

    def __init__(self, site: _CappedSite, handler: Any) -> None:
        self._site = site
        self._handler = handler
        self._served = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._site.open += 1
        if self._site.open > self._site.limit:
            transport.abort()  # the board's own path needs the descriptors more
            return
        self._served = True
        self._handler.connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        self._site.open -= 1
        if self._served:
            self._handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self._handler.eof_received()

    def pause_writing(self) -> None:
        self._handler.pause_writing()

    def resume_writing(self) -> None:
        self._handler.resume_writing()


class _CappedSite(web.BaseSite):
    """A TCP site that closes connections beyond ``limit`` as they come."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, limit: int) -> None:
        super().__init__(runner)
        self._host, self._port, self.limit = host, port, limit
        self.open = 0

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        factory = self._runner.server
        self._server = await asyncio.get_running_loop().create_server(
            lambda: _Counted(self, factory()), self._host, self._port, backlog=128,
            reuse_address=True,
        )  # fmt: skip


class WebServer:
    """Serves the page for one running board, through its door."""

    def __init__(self, door: Door, section: Any) -> None:
        self.door = door
        self.section = section
        self.page = PageState()
        self.token: Token | None = None
        self.url: str | None = None
        self._runner: web.AppRunner | None = None
        self._site: _CappedSite | None = None
        self._clients: set[_Client] = set()
        self._recent: collections.deque[dict] = collections.deque(maxlen=RECENT_EVENTS)
        self._state_text: str | None = None  # the newest state, serialised once for all
        self._follower: asyncio.Task | None = None
        self._sim_lock = asyncio.Lock()
        self._announcer = Announcer()
        self._static = {
            name: (resources.files("board_driver.connectors.web") / "static" / name).read_bytes()
            for name in STATIC_FILES
        }

    # ------------------------------------------------------------------ life

    async def start(self) -> WebServer:
        """Listen on ``[web] host``/``port``; a port in use is a warning, not a failure."""
        host, port = self.section.host, self.section.port
        try:
            self.token = load_token(self.section.token, self.door.state_dir())
        except OSError as exc:
            log.warning("web page: cannot keep a token (%s): its actions are off", exc)
        app = web.Application(client_max_size=16 * 1024, middlewares=[self._headers])
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name}", self._static_file)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/games", self._games)
        app.router.add_get("/games/{game}.pgn", self._pgn)
        app.router.add_post("/api/player/{player}/{action}", self._player_action)
        app.router.add_post("/api/{action}", self._action)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        site = _CappedSite(runner, host, port, MAX_CONNECTIONS)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            log.warning("web page not served: cannot listen on %s:%d (%s)", host, port, exc)
            return self
        self._runner, self._site = runner, site
        self._follower = asyncio.get_running_loop().create_task(self._follow())
        shown = host if ":" not in host else f"[{host}]"
        if not is_loopback(host):
            addresses = lan_addresses(host)
            if await self._announcer.start(port, addresses):
                shown = "magboard.local"
            elif host in ("0.0.0.0", "::", "") and addresses:
                shown = addresses[0]
        self.url = f"http://{shown}:{port}/"
        log.info("web page: %s", self.url)
        if self.token is not None:
            where = f" (kept in {self.token.path})" if self.token.path else " (from the config)"
            log.info(
                "web page token for actions: %s%s; open %s#token=%s to act from a browser",
                self.token.value,
                where,
                self.url,
                self.token.value,
            )
        return self

    async def stop(self) -> None:
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(BaseException):
                await self._follower
        for client in list(self._clients):
            self._clients.discard(client)
            client.ready.set()
        await self._announcer.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ pushing changes

    async def _follow(self) -> None:
        """One subscription for all pages: collect what a loop turn brings, push once."""
        async with self.door.subscribe(lights=True, maxsize=512) as events:
            async for event in events:
                batch = [event]
                while (more := events.get_nowait()) is not None:
                    batch.append(more)
                shown = [e for e in batch if e.get("type") not in ("lights", "overflow")]
                self.page.follow(shown)
                self._recent.extend(shown)
                self._state_text = None
                for client in self._clients:
                    client.events.extend(shown)
                    client.ready.set()

    def _state_json(self) -> str:
        if self._state_text is None:
            self._state_text = json.dumps(snapshot(self.door.snapshot(), self.page))
        return self._state_text

    # ------------------------------------------------------------------ read-only views

    @web.middleware
    async def _headers(self, request: web.Request, handler: Any) -> web.StreamResponse:
        response = await handler(request)
        if not response.prepared:
            for name, value in SECURITY_HEADERS.items():
                response.headers.setdefault(name, value)
        return response

    async def _index(self, _request: web.Request) -> web.Response:
        return web.Response(body=self._static["index.html"], content_type="text/html")

    async def _static_file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC_FILES or name == "index.html":
            return _error(404, f"no such file: {name[:40]!r}")
        return web.Response(body=self._static[name], content_type=STATIC_FILES[name])

    async def _state(self, _request: web.Request) -> web.Response:
        return web.Response(text=self._state_json(), content_type="application/json")

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        if len(self._clients) >= MAX_CLIENTS:
            return _error(503, f"too many pages open ({MAX_CLIENTS}): close one and reload")
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=4096)
        await ws.prepare(request)
        client = _Client()
        self._clients.add(client)

        async def writer() -> None:
            first = True
            while client in self._clients:
                if not first:
                    await client.ready.wait()
                client.ready.clear()
                events = list(self._recent) if first else list(client.events)
                client.events.clear()
                # The newest state is serialised once for every page, and spliced in.
                text = f'{{"state": {self._state_json()}, "events": {json.dumps(events)}'
                await ws.send_str(text + (', "hello": true}' if first else "}"))
                first = False
            await ws.close()

        task = asyncio.create_task(writer())
        try:
            async for message in ws:  # the page sends nothing; reading notices a close
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self._clients.discard(client)
            client.ready.set()
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        return ws

    async def _games(self, _request: web.Request) -> web.Response:
        games = self.door.games()
        return web.json_response(
            [
                {
                    "id": g.id,
                    "started": g.started,
                    "plies": g.plies,
                    "result": g.result,
                    "termination": g.termination,
                }
                for g in reversed(games[-200:])
            ]
        )

    async def _pgn(self, request: web.Request) -> web.Response:
        raw = request.match_info["game"]
        try:
            game_id = None if raw == "current" else inputs.parse_game_id(raw)
            text = self.door.pgn(game_id)
        except InputError as exc:
            return _error(400, str(exc))
        except LookupError:
            return _error(404, f"no game {raw[:20]} is stored")
        number = self.door.snapshot().game_id if game_id is None else game_id
        name = f"magboard-game-{number}.pgn"
        return web.Response(
            text=text,
            content_type="application/x-chess-pgn",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    # ------------------------------------------------------------------ actions

    def _refusal(self, request: web.Request) -> web.Response | None:
        if self.token is None:
            return _error(403, "actions are off: the daemon could not keep a token (see its log)")
        header = request.headers.get("Authorization", "")
        scheme, _, offered = header.partition(" ")
        if scheme.lower() != "bearer" or not offered.strip():
            return _error(
                401,
                "this action needs the board's token: it is [web] token in the config, or the "
                "one printed in the daemon's log at its first start",
                **{"WWW-Authenticate": 'Bearer realm="magboard"'},
            )
        if not self.token.matches(offered.strip()):
            return _error(403, "wrong token: this action is refused")
        return None

    async def _body(self, request: web.Request) -> dict | web.Response:
        """The request's JSON object, or the 4xx response that says what is wrong."""
        try:
            raw = await request.read() if request.can_read_body else b""
        except web.HTTPRequestEntityTooLarge:
            return _error(413, "the request body is too large")
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return _error(400, "the request body is not JSON")
        except RecursionError:
            return _error(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
        if body is None:
            return {}
        if not isinstance(body, dict):
            return _error(400, "the request body must be a JSON object")
        if _depth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
            return _error(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
        return body

    async def _run_action(self, name: str, request: web.Request, handler: Any) -> web.Response:
        refused = self._refusal(request)
        if refused is not None:
            log.warning("web: action %s refused (%s)", name, refused.status)
            return refused
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        # The answer carries every event the action led to on the loop, as it happened.
        with contextlib.closing(self.door.subscribe(maxsize=256)) as seen:
            try:
                answer = await handler(body)
            except InputError as exc:
                return _error(400, str(exc))
            except LookupError as exc:
                return _error(404, str(exc))
            except ActionRefused as exc:
                return _error(409, str(exc))
            except ValueError as exc:  # a player's settings or action refused
                return _error(400, str(exc))
            for _ in range(REACTION_TURNS):  # what players on the loop say at once to it
                await asyncio.sleep(0)
            events = []
            while (event := seen.get_nowait()) is not None:
                events.append(event)
        reply: dict[str, Any] = {"ok": True, "events": events, **answer}
        sim = self.door.snapshot().sim_pieces
        if sim is not None:
            reply["sim_pieces"] = f"{sim:016x}"  # the page's clicks go on from here
        return web.json_response(reply)

    async def _action(self, request: web.Request) -> web.Response:
        action = request.match_info["action"]
        handler = getattr(self, f"_do_{action}", None)
        if handler is None:
            return _error(404, f"no such action: {action[:40]!r}")
        return await self._run_action(action, request, handler)

    async def _player_action(self, request: web.Request) -> web.Response:
        player, action = request.match_info["player"], request.match_info["action"]

        async def handler(body: dict) -> dict:
            log.info("web: %s %s", player[:20], action[:40])
            return {"answer": dict(await self.door.command(player, action, body))}

        return await self._run_action(f"{player[:20]}/{action[:40]}", request, handler)

    def _sim(self) -> None:
        if self.door.snapshot().sim_pieces is None:
            raise ActionRefused(
                "this board is not the simulator: move the pieces on the board itself"
            )

    async def _do_button(self, body: dict) -> dict:
        name = inputs.parse_button(inputs.field(body, "button"))
        log.info("web: button %s", name)
        self.door.press(name)
        return {}

    async def _do_choose(self, body: dict) -> dict:
        piece = inputs.parse_piece(inputs.field(body, "piece"))
        log.info("web: choose %s", piece)
        self.door.choose(piece)
        return {}

    async def _do_new_game(self, body: dict) -> dict:
        fen = body.get("fen")
        fen = inputs.parse_fen(fen) if fen not in (None, "") else None
        options = inputs.parse_options(body.get("options") or {})
        log.info("web: new game%s", f" from {fen}" if fen else "")
        if fen is not None:
            self.door.new_game(fen, options=options)
            return {}
        if options:
            self.door.set_options(**options)
        self.door.press("new_game")
        return {}

    async def _do_options(self, body: dict) -> dict:
        options = inputs.parse_options(body)
        if not options:
            raise InputError("options: nothing to change")
        self.door.set_options(**options)
        return {}

    async def _do_engine(self, body: dict) -> dict:
        side, level = inputs.parse_engine(body)
        snap = self.door.snapshot()
        if "engine" not in snap.player_states:
            raise ActionRefused("no engine: the engine is off in this daemon")
        playing = [s for s, name in snap.players.items() if name == "engine"]
        log.info("web: engine plays %s%s", side, f" ({level})" if level else "")
        if level:
            # The level first: a side then goes to an engine that plays at it.
            try:
                await self.door.command("engine", "level", level)
            except ActionRefused:
                raise
            except ValueError as exc:  # e.g. neither a depth nor a time per move
                raise InputError(f"engine level: {exc}") from None
        try:
            for old in playing:
                if old != side:
                    self.door.set_player(old, "human")
            if side != "none":
                self.door.set_player(side, "engine")
        except ActionRefused:
            raise
        except ValueError as exc:  # EngineNotFound, a level it refuses: nothing changed
            raise ActionRefused(f"no engine: {exc}") from None
        return {}

    async def _do_sim(self, body: dict) -> dict:
        self._sim()
        steps = inputs.parse_steps(inputs.field(body, "steps"))
        await self._play_steps(steps)
        return {}

    async def _do_setup(self, _body: dict) -> dict:
        self._sim()
        target = setup_target(self.door.snapshot())
        async with self._sim_lock:
            log.info("web: simulated pieces set up as the lights ask")
            self.door.set_sim_pieces(target)
        return {}

    async def _do_takeback(self, _body: dict) -> dict:
        self._sim()
        snap = self.door.snapshot()
        if not snap.options["takeback"]:
            raise ActionRefused("take-backs are off (game options)")
        if not snap.moves:
            raise ActionRefused("no move to take back")
        if snap.result != "*":
            raise ActionRefused("the game is over")
        if not snap.in_sync:
            raise ActionRefused("the board does not match the game: put it right first")
        game = snap.game()
        move = game.pop()
        steps = [("lift", move.to_square)]
        if move.is_castling:
            steps += [("lift", move.rook_to), ("place", move.from_square)]
            steps.append(("place", move.rook_from))
        else:
            steps.append(("place", move.from_square))
            if move.is_capture:
                steps.append(("place", move.captured_square))
        log.info("web: taking back %s on the simulated board", move)
        await self._play_steps(steps)
        return {}

    async def _play_steps(self, steps: list[tuple[str, int]]) -> None:
        """Lift and place, spaced so that debouncing and the tracker see each step."""
        timing = self.door.snapshot().timing
        spacing = (timing.get("pass_ms", 100) + timing.get("debounce_ms", 30) + 30) / 1000
        async with self._sim_lock:
            for i, (kind, sq) in enumerate(steps):
                if i:
                    await asyncio.sleep(spacing)
                if kind == "lift":
                    self.door.lift(sq)
                else:
                    self.door.place(sq)
                log.debug("web: %s %s", kind, square_name(sq))


async def start_server(door: Door, section: Any) -> WebServer:
    """The web extension's start: serve the page for ``door`` from ``[web]``."""
    return await WebServer(door, section).start()
