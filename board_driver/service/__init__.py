"""The service: the daemon that runs the board, and what it keeps.

- :mod:`.daemon`: one asyncio loop from the switches to the lights, its start and stop;
  :mod:`.intake` (the board's events in, in order), :mod:`.recorder` (the game in the
  store), :mod:`.lights` (what the LEDs show), :mod:`.hardware` (opening the ports),
  :mod:`.journal` (the log's lines);
- :mod:`.doorway`: the one door into the running board, with :mod:`.subscriptions`;
  :mod:`.extensions`: starting and stopping what plugs into it;
- :mod:`.store`: every game in SQLite, a transaction per move (schema, damage, recovery
  and PGN in the ``store_*`` modules);
- :mod:`.config`: ``/etc/magboard/config.toml``, every key optional and checked;
- :mod:`.notify`: systemd's READY, WATCHDOG and STATUS.
"""
