"""The board's publisher: the game on the board, live, to the hall's broker.

It runs on the daemon's loop and talks to the board only through the door. Events from
:meth:`Door.subscribe` only wake it up (a bounded queue: a burst, or an overflow, costs
nothing but one look at the snapshot); what it publishes is always worked out from the
state itself (:meth:`Door.snapshot`, :meth:`Door.pgn` for a game no longer on the board),
compared with what the broker acknowledged (:class:`~.ledger.Ledger`). So a lost broker
costs the board nothing: it plays and stores as ever, and when the link returns the
publisher sends what the broker missed, each game and ply once more at most, never a
backlog.

Every record carries a revision that grows with each change (:mod:`.revision`), so that
the hall keeps the newest whatever order records reach it in.

The link's state (:attr:`Publisher.state`: ``connecting``, ``connected``, ``unreachable``,
``refused``, ``not_delivered``) is logged when it changes and announced on the door as a
``broadcast`` event (``state``, ``message``), which the board's page shows. ``connected``
means more than a connection: the board publishes a probe on its own topic and the broker
passed it back. A broker that refuses a publication under MQTT 3.1.1 says nothing (an
account that does not own the board's number, under the hall's access rules): without
the probe the board would say "connected" while the hall gets nothing.

>>> # In the daemon (the extension starts it when [broadcast] enabled = true):
>>> # publisher = await Publisher(door, config.broadcast).start()
>>> # ... publisher.connected, publisher.published
>>> # await publisher.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from board_driver.connectors.broadcast.ledger import Ledger, Message
from board_driver.connectors.broadcast.record import GameRecord, is_set
from board_driver.connectors.broadcast.revision import Revisions
from board_driver.connectors.broadcast.topics import OFFLINE, ONLINE, QOS, Topics

log = logging.getLogger("magboard")

#: Seconds a probe may take to come back before the board says the broker drops what it
#: publishes; and between two probes after that (the broker's rules may be mended).
PROBE_S = 10.0
PROBE_AGAIN_S = 60.0
#: The file beside the store that keeps the highest revision reserved (:mod:`.revision`).
REVISION_FILE = "broadcast-revision"
#: How many of the newest stored games a board looks through, when it starts, for games of
#: the current round that the broker may lack (a game played while the broker was away
#: and the daemon restarted since).
RECENT_GAMES = 20
#: Messages waiting for the broker's acknowledgement at once.
IN_FLIGHT = 8
#: Seconds ``stop()`` gives the last messages (the final move, "offline").
STOP_S = 2.0
#: Event headers the store writes for a game nobody named: not a name the hall should show.
_STORE_EVENT = re.compile(r"magboard game \d+")
_NOT_HEADERS = frozenset({"Result", "Board", "Variant", "SetUp", "FEN"})


def own_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers a game really has: placeholders and the store's defaults left out.

    >>> own_headers({"Event": "magboard game 4", "White": "Ann", "Black": "?", "Board": "2"})
    {'White': 'Ann'}
    """
    out = {}
    for name, value in headers.items():
        if name in _NOT_HEADERS or not is_set(value):
            continue
        if (name == "Event" and _STORE_EVENT.fullmatch(value)) or (
            name == "Site" and value == "magboard"
        ):
            continue
        out[name] = value
    return out


def game_headers(own: Mapping[str, str], section: Any, started: str) -> dict[str, str]:
    """A game's headers: the ones set for it (on the page) win over the config's
    ``event``, ``round``, ``white`` and ``black``; ``Date`` from when it started."""
    headers = {
        "Event": section.event,
        "Date": started[:10].replace("-", ".") if started else "",
        "Round": section.round,
        "White": section.white,
        "Black": section.black,
    }
    headers = {name: value for name, value in headers.items() if is_set(value)}
    headers.update(own_headers(own))
    return headers


def _clocks(snapshot: Any) -> dict[str, int] | None:
    """The players' clocks in ms: the board's clock, or a player's (an online game's
    ``Player.state()["clocks"]``); None when the game has none."""
    clock = getattr(snapshot, "clock", None)
    if clock:
        return {"white": int(clock["white_ms"]), "black": int(clock["black_ms"])}
    for state in (getattr(snapshot, "player_states", None) or {}).values():
        clocks = state.get("clocks") if isinstance(state, Mapping) else None
        if isinstance(clocks, Mapping) and all(isinstance(clocks.get(s), int) for s in
                                               ("white", "black")):
            return {"white": clocks["white"], "black": clocks["black"]}
    return None


