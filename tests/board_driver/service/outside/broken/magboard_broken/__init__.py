"""An extension whose module cannot be imported (a test package): a library it needs is
not installed."""

import magboard_broken_needs_this_library  # noqa: F401 - not installed anywhere

extension = None
