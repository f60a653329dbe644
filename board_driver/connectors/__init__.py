"""Connectors: everything outside the board's own path that talks to the running board.

- :mod:`.web`: the page the daemon serves (HTTP and WebSocket).
- :mod:`.emulation`: the DGT and Millennium ChessLink protocols, for apps.
"""
