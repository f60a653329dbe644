"""Nothing a hands journal holds can keep the board from starting (issue 32, item 2).

The attack run wrote journals whose every line passes its CRC (what a newer magboard
followed by a downgrade leaves, or a person editing one) and started the daemon on them:
``options foo=bar`` raised TypeError, a time or a clock of 400 digits OverflowError (exit 1
and a traceback on every start: systemd restarted it into the same journal until its start
limit), a board of more than 64 bits or -1 in the first line exited 2 "check the config"
(which systemd does not restart: the board stayed down).

Now a line this magboard cannot read is skipped with a warning (an option of a newer
version too), and a journal that cannot be replayed at all, for any reason, is set aside
(renamed, never deleted, its name in the log and on the page) and the board starts from the
store and the pieces. Through the real daemon process for the attack run's journals, each
started twice; and a property: random CRC-valid lines (any kind, any key, any value, any
length) given to a real start, which must always become ready with the stored moves kept.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.service.hands_journal import _crc, journal_path, read
from board_driver.service.store import Store
from tests.board_driver.daemon_process import (  # noqa: F401 - the fixture is autouse
    DaemonProcess,
    no_daemon_left_running,
    write_config,
)
from tests.board_driver.service.sim_daemon import sim_daemon, start
from tests.board_driver.service.stored import store_game

MOVES = ["e2e4", "e7e5", "g1f3"]
GENERATION = "0123456789abcdef"


def _anchor(started: str, board: str = "-", game_id: str = "1") -> str:
    fen = rules.STARTING_FEN.replace(" ", "_")
    return f"magboard-hands 2 {GENERATION} {game_id} {started} {board} {fen} {','.join(MOVES)}"


def _journal(path: Path, header: str, bodies: list[str]) -> bytes:
    """A journal whose every line's CRC holds."""
    lines = [f"{header} {_crc(GENERATION, header)}"]
    lines += [f"{body} {_crc(GENERATION, body)}" for body in bodies]
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape") + b"\0"
    path.write_bytes(data)
    return data


def _occupancy() -> int:
    return rules.Game.from_record(rules.Position(), MOVES).position.occupancy()


def _kept_history(store_path: Path) -> None:
    """Every move stored before the start is still stored, or its take-back or amendment is
    in the game's history: never lost without a word."""
    with Store.open(store_path, readonly=True) as store:
        game = store.game(1)
        corrected = {c.ply for c in game.corrections}
        for ply, uci in enumerate(MOVES, 1):
            assert ply in corrected or game.ucis[ply - 1 : ply] == [uci], (game.ucis, corrected)


# ---------------------------------------------------------------------- the attack run's

#: (what, first line or None for a sound one, the lines after it, what the log says)
HOSTILE = [
    ("an option of a newer version", None, ["@100 options foo=bar"],
     "option 'foo' is not one this magboard knows: passed over"),
    ("a time of 400 digits", None, ["@" + "9" * 400 + " lift e2"],
     "line skipped: not an event: '@99999999999999999999999999999...' (a time of 400 digits)"),
    ("a clock of 400 digits", None, ["@100 options clock=" + "9" * 400 + "+0"],
     "a number of 400 digits is no time a clock can hold"),
    ("a newer kind of line", None, ["@100 teleport e2 e4", "@200 lift g8"],
     "line skipped: not an event: '@100 teleport e2 e4'"),
    ("a newer version", "magboard-hands 3 {g} 1 T - - - newer", ["@100 lift e2"],
     "written by another magboard (format 3; this one reads 1 and 2)"),
    ("a board of more than 64 bits", "board:" + "f" * 20, ["@100 lift g8"],
     "its first line is damaged (not the pieces standing: 'ffffffffffffffffffff')"),
    ("a board of -1", "board:-1", ["@100 lift g8"],
     "its first line is damaged (not the pieces standing: '-1')"),
    ("a game number of 400 digits", "game:" + "9" * 400, ["@100 lift g8"],
     "its first line is damaged (no game number"),
    ("not a journal at all", "PK\x03\x04 zip", [], "it is not a hands journal"),
]  # fmt: skip
SET_ASIDE = {"a newer version", "a board of more than 64 bits", "a board of -1",
             "a game number of 400 digits", "not a journal at all"}  # fmt: skip


def _header_for(first: str | None, started: str) -> str:
    if first is None:
        return _anchor(started)
    if first.startswith("board:"):
        return _anchor(started, board=first[len("board:") :])
    if first.startswith("game:"):
        return _anchor(started, game_id=first[len("game:") :])
    return first.format(g=GENERATION)


