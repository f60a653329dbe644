"""Players who are not at the board: they choose a side's moves, and people execute them.

- :mod:`.engine`: a UCI engine (Stockfish) on the Pi.
"""
