"""The board's web page: watch the game, steer it, and play on the simulated board.

Served by the daemon (:class:`board_driver.connectors.web.server.WebServer`) on its own loop. The
page, its script and its style sheet live in ``static/`` inside this package: no CDN, no
build step, so a Pi with no internet serves all of it.
"""
