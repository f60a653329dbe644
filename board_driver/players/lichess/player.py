"""The Lichess player on the door: the online game on the board, kept in step with the server.

Threads follow the event stream and the game's stream (:mod:`.follow`) and hand every
line to the daemon's loop; everything else happens on the loop. This module follows the
server: the token and the connection, the event stream (games starting, challenges) and
the game's stream (its full state, then its changes), and says what it sees to the page.
The board's side (putting a game on the board, keeping it in step after any news, our
move on its way) is :mod:`.on_board` and :mod:`.sending`.

Any Board API game that starts for the account comes to the board, but for two cases:
a correspondence game does not push aside a game in progress on the board (a real-time
one does: it has a clock), and an ongoing correspondence game found at start-up does not
push aside a local game in progress; those wait on the page, to be chosen there.

Events it announces: ``online_game`` (a game is on the board: ``id url color
opponent``), ``online_move`` (a move of the server's lit to be played on the board: the
details of :func:`board_driver.arbiter.expected.move_details`), ``online_error``
(``message``), ``online_note`` (``message``: an offer, the opponent leaving, a
take-back), ``online_chat`` (``username text``), and ``online_state`` whenever what the
page shows of the player changed (read ``player_states["lichess"]`` in the snapshot).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from board_driver.players.lichess import commands
from board_driver.players.lichess.api import READ_TIMEOUT_S, BoardApi, LichessError, TokenRejected
from board_driver.players.lichess.follow import FIRST_PAUSE_S, Follower
from board_driver.players.lichess.lights import LowTime
from board_driver.players.lichess.login import (
    SAVED_TOKEN_NAME,
    TokenFileError,
    read_token_file,
)
from board_driver.players.lichess.on_board import OnBoard
from board_driver.players.lichess.online import PLAYABLE_VARIANTS, OnlineGame, board_moves

log = logging.getLogger("magboard")

NAME = "lichess"


class LichessPlayer:
    """The player named ``lichess`` (see the module docstring)."""

    name = NAME

    def __init__(
        self,
        door: Any,
        config: Any,
        *,
        state_dir: Path | None = None,
        read_timeout_s: float = READ_TIMEOUT_S,
        first_pause_s: float = FIRST_PAUSE_S,
    ) -> None:
        self.door = door
        self.config = config
        self.base_url = config.base_url.rstrip("/")
        self.state_dir = state_dir
        self.read_timeout_s = read_timeout_s
        self.first_pause_s = first_pause_s
        self.api: BoardApi | None = None
        self.account: dict[str, Any] | None = None
        self.connection = "no_token"
        self.message: str | None = None
        self.challenges: dict[str, dict[str, Any]] = {}
        self.ongoing: dict[str, dict[str, Any]] = {}
        self.game: OnlineGame | None = None
        self.state_at = 0  # the daemon's ms when the game's state arrived
        self.chat: list[dict[str, str]] = []
        self.opponent_gone: dict[str, Any] | None = None
        self.seeking = False
        self.logins: dict[str, Any] = {}  # OAuth state -> (Pkce, redirect_uri)
        #: One per ``gameFull``: a fresh view of the server.
        self.generation = 0
        self.on_board = OnBoard(self)
        self.low_time: LowTime | None = None
        self._events: Follower | None = None
        self._game_stream: Follower | None = None
        self._following: str | None = None  # the game whose stream is followed
        self._fetching_account = False
        self._tasks: set[asyncio.Task] = set()
        self._subscription: Any = None
        self._shown: str | None = None  # the page's view of us, last announced
        self._state_check: asyncio.Handle | None = None

    # ------------------------------------------------------------------ life

    async def start(self) -> LichessPlayer:
        for noisy in ("urllib3", "berserk"):
            logging.getLogger(noisy).setLevel(logging.WARNING)  # they log URLs and bodies
        self.door.add_player(self)
        self.low_time = LowTime(self.door, self.config.low_time_s)
        self._subscription = self.door.subscribe(board=True)
        self.background(self.on_board.watch(self._subscription))
        try:
            token = self.find_token()
        except TokenFileError as exc:
            self.problem("token_rejected", str(exc))
            return self
        if token:
            self.connect(token)
        else:
            self.connection = "no_token"
            self.message = self.no_token_message()
            log.info("lichess: %s", self.message)
        return self

    def no_token_message(self) -> str:
        """Why there is no token and what to do, naming the file looked for."""
        path = self.saved_token_path()
        if self.config.token_file:
            return (
                f"no Lichess token: [lichess] token_file {path} does not exist; put a token "
                "there (docs/lichess.md) or log in with Lichess on the page (it writes it there)"
            )
        return (
            f"no Lichess token (none in the config, no login saved in {path}): log in with "
            "Lichess on the page, or set [lichess] token_file"
        )

    async def stop(self) -> None:
        self.stop_streams()
        self.on_board.ours.cancel_hold()
        if self._state_check is not None:
            self._state_check.cancel()
        if self.low_time is not None:
            self.low_time.stop()
        if self._subscription is not None:
            self._subscription.close()
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        if self.api is not None:
            self.api.close()

    def stop_streams(self) -> None:
        for follower in (self._events, self._game_stream):
            if follower is not None:
                follower.stop()

    def background(self, coro: Any) -> asyncio.Task:
        """Run ``coro`` beside the loop; a failure is logged, never lost."""

        def done(task: asyncio.Task) -> None:
            self._tasks.discard(task)
            if not task.cancelled() and task.exception() is not None:
                log.error("lichess: %s", task.exception(), exc_info=task.exception())
            self.changed()

        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(done)
        return task

    # ------------------------------------------------------------------ the token

    def saved_token_path(self) -> Path:
        if self.config.token_file:
            return Path(self.config.token_file)
        if self.state_dir is None:
            self.state_dir = self.door.state_dir()
        return self.state_dir / SAVED_TOKEN_NAME

    def find_token(self) -> str:
        """The config's token, else the token file's, else a saved login's ("" if none)."""
        if self.config.token:
            return self.config.token
        path = self.saved_token_path()
        if not path.exists():
            return ""
        return read_token_file(path)

    def connect(self, token: str) -> None:
        """Use ``token`` from now on: check it, follow the event stream and the game."""
        self.stop_streams()
        if self.api is not None:
            self.api.close()
        self.api = BoardApi(token, self.base_url, read_timeout_s=self.read_timeout_s)
        self.connection = "connecting"
        self.message = None
        self._following = None
        self._events = self._follow("events", self.api.stream_events, self._on_event, True)
        data = self.on_board.data()
        if data.get("id") and self.door.snapshot().result == "*":
            self._follow_game(data["id"])  # the board's game, from before a restart
        self.background(self._fetch_account())
        self.changed()

    def _follow(
        self, name: str, open_stream: Any, on_line: Callable[[dict[str, Any]], None], reopen: bool
    ) -> Follower:
        def line(item: dict[str, Any]) -> None:
            on_line(item)
            self.changed()

        def status(status: str, detail: Any) -> None:
            self._stream_status(name, status, detail)
            self.changed()

        return Follower(
            name,
            open_stream,
            self.door.call_soon_threadsafe,
            line,
            status,
            reopen_when_ended=reopen,
            first_pause_s=self.first_pause_s,
        ).start()

    async def _fetch_account(self) -> None:
        api = self.api
        if api is None or self._fetching_account:
            return
        self._fetching_account = True
        try:
            account = await asyncio.to_thread(api.account)
        except TokenRejected as exc:
            self.problem("token_rejected", str(exc))
            return
        except LichessError as exc:
            log.warning("lichess: %s (the account is read again once the link is back)", exc)
            return
        finally:
            self._fetching_account = False
        if api is self.api:
            self.account = account
            log.info("lichess: logged in as %s", account.get("username"))

    def problem(self, connection: str, message: str) -> None:
        """A token that cannot work: said on the page and in the log; the board plays on."""
        self.connection = connection
        self.message = message
        log.error("lichess: %s; the board keeps working offline", message)
        self.door.announce({"type": "online_error", "message": message})
        self.stop_streams()

    def _stream_status(self, name: str, status: str, detail: Any) -> None:
        if status == "rejected":
            self.problem("token_rejected", str(detail))
        elif name == "events":
            if status == "connected":
                if self.connection != "online":
                    log.info("lichess: connected to %s", self.base_url)
                self.connection = "online"
                if self.account is None:
                    self.background(self._fetch_account())
            elif status == "waiting" and self.connection != "token_rejected":
                if self.connection == "online":
                    log.warning("lichess: link lost (%s); reconnecting", detail["why"])
                self.connection = "reconnecting"
        elif status == "connected":
            self.opponent_gone = None
        elif status == "ended" and self.game is not None and not self.game.over:
            self.fresh_view()  # ended without the game's end: open it again

    # ------------------------------------------------------------------ the event stream

    def _on_event(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        if kind in ("gameStart", "gameFinish"):
            info = line.get("game") or {}
            game_id = str(info.get("gameId") or info.get("id"))
            if kind == "gameStart":
                self.ongoing[game_id] = info
                self.challenges.pop(game_id, None)  # an accepted challenge's game has its id
                self._game_started(game_id, info)
            else:
                self.ongoing.pop(game_id, None)
                if self.game is not None and self.game.id == game_id and not self.game.over:
                    self.fresh_view()
        elif kind == "challenge":
            challenge = line.get("challenge") or {}
            self.challenges[challenge["id"]] = challenge
            if challenge.get("direction") == "in" or (
                self.account
                and (challenge.get("destUser") or {}).get("id") == self.account.get("id")
            ):
                who = (challenge.get("challenger") or {}).get("name", "?")
                self.note(f"{who} challenges you ({_describe_challenge(challenge)})")
        elif kind in ("challengeCanceled", "challengeDeclined"):
            challenge = line.get("challenge") or {}
            self.challenges.pop(str(challenge.get("id")), None)
            if kind == "challengeDeclined":
                who = (challenge.get("destUser") or {}).get("name", "?")
                reason = challenge.get("declineReason") or "no reason given"
                self.note(f"{who} declined your challenge: {reason}")

    def _game_started(self, game_id: str, info: dict[str, Any]) -> None:
        variant = (info.get("variant") or {}).get("key", "standard")
        if variant not in PLAYABLE_VARIANTS:
            name = (info.get("variant") or {}).get("name", variant)
            self.error(
                f"Lichess game {game_id} is {name}: the board plays standard chess (from the "
                "usual start or a position) and Chess960 only; play it on Lichess itself"
            )
            return
        following = self._following
        if following == game_id:
            return
        if self.on_board.data().get("id") == game_id:
            self.take(game_id)  # the board's own game
            return
        realtime = info.get("speed") != "correspondence"
        if following is not None and not (self.game is not None and self.game.over):
            info_then = self.ongoing.get(following, {})
            followed = self.game.speed if self.game else info_then.get("speed")
            if not (realtime and followed == "correspondence"):
                self._waits(game_id, info)
                return
        elif not realtime and info.get("lastMove") and self.on_board.local_game_in_progress():
            # An ongoing correspondence game found at start-up does not push a game in
            # progress on the board aside: it waits on the page.
            self._waits(game_id, info)
            return
        self.take(game_id)

    def _waits(self, game_id: str, info: Mapping[str, Any]) -> None:
        opponent = (info.get("opponent") or {}).get("username") or "?"
        turn = ", your turn" if info.get("isMyTurn") else ""
        self.note(
            f"Lichess game {game_id} ({info.get('speed', '?')} against {opponent}{turn}) "
            "waits: choose it on the page to play it on the board"
        )

    # ------------------------------------------------------------------ the game

    def take(self, game_id: str) -> None:
        """Follow ``game_id`` and put it on the board (the game there is kept, adjourned)."""
        if self._game_stream is not None:
            self._game_stream.stop()
        self.game = None
        self.chat = []
        self.opponent_gone = None
        self.on_board.ours.reset()
        self._follow_game(game_id)

    def _follow_game(self, game_id: str) -> None:
        assert self.api is not None
        api = self.api
        self._following = game_id
        self._game_stream = self._follow(
            f"game {game_id}", lambda: api.stream_game(game_id), self._on_game_line, False
        )

    def fresh_view(self) -> None:
        """Open the game's stream again: its ``gameFull`` is the server's view now."""
        if self._game_stream is not None and self._game_stream.running:
            self._game_stream.reconnect()
        elif self.game is not None and self.api is not None:
            self._follow_game(self.game.id)

    def _on_game_line(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        now = self.door.now_ms()
        if kind == "gameFull":
            color = None
            data = self.on_board.data()
            if data.get("id") == line.get("id"):
                color = data.get("color")
            color = color or (self.ongoing.get(str(line.get("id"))) or {}).get("color")
            account_id = (self.account or {}).get("id", "")
            try:
                game = OnlineGame.from_full(line, account_id, color=color)
            except ValueError as exc:
                self.error(f"Lichess game {line.get('id')}: {exc}")
                return
            if not game.playable:
                self.error(f"Lichess game {game.id} is {game.variant}: not played on the board")
                if self._game_stream is not None:
                    self._game_stream.stop()
                self._following = None
                return
            self.generation += 1
            self.game, self.state_at = game, now
            if not self.on_board.holds(game) and not game.over:
                self.on_board.put(game)
            self.sync()
        elif kind == "gameState" and self.game is not None:
            before = self.game
            try:
                self.game = before.with_state(line)
            except ValueError as exc:
                self.error(f"Lichess game {before.id}: {exc}")
                return
            self.state_at = now
            self._offers(before, self.game)
            self.sync()
        elif kind == "chatLine":
            entry = {"username": str(line.get("username")), "text": str(line.get("text"))}
            self.chat = [*self.chat[-9:], entry]
            self.door.announce({"type": "online_chat", **entry})
        elif kind == "opponentGone":
            gone = bool(line.get("gone"))
            self.opponent_gone = (
                {"claim_in_s": line.get("claimWinInSeconds"), "at": now} if gone else None
            )
            if gone:
                self.note("your opponent left the game: you may claim victory once allowed")

    def _offers(self, before: OnlineGame, after: OnlineGame) -> None:
        theirs = after.opponent_color
        if after.draw_offer == theirs and before.draw_offer != theirs:
            self.note(f"{after.opponent.name} offers a draw")
        if after.takeback_offer == theirs and before.takeback_offer != theirs:
            self.note(f"{after.opponent.name} proposes a take-back")

    # ------------------------------------------------------------------ in step

    def sync(self) -> None:
        """Bring the board one step nearer the server's game (:meth:`OnBoard.sync`)."""
        self.on_board.sync()
        if self.low_time is not None:
            self.low_time.update(self.game, self.state_at, self.on_board.holds(self.game))
        self.changed()

    # ------------------------------------------------------------------ the page

    def state(self) -> Mapping[str, Any]:
        """What the page shows: the connection, the account, challenges, games, the game."""
        return commands.state(self)

    def changed(self) -> None:
        """Something the page shows of us may have changed: once this loop turn is over,
        an ``online_state`` event tells the page, if it did (pages learn of changes from
        the door's events only)."""
        if self._state_check is None:
            self._state_check = asyncio.get_running_loop().call_soon(self._announce_state)

    def _announce_state(self) -> None:
        self._state_check = None
        state = commands.state(self)
        if state.get("game") and state["game"].get("clock"):
            state["game"]["clock"].pop("now", None)  # the daemon's clock: always new
        shown = json.dumps(state, sort_keys=True, default=str)
        if shown != self._shown:
            self._shown = shown
            self.door.announce({"type": "online_state", "connection": self.connection})

    def configure(self, settings: Mapping[str, Any]) -> None:
        unknown = sorted(set(settings))
        if unknown:
            raise ValueError(f"lichess: no setting {', '.join(unknown)} (none can be changed)")

    async def command(self, action: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """A page's action (``seek``, ``challenge``, ``ai``, ``accept``, ``login``, ...:
        see :mod:`.commands`)."""
        try:
            return await commands.run(self, action, args)
        finally:
            self.changed()

    # ------------------------------------------------------------------ saying things

    def note(self, message: str) -> None:
        log.info("lichess: %s", message)
        self.door.announce({"type": "online_note", "message": message})

    def error(self, message: str) -> None:
        self.message = message
        log.warning("lichess: %s", message)
        self.door.announce({"type": "online_error", "message": message})


def _describe_challenge(challenge: Mapping[str, Any]) -> str:
    control = challenge.get("timeControl") or {}
    if control.get("type") == "clock":
        pace = str(control.get("show") or f"{control.get('limit')}+{control.get('increment')}")
    elif control.get("type") == "correspondence":
        pace = f"{control.get('daysPerTurn')} days a move"
    else:
        pace = "no clock"
    kind = "rated" if challenge.get("rated") else "casual"
    return f"{pace}, {kind}, {(challenge.get('variant') or {}).get('name', 'Standard')}"


__all__ = ["NAME", "LichessPlayer", "board_moves"]
