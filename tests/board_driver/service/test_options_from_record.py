"""A stored game's options read back (a resumed or adjourned game): a value this magboard
cannot use (another version's word, a clock it cannot read) gives way to the config's
value, the log names it, and the other options are kept."""

from __future__ import annotations

import logging

from board_driver.service.config.sections import GameConfig
from board_driver.service.recorder import options_from_record


def test_a_stored_option_this_version_cannot_use_gives_way_to_the_configs(caplog):
    config = GameConfig(touch_move="enforce", hints=True)
    record = {"touch_move": "sometimes", "hints": "false", "clock": "5+3", "clock_switch": "x"}
    with caplog.at_level(logging.WARNING):
        options = options_from_record(record, config)
    assert options.touch_move == "enforce"  # the config's, not the stored "sometimes"
    assert (options.hints, options.clock, options.clock_switch) == (False, "5+3", "board")
    said = caplog.text
    assert "stored game option touch_move cannot be used" in said
    assert "stored game option clock_switch cannot be used" in said
    assert "hints" not in said


def test_a_clock_this_version_cannot_read_leaves_the_game_without_one(caplog):
    options = options_from_record({"clock": "5 fortnights", "touch_move": "off"}, GameConfig())
    assert (options.clock, options.touch_move) == ("none", "off")
    assert "stored game option clock cannot be used" in caplog.text


def test_a_game_stored_before_clocks_has_none():
    assert options_from_record({"touch_move": "warn"}, GameConfig()).clock == "none"
