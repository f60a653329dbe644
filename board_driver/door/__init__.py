"""The one door into the running board: a snapshot, the event streams, and the actions.

Everything that is not the board's own path (switches -> tracker -> store -> LEDs) talks
to the running board through a :class:`Door`, and through nothing else: the web page, the
engine, an online opponent, the protocols apps speak, the broadcaster. None of them
imports the daemon, and none can slow the board's own path: events reach them through a
bounded queue each (a subscriber too slow to keep up loses events, is told so, and reads
the snapshot again), and everything they do is a small action on the daemon's loop.

A tiny connector, which says every move aloud and resigns for White when asked::

    from board_driver.door import Door

    async def announcer(door: Door) -> None:
        async with door.subscribe() as events:
            async for event in events:
                if event["type"] == "move":
                    print(event["san"], "after", door.snapshot().moves[:-1])
                elif event["type"] == "overflow":
                    print("missed", event["lost"], "events; now at", door.snapshot().fen)

Every method runs on the daemon's asyncio loop (connectors run there too). Code on
another thread (a blocking client library) hands work to the loop with
:meth:`Door.call_soon_threadsafe`.

**The snapshot** (:class:`Snapshot`) is the whole state at one moment, immutable: the game
(start, moves, position, result), the board (sensed squares, whether it matches the game
and what to put right), the lights shown, the options, who plays each side, the PGN
headers set for the game.

**The streams** (:meth:`Door.subscribe`): game events, as the tracker and the players
announce them (``move``, ``check``, ``illegal``, ``takeback``, ``game_over``, ``new_game``,
``engine_move``, ... see :mod:`board_driver.arbiter.tracker` and :data:`DOOR_EVENTS`),
each a JSON-able dict with ``t`` (ms since the daemon started) and ``type``; with
``board=True`` also the board's own events as the tracker saw them, in its order and with
their times (``lift``/``place`` with ``square``, after debouncing; ``button`` with ``name``
and ``choose`` with ``piece``, from the board's buttons, a page or a script), for protocols
that report squares and for recording what hands did; with
``lights=True`` a ``lights`` item whenever the frame shown changes.

**The actions** each say what they did by the game events they return (also sent to every
subscriber), and raise :class:`ActionRefused` (a ValueError) with the reason when they
cannot be done now. Board-event actions carry the time they happened (``t_ms``, default
now), so that a button pressed on a page is judged in its place among the board's events.

**Lights** (:meth:`Door.light_layer`): a connector may light squares in a layer of its
own. Where two layers want one square, the more urgent wins, in this order (the first
wins): the daemon's own patterns (starting, link lost, fault; store failing: the edge), a
committed move's white flash, the board out of sync (what to empty and fill),
**connector layers** (in the order they were made), then the game's own lights: check, a
move half done (castling rook, en-passant victim, touched piece), the move to execute for
a player not at the board, hints, the end of the game.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from board_driver.physical.frame import Frame
from board_driver.physical.squares import square, square_name

if TYPE_CHECKING:
    import rules

__all__ = [
    "DOOR_EVENTS",
    "HUMAN",
    "SIDES",
    "ActionRefused",
    "Door",
    "Frame",
    "LightLayer",
    "Player",
    "Snapshot",
    "StoreUnavailable",
    "Subscription",
    "square",
    "square_name",
]

#: The two sides, as the door names them.
SIDES = ("white", "black")
#: Who may play a side: ``human`` (people at the board) or the name of a registered player.
HUMAN = "human"
#: The events the door itself adds to the tracker's (see the module docstring for these).
DOOR_EVENTS = {
    "new_game": "a new game started: ``fen``, ``variant`` (``standard`` or ``chess960``), a "
    "Chess960 start position's number ``chess960`` (its stored number: the snapshot's "
    "``game_id``)",
    "options": "the game's options changed: ``touch_move``, ``takeback``, ``hints``, "
    "``clock``, ``clock_switch``, ``illegal_move``",
    "clock": "the clock changed: ``action`` (``pause``, ``resume``, ``start``, ``adjust``, "
    "``set``, ``switch``, ``penalty``), ``by``, the times: read the snapshot's ``clock``",
    "players": "who plays each side changed: ``white``, ``black``",
    "headers": "the game's PGN headers changed: ``headers``",
    "board_state": "the daemon's own state changed: ``state`` (see Snapshot.board_state)",
    "question": "after a restart the pieces read several ways: ``readings``, ``squares``",
    "answered": "the question was answered: ``reading`` (``nothing``: the pieces put back)",
    "overflow": "this subscriber was too slow and lost ``lost`` events: read the snapshot",
    "lift": "(board=True) a piece left ``square`` (the tracker's view, debounced)",
    "place": "(board=True) a piece arrived on ``square``",
    "button": "(board=True) a control pressed: ``name`` (a board-script button name)",
    "choose": "(board=True) the promotion piece chosen: ``piece`` (q, r, b or n)",
    "lights": "(lights=True) the frame shown changed: read the snapshot's ``lights``",
}


class ActionRefused(ValueError):
    """An action that cannot be done now; the message says why (for a page or a log)."""


class StoreUnavailable(RuntimeError):
    """The stored games cannot be read now (a file of the store stopped taking writes, and
    SQLite must not touch it); the message says which and why. The game on the board goes
    on, kept in memory, and the store is read again once the file can be written."""


@dataclass(frozen=True)
class Snapshot:
    """The running board at one moment. Squares are named (``"e4"``) or, for
    occupancies, 64-bit maps with bit *i* = square *i* (a1 = 0 .. h8 = 63)."""

    #: The stored number of the game on the board.
    game_id: int | None
    start_fen: str
    #: The position after the last committed move.
    fen: str
    #: The side to move, ``"white"`` or ``"black"``.
    turn: str
    #: The committed moves, in SAN and in UCI.
    moves: tuple[str, ...]
    ucis: tuple[str, ...]
    #: ``"*"`` while the game goes on; ``termination`` and ``winner`` (a side, or None
    #: for a draw) once it is over.
    result: str
    termination: str | None
    winner: str | None
    #: The side to move is in check (and the game goes on).
    check: bool
    #: The pieces standing match the game (or a move on its way); when False, ``empty``
    #: and ``fill`` name the squares to put right.
    in_sync: bool
    empty: tuple[str, ...]
    fill: tuple[str, ...]
    #: What the switches report, debounced: the occupancy the tracker sees.
    sensed: int
    #: The steady frame the LEDs show now (a move's white flash included).
    lights: Frame
    #: ``ok``, or the daemon's own state its edge lights show: ``starting``,
    #: ``link_lost`` (the serial bridge), ``fault`` (the board cannot be read),
    #: ``store_failing`` (a move could not be stored; it is kept and retried).
    board_state: str
    #: ``touch_move`` (off/warn/enforce), ``takeback`` and ``hints`` (booleans).
    options: Mapping[str, Any]
    #: Who plays each side: ``{"white": "human", "black": "engine"}``.
    players: Mapping[str, str]
    #: What each registered player reports about itself (``Player.state()``), by name.
    player_states: Mapping[str, Mapping[str, Any]]
    #: The name of the player whose move the board waits for (its side to move, its move
    #: not yet chosen), or None.
    awaiting: str | None
    #: The move (UCI) a player not at the board chose, waiting to be played on the board.
    expected: str | None
    #: A suggested move (UCI) lit for the side to move.
    hint: str | None
    #: PGN headers set for this game (Event, Site, White, Black, Round, ...).
    headers: Mapping[str, str]
    #: A server decides this game's result (an online game: no help at the board).
    online: bool
    #: A new game waits for its pieces to be set up (the lights say where): nothing is
    #: read as a move until its position stands.
    setup_pending: bool
    #: What the lights ask, in words, most urgent first ("Castling: move the rook from h1
    #: to f1.", "Illegal: the pawn on e2 cannot go to e5."); empty when they ask nothing.
    asks: tuple[str, ...]
    #: The side whose draw offer stands, or None.
    draw_offer: str | None
    #: The simulated board's pieces, or None on a real board.
    sim_pieces: int | None
    #: The board's timing: ``settle_ms`` (still before a move is judged), ``pass_ms`` (a
    #: piece resting less only passed over a square) and ``debounce_ms`` (a switch's
    #: change counts once it has held this long).
    timing: Mapping[str, int] = field(default_factory=dict)
    #: After a restart, the readings of the pieces the board cannot choose between (``Qxg7+``,
    #: ``nothing yet: the piece from g8 is in the hand``), lit yellow and asked until
    #: :meth:`Door.answer` says which (or the pieces are put back as stored); else empty.
    question: tuple[str, ...] = ()
    #: The game's chess clock, None without one (an online game's is its player's):
    #: ``white_ms``/``black_ms`` (left at ``at``, the daemon's ms), ``turn`` (whose clock
    #: runs, or will), ``state`` (``waiting``, ``running``, ``paused``, ``stopped``),
    #: ``reason`` (why paused: ``restart``, ``page``, ``button``), ``delay_ms`` (a simple
    #: delay's part still to run), ``control``/``pgn``/``describe``/``mode``, ``switch``
    #: (``board``/``buttons``), ``illegal_move``, ``illegal`` (by side), ``clks`` (each
    #: ply's ``%clk``), ``bonus_ms`` (by side): see
    #: :meth:`board_driver.clock.keeper.Timekeeper.reading`.
    clock: Mapping[str, Any] | None = None
    #: The rules of the game: ``"standard"`` or ``"chess960"`` (its FENs are X-FEN, and a
    #: castling's UCI is the king taking its rook, as UCI_Chess960 writes it).
    variant: str = "standard"
    #: A Chess960 game's start position by number (0-959, Scharnagl's; 518 is the standard
    #: array), or None (standard chess, or a Chess960 game set up from another position).
    chess960: int | None = None
    #: While a position is set up kind by kind (``setup_pending``), what the lights ask:
    #: the ``setup`` event's details (``fen`` to set up, ``number`` of ``groups``, the
    #: ``group`` due with its ``side``, ``piece``, ``squares``, ``missing`` and
    #: ``unchecked``, ``extra``, ``wrong``, ``early``: see
    #: :meth:`board_driver.arbiter.kinds.SetupGuide.state`); None otherwise.
    setup: Mapping[str, Any] | None = None
    #: What the board says about its own files, for a person to know: one it could not use
    #: at its start (a hands journal set aside, and why; the simulated board's pieces file),
    #: newest last. Empty when all is well.
    notices: tuple[str, ...] = ()

    def position(self) -> rules.Position:
        """The position after the last committed move, as a :class:`rules.Position`."""
        import rules

        return rules.Position.from_fen(self.fen, variant=self.variant)

    def game(self) -> rules.Game:
        """The game so far, rebuilt as a :class:`rules.Game` (its own copy)."""
        import rules

        start = rules.Position.from_fen(self.start_fen, variant=self.variant)
        game = rules.Game.from_record(start, list(self.ucis))
        if self.online:
            game.dead_position_ends = False
        return game


class Subscription(Protocol):
    """A bounded stream of events for one subscriber (see :meth:`Door.subscribe`).

    Iterate it with ``async for``; use it as an async context manager, or call
    :meth:`close`, to stop receiving. ``lost`` counts the events dropped so far.
    """

    lost: int

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]: ...

    async def __anext__(self) -> dict[str, Any]: ...

    def get_nowait(self) -> dict[str, Any] | None:
        """The next event if one is waiting, else None."""
        ...

    def close(self) -> None: ...

    async def __aenter__(self) -> Subscription: ...

    async def __aexit__(self, *exc: object) -> None: ...


class LightLayer(Protocol):
    """A connector's own lights (see the module docstring for where they rank)."""

    name: str

    def show(self, frame: Frame | None) -> None:
        """Light ``frame``'s lit squares (``.`` squares let the layers below show);
        None clears the layer."""
        ...


