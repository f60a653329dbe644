"""A clock as people and programs read it: the times as a clock shows them, a line of words
for a terminal, PGN's ``%clk`` commands and ``TimeControl`` tags, and the times a reading
taken earlier gives now. Pure, like the clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from board_driver.clock.control import TimeControl


def times_at(reading: Mapping[str, Any], t: int) -> tuple[int, int]:
    """``(white_ms, black_ms)`` at ``t`` from a :meth:`Timekeeper.reading` taken earlier
    (at its ``at``): the running side counted down, after what was left of its delay.

    >>> times_at({"white_ms": 60_000, "black_ms": 50_000, "turn": "black",
    ...           "state": "running", "delay_ms": 0, "at": 1_000}, 3_500)
    (60000, 47500)
    """
    white, black = int(reading["white_ms"]), int(reading["black_ms"])
    if reading.get("state") != "running":
        return white, black
    spent = max(0, t - int(reading.get("at", t)) - int(reading.get("delay_ms") or 0))
    if reading.get("turn") == "white":
        return max(0, white - spent), black
    return white, max(0, black - spent)


def clock_text(ms: int) -> str:
    """A time as a clock shows it: ``4:59``, ``1:30:00``; tenths under ten seconds.

    >>> clock_text(299_400), clock_text(5_400_000), clock_text(9_870), clock_text(0)
    ('4:59', '1:30:00', '9.8', '0.0')
    """
    if ms < 10_000:
        return f"{max(0, ms) // 1000}.{max(0, ms) % 1000 // 100}"
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def clock_words(clock: Mapping[str, Any]) -> str:
    """The clock in a line: both times, the running one marked.

    >>> clock_words({"white_ms": 178_000, "black_ms": 9_400, "turn": "black",
    ...              "state": "running", "control": "3+2", "reason": None})
    'Clock 3+2: White 2:58 · Black > 9.4'
    >>> clock_words({"white_ms": 60_000, "black_ms": 60_000, "turn": "white",
    ...              "state": "paused", "control": "1+0", "reason": "restart"})
    'Clock 1+0: White 1:00 · Black 1:00 (paused: restart)'
    """
    marks = {
        side: (" > " if clock["state"] == "running" and clock["turn"] == side else " ")
        for side in ("white", "black")
    }
    text = (
        f"Clock {clock['control']}: White{marks['white']}{clock_text(clock['white_ms'])} · "
        f"Black{marks['black']}{clock_text(clock['black_ms'])}"
    )
    if clock["state"] == "paused":
        text += f" (paused: {clock['reason']})" if clock.get("reason") else " (paused)"
    elif clock["state"] == "waiting":
        text += " (starts with the first move)"
    return text


def pgn_clock(ms: int) -> str:
    """A ``%clk`` command for a PGN comment: hours, minutes, seconds, and tenths when
    the time is not a whole second (rounded down: never more than was left).

    >>> pgn_clock(178_000), pgn_clock(5_400_000), pgn_clock(7_250)
    ('[%clk 0:02:58]', '[%clk 1:30:00]', '[%clk 0:00:07.2]')
    """
    ms = max(0, ms)
    seconds, rest = divmod(ms, 1000)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    tenths = f".{rest // 100}" if rest >= 100 else ""
    return f"[%clk {hours}:{minutes:02}:{seconds:02}{tenths}]"


def clk_comments(clks: Iterable[int | None]) -> dict[int, str]:
    """The PGN comments of a game's ``%clk`` values, by ply (1: the first move).

    >>> clk_comments([180_000, None, 177_250])
    {1: '[%clk 0:03:00]', 3: '[%clk 0:02:57.2]'}
    """
    return {ply: pgn_clock(ms) for ply, ms in enumerate(clks, 1) if ms is not None}


def pgn_headers(control: TimeControl | None) -> dict[str, str]:
    """The PGN tags of a control: ``TimeControl`` (``-``: no clock), and ``Clock`` with
    its full name where PGN's notation cannot say it (a delay).

    >>> from board_driver.clock.control import parse_time_control
    >>> pgn_headers(parse_time_control("3+2")), pgn_headers(parse_time_control("5+3 delay"))
    ({'TimeControl': '180+2'}, {'TimeControl': '300', 'Clock': '5+3 delay'})
    """
    if control is None:
        return {}
    headers = {"TimeControl": control.pgn()}
    if control.mode != "fischer" and any(s.bonus_ms for s in control.stages):
        headers["Clock"] = control.name()
    return headers
