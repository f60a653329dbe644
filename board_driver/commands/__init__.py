"""One module per ``magboard`` subcommand; see :mod:`board_driver.cli`."""
