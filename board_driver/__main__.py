"""``python -m board_driver`` is the ``magboard`` command."""

from board_driver.cli import main

raise SystemExit(main())
