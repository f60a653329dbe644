"""The board's web page: HTTP and WebSocket (h11 and wsproto: :mod:`.http`) on the daemon's loop.

Routes::

    GET  /                      the page (static files come only from this package)
    GET  /static/<file>         its script, style sheet and icon
    GET  /favicon.ico           the icon (an SVG), where browsers look for it
    GET  /ws                    WebSocket: the state on connect, then every change, pushed
    GET  /api/state             the same state, once, as JSON
    GET  /api/describe?what=clocks  the board's answer to a question, in words (``what``: move,
                                moves, clocks, material, square&square=e4, rank&rank=3,
                                file&file=e, pieces&piece=N, piece_moves&square=g1),
                                as its speech says it
    GET  /api/games             the stored games, newest first (not those put aside empty)
    GET  /api/games/<n>/review  a stored game move by move, with the engine's review so far
    GET  /games/<n>.pgn         a stored game as PGN (``current.pgn``: the game on the board;
                                ``?evals=1``: its review as [%eval] comments and glyphs)
    POST /api/<action>          needs ``Authorization: Bearer <token>``:
         button   {"button": "resign"|"draw_offer"|"draw_accept"|"claim_draw"|"new_game"|"adjust"
                   |"hint"}
         choose   {"piece": "q"|"r"|"b"|"n"}
         new_game {"fen": "..." (optional), "variant": "standard"|"chess960" (optional),
                   "chess960": 0-959|"random" (optional), "options": {...} (optional),
                   "engine": {"side": "none"|"white"|"black", ...} (optional: who plays it)}
                  or {"pgn": "[FEN ...] 1. e4 ..."}: the position its game reaches (its FEN
                   header, or the start, and its main line played to the end; Variant
                   "Chess960" read); an unreadable PGN or an illegal move is a 400 naming it
         options  {"touch_move": "off"|"warn"|"enforce", "takeback": bool, "hints": bool}
         engine   {"side": "none"|"white"|"black", "skill": 0..20, "depth": n|null,
                   "movetime_ms": n|null}   (the level's fields optional: kept when left out)
         sim      {"steps": [["lift", "e2"], ["place", "e4"]]}   (simulated board only)
         setup    {}  the simulated board's pieces set as the lights ask
         takeback {}  the simulated board's pieces moved back one move
         headers  {"White": "Ann", "Round": "3", ...}  PGN headers ("" removes one)
         resume   {"game": n}  an adjourned game (stored, not over) back on the board
         answer   {"reading": n}  which reading of the pieces is right, when the board asks
                  after a restart (the state's "question", numbered from 0)
         player/<name>/<action> {...}   a player's own action (online play: seek, ...;
                   ``player/engine/review {"game": n}`` reviews a finished game)

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
import gzip
import json
import logging
from importlib import resources
from typing import Any

from board_driver.connectors.web import inputs
from board_driver.connectors.web.actions import Actions
from board_driver.connectors.web.http import HttpServer, Request, Response, Router, WebSocket
from board_driver.connectors.web.inputs import InputError
from board_driver.connectors.web.limits import json_depth
from board_driver.connectors.web.mdns import Announcer, is_loopback, lan_addresses
from board_driver.connectors.web.review import review_view
from board_driver.connectors.web.spoken import PageWords
from board_driver.connectors.web.state import PageState, snapshot
from board_driver.connectors.web.token import Token, load_token
from board_driver.door import ActionRefused, Door, StoreUnavailable

log = logging.getLogger("magboard")

STATIC_FILES = {
    "board.js": "text/javascript",
    "review.js": "text/javascript",
    "lichess.js": "text/javascript",
    "puzzles.js": "text/javascript",
    "clock.js": "text/javascript",
    "play.js": "text/javascript",
    "editor.js": "text/javascript",
    "sound.js": "text/javascript",
    "blind.js": "text/javascript",
    "pieces.js": "text/javascript",
    "board.css": "text/css",
    "editor.css": "text/css",
    "index.html": "text/html",
    "favicon.svg": "image/svg+xml",
    "pieces.svg": "image/svg+xml",
}
#: What the door streams that is no message for a page (the state they change is sent).
NOT_SHOWN = frozenset({"lights", "overflow", "lift", "place", "button", "choose"})
#: What the board's words need no snapshot for (the narrator follows the pieces itself).
BOARD_ONLY = frozenset({"lights", "lift", "place", "button", "choose"})
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


def connection_limit() -> int:
    """The connections the page may hold: :data:`MAX_CONNECTIONS`, or a quarter of the
    process's file descriptors if that is less (the board, its store and its devices need
    the rest)."""
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(4, min(MAX_CONNECTIONS, soft // 4))


class _Client:
    """One browser's WebSocket: the newest state only, and the last events not yet sent."""

    __slots__ = ("events", "ready")

    def __init__(self) -> None:
        self.events: collections.deque[dict] = collections.deque(maxlen=RECENT_EVENTS)
        self.ready = asyncio.Event()


