"""The chess clock in the board: time controls, the clock's arithmetic, and the clock of
a game kept from the tracker's events. Pure: no I/O, and every call is told the time.

- :mod:`.control`: time controls as players name them (``3+2``, ``5+3 delay``) and as
  PGN's ``TimeControl`` writes them (``40/5400+30:1800+30``);
- :mod:`.clock`: :class:`ChessClock`, two times and whose runs: increments, Bronstein and
  simple delays, stages, pause, adjust, set back;
- :mod:`.keeper`: :class:`Timekeeper`, the clock of the game on the board: switched at the
  hand's release (or by clock buttons), flag fall judged by the laws (FIDE 6.9, through
  ``rules``' ``unwinnable``), FIDE 7.5.5, each change an entry for the store;
- :mod:`.texts`: a clock as people and programs read it (``4:59``, ``%clk``, PGN's
  ``TimeControl``).

The daemon (:mod:`board_driver.service.clock`) and ``magboard replay`` drive a
:class:`Timekeeper` the same way, so a replayed script gives the ``%clk`` the board gave.
"""

from board_driver.clock.clock import ChessClock
from board_driver.clock.control import Stage, TimeControl, from_pgn, parse_time_control
from board_driver.clock.keeper import (
    CLOCK_BUTTONS,
    ILLEGAL_MOVE_RULES,
    PENALTY_MS,
    SWITCHES,
    ClockEntry,
    Timekeeper,
)
from board_driver.clock.texts import clk_comments, clock_text, pgn_clock

__all__ = [
    "CLOCK_BUTTONS",
    "ILLEGAL_MOVE_RULES",
    "PENALTY_MS",
    "SWITCHES",
    "ChessClock",
    "ClockEntry",
    "Stage",
    "TimeControl",
    "Timekeeper",
    "clk_comments",
    "clock_text",
    "from_pgn",
    "parse_time_control",
    "pgn_clock",
]
