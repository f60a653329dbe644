"""Connectors: everything outside the board's own path that talks to the running board,
each an extension on the door (:mod:`board_driver.door`, :mod:`board_driver.door.extension`).

- :mod:`.web`: the page the daemon serves (HTTP and WebSocket);
- :mod:`.terminal`: the board drawn in a terminal by ``magboard run`` at a keyboard;
- :mod:`.emulation`: the DGT and Millennium ChessLink protocols, for apps;
- :mod:`.broadcast`: the live game published to a hall's MQTT broker.
"""
