"""``magboard --help`` and ``--version`` as a newcomer reads them (issue 16, item 12)."""

from __future__ import annotations

import argparse
import re
import tomllib

from board_driver.commands import build_parser
from tests.board_driver.daemon_process import ROOT, run_magboard


def _subparsers(parser: argparse.ArgumentParser, path: str = "magboard"):
    """(name, parser) of every subcommand, at every depth (``config check``, ...)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{path} {name}", sub
                yield from _subparsers(sub, f"{path} {name}")


def test_version_prints_the_packages_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    result = run_magboard("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"magboard {version}"


def test_every_subcommand_has_a_description_and_every_option_a_help_text():
    for name, parser in _subparsers(build_parser()):
        assert parser.description and len(parser.description) > 20, name
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, f"{name} {'/'.join(action.option_strings) or action.dest}"


def test_help_lists_each_subcommand_with_what_it_does():
    text = run_magboard("--help").stdout
    for command in ("run", "replay", "diagnose", "config", "games", "pgn", "store", "demo"):
        assert re.search(rf"^\s+{command}\s+\S", text, re.M), command
    assert "--version" in text


def test_a_commands_options_go_before_or_after_its_action(tmp_path):
    """Issue 24, item 13: `magboard config --config X check` was refused."""
    config = tmp_path / "c.toml"
    config.write_text("[leds]\nbrightness = 1.7\n")
    for argv in (("config", "--config", str(config), "check"),
                 ("config", "check", "--config", str(config))):  # fmt: skip
        result = run_magboard(*argv)
        assert result.returncode == 2, (argv, result.stderr)
        assert "[leds] brightness: 1.7 is not between 0 and 1" in result.stderr, argv
    shown = run_magboard("config", "--config", str(config.with_name("none.toml")), "--sim", "show")
    assert "none.toml" in shown.stdout + shown.stderr
    store = tmp_path / "nowhere.sqlite"
    for argv in (("store", "--store", str(store), "check"),
                 ("store", "check", "--store", str(store)),
                 ("store", "--store", str(store), "recover")):  # fmt: skip
        result = run_magboard(*argv)
        assert result.returncode == 1 and f"{store}: no such database" in result.stderr, argv
    # Given in both places, the one after the action counts (it is the nearer).
    args = build_parser().parse_args(["config", "--config", "a", "check", "--config", "b"])
    assert args.config == "b"
