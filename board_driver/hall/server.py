"""The hall's HTTP side (aiohttp): a LiveChess-style folder of PGN that Lichess broadcasts
and other relays poll, and the hall's page.

Routes::

    GET /                          the page: every board of the round at once, live
    GET /static/<file>             its script and style sheet (no CDN: a hall has no internet)
    GET /round-<r>/games.pgn       every game of round <r> (Result "*" while live, Board tag)
    GET /round-<r>/game-<n>.pgn    the round's <n>th game (1 = the lowest board's first game)
    GET /api/state?round=<r>       the page's state: the round, the rounds, each game in short
    GET /api/game/<board>/<game>   one game: its record and its PGN
    GET /api/events?round=<r>      Server-Sent Events: ``state`` at once, then ``games``
                                   (the games that changed), ``boards`` (online/offline,
                                   and the boards whose records cannot be used) and
                                   ``hall`` (the hall's link to the broker and Lichess)

The PGN answers carry an ``ETag`` (a poller's ``If-None-Match`` gets 304 while nothing
changed) and ``Cache-Control: no-cache``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from importlib import resources
from typing import Any

from aiohttp import web

from board_driver.hall.games import HallGames

STATIC_FILES = {"index.html": "text/html", "hall.js": "text/javascript", "hall.css": "text/css"}
#: The pieces, the board page's own set (one set for both pages).
PIECE_FILES = {"pieces.svg": "image/svg+xml", "pieces.js": "text/javascript"}
PGN_TYPE = "application/x-chess-pgn"
#: A page's updates are gathered for this long before they are sent (many boards, one send).
GATHER_S = 0.05
#: A page is sent a comment this often, so that proxies keep the stream open.
KEEPALIVE_S = 15.0
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class HallServer:
    """Serves ``games``; :meth:`changed` tells the pages that something changed."""

    def __init__(self, games: HallGames, *, status: Any = None) -> None:
        self.games = games
        self.status = status  # an object whose ``state()`` the page shows (the link, the push)
        self._pages: set[asyncio.Event] = set()
        self._closing = False
        self.app = web.Application()
        self.app.add_routes(
            [
                web.get("/", self.index),
                web.get("/static/{name}", self.static),
                web.get(r"/round-{round}/games.pgn", self.round_pgn),
                web.get(r"/round-{round}/game-{number:[0-9]{1,6}}.pgn", self.one_pgn),
                web.get("/api/state", self.state),
                web.get(r"/api/game/{board:[0-9]{1,6}}/{game:[0-9]{1,16}}", self.game),
                web.get("/api/events", self.events),
            ]
        )
        self._runner: web.AppRunner | None = None

    async def start(self, host: str, port: int) -> list[str]:
        """Listen; the addresses it serves on (``http://host:port/``)."""
        self._runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        return [f"http://{_url_host(a[0])}:{a[1]}/" for a in self._runner.addresses]

    async def stop(self) -> None:
        self._closing = True
        for page in self._pages:
            page.set()
        if self._runner is not None:
            await self._runner.cleanup()

    def changed(self) -> None:
        for page in self._pages:
            page.set()

    # ------------------------------------------------------------------ the folder

    async def round_pgn(self, request: web.Request) -> web.StreamResponse:
        return _pgn(request, self.games.games_pgn(request.match_info["round"]))

    async def one_pgn(self, request: web.Request) -> web.StreamResponse:
        games = self.games.games(request.match_info["round"])
        number = int(request.match_info["number"])
        if not 1 <= number <= len(games):
            raise web.HTTPNotFound(text=f"round {request.match_info['round']} has "
                                   f"{len(games)} games, not a game {number}\n")
        return _pgn(request, self.games.game_pgn(games[number - 1]))

    # ------------------------------------------------------------------ the page

    async def index(self, request: web.Request) -> web.StreamResponse:
        return self._file("index.html")

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in STATIC_FILES and name not in PIECE_FILES:
            raise web.HTTPNotFound()
        return self._file(name)

    def _file(self, name: str) -> web.Response:
        package = "board_driver.connectors.web" if name in PIECE_FILES else "board_driver.hall"
        body = resources.files(package).joinpath("static", name).read_bytes()
        return web.Response(
            body=body, content_type={**STATIC_FILES, **PIECE_FILES}[name], charset="utf-8",
            headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"},
        )

    def _state(self, round: str | None) -> dict[str, Any]:
        state = self.games.state(round)
        if self.status is not None:
            state["hall"] = self.status.state()
        return state

    async def state(self, request: web.Request) -> web.Response:
        return web.json_response(self._state(request.query.get("round")))

    async def game(self, request: web.Request) -> web.Response:
        key = (int(request.match_info["board"]), int(request.match_info["game"]))
        record = self.games.shown(key)
        if record is None:
            raise web.HTTPNotFound(text=f"no game {key[1]} of board {key[0]} in the hall\n")
        summary = self.games.summary(record)
        summary["moves"] = list(record.moves)
        summary["ucis"] = list(record.ucis)
        summary["start_fen"] = record.start_fen
        summary["variant"] = record.variant
        summary["pgn"] = self.games.game_pgn(record)
        return web.json_response(summary)

    async def events(self, request: web.Request) -> web.StreamResponse:
        round = request.query.get("round") or self.games.round
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        woken = asyncio.Event()
        self._pages.add(woken)
        try:
            seen = self.games.version
            state = self._state(round)
            hall = state.get("hall")
            await _send(response, "state", state)
            while not self._closing and request.transport and not request.transport.is_closing():
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(woken.wait(), KEEPALIVE_S)
                if not woken.is_set():
                    await response.write(b": still here\n\n")
                    continue
                await asyncio.sleep(GATHER_S)
                woken.clear()
                if self.status is not None and (now := self.status.state()) != hall:
                    hall = now
                    await _send(response, "hall", hall)
                changes = self.games.changed_since(seen)
                seen = self.games.version
                if changes is None:
                    await _send(response, "state", self._state(round))
                    continue
                games = []
                boards = False
                for change in changes:
                    if change.game is None:
                        boards = True
                        continue
                    record = self.games.shown((change.board, change.game))
                    if record is not None and self.games.round_of(record) == round:
                        games.append(self.games.summary(record))
                    elif record is None:
                        games.append({"board": change.board, "game": change.game,
                                      "removed": True})
                if games:
                    await _send(response, "games", games)
                if boards:
                    await _send(response, "boards", {"boards": self.games.boards(),
                                                     "bad": self.games.bad_data()})
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self._pages.discard(woken)
        return response


async def _send(response: web.StreamResponse, event: str, data: Any) -> None:
    payload = json.dumps(data, separators=(",", ":"))
    await response.write(f"event: {event}\ndata: {payload}\n\n".encode())


def _pgn(request: web.Request, text: str) -> web.Response:
    etag = '"' + hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest() + '"'
    headers = {"ETag": etag, "Cache-Control": "no-cache", "Access-Control-Allow-Origin": "*"}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(text=text, content_type=PGN_TYPE, charset="utf-8", headers=headers)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
