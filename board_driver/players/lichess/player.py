"""The Lichess player on the door: the online game on the board, kept in step with the server.

Threads follow the event stream and the game's stream (:mod:`.follow`) and hand every
line to the daemon's loop; everything else happens on the loop. After any news (a game
state, a reconnection, a move committed on the board, a refusal) :meth:`_sync` asks
:func:`.reconcile.plan` for the next step and does it through the door: take moves back,
light the server's move to play, or send our pending move.

Our move is stored by the board when it commits it (the door's ``move`` event), marked
pending in the game's data (``door.set_game_data``), and sent. A move that may still
grow (a rook move that castling may follow, a promotion to a queen that a late choice
may name otherwise) waits until the board has been still for ``amend_ms`` first. A move
is sent at most once per fresh view of the server: after a failure (no answer, or a
refusal) the game's stream is opened again, and its ``gameFull`` says whether the
server has the move (nothing to do), has not (send it again) or refused it (take it off
the board, whose lights then show how to put the pieces back).

Events it announces: ``online_game`` (a game is on the board: ``id url color
opponent``), ``online_error`` (``message``), ``online_note`` (``message``: an offer,
the opponent leaving, a take-back), ``online_chat`` (``username text``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import rules
from board_driver.door import ActionRefused
from board_driver.players.lichess import commands
from board_driver.players.lichess.api import (
    READ_TIMEOUT_S,
    BoardApi,
    LichessError,
    Refused,
    TokenRejected,
)
from board_driver.players.lichess.follow import FIRST_PAUSE_S, Follower
from board_driver.players.lichess.lights import LowTime
from board_driver.players.lichess.login import (
    SAVED_TOKEN_NAME,
    TokenFileError,
    read_token_file,
)
from board_driver.players.lichess.online import OnlineGame, board_moves
from board_driver.players.lichess.reconcile import plan

log = logging.getLogger("magboard")

NAME = "lichess"


def _other(color: str) -> str:
    return "black" if color == "white" else "white"


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
        self._events: Follower | None = None
        self._game_stream: Follower | None = None
        self._generation = 0  # one per gameFull: a fresh view of the server
        self._sent: tuple[str, int, int] | None = None  # (uci, ply, generation) last sent
        self._in_flight: str | None = None
        self._refused: str | None = None
        self._replaying = False  # our side given to the server for a move made elsewhere
        self._hold: asyncio.TimerHandle | None = None
        self._held: tuple[str, int] | None = None  # a move whose wait is over
        self._activity_ms = 0
        self._stored: dict[str, int] = {}  # online game id -> stored game number
        self._tasks: set[asyncio.Task] = set()
        self._subscription: Any = None
        self.low_time: LowTime | None = None

    # ------------------------------------------------------------------ life

    async def start(self) -> LichessPlayer:
        for noisy in ("urllib3", "berserk"):
            logging.getLogger(noisy).setLevel(logging.WARNING)  # they log URLs and bodies
        self.door.add_player(self)
        self.low_time = LowTime(self.door, self.config.low_time_s)
        self._subscription = self.door.subscribe(board=True)
        self.background(self._watch_board())
        data = self.door.game_data(NAME)
        if data.get("id"):
            self._stored[data["id"]] = self.door.snapshot().game_id
        try:
            token = self.find_token()
        except TokenFileError as exc:
            self._problem("token_rejected", str(exc))
            return self
        if token:
            self.connect(token)
        else:
            self.connection = "no_token"
            self.message = "no Lichess token: log in with Lichess on the page"
            log.info("lichess: %s", self.message)
        return self

    async def stop(self) -> None:
        for follower in (self._events, self._game_stream):
            if follower is not None:
                follower.stop()
        if self._hold is not None:
            self._hold.cancel()
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

    def background(self, coro: Any) -> asyncio.Task:
        """Run ``coro`` beside the loop; a failure is logged, never lost."""

        def done(task: asyncio.Task) -> None:
            self._tasks.discard(task)
            if not task.cancelled() and task.exception() is not None:
                log.error("lichess: %s", task.exception(), exc_info=task.exception())

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
        for follower in (self._events, self._game_stream):
            if follower is not None:
                follower.stop()
        if self.api is not None:
            self.api.close()
        self.api = BoardApi(token, self.base_url, read_timeout_s=self.read_timeout_s)
        self.connection = "connecting"
        self.message = None
        self._events = self._follow("events", self.api.stream_events, self._on_event, True)
        data = self.door.game_data(NAME)
        snap = self.door.snapshot()
        if data.get("id") and snap.result == "*":
            self._follow_game(data["id"])  # a game from before a restart
        self.background(self._fetch_account())

    def _follow(self, name: str, open_stream: Any, on_line: Any, reopen: bool) -> Follower:
        return Follower(
            name,
            open_stream,
            self.door.call_soon_threadsafe,
            on_line,
            lambda status, detail: self._stream_status(name, status, detail),
            reopen_when_ended=reopen,
            first_pause_s=self.first_pause_s,
        ).start()

    async def _fetch_account(self) -> None:
        api = self.api
        assert api is not None
        try:
            account = await asyncio.to_thread(api.account)
        except TokenRejected as exc:
            self._problem("token_rejected", str(exc))
            return
        except LichessError as exc:
            log.warning("lichess: %s (the account is read again once the link is back)", exc)
            return
        if api is self.api:
            self.account = account
            log.info("lichess: logged in as %s", account.get("username"))

    def _problem(self, connection: str, message: str) -> None:
        """A token that cannot work: said on the page and in the log; the board plays on."""
        self.connection = connection
        self.message = message
        log.error("lichess: %s; the board keeps working offline", message)
        self.door.announce({"type": "online_error", "message": message})
        for follower in (self._events, self._game_stream):
            if follower is not None:
                follower.stop()

    def _stream_status(self, name: str, status: str, detail: Any) -> None:
        if status == "rejected":
            self._problem("token_rejected", str(detail))
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
            self._fresh_view()  # ended without the game's end: open it again

    # ------------------------------------------------------------------ the event stream

    def _on_event(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        if kind in ("gameStart", "gameFinish"):
            info = line.get("game") or {}
            game_id = str(info.get("gameId") or info.get("id"))
            if kind == "gameStart":
                self.ongoing[game_id] = info
                self._game_started(game_id, info)
            else:
                self.ongoing.pop(game_id, None)
                if self.game is not None and self.game.id == game_id and not self.game.over:
                    self._fresh_view()
        elif kind == "challenge":
            challenge = line.get("challenge") or {}
            self.challenges[challenge["id"]] = challenge
            if challenge.get("direction") == "in" or (
                self.account
                and (challenge.get("destUser") or {}).get("id") == self.account.get("id")
            ):
                who = (challenge.get("challenger") or {}).get("name", "?")
                self._note(f"{who} challenges you ({_describe_challenge(challenge)})")
        elif kind in ("challengeCanceled", "challengeDeclined"):
            challenge = line.get("challenge") or {}
            self.challenges.pop(challenge.get("id"), None)
            if kind == "challengeDeclined":
                who = (challenge.get("destUser") or {}).get("name", "?")
                reason = challenge.get("declineReason") or "no reason given"
                self._note(f"{who} declined your challenge: {reason}")

    def _game_started(self, game_id: str, info: dict[str, Any]) -> None:
        variant = (info.get("variant") or {}).get("key", "standard")
        if variant not in ("standard", "fromPosition"):
            name = (info.get("variant") or {}).get("name", variant)
            self._error(
                f"Lichess game {game_id} is {name}: the board plays standard chess only "
                "(from the usual start or a position); play it on Lichess itself"
            )
            return
        if self.game is not None and self.game.id == game_id:
            return
        realtime = info.get("speed") != "correspondence"
        current = self.game
        if (
            current is None
            or current.over
            or (realtime and current.speed == "correspondence")
            or self.door.game_data(NAME).get("id") == game_id
        ):
            self.take(game_id)
        else:
            self._note(f"another Lichess game started ({game_id}): choose it on the page")

    # ------------------------------------------------------------------ the game

    def take(self, game_id: str) -> None:
        """Follow ``game_id`` and put it on the board (the game there is kept, adjourned)."""
        if self._game_stream is not None:
            self._game_stream.stop()
        self.game = None
        self.chat = []
        self.opponent_gone = None
        self._sent = self._in_flight = self._refused = None
        self._follow_game(game_id)

    def _follow_game(self, game_id: str) -> None:
        assert self.api is not None
        api = self.api
        self._game_stream = self._follow(
            f"game {game_id}", lambda: api.stream_game(game_id), self._on_game_line, False
        )

    def _fresh_view(self) -> None:
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
            data = self.door.game_data(NAME)
            if data.get("id") == line.get("id"):
                color = data.get("color")
            color = color or (self.ongoing.get(str(line.get("id"))) or {}).get("color")
            account_id = (self.account or {}).get("id", "")
            try:
                game = OnlineGame.from_full(line, account_id, color=color)
            except ValueError as exc:
                self._error(f"Lichess game {line.get('id')}: {exc}")
                return
            if not game.playable:
                self._error(f"Lichess game {game.id} is {game.variant}: not played on the board")
                if self._game_stream is not None:
                    self._game_stream.stop()
                return
            self._generation += 1
            self.game, self.state_at = game, now
            if not self._on_board() and not game.over:
                self._put_on_board(game)
            self._sync()
        elif kind == "gameState" and self.game is not None:
            before = self.game
            try:
                self.game = before.with_state(line)
            except ValueError as exc:
                self._error(f"Lichess game {before.id}: {exc}")
                return
            self.state_at = now
            self._offers(before, self.game)
            self._sync()
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
                self._note("your opponent left the game: you may claim victory once allowed")

    def _offers(self, before: OnlineGame, after: OnlineGame) -> None:
        theirs = after.opponent_color
        if after.draw_offer == theirs and before.draw_offer != theirs:
            self._note(f"{after.opponent.name} offers a draw")
        if after.takeback_offer == theirs and before.takeback_offer != theirs:
            self._note(f"{after.opponent.name} proposes a take-back")

    def _on_board(self) -> bool:
        return self.game is not None and self.door.game_data(NAME).get("id") == self.game.id

    def _put_on_board(self, game: OnlineGame) -> None:
        """The online game becomes the board's game (a new one, or its stored one)."""
        stored = self._stored.get(game.id)
        if stored is not None:
            with contextlib.suppress(LookupError, ActionRefused):
                self.door.resume_game(stored)
                if self._on_board():
                    self._announce_game(game, resumed=True)
                    return
        # A game just begun starts from its start (the lights guide the set-up); one
        # already under way (begun elsewhere) from the position it has reached.
        base = 0 if len(game.moves) <= 1 else len(game.moves)
        fen = game.start_fen
        if base:
            position = rules.Position.from_fen(fen)
            for uci in game.moves:
                position.push(position.parse_uci(uci))
            fen = position.fen()
        players = {game.color: "human", game.opponent_color: NAME}
        self.door.new_game(fen, headers=game.headers(self.base_url), players=players, online=True)
        self.door.set_options(hints=False, takeback=False)
        self.door.set_game_data(
            NAME, {"id": game.id, "color": game.color, "base": str(base), "accepted": "0"}
        )
        self._stored[game.id] = self.door.snapshot().game_id
        self._announce_game(game, resumed=False)

    def _announce_game(self, game: OnlineGame, *, resumed: bool) -> None:
        url = f"{self.base_url}/{game.id}"
        opponent = game.opponent
        rating = f" ({opponent.rating})" if opponent.rating else ""
        log.info(
            "lichess: game %s %s: you play %s against %s%s, %s",
            game.id,
            "resumed on the board" if resumed else "is on the board",
            game.color,
            opponent.name,
            rating,
            url,
        )
        self.door.announce(
            {
                "type": "online_game",
                "id": game.id,
                "url": url,
                "color": game.color,
                "opponent": opponent.name,
            }
        )

    # ------------------------------------------------------------------ in step

    def _sync(self) -> None:
        """Bring the board one step nearer the server's game (see :mod:`.reconcile`)."""
        for _ in range(4):  # a take-back is followed by the next step at once
            if not self._step():
                break
        if self.low_time is not None:
            self.low_time.update(self.game, self.state_at, self._on_board())

    def _step(self) -> bool:
        game = self.game
        if game is None or not self._on_board():
            return False
        snap = self.door.snapshot()
        data = self.door.game_data(NAME)
        base = int(data.get("base", "0") or 0)
        server = list(game.moves[base:])
        board = list(snap.ucis)
        start_turn = "white" if snap.start_fen.split()[1] == "w" else "black"
        accepted = int(data.get("accepted", "0") or 0)
        mine = {"ours": game.color, "start_turn": start_turn, "accepted": accepted}
        step = plan(board, server, refused=self._refused, **mine)
        if step.send is not None and game.over:
            self._refused = step.send  # the game ended first: the server cannot take it
            step = plan(board, server, refused=step.send, **mine)
        if step.take_back:
            return self._take_back(step.take_back, snap)
        if step.play is not None:
            self._play(step.play, snap)
        elif step.send is not None:
            self._maybe_send(step.send, len(board), snap)
        else:
            self._agreed(len(board), data)
            self._end_if_over(game, snap)
        return False

    def _take_back(self, plies: int, snap: Any) -> bool:
        undone = list(snap.moves[-plies:])
        if self._refused is not None and snap.ucis and snap.ucis[-1] == self._refused:
            why = "Lichess refused it"
        else:
            why = "Lichess's game does not have it"
        self._refused = None
        self._cancel_hold()
        if self._replaying:
            self._replaying = False
            self.door.set_player(self.game.color, "human")  # type: ignore[union-attr]
        try:
            self.door.take_back(plies)
        except (ActionRefused, ValueError) as exc:
            self._error(f"cannot take back {' '.join(undone)} on the board: {exc}")
            return False
        self._note(f"{' '.join(undone)} taken back on the board ({why}): put the pieces back")
        self.door.set_game_data(NAME, {**self.door.game_data(NAME), "pending": ""})
        return True

    def _play(self, step: tuple[str, str], snap: Any) -> None:
        uci, side = step
        game = self.game
        assert game is not None
        if snap.expected == uci:
            return
        if side == game.color and not self._replaying:
            # Our move, made elsewhere (another device) or amended too late: the server's
            # stands; it is lit to be played like the opponent's.
            self._replaying = True
            self.door.set_player(game.color, NAME)
            self._note(f"Lichess has your move {uci}: play it on the board")
        try:
            self.door.expect(uci)
        except (ActionRefused, ValueError) as exc:
            log.debug("lichess: %s waits: %s", uci, exc)

    def _agreed(self, plies: int, data: Mapping[str, str]) -> None:
        if self._replaying:
            self._replaying = False
            self.door.set_player(self.game.color, "human")  # type: ignore[union-attr]
        if data.get("accepted") != str(plies) or data.get("pending"):
            self.door.set_game_data(NAME, {**data, "accepted": str(plies), "pending": ""})

    def _end_if_over(self, game: OnlineGame, snap: Any) -> None:
        ending = game.ending()
        if ending is None or snap.result != "*":
            return
        termination, winner = ending
        if termination is None:
            return  # mate or stalemate: the board finds it with the last move
        try:
            self.door.end_game(termination, winner)
        except (ActionRefused, ValueError) as exc:
            self._error(f"cannot end game {game.id} on the board: {exc}")
            return
        log.info("lichess: game %s over on Lichess: %s", game.id, game.status)

    # ------------------------------------------------------------------ our move

    def _maybe_send(self, uci: str, ply: int, snap: Any) -> None:
        if self._in_flight is not None or self._sent == (uci, ply, self._generation):
            return
        if self._held != (uci, ply) and self._may_grow(snap):
            self._start_hold(uci, ply)
            return
        game = self.game
        assert game is not None and self.api is not None
        self._cancel_hold()
        self._in_flight = uci
        self._sent = (uci, ply, self._generation)
        self.door.set_game_data(NAME, {**self.door.game_data(NAME), "pending": uci})
        self.background(self._send(self.api, game.id, uci))

    async def _send(self, api: BoardApi, game_id: str, uci: str) -> None:
        try:
            await asyncio.to_thread(api.move, game_id, uci)
        except Refused as exc:
            self._in_flight = None
            self._refused = uci
            self._error(f"Lichess refused your move {uci}: {exc}")
            self._fresh_view()
            return
        except TokenRejected as exc:
            self._in_flight = None
            self._problem("token_rejected", str(exc))
            return
        except LichessError as exc:
            self._in_flight = None
            log.warning(
                "lichess: move %s not sent yet (%s); it is sent when the link is back", uci, exc
            )
            self._fresh_view()
            return
        self._in_flight = None
        log.info("lichess: move %s sent", uci)
        self._sync()

    def _may_grow(self, snap: Any) -> bool:
        """May the board's last move (ours) still become another (castling, a promotion
        named late)? Then it waits for the board to be still for ``amend_ms``."""
        if self.config.amend_ms <= 0 or not snap.ucis:
            return False
        game = snap.game()
        last = game.moves[-1]
        if last.promotion is not None:
            return last.promotion == rules.QUEEN
        if snap.options.get("touch_move") == "enforce":
            return False
        game.pop()
        return any(
            m.is_castling and m.rook_from == last.from_square and m.rook_to == last.to_square
            for m in game.position.legal_moves()
        )

    def _start_hold(self, uci: str, ply: int) -> None:
        self._cancel_hold()
        now = self.door.now_ms()
        wait_ms = max(0, self._activity_ms + self.config.amend_ms - now)
        wait_ms = max(wait_ms, 50)

        def over() -> None:
            self._hold = None
            snap = self.door.snapshot()
            in_hand = snap.sensed != snap.position().occupancy() or not snap.in_sync
            quiet = self.door.now_ms() - self._activity_ms >= self.config.amend_ms
            if in_hand or not quiet:
                self._start_hold(uci, ply)
                return
            self._held = (uci, ply)
            self._sync()

        self._hold = asyncio.get_running_loop().call_later(wait_ms / 1000, over)

    def _cancel_hold(self) -> None:
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None

    # ------------------------------------------------------------------ the board's events

    async def _watch_board(self) -> None:
        async for event in self._subscription:
            try:
                self._on_door_event(event)
            except Exception:
                log.exception("lichess: unexpected failure on %s", event.get("type"))

    def _on_door_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind in ("lift", "place"):
            self._activity_ms = int(event.get("t", self.door.now_ms()))
            return
        if self.game is None or not self._on_board():
            return
        if kind == "move":
            self._activity_ms = int(event.get("t", self.door.now_ms()))
            self._sync()
        elif kind in ("promotion_amended", "takeback", "overflow", "restored"):
            self._sync()
        elif kind == "draw_offer" and event.get("side") == self.game.color:
            self.background(commands.run(self, "draw", {"answer": "yes"}))
        elif kind == "game_over":
            self._board_ended(event)

    def _board_ended(self, event: dict[str, Any]) -> None:
        """The board ended the game itself (a button): tell the server, whose word stands."""
        game = self.game
        if game is None or game.over:
            return
        termination = event.get("termination")
        if termination == "resignation" and event.get("winner") != game.color:
            self.background(commands.run(self, "resign", {}))
        elif termination in ("threefold_repetition", "fifty_moves", "agreement"):
            self.background(commands.run(self, "draw", {"answer": "yes"}))

    # ------------------------------------------------------------------ the page

    def state(self) -> Mapping[str, Any]:
        """What the page shows: the connection, the account, challenges, games, the game."""
        return commands.state(self)

    def configure(self, settings: Mapping[str, Any]) -> None:
        unknown = sorted(set(settings))
        if unknown:
            raise ValueError(f"lichess: no setting {', '.join(unknown)} (none can be changed)")

    async def command(self, action: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """A page's action (``seek``, ``challenge``, ``ai``, ``accept``, ``login``, ...:
        see :mod:`.commands`)."""
        return await commands.run(self, action, args)

    # ------------------------------------------------------------------ saying things

    def _note(self, message: str) -> None:
        log.info("lichess: %s", message)
        self.door.announce({"type": "online_note", "message": message})

    def _error(self, message: str) -> None:
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
