"""Players who are not at the board: they choose a side's moves, and people execute them.
Each is an extension on the door that registers itself with ``door.add_player``.

- :mod:`.engine`: a UCI engine (Stockfish) on the Pi;
- :mod:`.lichess`: an online opponent through Lichess's Board API.
"""
