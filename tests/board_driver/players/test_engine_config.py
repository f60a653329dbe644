"""``[engine]`` in the config file: read, defaults, every bad value named by its key."""

from __future__ import annotations

import pytest

from board_driver.service.config import Config, ConfigError, parse_config, to_toml


def test_engine_defaults_to_nobody() -> None:
    engine = Config().engine
    assert engine.side == "none"
    assert (engine.path, engine.skill, engine.depth, engine.movetime_ms) == ("", 10, 0, 1000)


def test_engine_section_is_read() -> None:
    config = parse_config(
        """
[engine]
side = "black"
path = "/usr/games/stockfish"
skill = 3
depth = 6
movetime_ms = 0
elo = 1500
threads = 2
hash_mb = 32
"""
    )
    engine = config.engine
    assert (engine.side, engine.path, engine.skill, engine.depth) == (
        "black",
        "/usr/games/stockfish",
        3,
        6,
    )
    assert (engine.movetime_ms, engine.elo, engine.threads, engine.hash_mb) == (0, 1500, 2, 32)
    assert parse_config(to_toml(config)) == config


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('side = "both"', '[engine] side: "both" is not one of "none", "white", "black"'),
        ("skill = 25", "[engine] skill: 25 is not between 0 and 20"),
        ("skill = true", "[engine] skill: true is not a whole number"),
        ("depth = -1", "[engine] depth: -1 is not between 0 and 100"),
        ("elo = 100", "[engine] elo: 100 is not an Elo rating between 500 and 4000 (or 0 for off)"),
        ("threads = 0", "[engine] threads: 0 is not between 1 and 64"),
        ("threads = 512", "[engine] threads: 512 is not between 1 and 64"),
        ("hash_mb = 65536", "[engine] hash_mb: 65536 is not between 1 and 4096"),
        ("path = 7", "[engine] path: 7 is not a string"),
        ("level = 3", "[engine] level: unknown key (known: side, path, skill, depth"),
        ("movetime_ms = 0", "[engine] movetime_ms: 0 (no time limit) needs a depth"),
    ],
)
def test_a_bad_engine_value_is_named_by_its_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(f"[engine]\n{text}\n", source="config.toml")
    assert f"config.toml: {message}" in str(caught.value)