def _check_a_hostile_journal(tmp_path: Path, what: str, first, bodies, said: str) -> None:
    write_config(tmp_path, "[web]\nenabled = false\n")
    store = tmp_path / "games.sqlite"
    started = store_game(store, MOVES)
    (tmp_path / "sim-board.json").write_text(json.dumps({"pieces": f"{_occupancy():016x}"}))
    _journal(journal_path(store), _header_for(first, started), bodies)
    logs = []
    for _attempt in range(2):  # started twice: the second start is as sound as the first
        daemon = DaemonProcess(tmp_path)
        daemon.wait_ready()
        daemon.terminate()
        out = daemon.output()
        logs.append(out)
        assert daemon.proc.returncode == 0, out
        assert "Traceback" not in out, out
        with Store.open(store, readonly=True) as stored:
            assert stored.game(1).ucis == MOVES, (what, out)
    assert said in logs[0], logs[0]
    aside = list(tmp_path.glob("games.sqlite.hands.unreplayed-*"))
    if what in SET_ASIDE:
        assert len(aside) == 1 and f"set aside as {aside[0]}" in logs[0], logs[0]
        assert "is not replayed" not in logs[1], logs[1]  # the new journal is sound
    else:
        assert aside == [], logs[0]


DEFAULT = {"a clock of 400 digits", "a newer version"}  # the others: -m slow


@pytest.mark.parametrize(
    ("what", "first", "bodies", "said"),
    [case for case in HOSTILE if case[0] in DEFAULT],
    ids=[case[0] for case in HOSTILE if case[0] in DEFAULT],
)
def test_a_hostile_journal_never_keeps_the_daemon_from_starting(
    tmp_path: Path, what: str, first, bodies, said: str
) -> None:
    _check_a_hostile_journal(tmp_path, what, first, bodies, said)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("what", "first", "bodies", "said"), HOSTILE, ids=[case[0] for case in HOSTILE]
)
def test_every_hostile_journal_of_the_attack_run_never_keeps_the_daemon_from_starting(
    tmp_path: Path, what: str, first, bodies, said: str
) -> None:
    _check_a_hostile_journal(tmp_path, what, first, bodies, said)


# ---------------------------------------------------------------------- any line at all

KINDS = ["lift", "place", "choose", "button", "expect", "question", "takeback", "end",
         "forfeit", "judge", "options", "headers", "data", "newgame", "read", "start", "setup",
         "teleport", ""]
OPTION_KEYS = ["touch_move", "takeback", "hints", "clock", "clock_switch", "illegal_move",
               "foo", "", "x" * 300]  # fmt: skip
#: Text a line may hold: anything but its end (a newline) and the file's (a NUL).
_CHARS = st.characters(blacklist_characters="\n\r\0", blacklist_categories=("Cs",))
_WORD = st.one_of(
    st.text(_CHARS, max_size=12),
    st.text(_CHARS, min_size=200, max_size=3000),
    st.integers(min_value=-(10**500), max_value=10**500).map(str),
    st.sampled_from(["e2", "e4", "g8", "q", "resign", "new_game", "e2e4", "white", "-",
                     "ffff00000000ffff", "f" * 20, "1", "0", "5+3 delay", "{}", "[]",
                     'null', '["seats",{"white":"human"}]']),
)
_OPTION = st.builds(lambda k, v: f"{k}={v}", st.sampled_from(OPTION_KEYS), _WORD)
_STAMP = st.one_of(
    st.integers(min_value=0, max_value=10**500).map(lambda n: f"@{n}"),
    st.text(_CHARS, max_size=8),
)


_SQUARE = st.builds(lambda f, r: f + r, st.sampled_from("abcdefgh"), st.sampled_from("12345678"))
_UCI = st.builds(
    lambda a, b, p: a + b + p, _SQUARE, _SQUARE, st.sampled_from(["", "", "", "q", "n", "k"])
)
_SIDE = st.sampled_from(["white", "black", "-", "both"])
_TERMINATION = st.sampled_from(
    ["timeout", "resignation", "agreement", "abandoned", "checkmate", "rules_infraction", "x"]
)
_FEN = st.sampled_from(
    [rules.STARTING_FEN, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "8/8/8/8/8/8/8/8 w - - 0 1",
     "4k3/8/8/8/8/8/8/4K3 b - - 0 1", "x x x x x x",
     "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"]
)  # fmt: skip
_TEXTS = st.dictionaries(st.text(_CHARS, max_size=8), st.one_of(st.none(), _WORD), max_size=4)
#: A line of each kind, its parts of the shapes that kind takes (or not quite): what a
#: journal of another version, or edited by hand, may hold that still reads as a line.
_ARGS = {
    "lift": st.tuples(_SQUARE), "place": st.tuples(_SQUARE),
    "choose": st.tuples(st.sampled_from(["q", "r", "b", "n", "k"])),
    "button": st.tuples(st.sampled_from(["resign", "new_game", "draw_offer", "draw_accept",
                                         "claim_draw", "adjust", "clock", "pause", "hint"])),
    "expect": st.tuples(_UCI),
    "question": st.tuples(st.integers(0, 2**64 - 1).map(lambda n: f"{n:016x}")),
    "takeback": st.tuples(st.integers(0, 12).map(str)),
    "end": st.tuples(_TERMINATION, _SIDE), "forfeit": st.tuples(_SIDE, _TERMINATION),
    "judge": st.just(()),
    "options": st.tuples(st.lists(_OPTION, min_size=1, max_size=6).map(",".join)),
    "headers": st.tuples(
        st.dictionaries(st.text(_CHARS, min_size=1, max_size=12), st.text(_CHARS, max_size=40),
                        max_size=4).map(lambda d: urllib.parse.urlencode(d) or "White=x")
    ),
    "data": st.tuples(st.builds(lambda e, d: json.dumps([e, d]).replace(" ", ""),
                                st.text(_CHARS, min_size=1, max_size=10), _TEXTS)),
    "newgame": st.tuples(st.sampled_from(["0", "1"]),
                         st.lists(_UCI, max_size=3).map(lambda m: ",".join(m) or "-"), _FEN),
    "read": st.tuples(st.lists(_UCI, max_size=2).map(lambda m: ",".join(m) or "-"),
                      st.integers(0, 2**64 - 1).map(lambda n: f"{n:016x}")),
    "start": st.tuples(st.sampled_from(["standard", "chess960", "xiangqi"]), _FEN),
    "setup": st.one_of(st.just(()), st.tuples(_FEN.map(lambda fen: fen.split(" ")[0]))),
}  # fmt: skip


