"""``magboard hall`` put together: the broker's games, the HTTP folder and page, and the
Lichess push, on one asyncio loop until SIGTERM or Ctrl-C.

>>> # asyncio.run(Hall(config.hall).serve())
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

from board_driver.hall.games import HallGames
from board_driver.hall.push import MAX_GAMES, LichessPush
from board_driver.hall.server import HallServer
from board_driver.hall.subscriber import Subscriber

log = logging.getLogger("magboard")


class Hall:
    """The hall a ``[hall]`` section describes."""

    def __init__(self, section: Any) -> None:
        self.section = section
        self.games = HallGames(section.prefix, round=section.round)
        self.server = HallServer(self.games, status=self)
        self.subscriber = Subscriber(section, self.games, self._changed)
        self.push: LichessPush | None = None
        if section.lichess_round:
            self.push = LichessPush(
                base_url=section.base_url,
                round_id=section.lichess_round,
                token=section.lichess_token,
                round_pgn=self.round_to_push,
            )
        self._stop = asyncio.Event()

    def _changed(self) -> None:
        self.server.changed()
        if self.push is not None:
            self.push.changed()

    def round_to_push(self) -> tuple[str, int]:
        """The hall's round as one PGN (its first 100 games) and how many games it has."""
        games = self.games.games()
        text = "\n".join(self.games.game_pgn(record) for record in games[:MAX_GAMES])
        return text, len(games)

    def state(self) -> dict[str, Any]:
        """What the page shows of the hall itself."""
        state: dict[str, Any] = {"broker": self.subscriber.connected,
                                 "problem": self.subscriber.problem,
                                 "stale": self.games.stale}
        if self.push is not None:
            state["lichess"] = {
                "round": self.section.lichess_round,
                "pushed": self.push.pushed,
                "error": self.push.last_error,
            }
        return state

    def stop(self) -> None:
        self._stop.set()

    async def serve(self) -> int:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.stop)
        try:
            addresses = await self.server.start(self.section.http_host, self.section.http_port)
        except OSError as exc:
            log.error("hall: cannot listen on %s:%d: %s", self.section.http_host,
                      self.section.http_port, exc.strerror or exc)
            return 1
        round_ = self.section.round
        for address in addresses:
            log.info("hall: round %s at %s (PGN: %sround-%s/games.pgn)", round_, address,
                     address, round_)
        if self.push is not None:
            log.info("hall: pushing round %s to %s", round_, self.push.url)
        tasks: list[asyncio.Task[Any]] = [
            asyncio.create_task(self.subscriber.run(), name="hall-broker")
        ]
        if self.push is not None:
            tasks.append(asyncio.create_task(self.push.run(), name="hall-push"))
        stopped = asyncio.create_task(self._stop.wait())
        done, _ = await asyncio.wait({stopped, *tasks}, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.server.stop()
        for task in done:
            error = task.exception() if task is not stopped else None
            if error is not None:
                raise error  # a bug, not a lost link: those are retried
        return 0
