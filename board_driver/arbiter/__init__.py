"""The arbiter: board events in, chess out.

- :mod:`.tracker`: lifts, places and buttons -> moves, illegal positions, take-backs,
  claims, the end of the game (it owns a :class:`rules.Game`); its parts:
  :mod:`.reading` (one move read from the hands), :mod:`.hands` (what one lift or place
  means, at any pace), :mod:`.rereading` (the hands read again when the board stops making
  sense), :mod:`.amendments` (castling rook first, a late promotion choice),
  :mod:`.takebacks`, :mod:`.controls` (buttons, offers, claims, endings), :mod:`.setup`
  (a new game), :mod:`.expected` (the move of a player who is not at the board: an
  engine, an online opponent), :mod:`.lights` (the frame, and what it asks in words);
- :mod:`.options`: the game's options and the timing of hands; :mod:`.game_events`: the
  events the tracker announces, named and built in one place; :mod:`.words`: what the
  lights ask and why a position is illegal, in words;
- :mod:`.footprint`: what a legal move does to the occupancy, and when the board shows
  it done or on its way; :mod:`.touch`: touch-move (FIDE 4.3);
- :mod:`.feedback`: the tracker's state -> the LED frame it asks for.
"""
