"""magboard's board driver: everything that makes a physical board a player's board.

Sensing and LED ports with their backends, debounce, the move tracker, feedback,
the daemon, config, store, command line and web page. The laws of chess live in
:mod:`rules`; the serial link to a microcontroller in :mod:`firmware_bridge`.
"""