class Player(Protocol):
    """A player who is not at the board (an engine, an online opponent).

    A player is registered with :meth:`Door.add_player`; a side is given to it with
    :meth:`Door.set_player`. When it is that side's turn it finds its move and hands it
    to :meth:`Door.expect`: the move is lit, and it is the only move the board accepts.
    """

    name: str

    def state(self) -> Mapping[str, Any]:
        """What a page shows about it (JSON-able): level, thinking, connected, ...
        (it is part of every snapshot: it must not make one)."""
        ...

    def configure(self, settings: Mapping[str, Any]) -> None:
        """Settings from a page (a level, ...); ValueError names a bad one."""
        ...

    async def command(self, action: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """A player's own action asked for by a page (``seek``, ``challenge``, ``login``,
        ...): a JSON-able answer, or ValueError / ActionRefused with the reason."""
        ...


class Door(Protocol):
    """The running board, as every connector and player sees it."""

    # ------------------------------------------------------------------ reading

    def snapshot(self) -> Snapshot:
        """The whole state now."""
        ...

    def subscribe(
        self, *, board: bool = False, lights: bool = False, maxsize: int = 256
    ) -> Subscription:
        """A stream of game events from now on (``board``: the tracker's lifts, places,
        buttons and choices too; ``lights``: a ``lights`` item when the frame changes). At most
        ``maxsize`` events wait for the subscriber; past that the waiting ones are
        dropped and an ``overflow`` item says how many."""
        ...

    def players(self) -> Mapping[str, str]:
        """Who plays each side now (as in the snapshot, without making one)."""
        ...

    def now_ms(self) -> int:
        """The daemon's clock: ms since it started (the ``t`` of every event). A daemon that
        started in the middle of a move goes on from the clock of the one before it, whose
        events it replayed: only differences between its times mean anything."""
        ...

    def state_dir(self) -> Path:
        """The daemon's state directory (beside the store), for files an extension keeps
        across restarts (a token, an online account's credentials)."""
        ...

    def games(self) -> list[Any]:
        """The stored games, oldest first (``id``, ``started``, ``plies``, ``result``,
        ``termination``). :class:`StoreUnavailable` when the store cannot be read now (as
        for :meth:`pgn`, :meth:`game` and :meth:`review`)."""
        ...

    def pgn(self, game_id: int | None = None, *, evals: bool = False) -> str:
        """A stored game as PGN (None: the game on the board). LookupError if none.
        ``evals``: its review as ``[%eval ...]`` comments and glyphs (see :meth:`review`)."""
        ...

    def game(self, game_id: int) -> Any:
        """A stored game (``id``, ``start_fen``, ``ucis``, ``moves`` with their ``san``,
        ``result``, ``termination``, ``headers``, ``data``). LookupError if none."""
        ...

    def describe(self, what: str, *, language: str = "en", **details: Any) -> str:
        """The board's answers to a player's questions, in words, as its speech says them
        (:mod:`board_driver.spoken.asks`): ``move`` (the last move, or ``ply=`` n's: the
        words of a move), ``moves`` (the last ``count=`` plies), ``clocks``, ``material``,
        ``square`` (``square="f3"``: *White knight f3.*), ``rank`` (``rank=3``), ``file``
        (``file="f"``), ``pieces`` (``piece="N"``: *White's knights: b1 and g1.*, a small
        letter for Black's), ``piece_moves`` (``square="g1"``: where the piece there can go);
        in ``language`` (``en``, ``fr``, ``de``, ``es``). ActionRefused names
        a question, a detail or a language it does not know. The board's ``say_*`` buttons
        (:meth:`press`) have the speech extension say the same answers aloud."""
        ...

    def review(self, game_id: int) -> list[Any]:
        """What an engine's review of stored game ``game_id`` found, a
        :class:`board_driver.door.review.ReviewedPly` per position reviewed (empty: none).
        LookupError if there is no such game."""
        ...

    def store_review(self, game_id: int, plies: Sequence[Any]) -> None:
        """Keep positions of a review with stored game ``game_id`` (each replaces what was
        kept for its ply; a take-back drops those past it)."""
        ...

    # ------------------------------------------------------------------ board events

    def press(self, button: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        """A control pressed: ``adjust``, ``resign``, ``draw_offer``, ``draw_accept``,
        ``claim_draw``, ``new_game``, ``hint``, the clock's, and the questions ``say_move``,
        ``say_moves``, ``say_clocks``, ``say_material``, ``say_square``, ``say_rank``,
        ``say_file`` (an ``ask`` event: the speech extension answers aloud) (the
        board-script ``button`` names)."""
        ...

    def choose(self, piece: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        """The promotion piece chosen: ``q``, ``r``, ``b`` or ``n``."""
        ...

    def resign(self, side: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        """``side`` (``white`` or ``black``) resigns, whoever is to move (FIDE 5.1.2). As a
        button it judges the board first: a move whose pieces stand counts before it. (The
        ``resign`` button is the side to move's, or the people's against a player away.)"""
        ...

    def lift(self, square: str | int) -> None:
        """Lift the piece on ``square`` of the simulated board (ActionRefused on a real
        board, or when no piece stands there). It reaches the tracker as a real lift
        would: through sensing and debouncing."""
        ...

    def place(self, square: str | int) -> None:
        """Place a piece on ``square`` of the simulated board (see :meth:`lift`)."""
        ...

    def set_sim_pieces(self, occupancy: int) -> None:
        """Set the simulated board's pieces at once (ActionRefused on a real board)."""
        ...

    # ------------------------------------------------------------------ the game

    def new_game(
        self,
        fen: str | None = None,
        *,
        variant: str | None = None,
        chess960: int | str | None = None,
        options: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        players: Mapping[str, str] | None = None,
        moves: Sequence[str] = (),
        online: bool = False,
    ) -> list[dict[str, Any]]:
        """Start a new game from ``fen`` and ``moves`` (UCI) already played from it
        elsewhere, on the pieces standing (the lights guide the set-up; from a start
        position with no moves, none of the pieces standing is read as a move until all 32
        stand home, as after the ``new_game`` button), with ``options`` and ``headers``
        changed and the sides given to ``players`` (the others keep theirs). ``variant``:
        ``"standard"`` or ``"chess960"`` (the rules of ``fen``, X-FEN or Shredder-FEN).
        Without a ``fen``, a start position: Chess960's number ``chess960`` (0-959) or
        ``"random"`` (``variant="chess960"`` alone: random), the standard one for
        ``variant="standard"``, and with neither the kind of game last started this way
        (at first the config's ``[game] variant`` and ``chess960_position``); the
        ``new_game`` button then starts that kind too. The game on the board is kept in
        the store as it stands (it can be resumed). ``online``: a server decides the result (see
        :meth:`end_game`); the board's own automatic endings that a server may not know
        (a dead position) are then only a note, and no one at the board gets help (no
        hints, no engine)."""
        ...

    def resume_game(self, game_id: int) -> list[dict[str, Any]]:
        """Go back to a stored game that is not over (an adjourned local game, one of
        several correspondence games): it is the game on the board again, and the lights
        guide the pieces to its position. LookupError if there is no such game."""
        ...

    def game_data(self, name: str, game_id: int | None = None) -> dict[str, str]:
        """What extension ``name`` stored with the game on the board, or with stored game
        ``game_id`` (see :meth:`set_game_data`); empty when nothing was."""
        ...

    def all_game_data(self, name: str) -> dict[int, dict[str, str]]:
        """What extension ``name`` stored with each game, by game number, oldest first
        (games it stored nothing with are left out): a puzzle trainer's past results."""
        ...

    def set_game_data(
        self, name: str, data: Mapping[str, str], *, game_id: int | None = None
    ) -> None:
        """Store a few texts with the game on the board (or stored game ``game_id``) for
        extension ``name`` (an online game's id, the last ply the server accepted, ...):
        kept across restarts, in the same transaction style as the moves."""
        ...

    def set_options(self, **options: Any) -> list[dict[str, Any]]:
        """Change the game's options: ``touch_move``, ``takeback``, ``hints``, and the
        clock's ``clock`` (a time control: the clock is set anew, paused),
        ``clock_switch``, ``illegal_move``."""
        ...

    def clock(self, action: str, **args: Any) -> list[dict[str, Any]]:
        """The players or an arbiter at the clock: ``pause``, ``resume`` (or start it
        before the first move), ``adjust`` (``white_ms=``, ``black_ms=``: the times to
        read now). Each is logged and stored. ActionRefused says why not (no clock, the
        game over, the clock not running)."""
        ...

    def set_headers(self, **headers: str) -> list[dict[str, Any]]:
        """Set PGN headers of the game on the board (stored with it; "" removes one)."""
        ...

    def set_player(
        self,
        side: str,
        player: str,
        settings: Mapping[str, Any] | None = None,
        *,
        this_game: bool = True,
        new_games: bool = True,
    ) -> list[dict[str, Any]]:
        """Give ``side`` to ``player`` (:data:`HUMAN` or a registered player's name), in
        the game on the board (``this_game``) and in the games started from now on
        (``new_games``); ``settings`` go to the player's :meth:`Player.configure` first.
        When both sides are played from elsewhere (a move of ours made on another device,
        to be played on the board too), the board waits for the side to move's."""
        ...

    def end_game(
        self, termination: str, winner: str | None, *, t_ms: int | None = None
    ) -> list[dict[str, Any]]:
        """End the game with a result decided outside the board: ``timeout``,
        ``abandoned``, ``aborted``, or a server's ``resignation``/``agreement``;
        ``winner`` a side or None."""
        ...

    def take_back(self, plies: int = 1, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        """Take back ``plies`` moves decided outside the board (an online take-back):
        the game goes back at once; the lights show how to put the pieces back."""
        ...

    def answer(self, reading: int) -> list[dict[str, Any]]:
        """Answer the question the board asks after a restart (the snapshot's
        ``question``): reading number ``reading`` (from 0) is what happened while it was
        away. The moves it holds are stored, and the board's events held meanwhile follow.
        ActionRefused when nothing is asked."""
        ...

    # ------------------------------------------------------------------ players

    def add_player(self, player: Player) -> None:
        """Register a player under its ``name`` (a side is given to it by set_player)."""
        ...

    def expect(self, move: str, *, t_ms: int | None = None) -> list[dict[str, Any]]:
        """The move (UCI) of the side whose player is not at the board: lit to be played,
        and the only move the board accepts. ActionRefused if it is not that side's turn
        or the move is not legal."""
        ...

    def show_hint(self, move: str | None) -> None:
        """Light a suggested move (UCI) for the side to move; None clears it."""
        ...

    def require(self, moves: Sequence[str] | None, *, mates: bool = False) -> None:
        """The next move of the side at the board must be one of ``moves`` (UCI), or, with
        ``mates``, any move that checkmates (a puzzle's solution): any other legal move
        made is refused (``illegal``, reason ``refused``, with its ``san``) and the lights
        show how to put it back. It holds for one move; None lifts it. ActionRefused on
        the turn of a player away from the board, or for a move that is not legal."""
        ...

    async def command(
        self, player: str, action: str, args: Mapping[str, Any] | None = None
    ) -> Mapping[str, Any]:
        """Ask registered player ``player`` to do one of its own actions
        (:meth:`Player.command`); LookupError if there is no such player."""
        ...

    def announce(self, event: dict[str, Any]) -> None:
        """Put an event of a player's or connector's own (``engine_move``, ``hint``,
        ``engine_error``, ``online_error``, ...) in every subscriber's stream and the log;
        ``t`` is added when missing."""
        ...

    # ------------------------------------------------------------------ lights and loop

    def light_layer(self, name: str) -> LightLayer:
        """A layer of lights of the caller's own (see the module docstring)."""
        ...

    def call_soon_threadsafe(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` on the daemon's loop, from any thread."""
        ...
