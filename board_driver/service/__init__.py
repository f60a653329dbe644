"""The service: the daemon that runs the board, and what it keeps.

- :mod:`.daemon`: one asyncio loop from the switches to the lights, its start and stop;
- :mod:`.store`: every game in SQLite, a transaction per move;
- :mod:`.config`: ``/etc/magboard/config.toml``, every key optional and checked;
- :mod:`.notify`: systemd's READY, WATCHDOG and STATUS.
"""
