"""What the daemon's parts share: the state a :class:`~.daemon.Daemon` holds and the steps
its parts call on one another, declared once.

The daemon is one object put together from its parts (:mod:`.storing`, :mod:`.restart`,
:mod:`.questions`, :mod:`.new_games`), each a class of its own that :class:`~.daemon.Daemon`
inherits, as the tracker is put together from its (:mod:`board_driver.arbiter.parts`). Each
part is a :class:`DaemonParts`, so that the type checker reads every part against this one
description of the whole; nothing here runs (the state is set by ``Daemon.__init__`` and
``Daemon._start``, the steps are defined by the parts and the daemon).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from board_driver.arbiter.options import Timing
    from board_driver.physical.events import BoardEvent
    from board_driver.service.clock import DaemonClock
    from board_driver.service.config import Config
    from board_driver.service.doorway import BoardDoor
    from board_driver.service.hands_journal import Asked, HandsJournal, JournalEvent
    from board_driver.service.intake import Intake
    from board_driver.service.lights import Lights
    from board_driver.service.recorder import Recorder
    from board_driver.service.resumption import Question, Reading


class DaemonParts:
    """The daemon as each of its parts sees it (see the module docstring)."""

    config: Config
    tracker: Any
    recorder: Recorder | None
    journal: HandsJournal | None
    question: Question | None
    door: BoardDoor
    clock: DaemonClock
    lights: Lights
    loop: asyncio.AbstractEventLoop | None
    online: bool
    notices: list[str]
    intake: Intake | None
    game_kind: tuple[str, int | str | None]  # the kind of the next new game set up
    _timing: Timing
    _timers: dict[str, asyncio.TimerHandle]
    _t0: float
    _store_failing: str | None
    _store_problem: str
    _question_lights: Any
    _unstored_checked: int | None
    _new_game_replayed: bool
    _replayed: tuple[dict[str, str], dict[str, dict[str, str | None]]] | None

    if TYPE_CHECKING:
        # Of the daemon (daemon.py).
        @property
        def game_id(self) -> int | None: ...
        @property
        def _recorder(self) -> Recorder: ...
        def now_ms(self) -> int: ...
        def loop_time(self, t_ms: int) -> float: ...
        def fault(self, message: str, code: int = 1) -> None: ...
        def handle(self, events: Iterable[BoardEvent]) -> list[dict]: ...
        def after(
            self,
            announced: list[dict],
            board_events: Iterable[Any] = (),
            *,
            clocked: bool = False,
        ) -> None: ...

        # Of the store's failures (storing.py).
        def store_call(self, write: Callable[..., Any], *args: Any) -> None: ...

        # Of a restart (restart.py).
        def keep(self, event: JournalEvent) -> None: ...
        def game_changed_outside(self) -> None: ...
        def _restart_journal(self) -> None: ...
        def _keep_journal(self, fresh: bool) -> None: ...
        def _play_unseen(self, reading: Reading, standing: int) -> list[dict]: ...

        # Of the questions after a restart (questions.py).
        def _ask(self, found: list[Reading], standing: int) -> None: ...
        def _ask_again(self, asked: Asked, held: Sequence[Any]) -> None: ...
        def _decide_when_still(self) -> None: ...
        def _end_question(self) -> None: ...
