"""A round pushed to a Lichess broadcast round: the Broadcast API's PGN push.

``POST {base_url}/api/broadcast/round/{broadcastRoundId}/push`` with the round's PGN as
``text/plain`` and ``Authorization: Bearer <token>`` (scope ``study:write``), for a
broadcast round that has no source URL of its own. The answer (200) lists each game's
tags and move count, with an ``error`` for a game Lichess could not read; a 400 carries
``{"error": ...}`` for a PGN it cannot read at all. At most 100 games per push.

Lichess asks for one request at a time and, after a 429, a minute's wait: the pusher
sends the newest PGN of the round when it changed, never two requests at once, at most
one every :data:`MIN_INTERVAL_S` seconds, and waits :data:`RATE_LIMITED_S` after a 429.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("magboard")

#: Games one push may carry (the API's limit).
MAX_GAMES = 100
#: The shortest time between two pushes.
MIN_INTERVAL_S = 1.0
#: The wait after Lichess says "too many requests" (429), as the API asks.
RATE_LIMITED_S = 60.0
#: The wait after any other failure (the network, a 5xx) before trying again.
RETRY_S = 10.0
#: Seconds a push may take.
TIMEOUT_S = 30.0


class LichessPush:
    """Pushes the PGN ``round_pgn()`` returns to a broadcast round whenever it changed
    (call :meth:`changed` after every change; :meth:`run` does the rest)."""

    def __init__(
        self,
        *,
        base_url: str,
        round_id: str,
        token: str,
        round_pgn: Callable[[], tuple[str, int]],
    ) -> None:
        self.url = f"{base_url.rstrip('/')}/api/broadcast/round/{round_id}/push"
        self.round_id = round_id
        self._token = token
        self._round_pgn = round_pgn
        self._changed = asyncio.Event()
        self._changed.set()  # the first push: whatever the round holds at the start
        self._sent: str | None = None
        #: Pushes Lichess accepted, and what it last answered (for the page and tests).
        self.pushed = 0
        self.last_answer: dict[str, Any] | None = None
        self.last_error: str | None = None
        self._told_too_many = False

    def changed(self) -> None:
        self._changed.set()

    async def run(self) -> None:
        import aiohttp

        timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
        headers = {
            "Authorization": f"Bearer {self._token}",
            "Content-Type": "text/plain; charset=utf-8",
            "User-Agent": "magboard-hall",
        }
        async with aiohttp.ClientSession(timeout=timeout, headers=headers) as session:
            while True:
                await self._changed.wait()
                self._changed.clear()
                text, count = self._round_pgn()
                if text == self._sent or count == 0:
                    continue
                started = time.monotonic()
                wait = await self._push(session, text, count)
                await asyncio.sleep(max(wait, MIN_INTERVAL_S - (time.monotonic() - started)))

    async def _push(self, session: Any, text: str, count: int) -> float:
        """One push; the seconds to wait before the next."""
        import aiohttp

        if count > MAX_GAMES and not self._told_too_many:
            self._told_too_many = True
            log.error("hall: the round has %d games; a Lichess push takes %d: the first %d "
                      "are pushed", count, MAX_GAMES, MAX_GAMES)
        try:
            async with session.post(self.url, data=text.encode()) as response:
                body = await response.text()
                status = response.status
        except (aiohttp.ClientError, TimeoutError) as exc:
            return self._failed(f"cannot reach {self.url}: {exc or type(exc).__name__}",
                                RETRY_S)
        answer = _json(body)
        if status == 200:
            self._sent = text
            self.pushed += 1
            self.last_answer = answer
            self.last_error = None
            for game in (answer or {}).get("games", []):
                if isinstance(game, dict) and game.get("error"):
                    tags = game.get("tags") or {}
                    log.warning("hall: Lichess could not read board %s (%s - %s): %s",
                                tags.get("Board", "?"), tags.get("White", "?"),
                                tags.get("Black", "?"), game["error"])
            return 0.0
        reason = (answer or {}).get("error") or body.strip()[:200] or f"HTTP {status}"
        if status == 429:
            return self._failed(f"Lichess says too many requests; waiting {RATE_LIMITED_S:.0f} "
                                "s", RATE_LIMITED_S)
        if status in (401, 403):
            return self._failed(f"Lichess refused the token ({reason}): it needs the "
                                "study:write scope and must belong to the broadcast's owner",
                                RETRY_S)
        if status == 404:
            return self._failed(f"Lichess has no broadcast round {self.round_id} ({reason})",
                                RETRY_S)
        self._sent = text if status == 400 else None  # a PGN it cannot read: not again as is
        return self._failed(f"Lichess answered {status}: {reason}", RETRY_S)

    def _failed(self, message: str, wait: float) -> float:
        if message != self.last_error:
            log.warning("hall: push to the broadcast failed: %s", message)
        self.last_error = message
        self._changed.set()  # try again after the wait, with the newest PGN
        return wait


def _json(body: str) -> dict[str, Any] | None:
    import json

    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
