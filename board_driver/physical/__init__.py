"""The physical side of the board: what the hands touch and what the eyes see.

Nothing here knows chess. It turns reed switches into debounced lifts and places, and
LED frames into pixels:

- :mod:`.sensing`: the switch matrix read by ``gpiod``, ``RPi.GPIO``, the serial bridge
  or the simulator, and the scan loop that hands scans ``(t_ms, bitmap)`` on;
- :mod:`.debounce`: raw scans -> ``lift``/``place`` events, per square;
- :mod:`.leds`: frames -> NeoPixels (SPI, PWM, bridge, simulator), with layout,
  brightness cap and gamma;
- :mod:`.buttons`: push-buttons on GPIO or the bridge -> ``button``/``choose`` events;
- :mod:`.ports`: the small interfaces every backend fits; :mod:`.pinmap`,
  :mod:`.gpiolines`, :mod:`.hwlib`: pins, line look-up, lazy hardware imports;
- :mod:`.diagnose`: bring-up checks of a newly built board (``magboard diagnose``).
"""
