"""``[speech]`` and the question buttons in the config file: read, every bad value named
by its key, ``config check`` and ``run`` agreeing; and the modules' examples."""

from __future__ import annotations

import doctest
import importlib

import pytest

from board_driver.physical.buttons import BUTTONS
from board_driver.physical.events import ASK_BUTTONS, BUTTON_NAMES
from board_driver.service.config import ConfigError, parse_config
from firmware_bridge.packets import BUTTON_CODES
from tests.board_driver.daemon_process import run_magboard, write_config


def problems(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="config.toml")
    return str(caught.value)


def test_speech_is_off_by_default_and_read_when_set():
    assert parse_config("").speech.enabled is False
    speech = parse_config(
        '[speech]\nenabled = true\nlanguage = "fr"\nrate = -20\nmoves = false\n'
        'voice = "fr-be"\nlow_time_s = 30\n'
    ).speech
    assert (speech.language, speech.rate, speech.voice) == ("fr", -20, "fr-be")
    assert speech.low_time_s == 30
    assert "moves" not in speech.categories() and "other_side" in speech.categories()


def test_every_bad_speech_value_is_named():
    text = problems(
        '[speech]\nenabled = true\nlanguage = "it"\nrate = 300\nbackend = "festival"\n'
        'voice = "two words"\nmoves = "yes"\nlow_time_s = -1\n'
    )
    assert '[speech] language: "it" is not one of "en", "fr", "de", "es"' in text
    assert "[speech] rate: 300 is not between -100 and 100" in text
    assert '[speech] backend: "festival" is not one of "auto", "dispatcher", "espeak"' in text
    assert '[speech] voice: "two words" is not a voice\'s name' in text
    assert '[speech] moves: "yes" is not true or false' in text
    assert "[speech] low_time_s: -1 is not between 0 and 3600" in text


def test_an_output_that_cannot_be_a_directory_is_named(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    text = problems(f'[speech]\nenabled = true\noutput = "{afile}"\n')
    assert f"[speech] output: {afile} is not a directory" in text
    assert parse_config(f'[speech]\nenabled = true\noutput = "{tmp_path / "new" / "dir"}"\n')


def test_config_check_names_a_bad_speech_value(tmp_path):
    config = write_config(tmp_path, '[speech]\nenabled = true\nlanguage = "klingon"\n')
    checked = run_magboard("config", "check", "--config", str(config))
    assert checked.returncode == 2
    assert '[speech] language: "klingon" is not one of' in checked.stderr + checked.stdout


def test_the_question_buttons_are_buttons_everywhere():
    """One list of names: board scripts, the door, GPIO pins in [buttons], the bridge."""
    assert set(ASK_BUTTONS) <= BUTTON_NAMES
    assert set(ASK_BUTTONS) <= set(BUTTONS)
    assert set(ASK_BUTTONS) <= set(BUTTON_CODES.values())
    # GPIO18 is free beside the default SPI LEDs; GPIO 7 once new_game gives it up.
    buttons = parse_config(
        '[buttons]\nbackend = "gpiod"\nsay_move = 18\nnew_game = false\nsay_square = 7\n'
    ).buttons
    assert buttons.pins()["say_move"] == 18 and buttons.pins()["say_square"] == 7
    text = problems('[buttons]\nbackend = "gpiod"\nsay_clocks = 99\n')
    assert "[buttons] say_clocks: 99 is not a BCM GPIO number" in text


@pytest.mark.parametrize(
    "name",
    [
        "board_driver.spoken.words",
        "board_driver.spoken.reasons",
        "board_driver.spoken.asks",
        "board_driver.spoken.narrator",
        "board_driver.connectors.speech.speaker",
        "board_driver.connectors.speech.ssip",
        "board_driver.connectors.speech.voices",
    ],
)
def test_the_module_examples_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
