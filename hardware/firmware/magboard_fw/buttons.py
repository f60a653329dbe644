"""Push buttons between a pin and ground, read with pull-ups and debounced."""

import digitalio


class Buttons:
    """``poll(now_ms)`` returns the names of the buttons pressed since the last poll.

    A press counts once, when the pin has read low for ``debounce_ms``; the button must then
    read high for as long before it can count again.
    """

    def __init__(self, pins_by_name, debounce_ms=20):
        self.debounce_ms = debounce_ms
        self._buttons = []
        for name in sorted(pins_by_name):
            pin = digitalio.DigitalInOut(pins_by_name[name])
            pin.switch_to_input(pull=digitalio.Pull.UP)
            # [name, pin, debounced pressed?, reading differs since (ms) or None]
            self._buttons.append([name, pin, False, None])

    def poll(self, now_ms):
        pressed = []
        for button in self._buttons:
            reading = not button[1].value
            if reading == button[2]:
                button[3] = None
                continue
            if button[3] is None:
                button[3] = now_ms
            elif now_ms - button[3] >= self.debounce_ms:
                button[2] = reading
                button[3] = None
                if reading:
                    pressed.append(button[0])
        return pressed

    def deinit(self):
        for button in self._buttons:
            button[1].deinit()
