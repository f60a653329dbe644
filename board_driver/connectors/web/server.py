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

Every action goes the hardware's way: buttons and promotion choices are board-script
``Button``/``Choose`` events handed to the daemon; simulator steps lift and place pieces on
the :class:`~board_driver.physical.sensing.sim.SimulatedBoard`, so the scans flow through sensing
and debouncing exactly as a real board's do.
"""

from __future__ import annotations

import asyncio
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
from board_driver.events import Button, Choose
from board_driver.squares import square_name

log = logging.getLogger("magboard")

STATIC_FILES = {
    "board.js": "text/javascript",
    "lichess.js": "text/javascript",
    "board.css": "text/css",
    "index.html": "text/html",
}
#: Messages kept for a page that connects later (the newest last).
RECENT_EVENTS = 20
#: A page that does not read its updates is dropped rather than buffered without end.
MAX_QUEUED = 200
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class ActionRefused(Exception):
    """An action that cannot be done now (HTTP 409); the message says why."""


def _error(status: int, message: str, **headers: str) -> web.Response:
    return web.json_response({"error": message}, status=status, headers=headers)


class WebServer:
    """Serves the page for one :class:`~board_driver.service.daemon.Daemon`, on its loop."""

    def __init__(self, daemon: Any) -> None:
        self.daemon = daemon
        self.page = PageState()
        self.token: Token | None = None
        self.url: str | None = None
        self._runner: web.AppRunner | None = None
        self._clients: set[asyncio.Queue] = set()
        self._pending: list[dict] = []
        self._flush_scheduled = False
        self._recent: list[dict] = []
        self._captures: list[list[dict]] = []  # one per action being answered
        self._sim_lock = asyncio.Lock()
        self._announcer = Announcer()
        self._static = {
            name: (resources.files("board_driver.connectors.web") / "static" / name).read_bytes()
            for name in STATIC_FILES
        }

    # ------------------------------------------------------------------ life

    async def start(self) -> bool:
        """Listen on ``[web] host``/``port``; a port in use is a warning, not a failure."""
        config = self.daemon.config
        host, port = config.web.host, config.web.port
        try:
            self.token = load_token(config.web.token, config.store_path().parent)
        except OSError as exc:
            log.warning("web page: cannot keep a token (%s): its actions are off", exc)
        app = web.Application(client_max_size=16 * 1024, middlewares=[self._headers])
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name}", self._static_file)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/games", self._games)
        app.router.add_get("/games/{game}.pgn", self._pgn)
        app.router.add_post("/api/{action}", self._action)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            log.warning("web page not served: cannot listen on %s:%d (%s)", host, port, exc)
            return False
        self._runner = runner
        self.daemon.watchers.append(self._changed)
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
        return True

    async def stop(self) -> None:
        with contextlib.suppress(ValueError):
            self.daemon.watchers.remove(self._changed)
        for queue in list(self._clients):
            queue.put_nowait(None)
        await self._announcer.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ pushing changes

    def _changed(self, announced: list[dict]) -> None:
        """A daemon watcher (on the loop): collect, and push once per loop turn."""
        events = [{k: v for k, v in e.items() if k != "leds"} for e in announced]
        self.page.follow(events)
        for capture in self._captures:
            capture.extend(events)
        self._pending.extend(events)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        events, self._pending = self._pending, []
        self._recent = (self._recent + events)[-RECENT_EVENTS:]
        if not self._clients:
            return
        text = json.dumps({"state": snapshot(self.daemon, self.page), "events": events})
        for queue in list(self._clients):
            if queue.qsize() >= MAX_QUEUED:
                queue.put_nowait(None)  # too slow: its page reconnects and starts afresh
                self._clients.discard(queue)
            else:
                queue.put_nowait(text)

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
        return web.json_response(snapshot(self.daemon, self.page))

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=4096)
        await ws.prepare(request)
        queue: asyncio.Queue = asyncio.Queue()
        first = {"state": snapshot(self.daemon, self.page), "events": self._recent, "hello": True}
        queue.put_nowait(json.dumps(first))
        self._clients.add(queue)

        async def writer() -> None:
            while (text := await queue.get()) is not None:
                await ws.send_str(text)
            await ws.close()

        task = asyncio.create_task(writer())
        try:
            async for message in ws:  # the page sends nothing; reading notices a close
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self._clients.discard(queue)
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        return ws

    async def _games(self, _request: web.Request) -> web.Response:
        games = self.daemon.store.games()
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
        from board_driver.service.store import NoSuchGame, game_pgn

        raw = request.match_info["game"]
        try:
            game_id = self.daemon.game_id if raw == "current" else inputs.parse_game_id(raw)
            stored = self.daemon.store.game(game_id)
        except InputError as exc:
            return _error(400, str(exc))
        except NoSuchGame:
            return _error(404, f"no game {raw} is stored")
        name = f"magboard-game-{stored.id}.pgn"
        return web.Response(
            text=game_pgn(stored),
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

    async def _action(self, request: web.Request) -> web.Response:
        action = request.match_info["action"]
        handler = getattr(self, f"_do_{action}", None)
        if handler is None:
            return _error(404, f"no such action: {action[:40]!r}")
        refused = self._refusal(request)
        if refused is not None:
            log.warning("web: action %s refused (%s)", action, refused.status)
            return refused
        try:
            body = await request.json() if request.can_read_body else {}
        except (ValueError, UnicodeDecodeError):
            return _error(400, "the request body is not JSON")
        except web.HTTPRequestEntityTooLarge:
            return _error(413, "the request body is too large")
        if body is None:
            body = {}
        if not isinstance(body, dict):
            return _error(400, "the request body must be a JSON object")
        announced: list[dict] = []
        self._captures.append(announced)
        try:
            await handler(body)
        except InputError as exc:
            return _error(400, str(exc))
        except ActionRefused as exc:
            return _error(409, str(exc))
        finally:
            self._captures = [c for c in self._captures if c is not announced]
        answer: dict[str, Any] = {"ok": True, "events": announced}
        board = self.daemon.hw.sim_board
        if board is not None:
            answer["sim_pieces"] = f"{board.pieces:016x}"  # the page's clicks go on from here
        return web.json_response(answer)

    def _sim_board(self) -> Any:
        board = self.daemon.hw.sim_board
        if board is None:
            raise ActionRefused(
                "this board is not the simulator: move the pieces on the board itself"
            )
        return board

    async def _do_button(self, body: dict) -> None:
        name = inputs.parse_button(inputs.field(body, "button"))
        log.info("web: button %s", name)
        self.daemon.handle([Button(self.daemon.now_ms(), name)])

    async def _do_choose(self, body: dict) -> None:
        piece = inputs.parse_piece(inputs.field(body, "piece"))
        log.info("web: choose %s", piece)
        self.daemon.handle([Choose(self.daemon.now_ms(), piece)])

    async def _do_new_game(self, body: dict) -> None:
        fen = body.get("fen")
        fen = inputs.parse_fen(fen) if fen not in (None, "") else None
        options = inputs.parse_options(body.get("options") or {})
        log.info("web: new game%s", f" from {fen}" if fen else "")
        if fen is not None:
            self.page.setup_pending = False
            self.daemon.new_game(fen, options)  # the lights then guide the set-up
            return
        if options:
            self.daemon.set_options(options)
        self.daemon.handle([Button(self.daemon.now_ms(), "new_game")])

    async def _do_options(self, body: dict) -> None:
        options = inputs.parse_options(body)
        if not options:
            raise InputError("options: nothing to change")
        self.daemon.set_options(options)

    async def _do_engine(self, body: dict) -> None:
        import dataclasses

        side, changes = inputs.parse_engine(body)
        level = None
        if changes:
            if "skill" in changes:
                changes["elo"] = None  # a skill chosen on the page replaces a limited Elo
            try:
                level = dataclasses.replace(self.daemon.engine.level, **changes)
            except ValueError as exc:  # e.g. neither a depth nor a time per move
                raise InputError(f"engine level: {exc}") from None
        log.info("web: engine plays %s%s", side, f" ({level.describe()})" if level else "")
        try:
            self.daemon.set_engine(side, level)
        except ValueError as exc:  # EngineNotFound: nothing changed
            raise ActionRefused(f"no engine: {exc}") from None

    async def _do_sim(self, body: dict) -> None:
        board = self._sim_board()
        steps = inputs.parse_steps(inputs.field(body, "steps"))
        await self._play_steps(board, steps)

    async def _do_setup(self, _body: dict) -> None:
        board = self._sim_board()
        target = setup_target(self.daemon, self.page)
        async with self._sim_lock:
            log.info("web: simulated pieces set up as the lights ask")
            board.pieces = target

    async def _do_takeback(self, _body: dict) -> None:
        board = self._sim_board()
        tracker = self.daemon.tracker
        game = tracker.game
        if not tracker.options.takeback:
            raise ActionRefused("take-backs are off (game options)")
        if not game.moves:
            raise ActionRefused("no move to take back")
        if game.outcome() is not None:
            raise ActionRefused("the game is over")
        if not tracker.in_sync:
            raise ActionRefused("the board does not match the game: put it right first")
        move = game.moves[-1]
        steps = [("lift", move.to_square)]
        if move.is_castling:
            steps += [("lift", move.rook_to), ("place", move.from_square)]
            steps.append(("place", move.rook_from))
        else:
            steps.append(("place", move.from_square))
            if move.is_capture:
                steps.append(("place", move.captured_square))
        log.info("web: taking back %s on the simulated board", move)
        await self._play_steps(board, steps)

    async def _play_steps(self, board: Any, steps: list[tuple[str, int]]) -> None:
        """Lift and place, spaced so that debouncing and the tracker see each step."""
        config = self.daemon.config
        spacing = (config.game.pass_ms + config.sensing.debounce_ms + 30) / 1000
        async with self._sim_lock:
            for i, (kind, sq) in enumerate(steps):
                if i:
                    await asyncio.sleep(spacing)
                try:
                    board.lift(sq) if kind == "lift" else board.place(sq)
                except ValueError as exc:
                    raise ActionRefused(str(exc)) from None
                log.debug("web: %s %s", kind, square_name(sq))
