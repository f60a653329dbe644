"""docs/engine.md shows only log lines the daemon prints (issue 24, item 13): every line
of its log examples, and every `engine: ...` it quotes, matches one of the engine's log
calls, read from the code with ``ast``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

GUIDE = ROOT / "docs" / "engine.md"
ENGINE_CODE = sorted((ROOT / "board_driver" / "players" / "engine").glob("*.py"))
LOG_CALLS = ("debug", "info", "warning", "error", "exception")
#: A log example in the guide: a fenced block without a language, or an inline quote.
LOG_PREFIXES = ("engine: ", "engine move: ", "hint: ")


def log_formats(paths: list[Path]) -> list[str]:
    """The format string of every ``log.<level>("...", ...)`` call in ``paths``."""
    formats = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in LOG_CALLS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                formats.append(node.args[0].value)
    return formats


CONVERSION = re.compile(r"%[-+ #0-9.]*[sdgfr]")


def as_pattern(log_format: str) -> re.Pattern[str]:
    """A %-format as a regular expression: each conversion matches any text."""
    return re.compile(".+".join(re.escape(part) for part in CONVERSION.split(log_format)))


def as_prefix_pattern(log_format: str) -> re.Pattern[str]:
    """What the lines a %-format prints may start with: any beginning of one."""

    def any_start(literal: str) -> str:
        pattern = ""
        for char in reversed(literal):
            pattern = f"(?:{re.escape(char)}{pattern})?"
        return pattern

    parts = CONVERSION.split(log_format)
    starts = [
        "".join(re.escape(part) + ".+" for part in parts[:i]) + any_start(parts[i])
        for i in range(len(parts))
    ]
    return re.compile("|".join(f"(?:{start})" for start in starts))


def guide_lines(text: str) -> list[str]:
    """The log lines the guide shows: in bare fenced blocks, and quoted inline (where
    "..." stands for the rest)."""
    lines = []
    fence: str | None = None  # the open block's language ("" for none), or None
    for line in text.splitlines():
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
        elif fence == "" and line.startswith(LOG_PREFIXES):
            lines.append(line)
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for quoted in re.findall(r"`([^`]+)`", prose):
        quoted = " ".join(quoted.split())  # a quote may wrap onto the next line
        if quoted.startswith(LOG_PREFIXES):
            lines.append(quoted)
    return lines


def test_the_finder_reads_the_formats_and_their_lines(tmp_path):
    source = tmp_path / "m.py"
    source.write_text('log.info("engine: %s plays %s (%s)", a, b, c)\nlog.info(f"x{y}")\n')
    (found,) = log_formats([source])
    assert as_pattern(found).fullmatch("engine: Stockfish 15.1 plays black (skill 10)")
    assert not as_pattern(found).fullmatch("engine: Stockfish 15.1 is black")
    assert as_prefix_pattern(found).fullmatch("engine: Stockfish 15.1 plays bl")
    assert not as_prefix_pattern(found).fullmatch("engines: Stockfish")
    text = "```\nengine: a\nnot a log line\n```\nand `engine: b ...` inline\n```toml\nx\n```"
    assert guide_lines(text) == ["engine: a", "engine: b ..."]


def test_every_log_line_the_engine_guide_shows_is_one_the_code_prints():
    formats = log_formats(ENGINE_CODE)
    shown = guide_lines(GUIDE.read_text(encoding="utf-8"))
    assert len(shown) >= 5, shown  # the guide's examples were found
    for line in shown:
        if "..." in line:  # quoted in part: a line the code prints starts so
            start = line.split("...")[0].rstrip()
            assert any(as_prefix_pattern(f).fullmatch(start) for f in formats), line
        else:
            assert any(as_pattern(f).fullmatch(line) for f in formats), f"not printed: {line}"