class WebServer:
    """Serves the page for one running board, through its door."""

    def __init__(self, door: Door, section: Any) -> None:
        self.door = door
        self.section = section
        self.page = PageState()
        self.token: Token | None = None
        self.url: str | None = None
        self._http: HttpServer | None = None
        self._clients: set[_Client] = set()
        self._recent: collections.deque[dict] = collections.deque(maxlen=RECENT_EVENTS)
        self._state_text: str | None = None  # the newest state, serialised once for all
        self._follower: asyncio.Task | None = None
        self.actions = Actions(door)
        self.words: PageWords | None = None  # the board's words, once the page is served
        self._announcer = Announcer()
        self._static = {
            name: (resources.files("board_driver.connectors.web") / "static" / name).read_bytes()
            for name in STATIC_FILES
        }
        # Compressed once (a phone on a weak link loads a third of the bytes); mtime 0: the
        # same bytes at every start.
        self._static_gzip = {
            name: gzip.compress(body, compresslevel=9, mtime=0)
            for name, body in self._static.items()
        }

    # ------------------------------------------------------------------ life

    async def start(self) -> WebServer:
        """Listen on ``[web] host``/``port``; a port in use is a warning, not a failure."""
        host, port = self.section.host, self.section.port
        try:
            self.token = load_token(self.section.token, self.door.state_dir())
        except OSError as exc:
            log.warning("web page: cannot keep a token (%s): its actions are off", exc)
        router = Router()
        router.add("GET", "/", self._index)
        router.add("GET", "/static/{name}", self._static_file)
        router.add("GET", "/favicon.ico", self._favicon)  # asked for by browsers on any page
        router.add_websocket("/ws", self._websocket)
        router.add("GET", "/api/state", self._state)
        router.add("GET", "/api/describe", self._describe)
        router.add("GET", "/api/games", _store_reads(self._games))
        router.add("GET", "/api/games/{game}/review", _store_reads(self._review))
        router.add("GET", "/games/{game}.pgn", _store_reads(self._pgn))
        router.add("POST", "/api/player/{player}/{action}", self._player_action)
        router.add("POST", "/api/{action}", _store_reads(self._action))
        http = HttpServer(router, max_connections=connection_limit(), headers=SECURITY_HEADERS)
        try:
            await http.start(host, port)
        except OSError as exc:
            log.warning("web page not served: cannot listen on %s:%d (%s)", host, port, exc)
            return self
        self._http = http
        self.words = PageWords(self.section.language, self.door.snapshot())
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
            log.info("web page token for actions: %s%s", self.token.value, where)
            # The link a newcomer opens (the README's quick start says so): the page keeps
            # the token it carries, and plays at once.
            log.info("to play on the page, open %s#token=%s", self.url, self.token.value)
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
        if self._http is not None:
            await self._http.stop()
            self._http = None

    # ------------------------------------------------------------------ pushing changes

    async def _follow(self) -> None:
        """One subscription for all pages: collect what a loop turn brings, push once.

        The board's own lifts and places are followed too: a piece lifted by other hands
        (the terminal, a script, the API, a real player) shows on every page at once, though
        it changes nothing else. They are not messages: only the state they change is sent."""
        async with self.door.subscribe(board=True, lights=True, maxsize=512) as events:
            async for event in events:
                batch = [event]
                while (more := events.get_nowait()) is not None:
                    batch.append(more)
                shown = self._told(batch)
                self.page.follow(shown)
                self._recent.extend(shown)
                self._state_text = None
                for client in self._clients:
                    client.events.extend(shown)
                    client.ready.set()

    def _told(self, batch: list[dict]) -> list[dict]:
        """The events of ``batch`` a page is sent, with the board's words for each (``said``:
        :class:`~board_driver.connectors.web.spoken.PageWords`)."""
        if self.words is None:
            return [e for e in batch if e.get("type") not in NOT_SHOWN]
        needs_board = any(e.get("type") not in BOARD_ONLY for e in batch)
        snapshot = self.door.snapshot() if needs_board else None
        return self.words.follow(batch, snapshot, hidden=NOT_SHOWN)

    def _state_json(self) -> str:
        if self._state_text is None:
            self._state_text = json.dumps(snapshot(self.door.snapshot(), self.page))
        return self._state_text

    # ------------------------------------------------------------------ read-only views

    def _file(self, request: Request, name: str) -> Response:
        """A page file, gzip-compressed for a browser that accepts it."""
        accepted = request.headers.get("accept-encoding", "")
        if any(part.split(";")[0].strip() == "gzip" for part in accepted.split(",")):
            return Response(
                body=self._static_gzip[name],
                content_type=STATIC_FILES[name],
                headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"},
            )
        return Response(
            body=self._static[name],
            content_type=STATIC_FILES[name],
            headers={"Vary": "Accept-Encoding"},
        )

    async def _index(self, request: Request) -> Response:
        return self._file(request, "index.html")

    async def _static_file(self, request: Request) -> Response:
        name = request.match["name"]
        if name not in STATIC_FILES or name == "index.html":
            return Response.error(404, f"no such file: {name[:40]!r}")
        return self._file(request, name)

    async def _favicon(self, request: Request) -> Response:
        return self._file(request, "favicon.svg")

    async def _state(self, _request: Request) -> Response:
        return Response(body=self._state_json().encode(), content_type="application/json")

    async def _describe(self, request: Request) -> Response:
        """The board's answer to a question, in the page's language (``{"text": ...}``)."""
        what = request.query.get("what", "")
        if self.words is None:
            return Response.error(503, "the page's words are not ready")
        try:
            text = self.words.answer(what, self.door.snapshot(), request.query)
        except ValueError as exc:
            return Response.error(400, str(exc))
        return Response.json({"what": what, "text": text})

    async def _websocket(self, _request: Request, socket: WebSocket) -> None:
        if len(self._clients) >= MAX_CLIENTS:
            await socket.send(json.dumps({"error": f"too many pages open ({MAX_CLIENTS})"}))
            return
        client = _Client()
        self._clients.add(client)
        try:
            first = True
            while client in self._clients and not socket.is_closed:
                if not first:
                    ready = asyncio.ensure_future(client.ready.wait())
                    closed = asyncio.ensure_future(socket.closed())
                    done, pending = await asyncio.wait(
                        (ready, closed), return_when=asyncio.FIRST_COMPLETED
                    )
                    for task in pending:
                        task.cancel()
                    if closed in done:
                        return
                client.ready.clear()
                events = list(self._recent) if first else list(client.events)
                client.events.clear()
                # The newest state is serialised once for every page, and spliced in.
                text = f'{{"state": {self._state_json()}, "events": {json.dumps(events)}'
                await socket.send(text + (', "hello": true}' if first else "}"))
                first = False
        finally:
            self._clients.discard(client)

    async def _games(self, _request: Request) -> Response:
        """The stored games, newest first; a game put aside before a move was made in it (a
        new game started on an untouched board) is not listed: there is nothing to resume."""
        on_board = self.door.snapshot().game_id
        games = [
            g for g in self.door.games() if g.plies or g.result != "*" or g.id == on_board
        ]
        return Response.json(
            [
                {
                    "id": g.id,
                    "started": g.started,
                    "plies": g.plies,
                    "result": g.result,
                    "termination": g.termination,
                    "on_board": g.id == on_board,
                }
                for g in reversed(games[-200:])
            ]
        )

    async def _review(self, request: Request) -> Response:
        raw = request.match["game"]
        try:
            return Response.json(review_view(self.door, inputs.parse_game_id(raw)))
        except InputError as exc:
            return Response.error(400, str(exc))
        except LookupError:
            return Response.error(404, f"no game {raw[:20]} is stored")

    async def _pgn(self, request: Request) -> Response:
        raw = request.match["game"]
        evals = request.query.get("evals", "") not in ("", "0")
        try:
            game_id = None if raw == "current" else inputs.parse_game_id(raw)
            number = self.door.snapshot().game_id if game_id is None else game_id
            if evals and number is not None:
                hidden = review_view(self.door, number)["hidden"]
                if hidden:
                    return Response.error(409, hidden)
            text = self.door.pgn(game_id, evals=evals)
        except InputError as exc:
            return Response.error(400, str(exc))
        except LookupError:
            return Response.error(404, f"no game {raw[:20]} is stored")
        name = f"magboard-game-{number}{'-review' if evals else ''}.pgn"
        return Response(
            body=text.encode(),
            content_type="application/x-chess-pgn",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    # ------------------------------------------------------------------ actions

    def _refusal(self, request: Request) -> Response | None:
        if self.token is None:
            return Response.error(
                403, "actions are off: the daemon could not keep a token (see its log)"
            )
        header = request.headers.get("authorization", "")
        scheme, _, offered = header.partition(" ")
        if scheme.lower() != "bearer" or not offered.strip():
            return Response.error(
                401,
                "this action needs the board's token: it is [web] token in the config, or the "
                "one printed in the daemon's log at its first start",
                **{"WWW-Authenticate": 'Bearer realm="magboard"'},
            )
        if not self.token.matches(offered.strip()):
            return Response.error(403, "wrong token: this action is refused")
        return None

    def _body(self, request: Request) -> dict | Response:
        """The request's JSON object, or the 4xx response that says what is wrong."""
        if not request.body.strip():
            return {}
        try:
            body = json.loads(request.body)
        except (ValueError, UnicodeDecodeError):
            return Response.error(400, "the request body is not JSON")
        except RecursionError:
            return Response.error(400, f"the request body nests deeper than {MAX_JSON_DEPTH}")
        if body is None:
            return {}
        if not isinstance(body, dict):
            return Response.error(400, "the request body must be a JSON object")
        if json_depth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
            return Response.error(400, f"the request body nests deeper than {MAX_JSON_DEPTH}")
        return body

    async def _run_action(self, name: str, request: Request, handler: Any) -> Response:
        refused = self._refusal(request)
        if refused is not None:
            log.warning("web: action %s refused (%s)", name, refused.status)
            return refused
        body = self._body(request)
        if isinstance(body, Response):
            return body
        # The answer carries every event the action led to on the loop, as it happened.
        with contextlib.closing(self.door.subscribe(maxsize=256)) as seen:
            try:
                answer = await handler(body)
            except InputError as exc:
                return Response.error(400, str(exc))
            except LookupError as exc:
                return Response.error(404, str(exc))
            except ActionRefused as exc:
                return Response.error(409, str(exc))
            except StoreUnavailable as exc:  # as for the reads (_store_reads)
                return Response.error(503, str(exc))
            except ValueError as exc:  # a player's settings or action refused
                return Response.error(400, str(exc))
            for _ in range(REACTION_TURNS):  # what players on the loop say at once to it
                await asyncio.sleep(0)
            events = []
            while (event := seen.get_nowait()) is not None:
                events.append(event)
        reply: dict[str, Any] = {"ok": True, "events": events, **answer}
        sim = self.door.snapshot().sim_pieces
        if sim is not None:
            reply["sim_pieces"] = f"{sim:016x}"  # the page's clicks go on from here
        return Response.json(reply)

    async def _action(self, request: Request) -> Response:
        action = request.match["action"]
        handler = getattr(self.actions, f"do_{action}", None)
        if handler is None:
            return Response.error(404, f"no such action: {action[:40]!r}")
        return await self._run_action(action, request, handler)

    async def _player_action(self, request: Request) -> Response:
        player, action = request.match["player"], request.match["action"]

        async def handler(body: dict) -> dict:
            log.info("web: %s %s", player[:20], action[:40])
            return {"answer": dict(await self.door.command(player, action, body))}

        return await self._run_action(f"{player[:20]}/{action[:40]}", request, handler)


async def start_server(door: Door, section: Any) -> WebServer:
    """The web extension's start: serve the page for ``door`` from ``[web]``."""
    return await WebServer(door, section).start()


def _store_reads(handler: Any) -> Any:
    """``handler``, answering 503 with the store's words while the stored games cannot be
    read (a file of the store stopped taking writes): not a 500, and the page says why."""

    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except StoreUnavailable as exc:
            return Response.error(503, str(exc))

    return guarded
