"""The arbiter: board events in, chess out.

- :mod:`.tracker`: lifts, places and buttons -> moves, illegal positions, take-backs,
  claims, the end of the game (it owns a :class:`rules.Game`);
- :mod:`.footprint`: what a legal move does to the occupancy, and when the board shows
  it done or on its way; :mod:`.touch`: touch-move (FIDE 4.3); :mod:`.expected`: the
  move of a player who is not at the board (an engine, an online opponent);
- :mod:`.feedback`: the tracker's state -> the LED frame it asks for.
"""