@st.composite
def _line(draw) -> str:
    """A line of a known kind, well formed or nearly (most of them), or of any words."""
    if draw(st.integers(0, 9)) < 8:
        kind = draw(st.sampled_from(sorted(_ARGS)))
        args = list(draw(_ARGS[kind]))
        stamp = f"@{draw(st.integers(0, 30_000))}"
        if draw(st.integers(0, 9)) == 0:  # now and then a part of any words
            args.append(draw(_WORD))
        if draw(st.integers(0, 19)) == 0:
            stamp = draw(_STAMP)
    else:
        kind = draw(st.one_of(st.sampled_from(KINDS), st.text(_CHARS, max_size=10)))
        if kind == "options":
            args = [",".join(draw(st.lists(_OPTION, min_size=1, max_size=6)))]
        else:
            args = draw(st.lists(_WORD, max_size=9))
        stamp = draw(_STAMP)
    return " ".join([stamp, kind, *args]).rstrip() or "@0"


def _game_went_on_only_as_lines_say(tmp: Path, said: str) -> None:
    _kept_history(tmp / "g.sqlite")
    assert "Traceback" not in said


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("template")
    return folder, store_game(folder / "g.sqlite", MOVES)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_line(), min_size=1, max_size=12), header=st.integers(0, 9))
def test_random_crc_valid_lines_never_keep_a_real_start_from_becoming_ready(
    template, tmp_path_factory, lines: list[str], header: int
) -> None:
    folder, started = template
    tmp = tmp_path_factory.mktemp("start")
    shutil.copy(folder / "g.sqlite", tmp / "g.sqlite")
    first = _anchor(started)
    if header == 0:  # now and then, a first line of any words
        first = f"magboard-hands 2 {GENERATION} {lines[0]}"
    _journal(journal_path(tmp / "g.sqlite"), first, lines)
    read_back = journal_path(tmp / "g.sqlite").read_bytes()
    try:
        read(read_back)  # the reader alone: a value, or Unreadable, never anything else
    except ValueError:
        pass
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("magboard").addHandler(handler)
    try:
        daemon = sim_daemon(tmp, SimulatedBoard(pieces=_occupancy()))

        async def scenario() -> None:
            task = await start(daemon)  # ready: its starting lights gone
            daemon.stop()
            assert await task == 0

        asyncio.run(scenario())
    finally:
        logging.getLogger("magboard").removeHandler(handler)
    said = "\n".join(r.getMessage() for r in records)
    _game_went_on_only_as_lines_say(tmp, said)
    assert not [r for r in records if r.exc_info], said


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_line(), min_size=1, max_size=12), header=st.integers(0, 9))
def test_random_crc_valid_lines_never_keep_the_daemon_process_from_starting(
    template, tmp_path_factory, lines: list[str], header: int
) -> None:
    """The property above through the real process (``magboard run``), started twice."""
    folder, started = template
    tmp = tmp_path_factory.mktemp("process")
    write_config(tmp, "[web]\nenabled = false\n")
    shutil.copy(folder / "g.sqlite", tmp / "games.sqlite")
    (tmp / "sim-board.json").write_text(json.dumps({"pieces": f"{_occupancy():016x}"}))
    first = _anchor(started) if header else f"magboard-hands 2 {GENERATION} {lines[0]}"
    _journal(journal_path(tmp / "games.sqlite"), first, lines)
    for _attempt in range(2):
        daemon = DaemonProcess(tmp)
        daemon.wait_ready()
        daemon.terminate()
        assert daemon.proc.returncode == 0 and "Traceback" not in daemon.output()
    _kept_history(tmp / "games.sqlite")


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_line(), min_size=1, max_size=30), header=st.integers(0, 9))
def test_many_random_journals_never_keep_a_real_start_from_becoming_ready(
    template, tmp_path_factory, lines: list[str], header: int
) -> None:
    test_random_crc_valid_lines_never_keep_a_real_start_from_becoming_ready.hypothesis.inner_test(
        template, tmp_path_factory, lines, header
    )
