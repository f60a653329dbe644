"""magboard bridge firmware for an RP2040 under CircuitPython.

The modules avoid dataclasses, typing and anything else CircuitPython lacks at runtime, so
they import unchanged under CPython, where the tests run them against fake ``board``,
``digitalio``, ``neopixel`` and ``usb_cdc`` modules.
"""

VERSION = "1.0"