def _clock_headers(snapshot: Any) -> dict[str, str]:
    """The board's clock's PGN tags (``TimeControl``), which its stored PGN has too."""
    from board_driver.clock.control import parse_time_control
    from board_driver.clock.texts import pgn_headers

    clock = getattr(snapshot, "clock", None)
    if not clock:
        return {}
    try:
        return pgn_headers(parse_time_control(clock["control"]))
    except ValueError:
        return {}


def _field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, Mapping) else getattr(item, name)


class Publisher:
    """Publishes the game on the board (and any of its games the broker lacks) to the
    hall's broker, as the ``[broadcast]`` section says."""

    def __init__(self, door: Any, section: Any) -> None:
        self.door = door
        self.section = section
        self.board: int = section.board
        self.topics = Topics(section.prefix)
        self.ledger = Ledger(self.topics, self._ply_details)
        #: Whether the broker is connected now.
        self.connected = False
        #: The link as the page shows it (see the module's docstring), and in words.
        self.state = "connecting"
        self.message = f"connecting to {_describe(section)}"
        self.revisions = Revisions(None)
        self._probe: str | None = None
        #: Messages the broker has acknowledged since the start.
        self.published = 0
        self._wake = asyncio.Event()
        self._stopping = False
        self._current: int | None = None
        self._records: dict[int, GameRecord] = {}  # the newest record built, per game
        self._unsent: set[int] = set()  # games no longer on the board, maybe not all sent
        self._looked_back = False  # whether the stored games of the round were looked at
        self._started: dict[int, str] = {}
        self._committed: dict[tuple[int, int], float] = {}  # (game, ply) -> UTC seconds
        # The position after each ply of the game last asked about: (game, start, ucis, fens).
        self._fens: tuple[int, str, tuple[str, ...], list[str]] | None = None
        self._events: Any = None
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> Publisher:
        try:
            folder: Path | None = Path(self.door.state_dir())
        except (AttributeError, OSError):
            folder = None
        self.revisions = Revisions(folder / REVISION_FILE if folder is not None else None)
        self._events = self.door.subscribe(maxsize=64)
        self._current = self.door.snapshot().game_id  # a game replaced from now on is sent too
        self._tasks = [asyncio.create_task(self._run(), name="broadcast")]
        log.info(
            "broadcast: board %d to %s, topics %s",
            self.board,
            _describe(self.section),
            self.topics.board_filter(self.board),
        )
        return self

    async def stop(self) -> None:
        """Send what is left (briefly), say "offline", and disconnect."""
        self._stopping = True
        self._wake.set()
        for task in self._tasks:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(task), STOP_S)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._events is not None:
            self._events.close()

    # ------------------------------------------------------------------ the game's events

    async def _next_event(self) -> None:
        """Wait for the next game event (or ``stop``), and take every one waiting."""
        if self._stopping:
            return
        stop = asyncio.create_task(self._wake.wait())
        event = asyncio.create_task(self._events.__anext__())
        try:
            await asyncio.wait({stop, event}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if not event.done():
                event.cancel()
        if event.done() and not event.cancelled() and event.exception() is None:
            self._take_events([event.result()])
        else:
            self._take_events([])

    def _take_events(self, first: list[dict[str, Any]]) -> None:
        """Note when each move waiting in the stream was committed. Its ply: the last
        move of the batch is the snapshot's last ply, the one before it the ply before,
        and so on, as long as the UCIs agree (after a take-back in the batch, they don't,
        and those moves go without a time)."""
        batch = list(first)
        while (event := self._events.get_nowait()) is not None:
            batch.append(event)
        snapshot = self.door.snapshot()
        if snapshot.game_id is None:
            return
        now_ms, now = self.door.now_ms(), time.time()
        ply = len(snapshot.ucis)
        for event in reversed(batch):
            kind = event.get("type")
            if kind in ("takeback", "new_game", "promotion_amended", "overflow"):
                break
            if kind != "move":
                continue
            if ply < 1 or snapshot.ucis[ply - 1] != event.get("uci"):
                break
            t = event.get("t")
            ago = max(0, now_ms - t) / 1000 if isinstance(t, int) else 0.0
            self._committed.setdefault((snapshot.game_id, ply), now - ago)
            ply -= 1

    # ------------------------------------------------------------------ the link

    def _say(self, state: str, message: str, level: int = logging.INFO) -> None:
        """The link's state changed: the log and the board's page say so (once)."""
        if (state, message) == (self.state, self.message):
            return
        self.state, self.message = state, message
        log.log(level, "broadcast: %s", message)
        announce = getattr(self.door, "announce", None)
        if announce is not None:
            announce({"type": "broadcast", "state": state, "message": message})

    async def _run(self) -> None:
        import aiomqtt

        from board_driver.connectors.broadcast import broker

        backoff = broker.Backoff()
        lost_at: float | None = None
        will = aiomqtt.Will(self.topics.status(self.board), OFFLINE, qos=QOS, retain=True)
        identifier = f"magboard-{self.section.prefix.replace('/', '-')}-board-{self.board}"
        while True:
            try:
                async with broker.client(self.section, identifier=identifier, will=will) as client:
                    await client.subscribe(self.topics.probe(self.board), qos=QOS)
                    await client.publish(self.topics.status(self.board), ONLINE, qos=QOS,
                                         retain=True)
                    self.connected = True
                    backoff.reset()
                    if lost_at is not None:
                        # The broker may have come back without its retained messages: send
                        # every recent game's record again (not the plies it acknowledged).
                        self.ledger.forget_records()
                        recent = self.ledger.games()[-RECENT_GAMES:]
                        self._unsent.update(g for g in recent if g != self._current)
                        log.info("broadcast: the broker is back after %.1f s; sending what it "
                                 "missed", time.monotonic() - lost_at)
                    lost_at = None
                    await self._serve(client)
                    return  # stopping: the last messages are sent
            except aiomqtt.MqttError as exc:
                self.connected = False
                if self._stopping:
                    return
                if broker.refused(exc):
                    self._say("refused", broker.refusal(self.section, "broadcast", exc),
                              logging.ERROR)
                elif lost_at is None:
                    lost_at = time.monotonic()
                    self._say("unreachable", f"broker {_describe(self.section)} unreachable "
                              f"({exc}); the board plays on and the hall gets the moves when "
                              "it is back", logging.WARNING)
                await asyncio.sleep(backoff.after(exc))
            except Exception:
                # A fault of ours must not end the broadcast for the rest of the day (nor
                # touch the board): said once with its cause, then the link starts afresh.
                self.connected = False
                if self._stopping:
                    return
                log.exception("broadcast: publishing failed; starting again in %.0f s",
                              broker.RETRY_S[1])
                await asyncio.sleep(broker.RETRY_S[1])

    async def _serve(self, client: Any) -> None:
        """Publish what is missing now and after every game event; return when stopping
        (after saying "offline"); raise MqttError when the link is lost."""
        lost = asyncio.create_task(self._watch(client))
        try:
            while True:
                self._take_events([])
                await self._send_missing(client)
                if self._stopping:
                    await client.publish(self.topics.status(self.board), OFFLINE, qos=QOS,
                                         retain=True)
                    return
                woken = asyncio.create_task(self._next_event())
                await asyncio.wait({lost, woken}, return_when=asyncio.FIRST_COMPLETED)
                if lost.done():
                    woken.cancel()
                    lost.result()  # raises the MqttError
                    raise aiomqtt_error("the broker closed the connection")
        finally:
            lost.cancel()

    async def _watch(self, client: Any) -> None:
        """Probe whether the broker passes this board's messages on, and read what comes
        back (only the probes: nothing else is subscribed) until the link ends
        (MqttError)."""
        messages = client.messages.__aiter__()
        await self._send_probe(client)
        deadline: float | None = time.monotonic() + PROBE_S
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                message = await asyncio.wait_for(messages.__anext__(), wait)
            except TimeoutError:
                self._say("not_delivered", self._not_delivered(), logging.ERROR)
                await self._send_probe(client)
                deadline = time.monotonic() + PROBE_AGAIN_S
                continue
            payload = message.payload
            if isinstance(payload, bytes | bytearray) and payload.decode("ascii", "replace") == (
                self._probe
            ):
                deadline = None
                self._say("connected", f"connected to {_describe(self.section)}")

    async def _send_probe(self, client: Any) -> None:
        self._probe = secrets.token_hex(8)
        await client.publish(self.topics.probe(self.board), self._probe, qos=QOS)

    def _not_delivered(self) -> str:
        who = f'account "{self.section.username}"' if self.section.username else (
            "this board's connection")
        return (
            f"the broker {self.section.host}:{self.section.port} takes this board's messages "
            f"but passes none of them on: {who} may not publish board {self.board}'s topics "
            f"({self.topics.board_filter(self.board)}). Under the hall's access rules a board's "
            f"user name is its number: set [broadcast] username and board to the same number "
            f"(and the password of that account)"
        )

    async def _publish(self, client: Any, messages: list[Message]) -> None:
        # Handed to the client in order (one topic's messages keep their order), a few at a
        # time (a replay of a whole game is not a flood); all acknowledged before the
        # ledger says so.
        for start in range(0, len(messages), IN_FLIGHT):
            batch = messages[start : start + IN_FLIGHT]
            await asyncio.gather(
                *(client.publish(m.topic, m.payload, qos=QOS, retain=m.retain) for m in batch)
            )
            self.published += len(batch)

    # ------------------------------------------------------------------ what to send

    async def _send_missing(self, client: Any) -> None:
        snapshot = self.door.snapshot()
        game_id = snapshot.game_id
        if game_id is None:
            return
        if self._current is not None and game_id != self._current:
            self._unsent.add(self._current)  # its end may not be in the last record sent
        self._current = game_id
        current = await self._revised(self._snapshot_record(snapshot))
        if not self._looked_back:
            self._unsent.update(await self._games_of_round(current.round, game_id))
            self._looked_back = True
        # The store's list of games, read once for all of them (a query over every game).
        summaries = {_field(g, "id"): g for g in self.door.games()} if self._unsent else {}
        for old in sorted(self._unsent):
            record = await self._stored_record(old, summaries.get(old))
            if record is not None:
                record = await self._revised(record)
            if record is not None and record.plies == 0:
                # A game left before its first move is no game of the round.
                if self.ledger.knows(old):
                    await self._publish(client, self.ledger.removal(self.board, old))
                    self.ledger.forget(old)
            elif record is not None:
                messages = self.ledger.messages(record)
                if messages:
                    await self._publish(client, messages)
                self.ledger.acknowledged(record)
            self._unsent.discard(old)
        messages = self.ledger.messages(current)
        if messages:
            await self._publish(client, messages)
            self.ledger.acknowledged(current)

    async def _revised(self, record: GameRecord) -> GameRecord:
        """``record`` (built with no revision) with the revision it had when it was built
        last, if it has not changed since; else with a new one. Kept as the game's newest."""
        known = self._records.get(record.game)
        if known is None or replace(known, revision=0) != record:
            known = replace(record, revision=await self.revisions.next())
            self._records[record.game] = known
        return known

    def _snapshot_record(self, snapshot: Any) -> GameRecord:
        game_id = snapshot.game_id
        started = self._game_started(game_id)
        clock = getattr(snapshot, "clock", None)
        headers = {**_clock_headers(snapshot), **snapshot.headers}
        return GameRecord(
            board=self.board,
            game=game_id,
            headers=game_headers(headers, self.section, started),
            moves=tuple(snapshot.moves),
            ucis=tuple(snapshot.ucis),
            start_fen=snapshot.start_fen,
            fen=snapshot.fen,
            result=snapshot.result,
            termination=snapshot.termination,
            started=started,
            clocks=_clocks(snapshot),
            clks=tuple(clock["clks"]) if clock else (),
            variant=getattr(snapshot, "variant", "standard"),
        )

    async def _stored_record(self, game_id: int, summary: Any) -> GameRecord | None:
        """A game no longer on the board, as the store has it (``summary``: its line in
        the door's ``games()``; its PGN read in a thread: the loop goes on judging moves
        meanwhile)."""
        try:
            text = self.door.pgn(game_id)
        except LookupError:
            return None
        parsed = await asyncio.to_thread(_read_game, text)
        if parsed is None:
            log.warning("broadcast: game %d's stored PGN cannot be read; not sent", game_id)
            return None
        headers, moves, ucis, fen, clks, variant = parsed
        known = self._records.get(game_id)
        own = dict(known.headers) if known else headers
        started = self._game_started(game_id)
        result = _field(summary, "result") if summary is not None else headers.get("Result", "*")
        return GameRecord(
            board=self.board,
            game=game_id,
            headers=game_headers(own, self.section, started),
            moves=moves,
            ucis=ucis,
            start_fen=headers.get("FEN", known.start_fen if known else GameRecord.start_fen),
            fen=fen,
            result=result if result in ("1-0", "0-1", "1/2-1/2") else "*",
            termination=_field(summary, "termination") if summary is not None else None,
            started=started,
            clks=clks,
            variant=variant,
        )

    async def _games_of_round(self, round_: str, current: int) -> list[int]:
        """The newest stored games (besides ``current``) of round ``round_``."""
        if not round_:
            return []
        found = []
        for summary in self.door.games()[-RECENT_GAMES:]:
            game_id = _field(summary, "id")
            if game_id == current:
                continue
            try:
                text = self.door.pgn(game_id)
            except LookupError:
                continue
            match = re.search(r'^\[Round "([^"]*)"\]', text, re.MULTILINE)
            own = match[1] if match and is_set(match[1]) else ""
            if (own or self.section.round) == round_:  # no Round of its own: the config's
                found.append(game_id)
        return found

    def _game_started(self, game_id: int) -> str:
        if game_id not in self._started:
            for summary in self.door.games():
                self._started.setdefault(_field(summary, "id"), str(_field(summary, "started")))
        return self._started.get(game_id, "")

    def _ply_details(self, record: GameRecord, ply: int) -> dict[str, Any]:
        """A ``move`` message's details: the position after it, when it was committed
        (UTC) and how long after the game's start, and the clocks when known."""
        details: dict[str, Any] = {"fen": self._fen_after(record, ply)}
        committed = self._committed.get((record.game, ply))
        if committed is not None:
            at = dt.datetime.fromtimestamp(committed, dt.UTC)
            details["at"] = at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
            with contextlib.suppress(ValueError):
                start = dt.datetime.fromisoformat(record.started)
                details["elapsed_ms"] = max(0, round((at - start).total_seconds() * 1000))
        if ply == record.plies and record.clocks is not None:
            details["clocks"] = dict(record.clocks)
        return details

    def _fen_after(self, record: GameRecord, ply: int) -> str:
        """The position after ``ply`` (a move sent with others, or again after a lost
        link). Worked out for the plies not yet known only: a game's FENs grow with it,
        rather than the whole game replayed at every move (on the daemon's loop)."""
        if ply == record.plies:
            return record.fen
        import rules

        known = self._fens
        if (known is None or known[0] != record.game or known[1] != record.start_fen
                or record.ucis[: len(known[2])] != known[2]):
            known = (record.game, record.start_fen, (), [])
        fens = known[3]
        if len(fens) < ply:
            # Position, not Game: no ending to judge at each ply (a record may go on past
            # one, an online game's), only the moves to play.
            position = rules.Position.from_fen(
                fens[-1] if fens else record.start_fen, variant=record.variant
            )
            for uci in record.ucis[len(fens):]:
                position.push(position.parse_uci(uci))
                fens.append(position.fen())
            known = (record.game, record.start_fen, record.ucis, fens)
        self._fens = known
        return fens[ply - 1]


#: A stored game read back: its headers, moves in SAN and UCI, last position, clocks and variant.
ReadGame = tuple[dict[str, str], tuple[str, ...], tuple[str, ...], str, tuple[int | None, ...], str]


def _read_game(text: str) -> ReadGame | None:
    import rules

    try:
        games = rules.read_pgn(text)
    except ValueError:
        return None
    if not games:
        return None
    parsed = games[0]
    game = parsed.game
    if game is None:
        return None
    return (
        dict(parsed.headers),
        tuple(game.san_moves()),
        tuple(m.uci() for m in game.moves),
        game.position.fen(),
        tuple(parsed.clocks),
        game.start.variant,
    )


def aiomqtt_error(message: str) -> Exception:
    import aiomqtt

    return aiomqtt.MqttError(message)


def _describe(section: Any) -> str:
    from board_driver.connectors.broadcast.broker import describe

    return describe(section)
