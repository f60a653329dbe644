"""``python -m board_driver`` is the ``magboard`` command."""

from board_driver.commands import main

raise SystemExit(main())
