"""The attack run's fuzzers, kept (issue 17): mutated board scripts and FENs through the
replay path, generated configs through the config check. Whatever they are given, the
answer is a result or a clear error that names what and where: never a traceback.

Counts: 1,500 scripts, 1,500 FENs and 800 configs in the default run; 40,000 scripts and
FENs and 6,000 configs marked slow, as the attack run had them. Seeded: a failure names its
seed and case, so it can be replayed.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from board_driver.boardscript.replay import replay_script
from board_driver.boardscript.script import ScriptError, parse_script
from board_driver.service.config import ConfigError, parse_config
from board_driver.service.config.paths import file_problems
from board_driver.service.config.sections import SECTIONS
from rules import STARTING_FEN, Position
from tests.conftest import SCHOLARS_MATE

SEED = 20261123
FENS = [
    STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
]
JUNK = [
    "", " ", "@", "@-1", "@99999999999999999999", "lift", "place z9", "choose k", "button x",
    "scan 00", "scan " + "f" * 16, "scan " + "g" * 16, "wait -5", "wait 1e9", "gap", "gap 0",
    "option hints maybe", "option touch_move enforce", "fen", "fen " + "9" * 3000, "#",
    "\x00", "lift e2 e4", "é", "\u202e", "lift E2", "@1 @2 lift e2", "place e4 # x",
]  # fmt: skip


def mutate(rng: random.Random, lines: list[str]) -> list[str]:
    lines = list(lines)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        i = rng.randrange(len(lines) + 1)
        if kind == 0 and lines:
            del lines[min(i, len(lines) - 1)]
        elif kind == 1:
            lines.insert(i, rng.choice(JUNK))
        elif kind == 2 and lines:
            j = min(i, len(lines) - 1)
            line = lines[j]
            k = rng.randrange(len(line) + 1)
            lines[j] = line[:k] + rng.choice(string.printable + "\x00é") + line[k + 1 :]
        elif kind == 3 and len(lines) > 1:
            j, k = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[j], lines[k] = lines[k], lines[j]
        elif kind == 4:
            lines.insert(i, f"@{rng.choice([0, 1, 299, 10**6, 10**18])} lift e2")
        else:
            lines.insert(0, f"fen {mutate_fen(rng, rng.choice(FENS))}")
    return lines


def mutate_fen(rng: random.Random, fen: str) -> str:
    chars = list(fen)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(chars) + 1)
        op = rng.randrange(4)
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, rng.choice("pnbrqkPNBRQK12345678/ -wbKQkqa3e6" + "9" * 3))
        elif op == 2 and chars:
            chars[min(i, len(chars) - 1)] = rng.choice(string.printable)
        else:
            chars[i:i] = list(str(rng.choice([10**6, 10**40, 2**63])))
    return "".join(chars)


def check_scripts(count: int) -> None:
    rng = random.Random(SEED)
    base = SCHOLARS_MATE.splitlines()
    for case in range(count):
        text = "\n".join(mutate(rng, base))
        try:
            script = parse_script(text, f"case-{case}")
        except ScriptError as error:
            assert str(error).startswith(f"case-{case}:"), error  # names the script and line
            continue
        try:
            result = replay_script(script)
        except Exception as exc:  # the replay of a readable script must never fail
            raise AssertionError(f"seed {SEED} case {case}: {exc!r}\n{text}") from exc
        assert result.to_json()["result"] in ("1-0", "0-1", "1/2-1/2", "*")


def check_fens(count: int) -> None:
    rng = random.Random(SEED + 1)
    for case in range(count):
        fen = mutate_fen(rng, rng.choice(FENS))
        try:
            position = Position.from_fen(fen)
        except ValueError as error:  # FenError: says which field
            assert len(str(error)) < 400, (case, str(error)[:200])
            continue
        except Exception as exc:
            raise AssertionError(f"seed {SEED + 1} case {case}: {exc!r} for {fen!r}") from exc
        position.legal_moves()
        assert Position.from_fen(position.fen()).fen() == position.fen()


def random_value(rng: random.Random):
    return rng.choice([
        0, -1, 1, 2**70, 0.5, float("inf"), True, "", "x" * rng.choice([1, 300, 5000]),
        "a\u0000b", "/dev/zero", "/proc/self/status", "/tmp", [], [1] * 8, ["a"] * 8,
        list(range(8)), [1, "b", 3, 4, 5, 6, 7, 8], {"k": 1}, "gpiod", "sim", "127.0.0.1",
    ])  # fmt: skip


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == float("inf"):
        return "inf"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\0", "\\u0000") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


def check_configs(count: int, tmp_path: Path) -> None:
    rng = random.Random(SEED + 2)
    names = [*SECTIONS, "web", "engine", "lichess", "nonsense"]
    for case in range(count):
        lines = []
        for section in rng.sample(names, rng.randint(1, 4)):
            lines.append(f"[{section}]")
            keys = list(SECTIONS.get(section, (None, {"enabled": None, "port": None}))[1])
            for key in rng.sample([*keys, "bogus"], min(len(keys) + 1, rng.randint(1, 5))):
                lines.append(f"{key} = {toml_value(random_value(rng))}")
        text = "\n".join(lines) + "\n"
        try:
            config = parse_config(text, source=f"case-{case}")
        except ConfigError as error:
            assert all(p.startswith("[") or "TOML" in p for p in error.problems), error
            assert len(str(error)) < 8000
            continue
        except Exception as exc:
            raise AssertionError(f"seed {SEED + 2} case {case}: {exc!r}\n{text}") from exc
        file_problems(config.with_sim())


def test_mutated_scripts_read_or_say_which_line(tmp_path) -> None:
    check_scripts(1500)


def test_mutated_fens_read_or_say_which_field() -> None:
    check_fens(1500)


def test_generated_configs_read_or_name_their_keys(tmp_path) -> None:
    check_configs(800, tmp_path)


@pytest.mark.slow
def test_the_attack_runs_counts(tmp_path) -> None:
    """40,000 scripts, 40,000 FENs, 6,000 configs."""
    check_scripts(40_000)
    check_fens(40_000)
    check_configs(6_000, tmp_path)
