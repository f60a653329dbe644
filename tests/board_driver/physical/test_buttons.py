"""Buttons: GPIO reading through the fake libraries, debounce, and the events they make."""

import threading

import pytest

from board_driver.physical.buttons import (
    ButtonConfigError,
    ButtonPresses,
    ButtonSource,
    GpioButtons,
    open_buttons,
)
from board_driver.physical.events import BUTTON_NAMES, PROMOTION_LETTERS, Button, Choose
from board_driver.physical.pinmap import DEFAULT_BUTTON_PINS
from tests.fakes import fake_hw_fixture  # noqa: F401


class Clock:
    def __init__(self):
        self.t = 0

    def __call__(self):
        return self.t


def hold(world, pin, ms, buttons, clock, step=5):
    """Hold a button down for ``ms`` while polling every ``step`` ms, then release."""
    world.buttons[pin] = True
    pressed = []
    for _ in range(ms // step):
        clock.t += step
        pressed += buttons.poll()
    world.buttons[pin] = False
    for _ in range(50 // step):
        clock.t += step
        pressed += buttons.poll()
    return pressed


@pytest.mark.parametrize("gpio", ["gpiod", "rpigpio"])
def test_a_press_to_ground_is_one_event_after_debounce(fake_hw, gpio):
    clock = Clock()
    buttons = GpioButtons(gpio=gpio, dev_dir=str(fake_hw.dev_dir), clock=clock)
    events = []
    buttons._presses = ButtonPresses(events.append)  # deliver without the polling thread
    assert hold(fake_hw, DEFAULT_BUTTON_PINS["resign"], 120, buttons, clock) == ["resign"]
    assert events == [Button(35, "resign")]  # pressed at 5 ms, stable for 30 ms
    assert all(fake_hw.pins[p].bias == "up" for p in DEFAULT_BUTTON_PINS.values())
    buttons.close()


def test_a_blip_shorter_than_the_debounce_is_not_a_press(fake_hw):
    clock = Clock()
    buttons = GpioButtons(dev_dir=str(fake_hw.dev_dir), clock=clock)
    assert hold(fake_hw, DEFAULT_BUTTON_PINS["adjust"], 15, buttons, clock) == []


def test_a_button_held_at_start_is_not_a_press(fake_hw):
    clock = Clock()
    fake_hw.buttons[DEFAULT_BUTTON_PINS["new_game"]] = True
    buttons = GpioButtons(dev_dir=str(fake_hw.dev_dir), clock=clock)
    for _ in range(20):
        clock.t += 5
        assert buttons.poll() == []


def test_promote_cycles_through_the_pieces_starting_with_a_knight():
    events = []
    presses = ButtonPresses(events.append)
    for t in range(5):
        presses.press("promote", t)
    assert [e.piece for e in events] == ["n", "r", "b", "q", "n"]
    assert all(isinstance(e, Choose) and e.piece in PROMOTION_LETTERS for e in events)


def test_every_other_button_is_a_board_script_button():
    events = []
    presses = ButtonPresses(events.append)
    for name in ("adjust", "claim_draw", "resign", "new_game", "hint"):
        presses.press(name, 1)
    assert all(isinstance(e, Button) and e.name in BUTTON_NAMES for e in events)
    with pytest.raises(ButtonConfigError, match="unknown button 'panic'"):
        presses.press("panic", 1)


def test_the_polling_thread_delivers_presses(fake_hw):
    buttons = open_buttons("gpio", dev_dir=str(fake_hw.dev_dir), claim_draw=21, resign=None)
    assert isinstance(buttons, ButtonSource)
    assert buttons.names == ("claim_draw",)
    got = threading.Event()
    events = []
    buttons.start(lambda e: (events.append(e), got.set()))
    try:
        fake_hw.buttons[21] = True
        assert got.wait(2.0)
    finally:
        buttons.close()
    assert [e.name for e in events] == ["claim_draw"]


def test_button_config_errors_name_the_key(fake_hw):
    assert open_buttons("none") is None
    with pytest.raises(ButtonConfigError, match=r"\[buttons\] resign: 99 is not a BCM GPIO"):
        open_buttons("gpio", resign=99)
    with pytest.raises(ValueError, match=r"GPIO 5 is used twice"):
        open_buttons("gpio", resign=5, hint=5)
    with pytest.raises(ButtonConfigError, match=r"backend must be 'gpiod', 'rpigpio', 'bridge'"):
        open_buttons("usb")
