"""A loopback fake of Lichess's broadcast round push, written from the official API spec
(lichess-org/api, doc/specs: ``tags/broadcasts/broadcast-round-broadcastRoundId-push.yaml``,
``schemas/BroadcastPgnPush.yaml``, ``schemas/BroadcastPgnPushTags.yaml``, the example
``examples/broadcasts-pushPgnToBroadcastRound.json.yaml``, the OAuth2 scopes and the
rate-limiting section of ``lichess-api.yaml``, read at commit f59dc80500ca0db2).

What the spec says, and the fake does:

- ``POST /api/broadcast/round/{broadcastRoundId}/push``; the id is 8 characters.
- Security: OAuth2 with the ``study:write`` scope, sent as ``Authorization: Bearer``.
- Body: ``text/plain``, the PGN, "up to 100 games, separated by a double new line".
- 200: ``{"games": [{"tags": {...all strings}, "moves": <int>, "error"?: <str>}]}``, one
  entry per game; 400: ``{"error": "..."}`` ("Cannot parse moves") for a PGN it cannot use.
- "Only make one request at a time": a second request while one is in progress is
  answered 429.

Not in the spec, so chosen here the way the rest of the Lichess API answers: 401 for a
missing or unknown token, 403 for a token without ``study:write``, 404 for an unknown
round, each with ``{"error": ...}``. python-chess reads the PGN (the oracle, not our code).
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
from dataclasses import dataclass, field

import chess.pgn
from aiohttp import web

from tests.mosquitto import free_port

MAX_GAMES = 100


@dataclass
class Push:
    round_id: str
    text: str
    status: int
    at: float = field(default_factory=time.monotonic)


class FakeLichess:
    """``with FakeLichess(rounds={"abcd1234"}, tokens={"tok": {"study:write"}}) as lichess:``
    then point ``base_url`` at ``lichess.url``; ``lichess.pushes`` lists every push."""

    def __init__(self, *, rounds: set[str], tokens: dict[str, set[str]], delay_s: float = 0.0):
        self.rounds = rounds
        self.tokens = tokens
        self.delay_s = delay_s
        self.pushes: list[Push] = []
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._busy = False
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> FakeLichess:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _start(self) -> None:
        app = web.Application()
        app.add_routes([web.post("/api/broadcast/round/{round_id}/push", self._push)])
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    def accepted(self, round_id: str) -> list[Push]:
        with self._lock:
            return [p for p in self.pushes if p.round_id == round_id and p.status == 200]

    async def _push(self, request: web.Request) -> web.Response:
        round_id = request.match_info["round_id"]
        text = await request.text()
        answer = await self._answer(request, round_id, text)
        with self._lock:
            self.pushes.append(Push(round_id, text, answer.status))
        return answer

    async def _answer(self, request: web.Request, round_id: str, text: str) -> web.Response:
        if self._busy:
            return _error(429, "Too many requests. Try again later.")
        self._busy = True
        try:
            await asyncio.sleep(self.delay_s)
            auth = request.headers.get("Authorization", "")
            token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
            if token not in self.tokens:
                return _error(401, "No such token")
            if "study:write" not in self.tokens[token]:
                return _error(403, "Missing scope: study:write")
            if len(round_id) != 8 or round_id not in self.rounds:
                return _error(404, "Not found")
            return _games(text)
        finally:
            self._busy = False


def _error(status: int, message: str) -> web.Response:
    return web.Response(status=status, text=json.dumps({"error": message}),
                        content_type="application/json")


def _games(text: str) -> web.Response:
    stream = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    if not games:
        return _error(400, "Cannot parse moves")
    if len(games) > MAX_GAMES:
        return _error(400, f"Too many games ({len(games)} > {MAX_GAMES})")
    out = []
    for game in games:
        entry: dict = {"tags": dict(game.headers), "moves": len(list(game.mainline_moves()))}
        if game.errors:
            entry["error"] = str(game.errors[0])
        out.append(entry)
    return web.Response(text=json.dumps({"games": out}), content_type="application/json",
                        headers={"Access-Control-Allow-Origin": "*"})
