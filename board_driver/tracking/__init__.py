"""The pieces of the move tracker (:mod:`board_driver.tracker` puts them together).

- :mod:`.footprint`: what a legal move does to the board's occupancy, and when the
  board shows it done or on its way;
- :mod:`.touch`: the touch-move obligation (FIDE 4.3), from the pieces lifted.
"""
