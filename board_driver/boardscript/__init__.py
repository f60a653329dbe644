"""Board scripts: what hands did, as text (``docs/board-script.md``).

- :mod:`.script`: the format, parsed strictly and written back;
- :mod:`.feed`: a script played into the simulated board in real time
  (``magboard run --sim --script``);
- :mod:`.replay`: a script replayed through the tracker alone (``magboard replay``).
"""
